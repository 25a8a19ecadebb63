"""The bill caveats a batch's figures rest on, for its sheet: rows of a vendor bill imported before
the vendor's month was final (``provisional:`` flags, ingest/remap.py ``provisional``) and the
vendor's evidence notes (``note:`` flags, e.g. Huawei's 8-decimal amounts), counted per import and
month over the bill rows the batch's cost lines come from.

    source_rows(lines)      {source_sha256: [row, …]} of the batch's bill lines (in batch_figures)
    bill_notes(wsp, rows)   one entry per (import, month, caveat): rows, and the sentence (en, zh-CN)
    drawer_rows(notes)      the same as rows of the assumptions drawer

The flags stay on the lake rows (imports.py ``flagged_rows``); nothing here changes a figure.
Reading them means reading each bill import's parquet parts, so the flagged rows of each import are
kept (``_flag_index``, a few bounded entries per process) under the *import-set digest*: a sha256 of
every import's log records and drop in the lake and of the tombstoned partitions — any import,
re-import or drop gives another digest, so a kept index is never one of another lake state.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from trainledger.i18n import localize, text
from trainledger.model.cost import CostLine

BILL_KINDS = ("focus",)  # provenance kinds of bill lines (the vendor bills are mapped onto FOCUS)

TEXT: dict[str, tuple[str, str]] = {
    "provisional": (
        "bill {month}: {rows} row(s) provisional until {final} ({vendor}, import {import_id}); figures may "
        "change — import the final export then",
        "{month} 账单：{rows} 行为暂估数据，{final} 后才出账（{vendor}，导入 {import_id}）；数字可能变化——"
        "届时请导入最终账单"),
    "note": (
        "bill {month}: {rows} row(s) carry a vendor note ({vendor}, import {import_id}): {note}",
        "{month} 账单：{rows} 行带有厂商说明（{vendor}，导入 {import_id}）：{note}"),
    "name_provisional": ("provisional bill", "暂估账单"),
    "name_note": ("bill evidence note", "账单证据说明"),
    "source": ("the vendor bill's rows as imported (trainledger imports show {import_id})",
               "导入的厂商账单行（trainledger imports show {import_id}）"),
    "vendor.huawei": ("Huawei Cloud", "华为云"),
    "vendor.volcengine": ("Volcano Engine", "火山引擎"),
    "vendor.aliyun": ("Alibaba Cloud", "阿里云"),
}

_PROVISIONAL = re.compile(r"^provisional: the \S+ bill for (\d{4}-\d{2}) is final after (\S+?);")


def source_rows(lines: Iterable[CostLine]) -> dict[str, list[int]]:
    """The bill rows (by file hash) the lines come from: JSON-able, kept with the sheet's figures."""
    out: dict[str, set[int]] = {}
    for ln in lines:
        if ln.provenance.source_kind in BILL_KINDS:
            out.setdefault(ln.provenance.source_sha256, set()).add(ln.provenance.row)
    return {sha: sorted(rows) for sha, rows in sorted(out.items())}


def _final(stamp: str) -> str:
    """``2026-12-04T10:00:00+08:00`` as ``2026-12-04 10:00 +08:00`` (the vendor's clock)."""
    try:
        at = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    return f"{at:%Y-%m-%d %H:%M}" + (f" {at.isoformat()[-6:]}" if at.tzinfo else "")


def _sentences(key: str, **params: Any) -> dict[str, str]:
    en_note, _, zh_note = str(params.pop("note", "")).partition(" / ")  # an older lake's note: "English / 中文"
    zh_note = zh_note or localize(en_note, "zh-CN")  # a preset's note is English, its Chinese catalogued
    return {"text": text(f"sheet.bill.{key}", "en", note=en_note, **params),
            "text_zh": text(f"sheet.bill.{key}", "zh-CN", note=zh_note or en_note, **params)}


KEPT = 4  # import-set digests whose flag indexes are kept
_kept: OrderedDict[tuple[str, str], dict[tuple[str, str], dict[int, list[str]]]] = OrderedDict()
_lock = threading.Lock()


