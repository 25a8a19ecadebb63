"""Render a cost sheet (the dict from ``build_sheet``) as JSON, Markdown or HTML, in en or zh-CN."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from trainledger.mdtext import inline as _inline
from trainledger.mdtext import table as _table
from trainledger.report.i18n import assumption_name, key_field, storage_class, t, v

FORMATS = ("json", "md", "html")


def to_json(sheet: dict[str, Any]) -> str:
    return json.dumps(sheet, ensure_ascii=False, indent=2, sort_keys=False) + "\n"


def _money(items: list[dict[str, str]]) -> str:
    if not items:
        return "—"
    out = []
    for m in items:
        if m["low"] == m["high"]:
            out.append(f"{m['expected']} {m['currency']}")
        else:
            out.append(f"{m['expected']} {m['currency']} ({m['low']}–{m['high']})")
    return "; ".join(out)


def _valued(row: dict, L) -> str:
    """Money, and the hours no rate valued: "not valued", never 0.00."""
    text = _money(row["cost"]) if row["cost"] else ""
    if row.get("not_valued_hours"):
        text = (text + "; " if text else "") + f"{L('not_valued')} ({row['not_valued_hours']} h)"
    return text or "—"


def _amounts(items: list[dict[str, str]], lang: str = "en") -> str:
    """Amounts per currency — and per basis when it is not the bill's cash: never summed across."""
    return "; ".join(f"{m['amount']} {m['currency']}"
                     + (f" ({v(m['basis'], lang)})" if m.get("basis", "billed") != "billed" else "")
                     for m in items) or "—"


def _cause(cause, evidence, lang: str) -> str:
    """A cause with its evidence when it is only suggested: ``infra_fault (assumed)``."""
    if not cause:
        return "—"
    return v(cause, lang) + (f" ({v(evidence, lang)})" if evidence == "assumed" else "")


