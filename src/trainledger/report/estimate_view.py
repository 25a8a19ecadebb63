"""The estimate report's and the procurement comparison's view models: labelled, formatted rows that
Markdown and HTML lay out (estimate_render.py).

Built from ``Estimate.to_dict()`` / ``Comparison.to_dict()`` — the same JSON the ``json`` format
prints — so the three formats can never disagree. Figures go through the report package's primitives
(report/primitives.py, as the batch sheet's do): money and quantities to three significant figures,
the honest precision of a budget range; an input as given; the evidence badge. Headings and labels
are the ``report.estimate`` catalogue (report/texts_estimate.py); the estimator's own sentences
(``Msg``: warnings, notes, assumption names) come in the JSON with their ``*_zh`` twins.
"""

from __future__ import annotations

from trainledger.estimate.messages import fixed, is_zh, owner_text, unit_text
from trainledger.estimate.messages import text as estimate_text
from trainledger.estimate.tasks import RAG_ROUTE_EN, RAG_ROUTE_ZH
from trainledger.i18n import core
from trainledger.model.vocab import TaskType, label
from trainledger.report import primitives as p

NAMESPACE = "report.estimate."
SIG = 3  # significant figures of an estimate's money and quantities


def t(key: str, lang: str, **kw) -> str:
    """Heading, row label or sentence ``key`` of the report (``report.estimate.<key>``) in ``lang``."""
    return core.text(NAMESPACE + key, lang, **kw)


def vocab(value: str, lang: str) -> str:
    return label(value, lang)


def fmt_money(x, currency: str) -> str:
    from trainledger.model.restricted import is_withheld

    if is_withheld(x):  # a field the role may not see (report/estimate_access.py mark_estimate): its word
        return str(x)
    return p.money(x, currency, sig=SIG)


def fmt_qty(x) -> str:
    return p.quantity(x, sig=SIG)


def _pct(d: dict | None, f) -> list[str]:
    return p.percentiles(d, f)


def pick(row: dict, key: str, lang: str, default: str = "") -> str:
    """``row[key]`` in ``lang``: the ``<key>_zh`` field when Chinese is asked for and present."""
    if is_zh(lang) and row.get(f"{key}_zh"):
        return row[f"{key}_zh"]
    return row.get(key) or default


def drawer_rows(assumptions: list[dict], lang: str) -> list[tuple[str, ...]]:
    """Rows of the assumptions drawer; a source in ``lang`` (its ``source_zh``: shipped, or a price
    book's own), else as written."""
    rows = []
    for a in assumptions:
        value = pick(a, "value", lang) or p.span(a["low"], a["high"], p.given, " – ")
        rows.append(
            (
                pick(a, "name", lang),
                value,
                pick(a, "unit", lang) or unit_text(a.get("unit", ""), lang),
                p.evidence(a["evidence"], lang),
                pick(a, "source", lang),
                pick(a, "owner", lang) or owner_text(a.get("owner", ""), lang),
                pick(a, "note", lang),
            )
        )
    return rows


def messages(d: dict, key: str, lang: str) -> list[str]:
    """``d[key]`` (English) or ``d[key + '_zh']`` (Chinese) — warnings and notes."""
    zh = d.get(f"{key}_zh")
    return list(zh) if is_zh(lang) and zh is not None else list(d.get(key, []))


def _per_gpu_at(nbytes: float, n: int, lang: str) -> str:
    return t("mem.per_gpu_at_one" if n == 1 else "mem.per_gpu_at", lang, gib=nbytes / 2**30, n=n)


def _largest_part(d: dict, lang: str, money) -> list[tuple[str, str]]:
    """The part (compute, data, labor) holding most of this estimate's P50, beside the task type's
    typical answer, so a header never says "compute" above a table where labor dominates."""
    parts = {k: d["cost"][k]["p50"] for k in ("compute", "data", "labor") if d["cost"].get(k)}
    total = d["cost"]["total"]["p50"] if d["cost"].get("total") else 0
    if not parts or not total:
        return []
    part = max(parts, key=lambda k: parts[k])
    label = {"compute": "cost_compute", "data": "cost_data", "labor": "cost_labor"}[part]
    share = f"{parts[part] / total:.0%}"
    value = t("largest_part_value", lang, part=t(label, lang), amount=money(parts[part]), share=share)
    return [(t("largest_part", lang), value)]


