"""The column-at-a-time FOCUS path against the per-row path on generated bills with odd rows:
quoted fields with delimiters and doubled quotes, embedded newlines, literal NULL, empty fields,
bad numbers and times, Chinese text and Chinese extra headers, a BOM, CRLF, GB18030 files. Both
write the same lake and quarantine; and for each bill: accepted + duplicates + quarantined =
rows read, a quarantined row keeps file, row, reason and its raw text, a second import is all
duplicates, and the same content under another name is a duplicate too."""

from __future__ import annotations

import csv
import io
import json
import tempfile
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.ingest.test_focus_fast import outcome

from trainledger.ingest import fastcsv, focus_fast, import_files
from trainledger.ingest import vector as V
from trainledger.lake import Lake

BASE = ["BilledCost", "BillingCurrency", "ChargePeriodStart", "ChargePeriodEnd", "ChargeCategory", "Tags"]
EXTRA = ["项目", "备注", "x_Note"]  # columns trainledger does not model: kept in extra
MONEY = st.sampled_from(["1.50", "0", "-0.00", "12.3400", "1E5", "abc", "", "NULL", "null", " 7 ", "1,5"])
CURRENCY = st.sampled_from(["USD", "CNY", "usd", "", "NULL", "US"])
START = st.sampled_from(["2026-11-01T00:00:00Z", "2026-11-01 00:00:00", "2026-11-02T00:00:00+08:00", "bad", ""])
END = st.sampled_from(["2026-11-01T01:00:00Z", "2026-11-01T00:30:00+08:00", "NULL", "2026-10-31T00:00:00Z"])
CATEGORY = st.sampled_from(["Usage", "Credit", "usage", "NULL", "", "用量"])
TAGS = st.sampled_from(['{"team":"vision"}', '{"团队":"视觉","a":"x,y"}', '{"a":1,"a":2}', "not json", "",
                        '{"q":"say \\"hi\\""}', "NULL", "[1]"])
TEXT = st.sampled_from(["", "NULL", "plain", "a,b", 'say "hi"', "line one\nline two", "中文,备注", "1.50",
                        "2026-11-01 00:00", "  spaced  ", "\r\n"[1:]])


@st.composite
def bills(draw: st.DrawFn) -> tuple[bytes, dict[str, str], bool]:
    extra = draw(st.lists(st.sampled_from(EXTRA), unique=True, max_size=3))
    header = BASE + extra
    rows = []
    for _ in range(draw(st.integers(1, 12))):
        row = [draw(MONEY), draw(CURRENCY), draw(START), draw(END), draw(CATEGORY), draw(TAGS)]
        rows.append(row + [draw(TEXT) for _ in extra])
    if rows and draw(st.booleans()):
        rows.append(list(rows[0]))  # the same row twice in the file
    text = io.StringIO()
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    writer = csv.writer(text, lineterminator=newline)
    writer.writerow(header)
    writer.writerows(rows)
    body = text.getvalue()
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "gb18030"]))
    options = {"encoding": "gb18030"} if encoding == "gb18030" else {}
    if draw(st.booleans()):
        options["currency"] = "USD"
    # the fast path reads it unless a quoted field runs over a line end or the text is not UTF-8
    fast = encoding != "gb18030" and not any("\n" in f for r in rows for f in r)
    return body.encode(encoding), options, fast


class Finished:
    """Counts the files the fast path read to the end."""

    def __init__(self) -> None:
        self.real, self.n = focus_fast.batches, 0

    def __enter__(self) -> Finished:
        def batches(*a):  # type: ignore[no-untyped-def]
            try:
                yield from self.real(*a)
            except fastcsv.NotFast:
                raise
            self.n += 1

        focus_fast.batches = batches
        return self

    def __exit__(self, *exc: object) -> None:
        focus_fast.batches = self.real


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(bills())
def test_odd_bills_import_alike_and_keep_the_books(bill):
    data, options, read_fast = bill
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        path = root / "bill.csv"
        path.write_bytes(data)
        with Finished() as finished:
            fast = outcome(path, root, True, **options)
        slow = outcome(path, root, False, **options)
        assert fast == slow
        if fast[0] == "error":
            return
        assert finished.n == (1 if read_fast else 0)  # the fast path really read what it can
        (rows_read, accepted, duplicates, quarantined, _), lake_rows, q = fast
        assert accepted + duplicates + quarantined == rows_read and len(lake_rows) == accepted
        entries = [json.loads(x) for x in q.splitlines()] if q else []
        assert len(entries) == quarantined
        for e in entries:
            assert e["file"] == str(path) and e["row"] >= 1 and e["reason"] and e["raw"]
        lake = Lake(root / "fast")  # the lake the fast path wrote
        (again,) = import_files("focus", [path], lake, options=options)
        assert (again.accepted, again.duplicates, again.quarantined) == (0, rows_read - quarantined, quarantined)
        copy = root / "same-content.csv"
        copy.write_bytes(data)
        (other,) = import_files("focus", [copy], lake, options=options)
        assert other.accepted == 0 and other.duplicates == rows_read - quarantined
        assert lake.read("bill_lines").num_rows == accepted


def test_a_coded_column_as_a_dictionary_has_no_null_and_no_value_twice():
    """``Coded.dictionary``: what the Parquet writer is handed for a text column kept as it is —
    the null spellings are null rows (null indices), never a null in the dictionary (the
    writer refuses one), each value once, and the rows those of ``rows()``."""
    arr = pa.array(["a", "", "NULL", "b", "a", "", "c", "b"])
    col = V.Coded.of(arr, frozenset({"", "NULL"}))
    got = col.dictionary()
    assert got.dictionary.null_count == 0 and len(set(got.dictionary.to_pylist())) == len(got.dictionary)
    assert got.to_pylist() == col.rows().to_pylist() == ["a", None, None, "b", "a", None, "c", "b"]
    kept = col.filter(pa.array([True, False, True, True, False, False, True, True]).to_numpy(zero_copy_only=False))
    assert kept.dictionary().to_pylist() == [None if v is None else v for v in kept.rows().to_pylist()]
    plain = V.Coded.of(arr, frozenset({""}), encode=False)
    with pytest.raises(ValueError):
        plain.dictionary()  # values row by row may repeat: no dictionary of them
