"""The storage reconciliation as people read it: bills beside the inventory estimate, en / zh-CN.

The figures come from ``engine.storage_reconcile.view`` (the batch sheet's
``storage_reconciliation``, ``trainledger storage`` for the workspace). Billed cash and the
estimate stay in their own columns; the difference and its parts are a third column, never added
to either. Markdown here, HTML in ``templates/storage_section.html.j2`` with ``html_globals``.
"""

from __future__ import annotations

from typing import Any

from trainledger import fmt
from trainledger.mdtext import inline as _inline
from trainledger.mdtext import table as _table

TEXT: dict[str, tuple[str, str]] = {
    "heading": ("Storage bills against the inventory estimate (two bases side by side)",
                "存储账单与存储清单估算对账（两种口径并列）"),
    "heading_ws": ("Storage bills against the inventory estimate — workspace",
                   "存储账单与存储清单估算对账——工作区"),
    "intro": ("Billed cash (basis billed) beside the inventory × price book (basis estimate), per month and"
              " bucket / prefix; the difference is shown and explained, never added to either figure.",
              "账单现金（账单口径）与存储清单 × 价格表（估算口径）按月份和存储桶 / 前缀并列；差额单列并说明来源，"
              "不与任何一方相加。"),
    "none": ("No storage bill rows (ServiceCategory Storage): nothing to reconcile; the estimate stands alone.",
             "没有存储类账单行（ServiceCategory 为 Storage）：无可对账项，仅有估算。"),
    "none_batch": ("No storage bill row or inventory object of this batch is on a reconciled bill.",
                   "本批次没有参与对账的存储账单行或清单对象。"),
    "month": ("month", "月份"), "location": ("bucket / prefix", "存储桶 / 前缀"), "match": ("match", "匹配"),
    "batches": ("batches", "批次"), "billed": ("billed (cash)", "账单金额（现金）"),
    "billed_gib_months": ("billed GiB-months", "账单 GiB·月"), "estimate": ("inventory estimate", "清单估算"),
    "estimate_gib_months": ("inventory GiB-months", "清单 GiB·月"), "objects": ("objects", "对象数"),
    "difference": ("difference (billed − estimate)", "差额（账单 − 估算）"), "parts": ("explained by", "差额构成"),
    "currency": ("currency", "币种"), "bill_rows": ("bill rows", "账单行数"),
    "totals": ("Per currency", "按币种合计"),
    "unmatched": ("Bill rows that name no inventory location", "未对应清单位置的账单行"),
    "row": ("bill row", "账单行"), "resource": ("resource", "资源"), "reason": ("reason", "原因"),
    "unit_prices": ("price per GiB-month billed / estimate", "每 GiB·月单价：账单 / 估算"),
    "unattributed": ("(unattributed)", "（未归属）"),
    "workspace_note": ("The buckets / prefixes holding this batch's objects or bill rows, each reconciled whole;"
                       " this batch's own share beside. The workspace view: trainledger storage.",
                       "列出存放本批次对象或账单行的存储桶 / 前缀，按整体对账，旁列本批次自身份额。"
                       "工作区视图：trainledger storage。"),
    "batch_share": ("this batch: billed / estimate", "本批次：账单 / 估算"),
    "attribute_line": ("{cur} storage: billed {billed} vs inventory estimate {estimate} (difference {difference};"
                       " trainledger storage)",
                       "{cur} 存储：账单 {billed}，清单估算 {estimate}（差额 {difference}；trainledger storage）"),
    # match kinds and difference parts (engine/storage_reconcile.py)
    "matched": ("matched", "已匹配"), "inventory_only": ("not billed", "清单有、账单无"),
    "bill_only": ("bill only", "账单有、清单无"),
    "other_charges": ("other charges (requests, retrieval, credits)", "其他费用（请求、取回、抵扣）"),
    "not_priced": ("not explained: the inventory is not priced (no price-book entry for its tier)",
                   "无法解释：库存清单未计价（价格表没有该存储层级的条目）"),
    "estimate_not_priced": ("not priced", "未计价"),
    "volume": ("volume (GiB-months billed − held)", "用量差（计费 − 实际持有 GiB·月）"),
    "price": ("price (bill's unit price − price book's)", "单价差（账单单价 − 价格表单价）"),
    "not_split": ("not split (neither the bill nor the inventory has a GB-month quantity)",
                  "未拆分（账单与库存清单都没有 GB·月用量）"),
    "not_split_no_inventory_quantity": ("not split (the bill has GB-months; the inventory holds none that month to"
                                        " compare)", "未拆分（账单有 GB·月用量；库存清单当月没有可比的持有量）"),
    "not_split_no_bill_quantity": ("cannot split: the bill rows carry no GiB-month quantity (the inventory has"
                                   " GiB-months)", "无法拆分：账单行没有 GiB·月用量（库存清单有 GiB·月持有量）"),
    "not_billed": ("objects no bill row of the month names", "当月账单未包含的对象"),
    "unmatched_bill_rows": ("bill rows naming no inventory location", "账单行所指位置不在存储清单中"),
    "no_object_held": ("no object held there that month", "当月该位置无对象"),
    "names_no_inventory_location": ("names a bucket / prefix the inventory does not list",
                                    "所指存储桶或前缀不在存储清单中"),
    "no_location": ("names no bucket, prefix or resource", "未写明存储桶、前缀或资源"),
}


