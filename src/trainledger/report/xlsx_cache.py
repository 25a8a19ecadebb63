"""Cached results of the workbook's formulas (issue 10 item 4: every formula also stores its computed
result, so a reader without a calculation engine — ``openpyxl data_only=True``, pandas, a mail or web
previewer, a BI loader — sees the figure).

openpyxl writes a formula cell as ``<f>…</f><v/>``: it cannot store a cached value. ``Workbook`` here
is openpyxl's with one change: ``save`` writes the file, then fills each formula cell's ``<v>`` with
the value the builder recorded for it (``Book.formula(..., cached=…)``: the engine's decimal), as plain
decimal text (never scientific notation). A text result is stored as ``t="str"``. ``workbook.xml``
keeps ``fullCalcOnLoad``, so Excel and LibreOffice still recompute on open.
"""

from __future__ import annotations

import io
import re
import zipfile
from decimal import Decimal
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from openpyxl import Workbook as _Workbook

_CELL = re.compile(r'<c r="([A-Z]{1,3}[0-9]{1,7})"([^>]*)><f>(.*?)</f><v\s*/>', re.S)


def text_of(value: Any) -> tuple[str, bool] | None:
    """``value`` as the text of ``<v>`` and whether it is a number; None when there is none."""
    if value is None:
        return None
    if isinstance(value, bool):
        return ("1" if value else "0"), True
    if isinstance(value, (int, Decimal)):
        d = Decimal(value)
        if d.is_finite():
            if not d:
                return "0", True  # never "-0"
            return format(d.normalize() if d == d.to_integral_value() else d, "f"), True
        return None
    try:
        d = Decimal(str(value))
    except ArithmeticError:
        return str(value), False
    return text_of(d) if d.is_finite() else (str(value), False)


class Workbook(_Workbook):
    """openpyxl's workbook whose ``save`` also stores each formula's cached result (``cached``)."""

    def __init__(self, *a, **kw) -> None:
        super().__init__(*a, **kw)
        self.cached: dict[tuple[str, str], Any] = {}  # (sheet title, coordinate) -> result

    def save(self, filename) -> None:
        buf = io.BytesIO()
        super().save(buf)
        data = fill(buf.getvalue(), self.cached)
        if hasattr(filename, "write"):
            filename.write(data)
        else:
            Path(filename).write_bytes(data)


def _sheet_parts(z: zipfile.ZipFile) -> dict[str, str]:
    """Sheet title -> part name inside the package (from workbook.xml and its relationships)."""
    wb = z.read("xl/workbook.xml").decode()
    rels = z.read("xl/_rels/workbook.xml.rels").decode()
    target = {}
    for m in re.finditer(r"<Relationship\b[^>]*>", rels):
        tag = m.group(0)
        rid, tgt = re.search(r'Id="([^"]+)"', tag), re.search(r'Target="([^"]+)"', tag)
        if rid and tgt:
            t = tgt.group(1)
            target[rid.group(1)] = t.lstrip("/") if t.startswith("/") else "xl/" + t
    out = {}
    for m in re.finditer(r"<sheet\b[^>]*>", wb):
        tag = m.group(0)
        name, rid = re.search(r'name="([^"]*)"', tag), re.search(r'r:id="([^"]+)"', tag)
        if name and rid and rid.group(1) in target:
            from xml.sax.saxutils import unescape

            out[unescape(name.group(1), {"&quot;": '"', "&apos;": "'"})] = target[rid.group(1)]
    return out


def fill(package: bytes, cached: dict[tuple[str, str], Any]) -> bytes:
    """The package with each recorded formula cell's ``<v>`` filled."""
    by_sheet: dict[str, dict[str, Any]] = {}
    for (sheet, coord), v in cached.items():
        by_sheet.setdefault(sheet, {})[coord] = v
    src = zipfile.ZipFile(io.BytesIO(package))
    parts = {part: by_sheet[title] for title, part in _sheet_parts(src).items() if title in by_sheet}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            values = parts.get(info.filename)
            if values:
                def one(m: re.Match, values=values) -> str:
                    got = text_of(values.get(m.group(1)))
                    if got is None:
                        return m.group(0)
                    txt, num = got
                    attrs = m.group(2) if num else re.sub(r'\st="[^"]*"', "", m.group(2)) + ' t="str"'
                    return f'<c r="{m.group(1)}"{attrs}><f>{m.group(3)}</f><v>{escape(txt)}</v>'

                data = _CELL.sub(one, data.decode()).encode()
            dst.writestr(info, data)
    return out.getvalue()