def imports_digest(lake, found: dict) -> str:
    """sha256 of the lake's imports (each one's log records and drop) and tombstoned partitions."""
    body = [[list(k), st.sha256, list(st.records), st.drop] for k, st in found.items()]
    text = json.dumps([body, sorted(lake.dropped())], sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _flag_index(lake, found: dict, digest: str, key: tuple[str, str]) -> dict[int, list[str]]:
    """{row: notes} of the flagged rows of import ``key`` in the lake state ``digest``, read once."""
    from trainledger.imports import flagged_rows

    where = (str(lake.root), digest)
    with _lock:
        index = _kept.get(where)
        if index is not None:
            _kept.move_to_end(where)
            hit = index.get(key)
            if hit is not None:
                return hit
    rows = {f["row"]: f["notes"] for f in flagged_rows(lake, found[key])}
    with _lock:
        _kept.setdefault(where, {})[key] = rows
        _kept.move_to_end(where)
        while len(_kept) > KEPT:
            _kept.popitem(last=False)
    return rows


def bill_notes(wsp, rows: dict[str, list[int]]) -> list[dict[str, Any]]:
    """The caveats of the bill rows ``rows`` names ({sha: rows}), per live import, month and caveat."""
    if not rows:
        return []
    from trainledger.imports import short_id, states

    out: list[dict[str, Any]] = []
    found = states(wsp.lake)
    digest = imports_digest(wsp.lake, found)
    for key, state in found.items():
        wanted = rows.get(state.sha256, ())
        if not wanted or not state.live:
            continue
        counts: dict[tuple[str, str, str], int] = {}
        flagged = _flag_index(wsp.lake, found, digest, key)
        for row in wanted:
            notes = flagged.get(row)
            if notes is None:
                continue
            hits = [m for m in map(_PROVISIONAL.match, notes) if m]
            month = hits[0].group(1) if hits else ""  # a note's month: the row's provisional month, if any
            keys = [("provisional", m.group(1), m.group(2)) for m in hits]
            keys += [("note", month, n.removeprefix("note: ")) for n in notes if n.startswith("note: ")]
            for key in keys:
                counts[key] = counts.get(key, 0) + 1
        vendor = {lang: (text(f"sheet.bill.vendor.{state.kind}", lang)
                         if f"vendor.{state.kind}" in TEXT else state.kind) for lang in ("en", "zh-CN")}
        ident = short_id(state.import_key)
        for (kind, month, what), n in sorted(counts.items(), key=lambda kv: (kv[0][0] != "provisional", kv[0][1:])):
            entry = {"caveat": kind, "import": ident, "kind": state.kind, "rows": n,
                     "month": month or "—"}
            params = {"month": entry["month"], "rows": n, "import_id": ident}
            if kind == "provisional":
                entry["final"] = what
                en = _sentences("provisional", final=_final(what), vendor=vendor["en"], **params)
                zh = _sentences("provisional", final=_final(what), vendor=vendor["zh-CN"], **params)
            else:
                entry["note"] = what
                en = _sentences("note", note=what, vendor=vendor["en"], **params)
                zh = _sentences("note", note=what, vendor=vendor["zh-CN"], **params)
            out.append({**entry, "text": en["text"], "text_zh": zh["text_zh"]})
    return out


def drawer_rows(notes: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The caveats as rows of the assumptions drawer: figures as billed so far, ``measured``."""
    out = []
    for n in notes:
        name = "name_provisional" if n["caveat"] == "provisional" else "name_note"
        out.append({"name": text(f"sheet.bill.{name}", "en"), "name_zh": text(f"sheet.bill.{name}", "zh-CN"),
                    "evidence": "measured",
                    "source": text("sheet.bill.source", "en", import_id=n["import"]),
                    "source_zh": text("sheet.bill.source", "zh-CN", import_id=n["import"]),
                    "value": n["text"], "value_zh": n["text_zh"]})
    return out


__all__ = ["TEXT", "bill_notes", "drawer_rows", "imports_digest", "source_rows"]
