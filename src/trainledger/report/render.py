"""Render a cost sheet (the dict from ``build_sheet``) as JSON, Markdown or HTML, in en or zh-CN.

Every format first puts the sheet's lists in the vocabularies' reading order (``in_seed_order``:
compute states in lifecycle order, bases and storage classes in their fixed order — never
alphabetical). Markdown and HTML format every figure through ``trainledger.fmt`` (money at the
currency's minor unit with separators, GPU-hours to two decimals, no scientific notation) and
say where rounded rows do not add to their total (``rounding_notes``); JSON keeps the exact text —
a run's GPU-hours by state rounded to 6 places with their exact, short values beside (``hours_json``).
A workspace with no bill (owned capacity only) has no per-currency table: its conservation is the
capacity table's, and the sheet says so.

Every format prints the sheet as one role may see it (``role``, default ``admin``: the local user):
report/access.py resolves its ``Restricted`` fields first, and a withheld field is printed as the
word "restricted" / "受限" (model/restricted.py ``Withheld``) with a note naming what was left out.
"""

from __future__ import annotations

import json
from collections import defaultdict
from decimal import Decimal
from typing import Any

from trainledger import fmt
from trainledger.mdtext import Md
from trainledger.mdtext import inline as _inline
from trainledger.model.money import minor_quantum
from trainledger.model.restricted import ADMIN, Withheld
from trainledger.model.restricted import note as access_note
from trainledger.model.vocab import CASH_BASES, detail_label, rank, reason_label
from trainledger.report import (
    access,
    balance,
    balance_section,
    charts,
    freshness,
    noncash,
    plan_section,
    problems_i18n,
    storage_section,
)
from trainledger.report import primitives as prim
from trainledger.report.i18n import assumption_name, key_field, storage_class, t, v

FORMATS = ("json", "md", "html", "xlsx")  # xlsx is binary: report/xlsx.py, needs --out
CASH = frozenset(str(b) for b in CASH_BASES)
GIB = Decimal(1024) ** 3
# Non-cash bases that one table carries whole (engine: storage estimates, queued compute, labor):
# their rows, each rounded to the minor unit by the sheet, are compared with the basis total.
ROWS_OF_BASIS = {"estimate": ("storage_by_class", "cost"), "queued": ("compute_by_state", "amounts"),
                 "internal": ("labor_by_phase", "cost")}


def _flags(flags: list[str], lang: str) -> str:
    """A stored object's governance findings (``no_purpose``, model/assets.py) as words in ``lang``
    (review 3 G12: the zh-CN sheet printed the codes)."""
    from trainledger.i18n import localize

    if lang.startswith("zh"):
        return "、".join(localize(f, lang) for f in flags)
    return ", ".join(f.replace("_", " ") for f in flags)

def in_seed_order(sheet: dict[str, Any]) -> dict[str, Any]:
    """The sheet with its lists in ``model.vocab.ORDERS`` order (a copy; JSON shows the same order)."""
    s = dict(sheet)
    basis, evidence, state = rank("basis"), rank("evidence"), rank("state")
    s["totals_by_basis"] = sorted(s.get("totals_by_basis", []),
                                  key=lambda r: (basis(r["basis"]), evidence(r["evidence"]), r["currency"]))
    s["compute_by_state"] = sorted(s.get("compute_by_state", []), key=lambda r: (state(r["state"]), basis(r["basis"])))
    s["storage_by_class"] = sorted(s.get("storage_by_class", []),
                                   key=lambda r: (rank("storage_class")(r["storage_class"]), basis(r["basis"])))
    s["labor_by_phase"] = [dict(p, roles=sorted(p.get("roles", []), key=lambda r: rank("role")(r["role"])))
                           for p in sorted(s.get("labor_by_phase", []), key=lambda p: rank("phase")(p["phase"]))]
    s["external"] = sorted(s.get("external", []), key=lambda e: rank("stage")(e["stage"]))
    return s