def estimate_view(d: dict, lang: str) -> dict:
    cur = d["cost"]["currency"]

    def money(x) -> str:
        return fmt_money(x, cur)

    task = TaskType(d["task"])
    head = [
        (t("task", lang), f"{vocab(task, lang)} ({task.value})"),
        (t("main_cost", lang), estimate_text(f"task.main_cost.{task.value}", lang)),
        *_largest_part(d, lang, money),
        (t("priced_on", lang), d["priced_on"]),
        (t("price_book", lang), d["price_book"]),
        (t("currency", lang), cur),
    ]
    if d["gpu"]:
        head.append(
            (
                t("gpu", lang),
                f"{pick(d['gpu'], 'name', lang)} ({d['gpu']['id']}, "
                f"{d['gpu']['memory_bytes'] / 2**30:.0f} GiB, {d['gpu']['peak_tflops']:g} TFLOP/s)",
            )
        )
    result = []
    if task is not TaskType.RAG:
        n = d["gpus"]["count"]
        result += [
            (t("effective_gpu_hours", lang), _pct(d["effective_gpu_hours"], fmt_qty)),
            (t("gpu_hours", lang), _pct(d["gpu_hours"], fmt_qty)),
            (t("programme_gpu_hours", lang), _pct(d["programme_gpu_hours"], fmt_qty)),
            (t("wallclock_days_one" if n == 1 else "wallclock_days", lang, n=n), _pct(d["wallclock_days"], fmt_qty)),
            (t("mfu", lang), _pct(d["mfu"], lambda x: f"{x:.0%}")),
            (t("overhead", lang), _pct(d["overhead_factor"], lambda x: f"x{x:.2f}")),
        ]
    result += [
        (t("rounds", lang), _pct(d["rounds"], lambda x: f"x{x:.2f}")),
        (t("cost_compute", lang), _pct(d["cost"]["compute"], money)),
        (t("cost_data", lang), _pct(d["cost"]["data"], money)),
        (t("cost_labor", lang), _pct(d["cost"]["labor"], money)),
        (_total_label(d, lang), _pct(d["cost"]["total"], money)),
        (t("final_compute", lang), _pct(d["cost_final_run"]["compute"], money)),
        (t("final_labor", lang), _pct(d["cost_final_run"]["labor"], money)),
        (t("final_total", lang), _pct(d["cost_final_run"]["total"], money)),
    ]
    m = d["memory"]
    memory = []
    if task is not TaskType.RAG:
        memory = [
            (t("per_gpu", lang), _per_gpu_at(m["per_gpu_bytes"], m["at_gpus"], lang)),
            (t("min_gpus", lang), f"{m['min_gpus']} — {pick(m, 'min_gpus_scope', lang)}"),
            (t("strategy", lang), m["strategy"]),
            (
                t("least_gpu", lang),
                _per_gpu_at(m["least_gpu_plan"]["per_gpu_bytes"], m["min_gpus"], lang),
            ),
            (
                t("training_strategy", lang),
                t(
                    "mem.training_strategy",
                    lang,
                    strategy=m["training_strategy"],
                    gib=m["training_per_gpu_bytes"] / 2**30,
                ),
            ),
            (t("dominant", lang), fixed("term", m["dominant_term"], lang)),
            (t("why", lang), pick(m, "why", lang)),
        ]
    lines = [
        (t("line_of", lang, group=t("cost_data", lang), line=fixed("line", k, lang)), _pct(v, money))
        for k, v in d["cost"]["data_lines"].items()
    ]
    for k, v in d["cost"]["labor_lines"].items():
        phase, role = k.split(":", 1)
        line = t("labor_line", lang, phase=vocab(phase, lang), role=vocab(role, lang))
        lines.append((t("line_of", lang, group=t("cost_labor", lang), line=line), _pct(v, money)))
    sens = [
        (
            pick(s, "name", lang),
            f"{p.span(s['input_p10'], s['input_p90'], fmt_qty, ' – ')} {pick(s, 'unit', lang)}".strip(),
            f"{money(s['total_at_input_p10'])} / {money(s['total_at_input_p90'])}",
            money(s["swing"]),
        )
        for s in d["sensitivity"]
    ]
    inference = None
    if d["inference"]:
        inf = d["inference"]
        inference = [
            (t("monthly", lang), _pct(inf["monthly"], money)),
            (t("over_months", lang, m=inf["months"]), _pct(inf["total"], money)),
        ]
        if inf.get("gpu_hours_per_month"):
            inference.append((t("gpu_hours_month", lang), _pct(inf["gpu_hours_per_month"], fmt_qty)))
        if inf.get("retrieval_storage_monthly"):
            inference.append((t("storage_month", lang), _pct(inf["retrieval_storage_monthly"], money)))
    split = split_view(d, lang, money)
    if split is not None:
        head.append((t("split_share", lang), split["headline"]))
    notes = [n for n in messages(d, "notes", lang) if n not in (RAG_ROUTE_EN, RAG_ROUTE_ZH)]
    if task is TaskType.RAG:
        notes.insert(0, estimate_text("note.rag_route", lang))
    return {
        "title": t("title", lang) + (f" — {d['name']}" if d.get("name") else ""),
        "head": head,
        "warnings": messages(d, "warnings", lang),
        "notes": notes,
        "result": result,
        "memory": memory,
        "lines": lines,
        "sensitivity": sens,
        "inference": inference,
        "split": split,
        "drawer": drawer_rows(d["assumptions"], lang),
        "drawer_levels": [a["evidence"] for a in d["assumptions"]],
        "lang": lang,
    }


