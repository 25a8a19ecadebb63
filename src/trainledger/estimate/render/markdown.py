"""Markdown layout of an estimate view or a procurement comparison view.

Every piece of text that comes from the user or from data — the estimate's name, the price book's
path, sources, owners, notes, warnings, anything in a table cell — goes through the shared
``trainledger.mdtext`` helpers (``inline``, ``table``): it stays on its line and inert, so a name
such as ``x\\r# heading <img …>`` can neither start a heading nor open HTML. Only the renderer's own
headings and column labels are written as they are.
"""

from __future__ import annotations

from trainledger.estimate.render.labels import t
from trainledger.mdtext import inline, table


def _table(header: list[str], rows: list[list[object]]) -> list[str]:
    return [*table(header, rows), ""]


def _items(pairs: list[tuple[str, str]]) -> list[str]:
    return [f"- **{inline(k)}**: {inline(val)}" for k, val in pairs] + [""]


def _section(title: str, lines: list[str], bullet: str = "- ") -> list[str]:
    return [f"## {title}", ""] + [bullet + inline(x) for x in lines] + [""]


def estimate_markdown(v: dict) -> str:
    lang = v["lang"]
    out = [f"# {inline(v['title'])}", ""]
    out += _items(v["head"])
    if v["warnings"]:
        out += _section(t("warnings", lang), v["warnings"], "- ⚠ ")
    if v["notes"]:
        out += _section(t("notes", lang), v["notes"])
    out += [f"## {t('result', lang)}", ""]
    out += _table([t("figure", lang), "P10", "P50", "P90"], [[k, *vals] for k, vals in v["result"]])
    sp = v.get("split")
    if sp:
        out += [f"## {t('split', lang)}", "", f"**{inline(sp['headline'])}**", ""]
        out += _table([t("figure", lang), "P10", "P50", "P90"], [[k, *vals] for k, vals in sp["rows"]])
        out += _items([(t("split_lines", lang), sp["lines"])])
        out += _table([t("figure", lang), t("means", lang)], [list(r) for r in sp["means"]])
        out += [inline(sp["why"]), ""]
    if v["memory"]:
        out += [f"## {t('memory', lang)}", ""] + _items(v["memory"])
    if v["lines"]:
        out += [f"## {t('lines', lang)}", ""]
        out += _table([t("line", lang), "P10", "P50", "P90"], [[k, *vals] for k, vals in v["lines"]])
    if v["sensitivity"]:
        out += [f"## {t('sensitivity', lang)}", ""]
        out += _table(
            [t("input", lang), t("input_range", lang), t("total_at", lang), t("swing", lang)],
            [list(r) for r in v["sensitivity"]],
        )
    if v["inference"]:
        out += [f"## {t('inference', lang)}", ""]
        out += _table([t("figure", lang), "P10", "P50", "P90"], [[k, *vals] for k, vals in v["inference"]])
    out += [f"## {t('drawer', lang)}", ""]
    out += _table(
        [t(k, lang) for k in ("name", "value", "unit", "evidence", "source", "owner", "note")],
        [list(r) for r in v["drawer"]],
    )
    return "\n".join(out)


def compare_markdown(v: dict) -> str:
    lang = v["lang"]
    out = [f"# {inline(v['title'])}", ""] + _items(v["head"])
    if v["warnings"]:
        out += _section(t("warnings", lang), v["warnings"], "- ⚠ ")
    out += _table(
        [
            t("option", lang),
            t("basis", lang),
            f"{v['total_label']} P10",
            "P50",
            "P90",
            f"{t('per_hour', lang)} P50",
        ],
        [list(r) for r in v["options"]],
    )
    for name, rows in v["breakdowns"]:
        out += [f"### {inline(name)}", ""]
        out += _table([t("line", lang), "P10", "P50", "P90"], [[k, *vals] for k, vals in rows])
    out += [f"## {t('drawer', lang)}", ""]
    out += _table(
        [t(k, lang) for k in ("name", "value", "unit", "evidence", "source", "owner", "note")],
        [list(r) for r in v["drawer"]],
    )
    return "\n".join(out)