def to_markdown(s: dict[str, Any], lang: str = "en") -> str:
    L = lambda k: t(k, lang)  # noqa: E731
    zh = lang.lower().startswith("zh")
    b = s["batch"]
    out = [f"# {L('title')}: {b['id']}", ""]
    if b.get("name"):
        out.append(f"**{_inline(b['name'])}** — {L('project')} {_inline(b['project'])},"
                   f" {L('team')} {_inline(b['team'])}")
    out += [f"{L('goal')}: {_inline(s['key']['goal'])}", "", f"## {L('key')}", ""]
    out += _table([L("name"), L("value")], [[key_field(k, lang), val] for k, val in s["key"].items()])
    out += ["", f"## {L('totals')}", ""]
    out += _table([L("basis"), L("evidence"), L("cash"), L("expected"), L("low"), L("high"), L("currency")],
                  [[v(r["basis"], lang), v(r["evidence"], lang), L("yes") if r["cash"] else L("no"),
                    r["expected"], r["low"], r["high"], r["currency"]] for r in s["totals_by_basis"]])
    if s.get("sections"):
        out += ["", f"## {L('sections')}", ""]
        rows = []
        for c in s["sections"]:
            rows += [[L(f"sec_{x['section']}"), x["amount"], c["currency"]] for x in c["sections"]]
            rows += [[f"**{L('total')}**", f"**{c['total']}**", c["currency"]],
                     [L("difference"), c["difference"], c["currency"]]]
        out += _table([L("section"), L("amount"), L("currency")], rows)
        items = [(c["currency"], i) for c in s["sections"] for i in c["items"]]
        if items:
            out += [""] + _table([L("section"), L("item"), L("amount"), L("currency")],
                                 [[L(f"sec_{i['section']}"), _inline(i["item"]), i["amount"], cur] for cur, i in items])
    out += ["", f"## {L('compute')}", ""]
    out += _table([L("state"), L("basis"), L("gpu_hours"), L("amount"), L("price_per_gpu_hour"), L("evidence")],
                  [[v(r["state"], lang), v(r["basis"], lang), r["gpu_hours"] or "—",
                    _money(r["amounts"]) if r.get("valued", True) else L("not_valued"),
                    f"{r['price_per_gpu_hour']['amount']} {r['price_per_gpu_hour']['currency']}"
                    if r.get("price_per_gpu_hour") else "—",
                    ", ".join(v(e, lang) for e in r.get("evidence", []))]
                   for r in s["compute_by_state"]])
    if s.get("compute_hours"):
        h = s["compute_hours"]
        out += ["", "_" + L("hours_check").format(valued=h["valued_gpu_hours"], not_valued=h["not_valued_gpu_hours"],
                                                  runs=h["runs_gpu_hours"]) + "_"]
    if s.get("compute_efficiency"):
        out += ["", f"### {L('efficiency')}", ""]
        out += _table([L("currency"), L("basis"), L("amount"), v("effective", lang), L("other_states"), L("gpu_hours"),
                       v("effective", lang) + " " + L("gpu_hours"), L("effective_share")],
                      [[e["currency"], v(e.get("basis", "billed"), lang), e["billed"], e["effective"],
                        e["other_states"], e["gpu_hours"],
                        e["effective_gpu_hours"], f"{Decimal(e['effective_share']) * 100:.1f}%"]
                       for e in s["compute_efficiency"]])
    if s.get("runs_by_review_class"):
        out += ["", f"## {L('review')}", ""]
        out += _table([L("review_class"), L("runs_count"), L("gpu_hours"), L("billed")],
                      [[v(g["review_class"], lang), g["runs"], g["gpu_hours"],
                        "; ".join([f"{m['amount']} {m['currency']}" for m in g["billed"]]
                                  + [f"{m['amount']} {m['currency']} ({v(m['basis'], lang)})"
                                     for m in g.get("capacity_cost", [])]) or "—"]
                       for g in s["runs_by_review_class"]])
    if s.get("allocation"):
        out += ["", f"## {L('allocation')}", ""]
        out += _table([L("policy"), L("source_basis"), L("driver"), L("share"), L("total"), L("currency")],
                      [[v(a["policy"], lang), v(a["source_basis"], lang), v(a["driver"], lang)
                        + (f" ({a['driver_quantity']})" if a["driver_quantity"] not in ("0", "0.0000") else ""),
                        a["share"] if not a["charged_to"] else f"→ {_inline(a['charged_to'])}", a["pool"],
                        a["currency"]] for a in s["allocation"]])
    if s.get("retry_chains"):
        out += ["", f"## {L('retry_chains')}", ""]
        out += _table([L("failed_run"), L("final_state"), L("cause"), L("attempts"), L("lost_gpu_hours"),
                       L("failure_cost"), L("recovery_cost"), L("total")],
                      [[c["failed"], c["state"], _cause(c["cause"], c["cause_evidence"], lang),
                        " → ".join(c["attempts"]), c["lost_gpu_hours"], _amounts(c["failure_cost"], lang),
                        _amounts(c["recovery_cost"], lang), _amounts(c["total"], lang)] for c in s["retry_chains"]])
    out += ["", f"## {L('runs')}", ""]
    out += _table([L("run"), L("job"), L("reason"), L("cause"), L("review_class"), L("final_state"), L("gpus"),
                   L("retry_of"), L("billed"), L("queued")],
                  [[r["id"], r["job"], v(r["reason"], lang), _cause(r["cause"], r.get("cause_evidence"), lang),
                    v(r["suggested_review_class"], lang) + (f" ({_inline(r['review_note'])})" if r.get("review_note")
                                                            else ""),
                    r["state"], r["gpus"], r.get("retry_of") or "—",
                    _amounts(r["compute_cost"], lang) if r.get("compute_cost") else _money(r["billed"]),
                    _money(r["queued"])] for r in s["runs"]])
    out += ["", f"## {L('storage')}", ""]
    out += _table([L("class"), L("basis"), L("objects"), L("size"), L("gib_months"), L("cost"), L("findings")],
                  [[storage_class(r["storage_class"], lang), v(r["basis"], lang), r["objects"],
                    f"{Decimal(r['bytes']) / 1024**3:.1f}",
                    r["gib_months"], _money(r["cost"]),
                    "; ".join(f"{f['path']}: {', '.join(f['flags'])}" for f in r["findings"]) or "—"]
                   for r in s["storage_by_class"]])
    out += ["", f"## {L('labor')}", ""]
    rows = []
    for p in s["labor_by_phase"]:
        rows.append([f"**{v(p['phase'], lang)}**", "", p["hours"], _valued(p, L)])
        rows += [["", v(r["role"], lang), r["hours"], _valued(r, L)] for r in p["roles"]]
    out += _table([L("phase"), L("role"), L("hours"), L("cost")], rows)
    out += ["", f"## {L('external')}", ""]
    out += _table([L("vendor"), L("stage"), L("amount"), L("evidence")],
                  [[e["vendor"], v(e["stage"], lang), f"{e['expected']} {e['currency']}", v(e["evidence"], lang)]
                   for e in s["external"]]) if s["external"] else [L("none")]
    out += ["", f"## {L('assumptions')}", ""]
    out += _table([L("name"), L("value"), L("evidence"), L("source"), L("owner")],
                  [[assumption_name(a["name"], lang),
                    ((zh and a.get("value_zh")) or a.get("value") or f"{a.get('low')}–{a.get('high')}")
                    + (f" {a['unit']}" if a.get("unit") else ""),
                    v(a["evidence"], lang),
                    a.get("source", ""), a.get("owner", "")] for a in s["assumptions"]])
    c = s["conservation"]
    out += ["", f"## {L('conservation')}", ""]
    out += _table([L("currency"), L("billed_total"), L("attributed"), L("unattributed"), L("difference")],
                  [[r["currency"], r["billed_total"], r["attributed"], r["unattributed"], r["difference"]]
                   for r in c["by_currency"]])
    if c.get("amortized_by_currency"):
        out += ["", f"### {L('conservation_amortized')}", ""]
        out += _table([L("currency"), L("billed_total"), L("attributed"), L("unattributed"), L("difference")],
                      [[r["currency"], r["billed_total"], r["attributed"], r["unattributed"], r["difference"]]
                       for r in c["amortized_by_currency"]])
    if c.get("capacity"):
        out += ["", f"### {L('capacity')}", ""]
        out += _table(["id", L("basis"), L("price_per_gpu_hour"), L("capacity_total"), L("attributed"),
                       v("capacity_unheld", lang), L("difference"), L("currency")],
                      [[r["capacity"], v(r["basis"], lang), r["price_per_gpu_hour"], r["total"], r["attributed"],
                        r["unheld"], r["difference"], r["currency"]] for r in c["capacity"]])
    reasons = [(r["currency"], x) for r in c["by_currency"] for x in r.get("unattributed_by_reason", [])]
    if reasons:
        out += ["", f"### {L('unattributed_by_reason')}", ""]
        out += _table([L("reason"), L("detail"), L("amount"), L("currency")],
                      [[v(x["reason"], lang), _inline(x["detail"]), x["amount"], cur] for cur, x in reasons])
    out += ["", f"_{(zh and c.get('rounding_zh')) or c['rounding']}_"]
    if s.get("problems"):
        out += ["", f"## {L('problems')}", ""] + [f"- `{p['kind']}` {_inline(p['message'])}" for p in s["problems"]]
    return "\n".join(out) + "\n"


def to_html(s: dict[str, Any], lang: str = "en") -> str:
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(loader=PackageLoader("trainledger.report", "templates"),
                      autoescape=select_autoescape(["html", "j2"]))
    env.globals.update(t=lambda k: t(k, lang), v=lambda x: v(x, lang), money=_money, lang=lang,
                       sc=lambda x: storage_class(x, lang), kf=lambda x: key_field(x, lang),
                       an=lambda x: assumption_name(x, lang), zh=lang.lower().startswith("zh"),
                       amounts=lambda xs: _amounts(xs, lang), cause=lambda c, e: _cause(c, e, lang),
                       valued=lambda r: _valued(r, lambda k: t(k, lang)),
                       gib=lambda b: f"{Decimal(b) / 1024**3:.1f}")
    return env.get_template("sheet.html.j2").render(s=s)


def render(sheet: dict[str, Any], fmt: str, lang: str = "en") -> str:
    if fmt == "json":
        return to_json(sheet)
    if fmt == "md":
        return to_markdown(sheet, lang)
    if fmt == "html":
        return to_html(sheet, lang)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