def _total_label(d: dict, lang: str) -> str:
    """The result table's total, marked with its placeholder share when placeholders drive it: the
    headline's sourced and placeholder parts are never read as one precise sum."""
    kp = d.get("known_vs_placeholder")
    if kp and kp.get("placeholder_lines") and kp.get("placeholder_share_of_p50"):
        return t("cost_total_placeholders", lang, share=kp["placeholder_share_of_p50"])
    return t("cost_total", lang)


def split_view(d: dict, lang: str, money) -> dict | None:
    """Known vs placeholder money, the headline share of the P50, and the means that add up."""
    kp = d.get("known_vs_placeholder")
    if kp is None:
        return None
    total = d["cost"]["total"]
    if kp["placeholder_lines"]:
        headline = t(
            "split.headline",
            lang,
            share=kp["placeholder_share_of_p50"],
            total=money(total["p50"]),
            known=money(kp["known"]["p50"]),
            placeholder=money(kp["placeholder"]["p50"]),
        )
    else:
        headline = t("split.none", lang)
    rows = [
        (t("split_known", lang), _pct(kp["known"], money)),
        (t("split_placeholder", lang), _pct(kp["placeholder"], money)),
        (t("cost_total", lang), _pct(total, money)),
    ]
    mean = kp["mean"]
    means = [
        (t("cost_compute", lang), money(mean["compute"])),
        (t("cost_data", lang), money(mean["data"])),
        (t("cost_labor", lang), money(mean["labor"])),
        (t("cost_total", lang), money(mean["total"])),
        (t("split_known", lang), money(mean["known"])),
        (t("split_placeholder", lang), money(mean["placeholder"])),
    ]
    return {
        "headline": headline,
        "rows": rows,
        "means": means,
        "lines": ", ".join(kp["placeholder_lines"]) or "—",
        "why": t("split.why_p50", lang),
    }


def compare_view(d: dict, lang: str) -> dict:
    """``Comparison.to_dict()`` -> labelled, formatted rows (shared by md and html)."""
    cur = d["currency"]

    def row(p: dict | None) -> list[str]:
        return ["—"] * 3 if p is None else [fmt_money(p[k], cur) for k in ("p10", "p50", "p90")]

    options, breakdowns = [], []
    for o in d["options"]:
        name = fixed("compare.option", o["name"], lang)
        basis = pick(o, "basis", lang)
        if not o["available"]:
            options.append([name, basis, t("unavailable", lang), pick(o, "unavailable_reason", lang), "", ""])
            continue
        per = o["per_gpu_hour"]
        options.append([name, basis, *row(o["total"]), fmt_money(per["p50"], cur) if per else "—"])
        breakdowns.append((name, [(fixed("compare.line", k, lang), row(v)) for k, v in o["lines"].items()]))
    dm = d["demand_gpu_hours_per_year"]
    head = [
        (t("fleet", lang), f"{d['gpu']} x {d['gpus']}"),
        (t("priced_on", lang), d["priced_on"]),
        (t("price_book", lang), d["price_book"]),
        (t("currency", lang), cur),
        (t("basis", lang), pick(d, "basis", lang)),
        (t("demand", lang), f"{dm['p10']:,} / {dm['p50']:,} / {dm['p90']:,}"),
    ]
    return {
        "title": t("compare_title", lang),
        "head": head,
        "warnings": messages(d, "warnings", lang),
        "notes": [],
        "options": options,
        "breakdowns": breakdowns,
        "drawer": drawer_rows(d["assumptions"], lang),
        "drawer_levels": [a["evidence"] for a in d["assumptions"]],
        "total_label": t("total", lang, y=d["years"]),
        "lang": lang,
    }