def hours_json(hours: dict[str, Any]) -> dict[str, Any]:
    """A run's GPU-hours by state for JSON: each rounded to 6 places (``1.002222``), and beside them
    ``…_exact`` — each exact but short (``451/450``: GPU-seconds over 3600, primitives.exact_quantity)
    — only when some figure does not terminate within 6 places. The engine's 28-digit quotients are
    neither: they are the rational cut at the context's precision, and their sums drift."""
    rounded = {k: prim.rounded_quantity(x) for k, x in hours.items()}
    exact = {k: prim.exact_quantity(x) for k, x in hours.items()}
    return {"gpu_hours_by_state": rounded, **({"gpu_hours_by_state_exact": exact} if exact != rounded else {})}


def to_json(sheet: dict[str, Any], role: str = ADMIN) -> str:
    s, _ = access.for_role(balance.of_sheet(sheet), role)
    s = in_seed_order(s)
    runs = []
    for r in s.get("runs") or []:
        if isinstance(r.get("gpu_hours_by_state"), dict):
            r = {k: x for k, x in r.items() if k != "gpu_hours_by_state_exact"}
            at = list(r).index("gpu_hours_by_state")
            items = list(r.items())
            r = dict(items[:at] + list(hours_json(r["gpu_hours_by_state"]).items()) + items[at + 1:])
        runs.append(r)
    if "runs" in s:
        s["runs"] = runs
    return json.dumps(s, ensure_ascii=False, indent=2, sort_keys=False) + "\n"


