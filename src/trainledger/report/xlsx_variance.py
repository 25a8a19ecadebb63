"""The batch workbook's Variance sheet as live formulas over Lines and Assumptions (review/variance.py's
split, written as the spreadsheet formulas it is).

The plan's expected rates become named cells on the Assumptions sheet (price per unit, quantity
per Mtoken, fixed quantity, rework allowance per plan line; planned and measured useful work).
Below the bridge, one row per plan line holds the actual cost as a live ``SUMIFS`` over Lines
(category, basis, currency, and the role for a labor line), the measured quantities, and the split::

    plan        = Pp × (F + Wp × E + Rp)
    price       = A − Pp × Qa
    volume      = Pp × E × (Wa − Wp)
    efficiency  = Pp × (Qa − Ra − F − Wa × E)
    rework      = Pp × (Ra − Rp)
    other       = the engine's credits and other charges (compute money without GPU-hours)
    not_split   = 0; with useful work unknown volume + efficiency (Wa = 0) in one, with nothing
                  recorded A − plan (the other parts 0)

(an unplanned row: plan and price 0, volume = A − its rework cost − other). The bridge per basis and currency
sums those rows (``SUMIFS``), so changing a rate on Assumptions moves the bridge. Each row keeps the
engine's exact parts beside its formulas and a check that must show 0.00.
"""

from __future__ import annotations

import re
from decimal import Decimal

from trainledger.report.xlsx import Book, H, dec, lines_range, money_format, ref, source_text, unit_text
from trainledger.report.xlsx_text import L

BRIDGE = ("plan", "price", "volume", "efficiency", "rework", "other", "not_split")
RATES = (("price", "Pp"), ("efficiency", "E"), ("fixed", "F"), ("rework_allowance", "Rp"))
# the plan-line block's columns
COLS = ("line", "category", "basis", "currency", "role", "Pp", "E", "F", "Rp", "Wp", "Wa", "Qa", "Ra", "A",
        *BRIDGE, *(f"engine_{p}" for p in BRIDGE), "check", "label")
C = {k: i for i, k in enumerate(COLS, 1)}