def st(key: str, lang: str) -> str:
    en, zh = TEXT[key]
    return zh if lang.lower().startswith("zh") else en


def _m(value: Any, cur: str, cash: bool = False) -> str:
    return fmt.amount(value, cur, exact=cash)


def _batches(g: dict[str, Any], lang: str) -> str:
    return ", ".join(st("unattributed", lang) if b == "(unattributed)" else b for b in g["batches"]) or fmt.DASH


def _parts(g: dict[str, Any], lang: str) -> str:
    return "; ".join(f"{st(p['kind'], lang)} {_m(p['amount'], g['currency'], True)}" for p in g["parts"]) or fmt.DASH


def _estimate(e: dict[str, str], cur: str, priced: bool = True, lang: str = "en") -> str:
    if not priced and not fmt.dec(e["expected"]):  # listed objects with no price: not a 0.00 estimate
        return st("estimate_not_priced", lang)
    text = _m(e["expected"], cur)
    return text if e["low"] == e["high"] else f"{text} ({_m(e['low'], cur)}–{_m(e['high'], cur)})"


def _estimate_cell(g: dict[str, Any], lang: str) -> str:
    cur, priced = g["currency"], g.get("estimate_priced", True)
    text = _estimate(g["estimate"], cur, priced, lang)
    return text if not priced and not fmt.dec(g["estimate"]["expected"]) else f"{text} {cur}"


def _share(g: dict[str, Any]) -> str:
    cur = g["currency"]
    return f"{_m(g['batch_billed'], cur, True)} / {_m(g['batch_estimate'], cur)} {cur}"


def rows(rec: dict[str, Any], lang: str) -> list[list[str]]:
    """The groups as table rows (shared by Markdown and the CLI)."""
    out = []
    for g in rec["groups"]:
        cur = g["currency"]
        out.append([g["month"], g["location"] or fmt.DASH, st(g["match"], lang), _batches(g, lang),
                    f"{_m(g['billed'], cur, True)} {cur}", fmt.quantity(g["billed_gib_months"], 2),
                    _estimate_cell(g, lang), fmt.quantity(g["estimate_gib_months"], 2),
                    f"{_m(g['difference'], cur, True)} {cur}", _parts(g, lang)]
                   + ([_share(g)] if rec["scope"] == "batch" else []))
    return out