class Figures:
    """The sheet's number formatting for one rendering; remembers whether a † note is owed."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.marked = False

    def amount(self, value: Any, currency: str, cash: bool = True) -> str:
        text = prim.amount(value, currency, exact=cash)
        self.marked |= text.endswith(fmt.MARK)
        return text

    def money(self, items: list[dict[str, str]], cash: bool = True) -> str:
        """``[{low, expected, high, currency}]`` as ``1,234.50 CNY (1,100.00–1,400.00)``, ``—`` if none."""
        if isinstance(items, Withheld):
            return items
        if not items:
            return fmt.DASH
        out = [prim.money_range(m["low"], m["expected"], m["high"], m["currency"],
                             lambda x, cur: self.amount(x, cur, cash)) for m in items]
        return Md("; ".join(out))  # figures and ISO codes the renderer wrote: nothing to escape

    def pairs(self, items: list[dict[str, str]]) -> str:
        """``[{amount, currency}]`` (cash) as ``1,234.50 CNY; 10.00 USD``."""
        if isinstance(items, Withheld):
            return items
        return Md("; ".join(f"{self.amount(m['amount'], m['currency'])} {m['currency']}" for m in items) or fmt.DASH)

    def by_basis(self, items: list[dict[str, str]]) -> str:
        """``[{amount, currency, basis}]``: per currency and basis — the basis named when it is not the
        bill's cash (owned capacity's amortized or rate-card cost), never summed across bases."""
        if isinstance(items, Withheld):
            return items
        out = []
        for m in items:
            basis = m.get("basis", "billed")
            text = f"{self.amount(m['amount'], m['currency'], basis in CASH or basis == 'billed')} {m['currency']}"
            out.append(text + (f" ({v(basis, self.lang)})" if basis != "billed" else ""))
        return Md("; ".join(out) or fmt.DASH)  # figures, ISO codes and vocabulary labels: nothing to escape

    def valued(self, row: dict[str, Any]) -> str:
        """Money, and the hours no rate valued: "not valued", never 0.00."""
        text = self.money(row["cost"], cash=False) if row["cost"] else ""
        if row.get("not_valued_hours"):
            unvalued = f"{t('not_valued', self.lang)} ({self.hours(row['not_valued_hours'])} h)"
            text = (text + "; " if text else "") + unvalued
        return Md(text or fmt.DASH)

    @staticmethod
    def hours(value: Any) -> str:
        return prim.quantity(value, 2)

    @staticmethod
    def gib(size_bytes: Any) -> str:
        return prim.quantity(Decimal(int(size_bytes or 0)) / GIB, 1)

    @staticmethod
    def share(value: Any) -> str:
        return prim.share(value, 1)

    @staticmethod
    def number(value: Any) -> str:
        return prim.number(value)

    def evidence(self, level: Any) -> str:
        return prim.evidence(level, self.lang)

    def note(self) -> str | None:
        return fmt.precision_note(self.lang) if self.marked else None


def _zh_or(row: dict[str, Any], key: str, lang: str) -> str:
    """``row[key]`` in ``lang``: its ``key_zh`` beside it in Chinese (a sheet from before it had one:
    the English as stored)."""
    return (row.get(f"{key}_zh") if lang.startswith("zh") else None) or row.get(key) or ""


def price_column(prices: list[tuple[Any, str] | None], with_currency: bool = True) -> list[str]:
    """A column of unit prices (``(amount, currency)``, None for a row without one) at one precision
    per currency: each as many places as the most any of them needs (``fmt.unit_price``: six
    significant figures, at least the minor unit), so a column never reads "7.32" above "7.3172"."""
    want: dict[str, int] = {}
    for p in prices:
        if p is not None and fmt.dec(p[0]) is not None:
            text = fmt.unit_price(p[0], p[1])
            want[p[1]] = max(want.get(p[1], 0), len(text.partition(".")[2]))
    out = []
    for p in prices:
        if p is None:
            out.append(fmt.DASH)
            continue
        text = fmt.quantity(p[0], want[p[1]]) if fmt.dec(p[0]) is not None else fmt.unit_price(p[0], p[1])
        out.append(f"{text} {p[1]}" if with_currency and text != fmt.DASH else text)
    return out


def _compute_prices(rows: list[dict[str, Any]]) -> list[str]:
    return price_column([(r["price_per_gpu_hour"]["amount"], r["price_per_gpu_hour"]["currency"])
                         if r.get("price_per_gpu_hour") else None for r in rows])


def compute_notes(s: dict[str, Any], lang: str) -> list[str]:
    """The notes under the compute table: the queued hours valued and not (a queued row's price is over
    its valued hours only, R8-3), and, for each row whose price is the bill's or rate card's while its
    amount is per-line rounded shares (``split_rounding``), what price × GPU-hours gives (R8-5)."""
    notes: list[str] = []
    h = s.get("compute_hours") or {}
    if fmt.dec(h.get("queued_gpu_hours")):  # some queued hours (none: "0.0000"; a sheet before: absent)
        notes.append(t("queued_hours_check", lang).format(
            valued=Figures.hours(h["queued_valued_gpu_hours"]),
            not_valued=Figures.hours(h["queued_not_valued_gpu_hours"]), queued=Figures.hours(h["queued_gpu_hours"])))
    for r in s.get("compute_by_state", []):
        price, amounts = r.get("price_per_gpu_hour"), r.get("amounts")
        if not isinstance(price, dict) or not price.get("split_rounding") or not isinstance(amounts, list):
            continue
        p, hours = fmt.dec(price.get("amount")), fmt.dec(r.get("gpu_hours"))
        got = fmt.dec(amounts[0].get("expected")) if len(amounts) == 1 and isinstance(amounts[0], dict) else None
        if p is None or hours is None or got is None:
            continue  # a withheld price or amount: nothing to say it against
        cur = price["currency"]
        row = f"{v(r['state'], lang)} · {v(r['basis'], lang)}"
        notes.append(t("price_split_row", lang).format(
            row=row, amount=fmt.money(got, cur, exact=r["basis"] in CASH), lines=price.get("split_lines", "—"),
            product=fmt.money((p * hours).quantize(minor_quantum(cur)), cur)))
    return notes


def cause_text(cause: str | None, evidence: str | None, lang: str) -> str:
    """A cause with its evidence when it is only suggested: ``infra fault (assumed)``."""
    if not cause:
        return fmt.DASH
    return v(cause, lang) + (f" ({v(evidence, lang)})" if evidence == "assumed" else "")


def _range_text(a: dict[str, Any], f: Figures) -> str:
    if isinstance(a.get("low"), Withheld) or isinstance(a.get("high"), Withheld):
        return a["low"] if isinstance(a.get("low"), Withheld) else a["high"]
    return prim.span(a.get("low"), a.get("high"), f.number)


FIRST_PROBLEMS = 3
MORE = {"en": "… and {n} more: every one is in the JSON sheet (--format json)",
        "zh-CN": "…… 另有 {n} 条：完整列表见 JSON 底稿（--format json）"}


def problem_groups(s: dict[str, Any], lang: str) -> list[dict[str, Any]]:
    """Problems grouped by kind, in first-seen order: the count, the first few messages and how many
    more (a trace with 1,391 unmatched jobs must not print 1,391 lines on a sheet). Label and messages
    are in the sheet's language (report/problems_i18n.py); the code itself is for JSON only."""
    groups: dict[str, list[str]] = {}
    for p in s.get("problems", []):
        groups.setdefault(p["kind"], []).append(problems_i18n.message(p, lang))
    zh = "zh-CN" if lang.lower().startswith("zh") else "en"
    return [{"kind": k, "label": problems_i18n.label(k, lang), "sep": "：" if zh == "zh-CN" else ": ",
             "count": len(msgs), "messages": msgs[:FIRST_PROBLEMS],
             "more": MORE[zh].format(n=len(msgs) - FIRST_PROBLEMS) if len(msgs) > FIRST_PROBLEMS else None}
            for k, msgs in groups.items()]