def _name(text: str) -> str:
    return "plan_" + (re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").lower() or "x")


def _inputs(b: Book, s: dict) -> dict[str, dict[str, str]]:
    """Append the plan's rates and the useful work to Assumptions as named cells; → line id → key →
    absolute reference (``Assumptions!$D$12``)."""
    from openpyxl.workbook.defined_name import DefinedName

    pva = s["plan_vs_actual"]
    ws = b.wb["Assumptions"]
    row = ws.max_row + 2
    b.text(ws, row, 1, H("plan_rates"), bold=True)
    out: dict[str, dict[str, str]] = {"": {}}

    def put(label: str, key: str, value, unit: str, owner: str, evidence: str, source: str) -> str:
        nonlocal row
        row += 1
        b.text(ws, row, 1, label)
        b.number(ws, row, 4, value, "General")
        b.text(ws, row, 5, unit_text(b, unit))
        b.text(ws, row, 6, owner)
        b.text(ws, row, 7, evidence)
        b.text(ws, row, 8, source)
        name = _name(key)
        b.text(ws, row, 9, name)
        target = f"Assumptions!$D${row}"
        b.wb.defined_names[name] = DefinedName(name, attr_text=target)
        return target

    w = pva.get("work") or {}
    out[""]["Wp"] = put(H("planned_work"), "work_planned", w.get("expected"), "Mtoken", "", "assumed", "plan")
    out[""]["Wa"] = put(H("work_done"), "work_done", w.get("done"), "Mtoken", "", "measured", "progress events")
    for pl in pva.get("plan_lines") or []:
        refs = out.setdefault(pl["id"], {})
        for key, sym in RATES:
            unit = {"price": f"{pl['currency']}/{pl['unit']}", "efficiency": f"{pl['unit']}/Mtoken"}.get(key,
                                                                                                      pl["unit"])
            refs[sym] = put(f"{pl['id']}: {L[key][0]} / {L[key][1]}", f"{pl['id']}_{key}", pl[key], unit,
                            pl.get("owner", ""), pl.get("evidence", ""), source_text(b, pl))
    return out


def _formula(b: Book, ws, row: int, col: int, template: str, fmt: str, cached, **cells: str) -> None:
    """A formula over this row's cells (by column key) and the Assumptions references given."""
    refs = {k: (v if "!" not in v else None) for k, v in cells.items()}
    text = template
    for k, v in cells.items():
        if "!" in v:  # a reference this builder made on Assumptions: the builder's own text
            text = text.replace("{" + k + "}", v)
            refs.pop(k)
    b.formula(ws, row, col, text, fmt, cached=cached, **refs)


def write(b: Book, ws, s: dict, top: int, last_line: int) -> dict[str, str]:
    """The plan-line block from row ``top``; → the block's column ranges (basis, currency, A and the
    parts) for the bridge's ``SUMIFS``; empty when the review has no lines."""
    pva = s["plan_vs_actual"]
    vls = pva.get("variance_lines") or []
    inputs = _inputs(b, s)
    b.text(ws, top, 1, H("plan_lines"), bold=True)
    for k, key in enumerate(COLS, 1):
        b.text(ws, top + 1, k, H(key), bold=True)
    lines_col = lambda k: lines_range(k, last_line)  # noqa: E731
    by_id = {pl["id"]: pl for pl in pva.get("plan_lines") or []}
    row = top + 1
    for v in vls:
        row += 1
        cur, fm = v["currency"], money_format(v["currency"])
        pl = by_id.get(v["line"])
        q = v.get("quantities") or {}
        for key, val in (("line", v["line"]), ("category", pl["category"] if pl else v["line"].partition(":")[2]),
                         ("basis", v["basis"]), ("currency", cur), ("role", pl["role"] if pl else ""),
                         ("label", f"{b.line(v['line'])} · {b.vocab(v['basis'])}")):
            b.text(ws, row, C[key], val)
        r = {k: ref(row, C[k]) for k in COLS}
        for p in BRIDGE:  # the engine's exact parts, to 15 significant digits (JSON: every digit)
            b.number(ws, row, C[f"engine_{p}"], dec(v[p]) or Decimal(0), fm)
        if pl is None:  # unplanned: the engine's actual and rework cost; volume is the rest
            b.number(ws, row, C["A"], dec(v["actual"]), fm)
            for p in ("plan", "price", "efficiency"):
                b.formula(ws, row, C[p], "0", fm, cached=0)
            b.formula(ws, row, C["volume"], "{a}-{rw}-{oth}", fm, cached=dec(v["volume"]) or 0,
                      a=r["A"], rw=r["engine_rework"], oth=r["engine_other"])
            b.formula(ws, row, C["rework"], "{rw}", fm, cached=dec(v["rework"]) or 0, rw=r["engine_rework"])
            b.formula(ws, row, C["other"], "{x}", fm, cached=dec(v.get("other")) or 0, x=r["engine_other"])
            b.formula(ws, row, C["not_split"], "0", fm, cached=0)
        else:
            i, g = inputs[v["line"]], inputs[""]
            w = pva.get("work") or {}
            for sym, key in (("Pp", "price"), ("E", "efficiency"), ("F", "fixed"), ("Rp", "rework_allowance")):
                _formula(b, ws, row, C[sym], "{x}", "General", pl[key], x=i[sym])
            _formula(b, ws, row, C["Wp"], "{x}", "General", w.get("expected"), x=g["Wp"])
            _formula(b, ws, row, C["Wa"], "{x}", "General", w.get("done"), x=g["Wa"])
            b.number(ws, row, C["Qa"], dec(q.get("actual_quantity")), "General")
            b.number(ws, row, C["Ra"], dec(q.get("rework_quantity")), "General")
            crit = (f"SUMIFS({lines_col('for_formulas')},{lines_col('category')},{{cat}},{lines_col('basis')},"
                    f"{{basis}},{lines_col('currency')},{{cur}}")
            if pl["category"] == "labor":
                crit += f',{lines_col("detail")},"*/"&{{role}}'
            b.formula(ws, row, C["A"], crit + ")", fm, cached=dec(v["actual"]), cat=r["category"], basis=r["basis"],
                      cur=r["currency"], **({"role": r["role"]} if pl["category"] == "labor" else {}))
            e = {p: dec(v[p]) or Decimal(0) for p in BRIDGE}  # the engine's parts: each formula's stored result
            b.formula(ws, row, C["plan"], "{pp}*({f}+{wp}*{e}+{rp})", fm, cached=e["plan"], pp=r["Pp"], f=r["F"],
                      wp=r["Wp"], e=r["E"], rp=r["Rp"])
            note = v.get("note") or ""
            b.formula(ws, row, C["other"], "{x}", fm, cached=e["other"], x=r["engine_other"])
            if note == "not_recorded":  # nothing recorded on this basis: all of it not split
                for p in ("price", "volume", "efficiency", "rework", "other"):
                    b.formula(ws, row, C[p], "0", fm, cached=0)
                b.formula(ws, row, C["not_split"], "{a}-{plan}", fm, cached=e["not_split"], a=r["A"], plan=r["plan"])
            else:
                b.formula(ws, row, C["price"], "{a}-{oth}-{pp}*{qa}", fm, cached=e["price"], a=r["A"],
                          oth=r["other"], pp=r["Pp"], qa=r["Qa"])
                b.formula(ws, row, C["rework"], "{pp}*({ra}-{rp})", fm, cached=e["rework"], pp=r["Pp"], ra=r["Ra"],
                          rp=r["Rp"])
            if note == "work_unknown":  # volume and efficiency cannot be told apart: one remainder
                for p in ("volume", "efficiency"):
                    b.formula(ws, row, C[p], "0", fm, cached=0)
                b.formula(ws, row, C["not_split"], "{pp}*({qa}-{ra}-{f})-{pp}*{e}*{wp}", fm, cached=e["not_split"],
                          pp=r["Pp"], qa=r["Qa"], ra=r["Ra"], f=r["F"], e=r["E"], wp=r["Wp"])
            elif note == "":
                b.formula(ws, row, C["volume"], "{pp}*{e}*({wa}-{wp})", fm, cached=e["volume"], pp=r["Pp"], e=r["E"],
                          wa=r["Wa"], wp=r["Wp"])
                b.formula(ws, row, C["efficiency"], "{pp}*({qa}-{ra}-{f}-{wa}*{e})", fm, cached=e["efficiency"],
                          pp=r["Pp"], qa=r["Qa"], ra=r["Ra"], f=r["F"], wa=r["Wa"], e=r["E"])
                b.formula(ws, row, C["not_split"], "0", fm, cached=0)
        b.formula(ws, row, C["check"], "ROUND(" + "+".join(f"ABS({{{p}}}-{{engine_{p}}})" for p in BRIDGE) + ",2)",
                  "0.00", cached=0, **{p: r[p] for p in BRIDGE},
                  **{f"engine_{p}": r[f"engine_{p}"] for p in BRIDGE})
    first, last = top + 2, max(row, top + 2)
    span = lambda key: ref(first, C[key]).replace(str(first), f"${first}") + ":" + \
        ref(last, C[key]).replace(str(last), f"${last}")  # noqa: E731
    return {k: span(k) for k in ("basis", "currency", "A", *BRIDGE)} if vls else {}
