"""HTML layout (Jinja2, autoescaped) of an estimate view or a comparison view."""

from __future__ import annotations

from functools import cache

import jinja2

from trainledger.estimate.render.labels import t


@cache
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("trainledger.estimate.render", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        trim_blocks=False,
        undefined=jinja2.StrictUndefined,
    )


def _table(heading: str, header: list[str], rows: list) -> dict:
    return {"heading": heading, "header": header, "rows": [list(r) for r in rows], "pairs": None}


def _page(v: dict, sections: list[dict]) -> str:
    lang = v["lang"]
    return (
        _env()
        .get_template("report.html.j2")
        .render(
            title=v["title"],
            lang=lang,
            head=v["head"],
            warnings=v["warnings"],
            notes=v.get("notes", []),
            sections=sections,
            drawer=v["drawer"],
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
    sections = [_table(t("result", lang), pct, [[k, *vals] for k, vals in v["result"]])]
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
        sections.append(_table(t("split", lang) + " — P10 / P50 / P90", pct, [[k, *vals] for k, vals in sp["rows"]]))
        sections.append(
            {"heading": t("means", lang), "pairs": [*sp["means"], ("", sp["why"])], "header": [], "rows": []}
        )
    if v["memory"]:
        sections.append({"heading": t("memory", lang), "pairs": v["memory"], "header": [], "rows": []})
    if v["lines"]:
        sections.append(
            _table(
                t("lines", lang),
                [t("line", lang), "P10", "P50", "P90"],
                [[k, *vals] for k, vals in v["lines"]],
            )
        )
    if v["sensitivity"]:
        sections.append(
            _table(
                t("sensitivity", lang),
                [t("input", lang), t("input_range", lang), t("total_at", lang), t("swing", lang)],
                v["sensitivity"],
            )
        )
    if v["inference"]:
        sections.append(_table(t("inference", lang), pct, [[k, *vals] for k, vals in v["inference"]]))
    return _page(v, sections)


def compare_html(v: dict) -> str:
    lang = v["lang"]
    sections = [
        _table(
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
        sections.append(_table(name, [t("line", lang), "P10", "P50", "P90"], [[k, *vals] for k, vals in rows]))
    return _page(v, sections)
