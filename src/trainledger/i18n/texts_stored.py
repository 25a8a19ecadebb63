"""The ``stored`` namespace: sentences the tool itself writes into the ledger in English — a plan
version's default reason, an import's drop reason — said in the reader's language.

Each is written as a ``Msg`` (its English is the stored text, as before) and is a template here, so
a stored English sentence read back from the ledger is translated by ``i18n.localize`` too
(patterns.py reads this namespace)."""

from __future__ import annotations

STORED: dict[str, tuple[str, str]] = {
    "first_baseline": ("first baseline", "首个基线"),
    "from_review": ("baseline from the review of {batch}", "基于 {batch} 复盘的基线"),
    "replaced_by": ("replaced by the import of {paths}", "已被 {paths} 的导入替换"),
    # a dashboard decision's second approver as the deciding token typed it (web/writes.py who_decides)
    "approver_stated": ("{name} (as stated by {actor})", "{name}（由 {actor} 填写）"),
    # a plan's warning when its compute split is assumed (review/capacity_plan.py share_notes)
    "share_offered": ("compute split by the GPU-hours each basis offers (assumed: no attribution yet and no [plan]"
                      " compute_share): set [plan] compute_share, or re-plan after `trainledger attribute` to take"
                      " the batch's measured share",
                      "算力按各口径可提供的卡时拆分（假设：尚无归属计算，也未设 [plan] compute_share）：请设置"
                      " [plan] compute_share，或在 `trainledger attribute` 之后重新制定计划以采用该批次的实测比例"),
    "share_capacity": ("compute planned on the capacity only (no attribution yet, no [plan] compute_share, and no"
                       " bill names a GPU node): if the batch also runs on cloud GPUs, set [plan] compute_share"
                       " (e.g. billed = \"0.4\") or re-plan after `trainledger attribute`",
                       "算力只按自有/预留容量计划（尚无归属计算、未设 [plan] compute_share，账单中也没有 GPU 节点）："
                       "若该批次也使用云 GPU，请设置 [plan] compute_share（如 billed = \"0.4\"），或在"
                       " `trainledger attribute` 之后重新制定计划"),
}
