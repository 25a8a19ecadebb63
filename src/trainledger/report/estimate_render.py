"""The estimate report and the procurement comparison as JSON (the contract), Markdown and HTML
(people, ``en`` or ``zh-CN``), drawn with the package's primitives (report/primitives.py) from the
view models of estimate_view.py.

Every piece of text that comes from the user or from data — the estimate's name, the price book's
path, sources, owners, notes, warnings, anything in a table cell — goes through the shared
``trainledger.mdtext`` helpers (``inline``, ``md_table``): it stays on its line and inert, so a name
such as ``x\\r# heading <img …>`` can neither start a heading nor open HTML. Only the renderer's own
headings and column labels are written as they are. HTML is templates/estimate.html.j2 (autoescaped);
JSON is ``primitives.dumps`` (``Decimal`` money as exact JSON numbers).
"""

from __future__ import annotations

from trainledger.errors import BadInput
from trainledger.mdtext import inline
from trainledger.report import primitives as p
from trainledger.report.estimate_view import compare_view, estimate_view, t

dumps = p.dumps


def _table(header: list[str], rows: list[list[object]]) -> list[str]:
    return [*p.md_table(header, rows), ""]


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


def _html_table(heading: str, header: list[str], rows: list) -> dict:
    return {"heading": heading, "header": header, "rows": [list(r) for r in rows], "pairs": None}


def _page(v: dict, sections: list[dict]) -> str:
    lang = v["lang"]
    return (
        p.html_env(strict=True)
        .get_template("estimate.html.j2")
        .render(
            title=v["title"],
            lang=lang,
            head=v["head"],
            warnings=v["warnings"],
            notes=v.get("notes", []),
            sections=sections,
            drawer=[(*row[:3], p.badge(level, lang), *row[4:]) for row, level in zip(v["drawer"], v["drawer_levels"],
                                                                              strict=True)],
            drawer_header=[t(k, lang) for k in ("name", "value", "unit", "evidence", "source", "owner", "note")],
            labels={
                "warnings": t("warnings", lang),
                "notes": t("notes", lang),
                "drawer": t("drawer", lang),
            },
        )
    )


def estimate_html(v: dict) -> str:
    lang = v["lang"]
    pct = [t("figure", lang), "P10", "P50", "P90"]
    sections = [_html_table(t("result", lang), pct, [[k, *vals] for k, vals in v["result"]])]
    sp = v.get("split")
    if sp:
        sections.append(
            {
                "heading": t("split", lang),
                "pairs": [("P50", sp["headline"]), (t("split_lines", lang), sp["lines"])],
                "header": [],
                "rows": [],
            }
        )
        sections.append(_html_table(t("split", lang) + " — P10 / P50 / P90", pct,
                                    [[k, *vals] for k, vals in sp["rows"]]))
        sections.append(
            {"heading": t("means", lang), "pairs": [*sp["means"], ("", sp["why"])], "header": [], "rows": []}
        )
    if v["memory"]:
        sections.append({"heading": t("memory", lang), "pairs": v["memory"], "header": [], "rows": []})
    if v["lines"]:
        sections.append(
            _html_table(
                t("lines", lang),
                [t("line", lang), "P10", "P50", "P90"],
                [[k, *vals] for k, vals in v["lines"]],
            )
        )
    if v["sensitivity"]:
        sections.append(
            _html_table(
                t("sensitivity", lang),
                [t("input", lang), t("input_range", lang), t("total_at", lang), t("swing", lang)],
                v["sensitivity"],
            )
        )
    if v["inference"]:
        sections.append(_html_table(t("inference", lang), pct, [[k, *vals] for k, vals in v["inference"]]))
    return _page(v, sections)


def compare_html(v: dict) -> str:
    lang = v["lang"]
    sections = [
        _html_table(
            t("compare_title", lang),
            [
                t("option", lang),
                t("basis", lang),
                f"{v['total_label']} P10",
                "P50",
                "P90",
                f"{t('per_hour', lang)} P50",
            ],
            v["options"],
        )
    ]
    for name, rows in v["breakdowns"]:
        sections.append(_html_table(name, [t("line", lang), "P10", "P50", "P90"], [[k, *vals] for k, vals in rows]))
    return _page(v, sections)


FORMATS = ("json", "md", "html")
LANGS = ("en", "zh-CN")


def check(fmt: str, lang: str) -> None:
    if fmt not in FORMATS:
        raise BadInput(f"unknown format {fmt!r}", remedy="use json, md or html")
    if lang not in LANGS:
        raise BadInput(f"unknown language {lang!r}", remedy="use en or zh-CN")


def render_estimate(d: dict, fmt: str, lang: str = "en") -> str:
    """``d`` is ``Estimate.to_dict()``."""
    check(fmt, lang)
    if fmt == "json":
        return dumps(d)
    v = estimate_view(d, lang)
    return estimate_markdown(v) if fmt == "md" else estimate_html(v)


def render_compare(d: dict, fmt: str, lang: str = "en") -> str:
    """``d`` is ``Comparison.to_dict()``."""
    check(fmt, lang)
    if fmt == "json":
        return dumps(d)
    v = compare_view(d, lang)
    return compare_markdown(v) if fmt == "md" else compare_html(v)


__all__ = ["FORMATS", "LANGS", "check", "compare_html", "compare_markdown", "dumps", "estimate_html",
           "estimate_markdown", "render_compare", "render_estimate"]