def rounding_notes(s: dict[str, Any], lang: str) -> list[str]:
    """Where the sheet's rounded rows do not add to the total they make up: the GPU-hours of a basis
    in the compute table (rows shown to two decimals), and the non-cash bases whose rows the sheet
    rounds one by one (storage estimates, queued value, labor)."""
    notes: list[str] = []
    hours: dict[str, list[str]] = defaultdict(list)
    for r in s.get("compute_by_state", []):
        hours[r["basis"]].append(r["gpu_hours"])
    if any((r.get("price_per_gpu_hour") or {}).get("split_rounding") for r in s.get("compute_by_state", [])):
        notes.append(t("price_split_rounding", lang))
    for basis, rows in hours.items():
        total = sum((fmt.dec(x) or Decimal(0) for x in rows), Decimal(0))
        note = fmt.rounding_note(rows, total, lang, unit=t("gpu_hours", lang))
        if note:
            notes.append(f"{t('compute', lang)} · {v(basis, lang)}: {note}")
    for basis, (section, field) in ROWS_OF_BASIS.items():
        rows: dict[str, list[str]] = defaultdict(list)
        for r in s.get(section, []):
            if section != "labor_by_phase" and r.get("basis") != basis:
                continue
            if isinstance(r.get(field), Withheld):  # a withheld row: no note on what it adds to
                rows = {}
                break
            for m in r.get(field, []):
                rows[m["currency"]].append(m["expected"])
        for cur, values in rows.items():
            total = sum((fmt.dec(x["expected"]) or Decimal(0) for x in s.get("totals_by_basis", [])
                         if x["basis"] == basis and x["currency"] == cur), Decimal(0))
            q = minor_quantum(cur)
            gap = fmt.rounding_gap(values, total, q)
            if gap is None or abs(gap[1]) > q * len(values) / 2:  # beyond rounding: not ours to explain
                continue
            note = fmt.rounding_note(values, total, lang, q, unit=cur)
            notes.append(f"{t(section.split('_by_')[0], lang)} · {v(basis, lang)}: {note}")
    return notes


def proof_line(s: dict[str, Any], lang: str = "en") -> str:
    """The ledger state a sheet was built from (``Workspace.verify``): audit head and figures digest,
    so a printed sheet can be checked against ``trainledger audit``. Empty when the sheet has none."""
    p = s.get("ledger")
    if not p:
        return ""
    att = p["attribution_id"] if p["attribution_id"] is not None else t("none_yet", lang)
    return (f"{t('proof', lang)}: {t('audit_head', lang)} {p['audit_head_id']} {p['audit_head_hash']};"
            f" {t('attribution', lang)} {att}, {t('figures_digest', lang)} {p['figures_digest']}")


