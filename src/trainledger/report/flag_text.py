"""A bill row's flags (the English notes the importer stored on the lake row, ingest/remap.py) said
in the reader's language at view time — the stored text is kept as it is.

    flag_text(note, lang, kind, import_id)   one stored note in ``lang``
    flags_text(notes, lang, kind, import_id) several, joined ("; " / "；")

A ``provisional:`` note and a preset's ``note: English / 中文`` are parsed and said with the batch
sheet's own sentences for the same fact (``sheet.bill.provisional`` / ``sheet.bill.note`` with one
row, report/provisional.py), so an old lake whose flags are only the English text reads the same.
Any other note goes through ``i18n.localize`` (a catalogued template, or the text as stored).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from trainledger.i18n import is_zh, localize, text
from trainledger.report.provisional import TEXT, _final

_PROVISIONAL = re.compile(r"provisional: the (?P<preset>\S+) bill for (?P<month>\d{4}-\d{2}) is final after "
                          r"(?P<final>\S+?); import the final export then \(this row may still change\)")


def _vendor(kind: str | None, preset: str, lang: str) -> str:
    for k in (kind, preset.split("-", 1)[0]):
        if k and f"vendor.{k}" in TEXT:
            return text(f"sheet.bill.vendor.{k}", lang)
    return kind or preset


def flag_text(note: str, lang: str, kind: str | None = None, import_id: str = "", month: str = "") -> str:
    """One stored flag ``note`` in ``lang``; ``month``: the row's provisional month, for a vendor note."""
    note = str(note)
    if not is_zh(lang):
        return note
    m = _PROVISIONAL.fullmatch(note)
    if m:
        return text("sheet.bill.provisional", lang, month=m["month"], rows=1, final=_final(m["final"]),
                    vendor=_vendor(kind, m["preset"], lang), import_id=import_id or "—")
    if note.startswith("note: "):
        en, _, zh = note.removeprefix("note: ").partition(" / ")
        said = zh or localize(en, lang)
        if not month:
            return said
        return text("sheet.bill.note", lang, month=month, rows=1, vendor=_vendor(kind, "", lang),
                    import_id=import_id or "—", note=said)
    return localize(note, lang)


def flags_text(notes: Iterable[str], lang: str, kind: str | None = None, import_id: str = "") -> str:
    """Several notes of one row in ``lang``, joined; a vendor note takes the row's provisional month."""
    notes = [str(n) for n in notes]
    month = next((m["month"] for n in notes if (m := _PROVISIONAL.fullmatch(n))), "")
    sep = "；" if is_zh(lang) else "; "
    return sep.join(flag_text(n, lang, kind, import_id, month) for n in notes)


__all__ = ["flag_text", "flags_text"]
