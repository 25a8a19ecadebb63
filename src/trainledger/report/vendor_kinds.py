"""The figures of plan, status, review, alerts and conservation that give an invoice back (review 7 L13).

An external service's invoice is one cost line of kind vendor_amount (model/restricted.py). A figure
that sums it with lines a role does see — the AC of the basis and currency it is billed in, the EAC
(AC plus the work to go), the variance parts that make up that AC, the alert quoting it, the
workspace's billed total and attributed of its currency — gives it back by a subtraction (or is the
invoice alone: the demo's only USD money is its invoice). Those are vendor_amount too; the plan and
the earned value (the plan's figures) and every other basis and currency stay as they are.

Which groups hold an invoice is data, named where the record is made: ``vendor_groups`` (basis and
currency, ``[{"basis", "currency"}]``) and ``vendor_lines`` (the plan lines an invoice is matched to, and
``unplanned:external``) of a status, a review, the sheet's plan section and the dashboard's pages
(``groups_of``: the latest attribution's attributed per batch, category external); an alert of several
batches' page names its own (``invoiced``). ``mark_vendor`` marks what those records hold, by the key
each figure sits under; ``mark_conservation`` the conservation records of a currency that holds one.
"""

from __future__ import annotations

import re
from typing import Any

from trainledger.model.restricted import restrict
from trainledger.report.text_mask import restrict_text

VENDOR = "vendor_amount"
AMOUNTS = ("low", "expected", "high")
RANGE_LISTS = ("ac", "eac", "sunk_cost", "cost_to_go")  # rows of actuals (or what rests on them) per group
ACTUAL_PARTS = ("actual", "price", "volume", "efficiency", "rework", "other", "not_split")  # all but plan
LINE_DICTS = ("efficiency_by_state", "rework_by", "rework_by_kind")
UNPLANNED_EXTERNAL = "unplanned:external"
# an alert on one basis and currency's money (review/status.py ``_candidates``)
ALERT_KEY = re.compile(r"^(?:spend|unplanned|eac_high|work_unknown):([a-z_]+):([A-Z]{3})(?::|$)")


def groups_of(wsp) -> dict[str, list[dict[str, str]]]:
    """Per batch, the (basis, currency) groups an invoice attributed to it is part of: the latest
    attribution's attributed per batch (report/sheet.py ``attributed_by_batch``, category external);
    for an attribution made before that was kept, its external cost lines."""
    from trainledger.report.sheet import attributed_by_batch

    att = wsp.ledger.latest_attribution() or {}
    got = attributed_by_batch(wsp, att.get("id"))
    held: dict[str, set[tuple[str, str]]] = {}
    if got is not None:
        for r in got.get("cash") or []:
            if r.get("category") == "external" and r.get("batch"):
                held.setdefault(str(r["batch"]), set()).add((str(r["basis"]), str(r["currency"])))
    else:
        for ln in wsp.ledger.cost_lines():
            if ln.category == "external" and ln.batch_id:
                held.setdefault(ln.batch_id, set()).add((str(ln.basis), ln.currency))
    return {b: [{"basis": x, "currency": c} for x, c in sorted(g)] for b, g in held.items()}


def invoiced_currencies(wsp, records: list[dict[str, Any]] | None = None) -> set[str]:
    """The currencies an invoice is billed in: attributed to a batch (``groups_of``) or left in the
    unattributed bucket (a conservation record's row whose detail names the invoice)."""
    from trainledger.report.field_kinds import INVOICE_DETAIL

    out = {g["currency"] for gs in groups_of(wsp).values() for g in gs}
    for r in records or []:
        if isinstance(r, dict) and any(str(x.get("detail", "")).startswith(INVOICE_DETAIL)
                                       for x in r.get("unattributed_by_reason") or [] if isinstance(x, dict)):
            out.add(str(r.get("currency")))
    return out


def with_invoiced(records: Any, currencies: set[str]) -> Any:
    """Conservation records (engine/conservation.py ``check``), each naming whether an invoice is billed
    in its currency (``invoiced``): what ``mark_conservation`` reads."""
    if not isinstance(records, list):
        return records
    return [dict(r, invoiced=str(r.get("currency")) in currencies) if isinstance(r, dict) else r for r in records]