def to_markdown(s: dict[str, Any], lang: str = "en", role: str = ADMIN) -> str:
    L = lambda k: t(k, lang)  # noqa: E731
    zh = lang.lower().startswith("zh")
    s, seen = access.for_role(balance.of_sheet(s), role, lang)
    s = in_seed_order(s)
    f = Figures(lang)
    b = s["batch"]
    out = [f"# {L('title')}: {_inline(b['id'])}", ""]
    if b.get("name"):
        out.append(f"**{_inline(b['name'])}** — {L('project')} {_inline(b['project'])},"
                   f" {L('team')} {_inline(b['team'])}")
    out += [f"{L('goal')}: {_inline(s['key']['goal'])}", ""]
    out += [f"**{_inline(stale)}**", ""] if (stale := freshness.note(s.get("stale"), lang)) else []
    out += [f"_{access_note(seen, lang)}_", ""] if seen.withheld else []
    out += [f"_{_inline(why)}_", ""] if (why := access.guard_line(s)) else []
    out += [f"## {L('key')}", ""]
    out += prim.md_table([L("name"), L("value")], [[key_field(k, lang), val] for k, val in s["key"].items()])
    out += ["", f"## {L('totals')}", ""]
    out += prim.md_table([L("basis"), L("evidence"), L("cash"), L("expected"), L("low"), L("high"), L("currency")],
                  [[v(r["basis"], lang), f.evidence(r["evidence"]), L("yes") if r["cash"] else L("no"),
                    *(f.amount(r[k], r["currency"], r["basis"] in CASH) for k in ("expected", "low", "high")),
                    r["currency"]] for r in s["totals_by_basis"]])
    out += ["", *(f"_{_inline(n['text_zh'] if zh else n['text'])}_  " for n in s.get("bill_notes") or [])] \
        if s.get("bill_notes") else []
    if s.get("sections"):
        out += ["", f"## {L('sections')}", ""]
        rows = []
        for c in s["sections"]:
            cur = c["currency"]
            rows += [[L(f"sec_{x['section']}"), f.amount(x["amount"], cur), cur] for x in c["sections"]]
            rows += [[Md(f"**{L('total')}**"), Md(f"**{f.amount(c['total'], cur)}**"), cur],
                     [L("difference"), f.amount(c["difference"], cur), cur]]
        out += prim.md_table([L("section"), L("amount"), L("currency")], rows)
        items = [(c["currency"], i) for c in s["sections"] for i in c["items"]]
        if items:
            out += [""] + prim.md_table([L("section"), L("item"), L("amount"), L("currency")],
                                 [[L(f"sec_{i['section']}"), i["item"], f.amount(i["amount"], cur), cur]
                                  for cur, i in items])
    out += ["", f"## {L('compute')}", ""]
    prices = _compute_prices(s["compute_by_state"])  # one precision per column
    out += prim.md_table([L("state"), L("basis"), L("gpu_hours"), L("amount"), L("price_per_gpu_hour"), L("evidence")],
                  [[v(r["state"], lang), v(r["basis"], lang) + (f" ({L('commitment_covered')})" if r.get("covered")
                                                               else ""), f.hours(r["gpu_hours"]),
                    f.money(r["amounts"], r["basis"] in CASH) if r.get("valued", True) else L("not_valued"),
                    price, ", ".join(f.evidence(e) for e in r.get("evidence", []))]
                   for r, price in zip(s["compute_by_state"], prices, strict=True)])
    if s.get("compute_hours"):
        h = s["compute_hours"]
        out += ["", "_" + L("hours_check").format(valued=f.hours(h["valued_gpu_hours"]),
                                                  not_valued=f.hours(h["not_valued_gpu_hours"]),
                                                  runs=f.hours(h["runs_gpu_hours"])) + "_"]
    out += [line for n in compute_notes(s, lang) for line in ("", f"_{_inline(n)}_")]
    if s.get("compute_efficiency"):
        out += ["", f"### {L('efficiency')}", ""]
        # unclassified hours (no progress signal) are outside the share's base: a column when there are any
        unc = any(Decimal(e.get("unclassified_gpu_hours") or 0) for e in s["compute_efficiency"])
        out += prim.md_table([L("currency"), L("basis"), L("amount"), v("effective", lang), L("other_states"),
                       L("gpu_hours"), v("effective", lang) + " " + L("gpu_hours"), L("effective_share"),
                       *([L("unclassified_hours")] if unc else [])],
                      [[e["currency"], v(e.get("basis", "billed"), lang), f.amount(e["billed"], e["currency"]),
                        f.amount(e["effective"], e["currency"]),
                        f.amount(e["other_states"], e["currency"]), f.hours(e["gpu_hours"]),
                        f.hours(e["effective_gpu_hours"]), L("lost_unknown") if e["effective_share"] is None
                        else f.share(e["effective_share"]),
                        *([f.hours(e.get("unclassified_gpu_hours") or "0")] if unc else [])]
                       for e in s["compute_efficiency"]])
    if s.get("runs_by_review_class"):
        out += ["", f"## {L('review')}", ""]
        out += prim.md_table([L("review_class"), L("runs_count"), L("gpu_hours"), L("cost_by_basis")],
                      [[v(g["review_class"], lang), g["runs"], f.hours(g["gpu_hours"]),
                        f.by_basis(g["billed"] + g.get("capacity_cost", []))]
                       for g in s["runs_by_review_class"]])
        out += ["", "_" + L("review_class_note") + "_"]
    if s.get("allocation"):
        out += ["", f"## {L('allocation')}", ""]
        out += prim.md_table([L("policy"), L("source_basis"), L("driver"), L("share"), L("total"), L("currency")],
                      [[v(a["policy"], lang), v(a["source_basis"], lang), v(a["driver"], lang)
                        + (f" ({f.hours(a['driver_quantity'])})" if fmt.dec(a["driver_quantity"]) else ""),
                        f.amount(a["share"], a["currency"], a["source_basis"] in CASH) if not a["charged_to"]
                        else f"→ {a['charged_to']}",
                        f.amount(a["pool"], a["currency"], a["source_basis"] in CASH), a["currency"]]
                       for a in s["allocation"]])
    if s.get("retry_chains"):
        out += ["", f"## {L('retry_chains')}", ""]
        out += prim.md_table([L("failed_run"), L("final_state"), L("cause"), L("attempts"), L("lost_gpu_hours"),
                       L("failure_cost"), L("recovery_cost"), L("kept_cost"), L("other_cost"), L("total")],
                      [[c["failed"], c["state"], cause_text(c["cause"], c["cause_evidence"], lang),
                        " → ".join(c["attempts"]),
                        L("lost_unknown") if c["lost_gpu_hours"] is None else f.hours(c["lost_gpu_hours"]),
                        f.by_basis(c["failure_cost"]),
                        L("lost_unknown") if c.get("recovery_gpu_hours", "") is None and not c["recovery_cost"]
                        else f.by_basis(c["recovery_cost"]),
                        f.by_basis(c.get("kept_cost", [])), f.by_basis(c.get("other_cost", [])),
                        f.by_basis(c["total"])] for c in s["retry_chains"]])
        out += ["", L("chain_note")]
    out += ["", f"## {L('runs')}", ""]
    out += prim.md_table([L("run"), L("job"), L("reason"), L("cause"), L("review_class"), L("final_state"), L("gpus"),
                   L("retry_of"), L("cost_by_basis"), L("queued")],
                  [[r["id"], r["job"], v(r["reason"], lang), cause_text(r["cause"], r.get("cause_evidence"), lang),
                    v(r["suggested_review_class"], lang)
                    + (f" ({_zh_or(r, 'review_note', lang)})" if r.get("review_note") else ""),
                    r["state"], r.get("gpu_equivalents", r["gpus"]), r.get("retry_of") or fmt.DASH,
                    f.by_basis(r["compute_cost"]) if r.get("compute_cost") else f.money(r["billed"]),
                    f.money(r["queued"], cash=False)] for r in s["runs"]])
    out += ["", f"## {L('storage')}", ""]
    out += prim.md_table([L("class"), L("basis"), L("objects"), L("size"), L("gib_months"), L("cost"), L("findings")],
                  [[storage_class(r["storage_class"], lang) + (f": {', '.join(r['raw'])}" if r.get("raw") else ""),
                    v(r["basis"], lang), r["objects"], f.gib(r["bytes"]),
                    f.hours(r["gib_months"]), f.money(r["cost"], r["basis"] in CASH),
                    "; ".join(f"{fd['path']}: {_flags(fd['flags'], lang)}" for fd in r["findings"]) or "—"]
                   for r in s["storage_by_class"]])
    out += storage_section.to_markdown(s.get("storage_reconciliation"), lang)
    out += ["", f"## {L('labor')}", ""]
    rows = []
    for p in s["labor_by_phase"]:
        rows.append([Md(f"**{_inline(v(p['phase'], lang))}**"), "", f.hours(p["hours"]), f.valued(p)])
        rows += [["", v(r["role"], lang), f.hours(r["hours"]), f.valued(r)] for r in p["roles"]]
    out += prim.md_table([L("phase"), L("role"), L("hours"), L("cost")], rows)
    out += ["", f"## {L('external')}", ""]
    out += prim.md_table([L("vendor"), L("stage"), L("amount"), L("evidence")],
                  [[e["vendor"], v(e["stage"], lang), f"{f.amount(e['expected'], e['currency'])} {e['currency']}",
                    f.evidence(e["evidence"])] for e in s["external"]]) if s["external"] else [L("none")]
    out += plan_section.to_markdown(s.get("plan_vs_actual"), lang)
    out += balance_section.to_markdown(s.get("balance"), lang, f, lambda basis: basis in CASH)
    out += ["", f"## {L('assumptions')}", ""]
    out += prim.md_table([L("name"), L("value"), L("evidence"), L("source"), L("owner")],
                  [[assumption_name(a["name"], lang),
                    ((zh and a.get("value_zh")) or a.get("value") or _range_text(a, f))
                    + (f" {balance_section.drawer_unit(a['unit'], lang)}" if a.get("unit") else ""),
                    f.evidence(a["evidence"]),
                    (zh and a.get("source_zh")) or a.get("source", ""),
                    (zh and a.get("owner_zh")) or a.get("owner", "")] for a in s["assumptions"]])
    c = s["conservation"]
    out += ["", f"## {L('conservation')}", ""]
    cols = ("billed_total", "attributed", "unattributed", "difference")
    if c["by_currency"]:
        out += prim.md_table([L("currency"), *(L(k) for k in cols)],
                             [[r["currency"], *(f.amount(r[k], r["currency"]) for k in cols)]
                              for r in c["by_currency"]])
    else:  # a capacity-only workspace (owned cluster, no bill): its conservation is the capacity table
        empty = ("capacity_only" if c.get("capacity") else "not_attributed" if s.get("attribution_id") is None
                 else "nothing_to_conserve")  # before any `attribute` there is nothing to tell either way
        out += [f"_{L(empty)}_"]
    if c.get("amortized_by_currency"):
        out += ["", f"### {L('conservation_amortized')}", ""]
        out += prim.md_table([L("currency"), *(L(k) for k in cols)],
                      [[r["currency"], *(f.amount(r[k], r["currency"]) for k in cols)]
                       for r in c["amortized_by_currency"]])
    if c.get("capacity"):
        out += ["", f"### {L('capacity')}", ""]
        occ = any("held_not_imported" in r for r in c["capacity"])  # a pool's occupancy series (engine)
        keys = ("total", "attributed", *(("held_not_imported",) if occ else ()), "unheld", "job_without_batch",
                "difference")
        cap_prices = price_column([(r["price_per_gpu_hour"], r["currency"]) for r in c["capacity"]], False)
        out += prim.md_table(["id", L("basis"), L("price_per_gpu_hour"), L("capacity_total"), L("attributed"),
                       *((L("held_not_imported"),) if occ else ()),
                       v("capacity_unheld", lang), v("job_without_batch", lang), L("difference"), L("currency")],
                      [[r["capacity"], v(r["basis"], lang), cap_prices[i],
                        *(f.amount(r.get(k, "0"), r["currency"]) for k in keys),
                        r["currency"]] for i, r in enumerate(c["capacity"])])
        out += [x for r in c["capacity"] if (w := _waiting_line(r, L, f)) for x in ("", f"_{w}_")]
    reasons = [(r["currency"], x) for r in (*c["by_currency"], *c.get("capacity", []))  # a capacity's too
               for x in r.get("unattributed_by_reason", [])]
    if reasons:
        out += ["", f"### {L('unattributed_by_reason')}", ""]
        out += prim.md_table([L("reason"), L("detail"), L("amount"), L("currency")],
                      [[reason_label(x["reason"], lang), detail_label(x["detail"], lang), f.amount(x["amount"], cur),
                        cur] for cur, x in reasons])
    out += noncash.md(c, lang, f)  # the non-cash bases' bucket and the labor-hours control
    out += ["", f"_{(zh and c.get('rounding_zh')) or c['rounding']}_"]
    notes = rounding_notes(s, lang) + ([f.note()] if f.note() else [])
    if notes:
        out += [""] + [f"_{_inline(n)}_  " for n in notes]
    if s.get("problems"):
        out += ["", f"## {L('problems')}", ""]
        for g in problem_groups(s, lang):
            if g["count"] == 1:
                out.append(f"- **{_inline(g['label'])}**{g['sep']}{_inline(g['messages'][0])}")
                continue
            out.append(f"- **{_inline(g['label'])}** × {g['count']}")
            out += [f"  - {_inline(msg)}" for msg in g["messages"]]
            if g["more"]:
                out.append(f"  - {g['more']}")  # the renderer's own words
    out += ["", f"_{proof}_"] if (proof := proof_line(s, lang)) else []
    return "\n".join(out) + "\n"


