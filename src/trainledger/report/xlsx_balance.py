"""The batch workbook's Balance sheet (report/xlsx.py): the sheet's ``balance`` view model (report/balance.py,
resolved for the workbook's role) — consumption, delivery investment, the unknowns removed, and the
assumptions drawer with its sensitivity.

Each figure is the view model's decimal (a withheld one is the word). In the drawer, an assumption's
low and high are formulas reading its named cell on Assumptions (``=asm_labor_rate_training_engineering_low``)
where the Assumptions sheet named one, with the value as the cached result; the money moves at low
and at high are values (the engine's, per basis and currency; never summed across bases).
"""

from __future__ import annotations

from typing import Any

from trainledger.model.restricted import is_withheld
from trainledger.report.i18n import assumption_name, t
from trainledger.report.xlsx import Book, H, dec, money_format, unit_text

MONEY = ("low", "expected", "high")
COLS = ["part", "label", "basis", "basis_label", "currency", "quantity", "unit", "low", "expected", "high"]


def _both(b: Book, key: str) -> str:
    return b.said(t(key, "en"), t(key, "zh-CN"))


def _vocab(b: Book, code: Any) -> str:
    return b.vocab(code)


def _row(b: Book, ws, row: int, part: str, r: dict, qty: Any = None, unit: str = "", basis_key: str = "basis") -> None:
    b.text(ws, row, 1, part)
    b.text(ws, row, 2, _both(b, {"compute": "sec_compute", "storage": "sec_storage", "labor": "labor_short",
                                 "external": "sec_external", "earned_value": "earned_value",
                                 "assets": "reusable_assets", "lessons": "lessons_failed"}[part]))
    b.text(ws, row, 3, r.get(basis_key))
    b.text(ws, row, 4, _vocab(b, r.get(basis_key)))
    cur = r.get("currency") or ""
    b.text(ws, row, 5, cur)
    if qty is not None:
        b.number(ws, row, 6, qty, "#,##0.00")
        b.text(ws, row, 7, _both(b, unit) if unit else "")
    for k, key in enumerate(MONEY):
        if key in r and r[key] is not None:
            b.money(ws, row, 8 + k, r[key], cur)
    if r.get("expected") is None and "expected" in r:
        b.text(ws, row, 9, _both(b, "not_valued"))


def _heads(b: Book, ws, row: int, keys: list[str]) -> None:
    for i, k in enumerate(keys, 1):
        b.text(ws, row, i, H(k), bold=True)


def write(b: Book, s: dict) -> None:
    ws = b.sheet("Balance")
    bl = s.get("balance")
    b.text(ws, 1, 1, H("balance"), bold=True)
    if not bl:
        b.text(ws, 2, 1, H("none"))
        return
    left, right = bl["left"], bl["right"]
    b.text(ws, 3, 1, H("consumption"), bold=True)
    _heads(b, ws, 4, COLS)
    row = 5
    for part, qty, unit in (("compute", "gpu_hours", "gpu_hours"), ("storage", "gib_months", "gib_months"),
                            ("labor", "hours", "hours")):
        for r in left[part]:
            _row(b, ws, row, part, r, r.get(qty), unit)
            row += 1
    for r in left["external"]:
        _row(b, ws, row, "external", r, basis_key="evidence")
        row += 1
    row += 1
    b.text(ws, row, 1, H("delivery"), bold=True)
    _heads(b, ws, row + 1, COLS)
    row += 2
    if not right.get("planned"):
        _row(b, ws, row, "earned_value", {})
        b.text(ws, row, 9, _both(b, "no_plan"))
        row += 1
    for r in right["earned_value"]:
        _row(b, ws, row, "earned_value", r)
        row += 1
    for m in right["assets"]["monthly"] or [{}]:
        _row(b, ws, row, "assets", {"currency": m.get("currency")}, right["assets"]["count"])
        if m:
            b.text(ws, row, 7, _both(b, "carrying_cost"))
            b.money(ws, row, 9, m["amount"], m["currency"])
        row += 1
    ls = right["lessons"]
    for m in ls["cost"] or [{}]:
        _row(b, ws, row, "lessons", {"basis": m.get("basis"), "currency": m.get("currency")}, ls["lost_gpu_hours"],
             "gpu_hours")
        if m:
            b.money(ws, row, 9, m["amount"], m["currency"])
        row += 1
    if right["unknowns"]:
        row = _unknowns(b, ws, row + 1, right["unknowns"])
    _sensitivity(b, ws, row + 1, bl["sensitivity"])


def _unknowns(b: Book, ws, row: int, unknowns: list[dict]) -> int:
    b.text(ws, row, 1, H("unknowns_removed"), bold=True)
    _heads(b, ws, row + 1, ["name", "range_before", "range_before", "unit", "measured_after", "change",
                            "range_shrank"])
    row += 2
    for u in unknowns:
        b.text(ws, row, 1, b.said(u["name"], u.get("name_zh") or u["name"]))
        b.number(ws, row, 2, u["before"].get("low"), "General")
        b.number(ws, row, 3, u["before"].get("high"), "General")
        b.text(ws, row, 4, unit_text(b, u.get("unit")))
        b.number(ws, row, 5, u["after"].get("value"), "General")
        b.number(ws, row, 6, u.get("change_pct"), "0.0")
        if u.get("shrank"):
            b.number(ws, row, 7, u.get("width_before"), "General")
        row += 1
    return row


def _sensitivity(b: Book, ws, row: int, rows: list[dict]) -> None:
    b.text(ws, row, 1, H("sensitivity"), bold=True)
    _heads(b, ws, row + 1, ["name", "assumption_low", "assumption_high", "unit", "evidence", "basis", "basis_label",
                            "currency", "move_low", "move_high", "defined_name"])
    row += 2
    for a in rows:
        name = a["name"]
        label = b.said(t("storage_joint", "en"), t("storage_joint", "zh-CN")) if a.get("joint") else \
            b.said(assumption_name(name, "en"), assumption_name(name, "zh-CN"))
        names = b.names.get(name, {})
        moves = a.get("moves")
        for m in (moves if isinstance(moves, list) and moves else [None]):
            b.text(ws, row, 1, label)
            for col, key in ((2, "low"), (3, "high")):
                x = a.get(key)
                if key in names and not is_withheld(x) and dec(x) is not None:  # the named cell itself
                    b.formula(ws, row, col, names[key], "General", cached=dec(x))
                elif x is not None:
                    b.number(ws, row, col, x, "General")  # a withheld one: its word, as text
            b.text(ws, row, 4, unit_text(b, a.get("unit")))
            b.text(ws, row, 5, _vocab(b, a.get("evidence")))
            b.text(ws, row, 11, ", ".join(names[k] for k in ("low", "high") if k in names))
            if m is None:
                why = moves if is_withheld(moves) else _both(b, "storage_tier_joint") \
                    if name.startswith("storage price ") else _both(b, "not_modelled")
                b.text(ws, row, 9, why)
                b.text(ws, row, 10, why)
            else:
                cur = m["currency"]
                b.text(ws, row, 6, m["basis"])
                b.text(ws, row, 7, _vocab(b, m["basis"]))
                b.text(ws, row, 8, cur)
                for col, key in ((9, "low"), (10, "high")):
                    b.money(ws, row, col, m[key], cur)
                    ws.cell(row=row, column=col).number_format = "+" + money_format(cur) + ";-" + money_format(cur)
            row += 1
