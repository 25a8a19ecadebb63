"""Markdown layout of an estimate view or a procurement comparison view."""

from __future__ import annotations

from trainledger.estimate.render.labels import t


def _cell(x: object) -> str:
    return str(x).replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(_cell(c) for c in r) + " |" for r in rows]
    return out + [""]


def estimate_markdown(v: dict) -> str:
    lang = v["lang"]
    out = [f"# {v['title']}", ""]
    out += [f"- **{k}**: {val}" for k, val in v["head"]] + [""]
    if v["warnings"]:
        out += [f"## {t('warnings', lang)}", ""] + [f"- ⚠ {w}" for w in v["warnings"]] + [""]
    if v["notes"]:
        out += [f"## {t('notes', lang)}", ""] + [f"- {n}" for n in v["notes"]] + [""]
    out += [f"## {t('result', lang)}", ""]
    out += _table([t("figure", lang), "P10", "P50", "P90"], [[k, *vals] for k, vals in v["result"]])
    if v["memory"]:
        out += [f"## {t('memory', lang)}", ""] + [f"- **{k}**: {val}" for k, val in v["memory"]] + [""]
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
    out = [f"# {v['title']}", ""] + [f"- **{k}**: {val}" for k, val in v["head"]] + [""]
    if v["warnings"]:
        out += [f"## {t('warnings', lang)}", ""] + [f"- ⚠ {w}" for w in v["warnings"]] + [""]
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
        out += [f"### {name}", ""] + _table([t("line", lang), "P10", "P50", "P90"], [[k, *vals] for k, vals in rows])
    out += [f"## {t('drawer', lang)}", ""]
    out += _table(
        [t(k, lang) for k in ("name", "value", "unit", "evidence", "source", "owner", "note")],
        [list(r) for r in v["drawer"]],
    )
    return "\n".join(out)
