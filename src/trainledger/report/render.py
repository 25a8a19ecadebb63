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


def proof_line(s: dict[str, Any], lang: str = "en") -> str:
    """The ledger state a sheet was built from (``Workspace.verify``): audit head and figures digest,
    so a printed sheet can be checked against ``trainledger audit``. Empty when the sheet has none."""
    p = s.get("ledger")
    if not p:
        return ""
    return (f"{t('proof', lang)}: {t('audit_head', lang)} {p['audit_head_id']} {p['audit_head_hash']};"
            f" {t('attribution', lang)} {p['attribution_id']}, {t('figures_digest', lang)} {p['figures_digest']}")


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
    out += ["", f"## {L('compute')}", ""]
    out += _table([L("state"), L("basis"), L("gpu_hours"), L("amount")],
                  [[v(r["state"], lang), v(r["basis"], lang), r["gpu_hours"], _money(r["amounts"])]
                   for r in s["compute_by_state"]])
    if s.get("compute_efficiency"):
        out += ["", f"### {L('efficiency')}", ""]
        out += _table([L("currency"), L("billed"), v("effective", lang), L("other_states"), L("gpu_hours"),
                       v("effective", lang) + " " + L("gpu_hours"), L("effective_share")],
                      [[e["currency"], e["billed"], e["effective"], e["other_states"], e["gpu_hours"],
                        e["effective_gpu_hours"], f"{Decimal(e['effective_share']) * 100:.1f}%"]
                       for e in s["compute_efficiency"]])
    if s.get("runs_by_review_class"):
        out += ["", f"## {L('review')}", ""]
        out += _table([L("review_class"), L("runs_count"), L("gpu_hours"), L("billed")],
                      [[v(g["review_class"], lang), g["runs"], g["gpu_hours"],
                        "; ".join(f"{m['amount']} {m['currency']}" for m in g["billed"]) or "—"]
                       for g in s["runs_by_review_class"]])
    out += ["", f"## {L('runs')}", ""]
    out += _table([L("run"), L("job"), L("reason"), L("cause"), L("review_class"), L("final_state"), L("gpus"),
                   L("billed"), L("queued")],
                  [[r["id"], r["job"], v(r["reason"], lang), v(r["cause"], lang),
                    v(r["suggested_review_class"], lang), r["state"], r["gpus"], _money(r["billed"]),
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
        rows.append([f"**{v(p['phase'], lang)}**", "", p["hours"], _money(p["cost"])])
        rows += [["", v(r["role"], lang), r["hours"], _money(r["cost"])] for r in p["roles"]]
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
    out += ["", f"_{(zh and c.get('rounding_zh')) or c['rounding']}_"]
    if s.get("problems"):
        out += ["", f"## {L('problems')}", ""] + [f"- `{p['kind']}` {_inline(p['message'])}" for p in s["problems"]]
    out += ["", f"_{proof}_"] if (proof := proof_line(s, lang)) else []
    return "\n".join(out) + "\n"


def to_html(s: dict[str, Any], lang: str = "en") -> str:
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(loader=PackageLoader("trainledger.report", "templates"),
                      autoescape=select_autoescape(["html", "j2"]))
    env.globals.update(t=lambda k: t(k, lang), v=lambda x: v(x, lang), money=_money, lang=lang,
                       sc=lambda x: storage_class(x, lang), kf=lambda x: key_field(x, lang),
                       an=lambda x: assumption_name(x, lang), zh=lang.lower().startswith("zh"),
                       gib=lambda b: f"{Decimal(b) / 1024**3:.1f}", proof=proof_line(s, lang))
    return env.get_template("sheet.html.j2").render(s=s)


def render(sheet: dict[str, Any], fmt: str, lang: str = "en") -> str:
    if fmt == "json":
        return to_json(sheet)
    if fmt == "md":
        return to_markdown(sheet, lang)
    if fmt == "html":
        return to_html(sheet, lang)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