def to_markdown(rec: dict[str, Any] | None, lang: str, *, workspace: bool = False) -> list[str]:
    if rec is None:
        return []
    level = "##" if workspace else "###"  # on the sheet: under "Storage by class"
    out = ["", f"{level} {st('heading_ws' if workspace else 'heading', lang)}", "", _inline(st("intro", lang))]
    if not rec.get("storage_bill_rows"):
        return [*out, "", _inline(st("none", lang))]
    if not rec["groups"]:
        return [*out, "", _inline(st("none_batch", lang))]
    if not workspace:
        out += ["", _inline(st("workspace_note", lang))]
    out += [""] + _table([st(k, lang) for k in ("month", "location", "match", "batches", "billed",
                                                 "billed_gib_months", "estimate", "estimate_gib_months",
                                                 "difference", "parts")]
                             + ([st("batch_share", lang)] if not workspace else []), rows(rec, lang))
    out += ["", f"{level}# {st('totals', lang)}", ""]
    out += _table([st(k, lang) for k in ("currency", "billed", "estimate", "difference", "matched",
                                         "inventory_only", "bill_only")]
                  + ([st("batch_share", lang)] if not workspace else []),
                  [[t["currency"], _m(t["billed"], t["currency"], True),
                    _estimate(t["estimate"], t["currency"], not t.get("unpriced_groups"), lang),
                    _m(t["difference"], t["currency"], True),
                    *(_m(t["by_match"][k], t["currency"], True) if k in t["by_match"] else fmt.DASH
                      for k in ("matched", "inventory_only", "bill_only"))]
                   + ([_share(t)] if not workspace else []) for t in rec["by_currency"]])
    if rec["unmatched_bill_rows"]:
        out += ["", f"{level}# {st('unmatched', lang)}", ""]
        out += _table([st(k, lang) for k in ("row", "month", "resource", "billed", "reason")],
                      [[u["row"], u["month"], u["resource"] or fmt.DASH, f"{_m(u['billed'], u['currency'], True)}"
                        f" {u['currency']}", st(u["reason"], lang)] for u in rec["unmatched_bill_rows"]])
    return out


def summary_lines(rec: dict[str, Any], lang: str) -> list[str]:
    """One line per currency for ``trainledger attribute``."""
    return [st("attribute_line", lang).format(
        cur=t["currency"], billed=_m(t["billed"], t["currency"], True),
        estimate=_estimate({**t["estimate"], "low": "0", "high": "0"}, t["currency"], not t.get("unpriced_groups"),
                           lang), difference=_m(t["difference"], t["currency"], True))
        for t in rec["by_currency"]]


def to_text(rec: dict[str, Any], lang: str) -> str:
    """The workspace view for a terminal (``trainledger storage``): one line per group and currency."""
    out = [st("heading_ws", lang), st("intro", lang)]
    if not rec.get("storage_bill_rows"):
        return "\n".join([*out, st("none", lang)])
    heads = [st(k, lang) for k in ("month", "location", "match", "billed", "estimate", "difference", "parts")]
    out.append("  " + " | ".join(heads))
    out += ["  " + " | ".join([r[0], r[1], r[2], r[4], r[6], r[8], r[9]]) for r in rows(rec, lang)]
    for t in rec["by_currency"]:
        cur = t["currency"]
        out.append(f"  {cur}: {st('billed', lang)} {_m(t['billed'], cur, True)} · {st('estimate', lang)} "
                   f"{_estimate(t['estimate'], cur, not t.get('unpriced_groups'), lang)} · "
                   f"{st('difference', lang)} {_m(t['difference'], cur, True)} ("
                   + ", ".join(f"{st(k, lang)} {_m(x, cur, True)}" for k, x in t["by_match"].items()) + ")")
    for u in rec["unmatched_bill_rows"]:
        out.append(f"  {st('row', lang)} {u['row']} ({u['month']}, {u['resource'] or fmt.DASH}):"
                   f" {_m(u['billed'], u['currency'], True)} {u['currency']} — {st(u['reason'], lang)}")
    return "\n".join(out)


def html_globals(lang: str) -> dict[str, Any]:
    """What ``storage_section.html.j2`` calls."""
    return {"srt": lambda k: st(k, lang), "srm": lambda value, cur, cash=False: _m(value, cur, cash),
            "srq": lambda value: fmt.quantity(value, 2), "sre": _estimate,
            "srb": lambda g: _batches(g, lang), "srp": lambda g: _parts(g, lang), "srs": _share}


__all__ = ["TEXT", "html_globals", "rows", "st", "summary_lines", "to_markdown", "to_text"]
