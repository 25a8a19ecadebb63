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
}