def mark_conservation(records: Any) -> Any:
    """Conservation records with an invoice's currency's figures marked vendor_amount: the bill total
    and the attributed (beside each batch's sections and the bucket's rows they give the invoice
    back), the unattributed when an invoice is in it (its rows are printed, the invoice's withheld), a
    difference that is not zero (an invoice missing from the lines is the difference). A record that
    names no ``invoiced`` is marked by its unattributed rows alone."""
    from trainledger.report.field_kinds import INVOICE_DETAIL

    if not isinstance(records, list):
        return records
    out = []
    for r in records:
        if not isinstance(r, dict):
            out.append(r)
            continue
        rows = [x for x in r.get("unattributed_by_reason") or [] if isinstance(x, dict)]
        in_bucket = any(str(x.get("detail", "")).startswith(INVOICE_DETAIL) for x in rows)
        if not (r.get("invoiced") or in_bucket):
            out.append(r)
            continue
        keys = ["billed_total", "attributed"] + (["unattributed"] if in_bucket else [])
        if _nonzero(r.get("difference")):
            keys.append("difference")
        marked = dict(r, **{k: restrict(r[k], VENDOR) for k in keys if k in r})
        if in_bucket:  # the invoice's own row of the bucket: its amount is the vendor's (review 8 R8-2)
            marked["unattributed_by_reason"] = [
                dict(x, amount=restrict(x.get("amount"), VENDOR))
                if isinstance(x, dict) and str(x.get("detail", "")).startswith(INVOICE_DETAIL) else x
                for x in r.get("unattributed_by_reason") or []]
        out.append(marked)
    return out


def _nonzero(v: Any) -> bool:
    from decimal import Decimal, InvalidOperation

    try:
        return Decimal(str(v)) != 0
    except (InvalidOperation, ValueError):
        return False


def mark_vendor(obj: Any, groups: frozenset[tuple[str, str]] = frozenset(),
                lines: frozenset[str] = frozenset()) -> Any:
    """``obj`` (a status, a review, a plan section, a page holding them) with the figures of its invoiced
    groups marked vendor_amount: under ``ac`` / ``eac`` / ``sunk_cost`` / ``cost_to_go`` a group's row;
    a row holding ``ac`` / ``eac`` ranges (the status page's ``ranges``, the cross report's plan rows)
    those; the per-basis ``variance`` row's actual and parts; a variance line an invoice is matched to
    (``vendor_lines``), its actual and parts; a spend curve's points, actual and EAC; an alert on the
    group (or naming itself ``invoiced``), its value and the money its texts quote. The plan and EV
    stay (the plan's own figures). Idempotent."""
    return _walk(obj, groups, lines, None)


def _walk(x: Any, groups: frozenset, lines: frozenset, parent: str | None) -> Any:
    if isinstance(x, list):
        return [_walk(v, groups, lines, parent) for v in x]
    if not isinstance(x, dict):
        return x
    if isinstance(x.get("vendor_groups"), list):
        groups = groups | {(str(g.get("basis")), str(g.get("currency"))) for g in x["vendor_groups"]
                           if isinstance(g, dict)}
    if isinstance(x.get("vendor_lines"), list):
        lines = lines | {str(v) for v in x["vendor_lines"]}
    out = {k: _walk(v, groups, lines, k) for k, v in x.items()}
    if (str(out.get("basis")), str(out.get("currency"))) in groups:
        _mark_group_row(out, parent, lines)
    key = out.get("key")
    if isinstance(key, str) and (m := ALERT_KEY.match(key)) and ((m[1], m[2]) in groups or out.get("invoiced")):
        _mark_alert(out)
    return out


def alert_invoiced(alert: dict[str, Any], groups: list[dict[str, str]]) -> bool:
    """True for an alert on a basis and currency of ``groups`` (a batch's, ``groups_of``)."""
    m = ALERT_KEY.match(str(alert.get("key") or ""))
    return bool(m) and {"basis": m[1], "currency": m[2]} in groups


def _mark(d: dict[str, Any], keys) -> None:
    for k in keys:
        if k in d:
            d[k] = restrict(d[k], VENDOR)


def _mark_group_row(out: dict[str, Any], parent: str | None, lines: frozenset) -> None:
    if parent in RANGE_LISTS:
        _mark(out, AMOUNTS)
    for k in ("ac", "eac"):
        if isinstance(out.get(k), dict):
            out[k] = {x: restrict(y, VENDOR) for x, y in out[k].items()}
    line = out.get("line")
    if parent == "variance" and line is None or line == UNPLANNED_EXTERNAL or (line is not None and line in lines):
        _mark(out, ACTUAL_PARTS)
        for k in LINE_DICTS:
            if isinstance(out.get(k), dict):
                out[k] = {x: restrict(y, VENDOR) for x, y in out[k].items()}
    if isinstance(out.get("points"), list):  # a spend curve: the cumulative AC per day
        out["points"] = [dict(p, cumulative=restrict(p.get("cumulative"), VENDOR)) if isinstance(p, dict) else p
                         for p in out["points"]]
        _mark(out, ("actual", "undated"))
        if isinstance(out.get("eac"), dict):
            out["eac"] = {x: restrict(y, VENDOR) for x, y in out["eac"].items()}


def _mark_alert(out: dict[str, Any]) -> None:
    """An alert on an invoiced group: its value (the AC, or the EAC's high) and each figure its text and
    driver quote, in both languages (``restrict_text``: the words stay). Its bound and plan are the
    plan's."""
    _mark(out, ("value",))
    for k in ("text", "driver"):
        if isinstance(out.get(k), dict):
            out[k] = {x: restrict_text(y, VENDOR, x) for x, y in out[k].items()}
        elif isinstance(out.get(k), str):
            out[k] = restrict_text(out[k], VENDOR, "en")
