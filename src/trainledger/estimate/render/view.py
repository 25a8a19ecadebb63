"""One view of an estimate for people: labelled, formatted rows that Markdown and HTML lay out.

Built from ``Estimate.to_dict()`` — the same JSON the ``json`` format prints — so the three
formats can never disagree.
"""

from __future__ import annotations

from trainledger.estimate.render.labels import fmt_money, fmt_qty, t, vocab
from trainledger.estimate.tasks import PROFILES, RAG_ROUTE_EN, RAG_ROUTE_ZH
from trainledger.model.vocab import TaskType


def _pct(d: dict | None, f) -> list[str]:
    if d is None:
        return ["—", "—", "—"]
    return [f(d[k]) for k in ("p10", "p50", "p90")]


def estimate_view(d: dict, lang: str) -> dict:
    cur = d["cost"]["currency"]

    def money(x) -> str:
        return fmt_money(x, cur)

    task = TaskType(d["task"])
    prof = PROFILES[task]
    zh = lang.lower().startswith("zh")
    head = [
        (t("task", lang), f"{vocab(task, lang)} ({task.value})"),
        (t("main_cost", lang), prof.main_cost_zh if zh else prof.main_cost_en),
        (t("priced_on", lang), d["priced_on"]),
        (t("price_book", lang), d["price_book"]),
        (t("currency", lang), cur),
    ]
    if d["gpu"]:
        head.append(
            (
                t("gpu", lang),
                f"{d['gpu']['name']} ({d['gpu']['id']}, "
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
            (t("wallclock_days", lang, n=n), _pct(d["wallclock_days"], fmt_qty)),
            (t("mfu", lang), _pct(d["mfu"], lambda x: f"{x:.0%}")),
            (t("overhead", lang), _pct(d["overhead_factor"], lambda x: f"x{x:.2f}")),
        ]
    result += [
        (t("rounds", lang), _pct(d["rounds"], lambda x: f"x{x:.2f}")),
        (t("cost_compute", lang), _pct(d["cost"]["compute"], money)),
        (t("cost_data", lang), _pct(d["cost"]["data"], money)),
        (t("cost_labor", lang), _pct(d["cost"]["labor"], money)),
        (t("cost_total", lang), _pct(d["cost"]["total"], money)),
        (t("final_compute", lang), _pct(d["cost_final_run"]["compute"], money)),
        (t("final_labor", lang), _pct(d["cost_final_run"]["labor"], money)),
        (t("final_total", lang), _pct(d["cost_final_run"]["total"], money)),
    ]
    m = d["memory"]
    memory = []
    if task is not TaskType.RAG:
        memory = [
            (t("per_gpu", lang), f"{m['per_gpu_bytes'] / 2**30:.1f} GiB @ {m['at_gpus']} GPUs"),
            (t("min_gpus", lang), str(m["min_gpus"])),
            (t("strategy", lang), m["strategy"]),
            (
                t("training_strategy", lang),
                f"{m['training_strategy']} ({m['training_per_gpu_bytes'] / 2**30:.1f} GiB/GPU)",
            ),
            (t("dominant", lang), m["dominant_term"].replace("_", " ")),
            (t("why", lang), m["why_zh"] if zh and m.get("why_zh") else m["why"]),
        ]
    lines = [(f"{t('cost_data', lang)}: {k}", _pct(v, money)) for k, v in d["cost"]["data_lines"].items()]
    for k, v in d["cost"]["labor_lines"].items():
        phase, role = k.split(":", 1)
        lines.append((f"{t('cost_labor', lang)}: {vocab(phase, lang)} / {vocab(role, lang)}", _pct(v, money)))
    sens = [
        (
            s["name"],
            f"{fmt_qty(s['input_p10'])} – {fmt_qty(s['input_p90'])} {s['unit']}".strip(),
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
    drawer = []
    for a in d["assumptions"]:
        value = a.get("value") or f"{a['low']} – {a['high']}"
        drawer.append(
            (
                a["name"],
                value,
                a.get("unit", ""),
                vocab(a["evidence"], lang),
                a["source"],
                a.get("owner", ""),
                a.get("note", ""),
            )
        )
    notes = [n for n in d["notes"] if n not in (RAG_ROUTE_EN, RAG_ROUTE_ZH)]
    if task is TaskType.RAG:
        notes.insert(0, RAG_ROUTE_ZH if zh else RAG_ROUTE_EN)
    return {
        "title": t("title", lang) + (f" — {d['name']}" if d.get("name") else ""),
        "head": head,
        "warnings": d["warnings"],
        "notes": notes,
        "result": result,
        "memory": memory,
        "lines": lines,
        "sensitivity": sens,
        "inference": inference,
        "drawer": drawer,
        "lang": lang,
    }
