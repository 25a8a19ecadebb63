"""The balance view (report/balance.py, the sheet's ``balance``) in the Markdown sheet: consumption,
delivery investment, the unknowns removed and the assumptions drawer's sensitivity — the rows the HTML
sheet's templates/balance.html.j2 draws, from the same resolved view model (a withheld field prints
as the word "restricted" / "受限").

``drawer_unit`` gives an assumption's unit in the sheet's language (``CNY/gpu_hour`` → ``CNY/卡时``,
``CNY/gb_month (GB = 2^30 bytes)`` → ``CNY/GB·月（GB = 2^30 字节）``): the units the rest of the
zh-CN sheet prints.
"""

from __future__ import annotations

import re
from typing import Any

from trainledger import fmt
from trainledger.mdtext import Md
from trainledger.mdtext import inline as _inline
from trainledger.model.restricted import Withheld
from trainledger.report import primitives as prim
from trainledger.report.i18n import assumption_name, t, v

GB_NOTE = re.compile(r"\s*\(GB = 2\^30 bytes\)\s*$")


def drawer_unit(unit: Any, lang: str) -> str:
    """An assumption's unit as the sheet prints units in ``lang`` (review/texts.py's unit labels)."""
    if not unit:
        return ""
    text = str(unit)
    note = GB_NOTE.search(text)
    base = prim.unit(GB_NOTE.sub("", text), lang)
    return base + (t("gb_note", lang) if note else "")


def _signed(x: Any, currency: str, f) -> str:
    if isinstance(x, Withheld):
        return x
    text = f.amount(x, currency, False)
    return f"{'' if str(x).startswith('-') else '+'}{text} {currency}"


def _money(r: dict[str, Any], f, cash: bool) -> str:
    return t("not_valued", f.lang) if r.get("expected") is None else f.money([r], cash)


def to_markdown(bl: dict[str, Any] | None, lang: str, f, cash) -> list[str]:
    """The balance's lines of the Markdown sheet (``f``: render.py's Figures; ``cash(basis)``)."""
    if not bl:
        return []
    L = lambda k: t(k, lang)  # noqa: E731
    left, right = bl["left"], bl["right"]
    out = ["", f"## {L('balance')}", "", f"### {L('consumption')}", ""]
    rows = [[L("sec_compute"), v(r["basis"], lang), f"{f.hours(r['gpu_hours'])} {L('gpu_hours_short')}",
             _money(r, f, cash(r["basis"]))] for r in left["compute"]]
    rows += [[L("sec_storage"), v(r["basis"], lang), f"{f.hours(r['gib_months'])} {L('gib_months')}",
              _money(r, f, cash(r["basis"]))] for r in left["storage"]]
    rows += [[L("labor_short"), v(r["basis"], lang), f"{f.hours(r['hours'])} {L('hours')}", _money(r, f, False)]
             for r in left["labor"]]
    rows += [[L("sec_external"), f.evidence(r["evidence"]), "", f.money([r])] for r in left["external"]] \
        or [[L("sec_external"), "", "", L("none")]]
    out += prim.md_table([L("item"), L("basis"), L("value"), L("amount")], rows)
    out += ["", f"### {L('delivery')}", ""]
    rows = [[L("earned_value"), v(r["basis"], lang), "", f.money([r], False)] for r in right["earned_value"]] \
        if right["planned"] else [[L("earned_value"), "", "", L("no_plan")]]
    rows.append([L("reusable_assets"), "", str(right["assets"]["count"]),
                 Md(f"{_inline(L('carrying_cost'))}: {f.pairs(right['assets']['monthly'])}")])
    ls = right["lessons"]
    rows.append([L("lessons_failed"), "", f"{ls['chains']} {L('chains')} · {f.hours(ls['lost_gpu_hours'])}"
                 f" {L('gpu_hours_short')}", f.by_basis(ls["cost"])])
    out += prim.md_table([L("item"), L("basis"), L("value"), L("amount")], rows)
    if right["unknowns"]:
        out += ["", f"### {L('unknowns_removed')}", ""]
        zh = lang.lower().startswith("zh")
        out += prim.md_table([L("name"), L("range_before"), L("measured_after"), L("change"), L("range_shrank")],
                             [[(zh and u.get("name_zh")) or u["name"],
                               f"{f.number(u['before']['low'])}–{f.number(u['before']['high'])} "
                               f"{prim.unit(u.get('unit'), lang)}",
                               f.number(u["after"]["value"]),
                               f"{u['change_pct']} %" if u.get("change_pct") is not None else fmt.DASH,
                               f"{f.number(u['width_before'])} {prim.unit(u.get('unit'), lang)} → 0"
                               if u.get("shrank") else fmt.DASH] for u in right["unknowns"]])
    out += ["", f"### {L('sensitivity')}", ""]
    rows = []
    for a in bl["sensitivity"]:
        name = L("storage_joint") if a.get("joint") else assumption_name(a["name"], lang)
        # a point value (a capacity's rate) has no low or high: a dash, not an empty cell beside its unit
        low = fmt.DASH if a.get("low") is None else a["low"] if isinstance(a["low"], Withheld) else f.number(a["low"])
        high = fmt.DASH if a.get("high") is None else a["high"] if isinstance(a["high"], Withheld) \
            else f.number(a["high"])
        high += f" {drawer_unit(a['unit'], lang)}" if a.get("unit") and a.get("high") is not None else ""
        head = [name, low, high, f.evidence(a["evidence"])]
        if isinstance(a.get("moves"), Withheld):
            rows.append([*head, "", a["moves"], a["moves"]])
        elif a.get("moves"):
            rows += [[*head, v(m["basis"], lang), _signed(m["low"], m["currency"], f),
                      _signed(m["high"], m["currency"], f)] for m in a["moves"]]
        else:
            why = L("storage_tier_joint") if a["name"].startswith("storage price ") else L("not_modelled")
            rows.append([*head, "", why, why])
    out += prim.md_table([L("name"), L("low"), L("high"), L("evidence"), L("basis"), L("move_low"),
                          L("move_high")], rows)
    return out