def to_html(s: dict[str, Any], lang: str = "en", role: str = ADMIN) -> str:
    s, seen = access.for_role(balance.of_sheet(s), role, lang)
    s = in_seed_order(s)
    f = Figures(lang)
    env = prim.html_env()
    env.globals.update(t=lambda k: t(k, lang), v=lambda x: v(x, lang), money=f.money, lang=lang,
                       sc=lambda x: storage_class(x, lang), kf=lambda x: key_field(x, lang),
                       detail=lambda x: detail_label("" if x is None else x, lang),
                       reason=lambda x: reason_label(x, lang),
                       an=lambda x: assumption_name(x, lang), zh=lang.lower().startswith("zh"),
                       gib=f.gib, hours=f.hours, amount=f.amount, pairs=f.pairs, share=f.share,
                       cash=lambda basis: basis in CASH, range_text=lambda a: _range_text(a, f),
                       compute_notes=lambda: compute_notes(s, lang),
                       figure_notes=lambda: rounding_notes(s, lang) + ([f.note()] if f.note() else []),
                       problem_groups=lambda: problem_groups(s, lang), by_basis=f.by_basis, valued=f.valued,
                       cause=lambda c, e: cause_text(c, e, lang), number=f.number, unit_price=prim.unit_price,
                       waiting_line=lambda r: _waiting_line(r, lambda k: t(k, lang), f),
                       evidence=f.evidence, badge=lambda x: prim.badge(x, lang),
                       unit=lambda x: prim.unit(x, lang), compute_prices=_compute_prices,
                       capacity_prices=lambda rows: price_column([(r["price_per_gpu_hour"], r["currency"])
                                                                  for r in rows], False),
                       drawer_unit=lambda x: balance_section.drawer_unit(x, lang),
                       proof=proof_line(s, lang), stale_note=freshness.note(s.get("stale"), lang),
                       **plan_section.html_globals(lang),
                       **storage_section.html_globals(lang),
                       charts=lambda: charts.sheet_charts(s, lang),
                       balance=lambda: s["balance"],  # the sheet's own (report/balance.py), resolved
                       noncash_table=lambda: noncash.table(s["conservation"], lang, f),
                       labor_lines=lambda: [noncash.labor_line(r, lang)
                                            for r in s["conservation"].get("labor_hours") or []],
                       access_note=" ".join(x for x in (access_note(seen, lang), access.guard_line(s)) if x))
    return env.get_template("sheet.html.j2").render(s=s)


def render(sheet: dict[str, Any], fmt: str, lang: str = "en", role: str = ADMIN) -> str:
    if fmt == "json":
        return to_json(sheet, role)
    if fmt == "md":
        return to_markdown(sheet, lang, role)
    if fmt == "html":
        return to_html(sheet, lang, role)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def _waiting_line(rec: dict, L, f) -> str:
    """A pool's demand left waiting while capacity was idle, as an opportunity cost beside the totals."""
    w = (rec.get("occupancy") or {}).get("waiting_while_idle") or {}
    if w.get("gpu_hours") is None:
        return ""
    cur = rec["currency"]
    return L("capacity_waiting").format(
        capacity=rec["capacity"], hours=f"{Decimal(w['gpu_hours']):,.2f}", value=f.amount(w["opportunity_cost"], cur),
        currency=cur, pending=f"{Decimal(w['pending_while_any_idle_gpu_hours']):,.2f}",
        pending_value=f.amount(w["pending_while_any_idle_value"], cur), samples=f"{rec['occupancy']['samples']:,}")
