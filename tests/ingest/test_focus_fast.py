"""The column-at-a-time FOCUS path (``focus_fast``) against the per-row path: on every FOCUS CSV
in tests/data, on the demo's bill, on inline edge cases and on the fuzz harness's mutations, both
write the same lake rows (row hashes included), the same quarantine file and the same counts —
or stop with the same error. A file the fast path cannot promise to read alike goes to the
per-row path, from the start, even when the fault is found after rows were written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.ingest.fuzz_helpers import DATA, EXAMPLES, demo_dir, mutated, seed

from trainledger.errors import TrainledgerError
from trainledger.ingest import fastcsv, focus_fast, import_files
from trainledger.ingest import vector as V
from trainledger.ingest.focus import FocusImporter
from trainledger.lake import Lake

FOCUS_FILES = sorted(DATA.glob("focus-*/*.csv"))
HEAD = "BilledCost,EffectiveCost,ListCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,ChargeCategory,Tags"


class Spy:
    """Counts the fast path's outcomes: files it read to the end, files it gave back."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.finished = self.gave_back = 0
        real = focus_fast.batches

        def batches(*a: Any) -> Any:
            try:
                yield from real(*a)
            except fastcsv.NotFast:
                self.gave_back += 1
                raise
            self.finished += 1

        monkeypatch.setattr(focus_fast, "batches", batches)


def outcome(path: Path, root: Path, fast: bool, **options: Any) -> Any:
    """What importing ``path`` into a fresh lake gives: counts, lake rows, quarantine text."""
    lake = Lake(root / ("fast" if fast else "slow"))
    saved = FocusImporter.fast_batches
    if not fast:
        FocusImporter.fast_batches = lambda self, p, c: None  # type: ignore[method-assign]
    try:
        (r,) = import_files("focus", [path], lake, options=options)
    except TrainledgerError as e:
        return ("error", type(e).__name__, str(e).replace(str(root / "fast"), "").replace(str(root / "slow"), ""))
    finally:
        FocusImporter.fast_batches = saved  # type: ignore[method-assign]
    q = Path(r.quarantine_file).read_text(encoding="utf-8") if r.quarantine_file else None
    counts = (r.rows_read, r.accepted, r.duplicates, r.quarantined, r.flagged)
    return counts, lake.read("bill_lines").to_pylist(), q


def assert_same(path: Path, root: Path, **options: Any) -> Any:
    fast, slow = outcome(path, root, True, **options), outcome(path, root, False, **options)
    assert fast == slow
    return fast


@pytest.mark.parametrize("path", FOCUS_FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("options", [{}, {"currency": "USD"}], ids=["as-is", "currency"])
def test_every_focus_file_in_the_test_data_imports_alike(path, options, tmp_path, monkeypatch):
    spy = Spy(monkeypatch)
    got = assert_same(path, tmp_path, **options)
    if got[0] == "error":  # a spec example without BillingCurrency, no --currency: refused once, alike
        assert not options and "no BillingCurrency column" in got[2]
        return
    assert spy.finished == 1 and spy.gave_back == 0  # the fast path really read it
    assert got[0][0] > 0


def test_the_demo_bill_and_a_second_import_of_it_alike(tmp_path, monkeypatch):
    spy = Spy(monkeypatch)
    bill = demo_dir() / "bill-focus.csv"
    counts, rows, _ = assert_same(bill, tmp_path)
    assert spy.finished == 1 and counts[1] == len(rows) > 100
    # the same content under another name into the same lake: every row a duplicate
    copy = tmp_path / "copy.csv"
    copy.write_bytes(bill.read_bytes())
    lake = Lake(tmp_path / "fast")
    (again,) = import_files("focus", [copy], lake)
    assert again.duplicates == again.rows_read == counts[0] and again.accepted == 0


EDGE = [
    # numbers: trailing and leading zeros, negative zero, plus sign, exponent, whitespace, too long
    "1.50,01.5,-0.00,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,{}",
    "+2,2.,-.5,usd,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,{}",
    "1E5,1,1,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,{}",
    " 3 ,1e-3,-0.0000000000000000000000000000000000001,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,{}",
    "1234567890123456,1,1,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,{}",
    "1.5,٢٨٨,1,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,{}",
    # refusals in every column that refuses, and in the order the per-row path finds them
    ",1,1,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,{}",
    "x,y,z,US,bad,worse,Usage,{}",
    "1,1,1,,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,{}",
    "1,1,1,NULL,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,{}",
    "1,1,1,USD,2026-11-02T00:00:00Z,2026-11-01T01:00:00Z,Usage,{}",
    "1,1,1,USD,2026-02-30T00:00:00Z,2026-11-01T01:00:00Z,Usage,{}",
    "1,1,1,USD,0001-01-01T00:00:00+08:00,2026-11-01T01:00:00Z,Usage,{}",
    "1,1,1,USD,,2026-11-01T01:00:00Z,Usage,{}",
    # times in other spellings, enumerations off the list, literal nulls
    "1,1,1,USD,2026-11-01 00:00:00,2026-11-01T01:00:00+08:00,usage,{}",
    "1,NULL,null,USD,2026-11-01T00:00:00.5Z,2026-11-01 02:00:00 UTC,NULL,NULL",
    # Tags: not JSON, not an object, repeated keys, odd keys, non-ASCII
    '1,1,1,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,"{""a"":1,""a"":2}"',
    "1,1,1,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,not json",
    '1,1,1,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,"[1,2]"',
    '1,1,1,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Credit,"{""团队"":""视觉"","""":""empty key""}"',
    '1,1,1,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,"{""b"":""x\\ty"",""a"":""quote \\"" in""}"',
    # the same row twice in the file
    "7,7,7,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,{}",
    "7,7,7,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,{}",
]


def test_inline_edge_cases_import_alike(tmp_path, monkeypatch):
    spy = Spy(monkeypatch)
    path = tmp_path / "edge.csv"
    path.write_text(HEAD + "\n" + "\n".join(EDGE) + "\n\n", encoding="utf-8")
    counts, rows, q = assert_same(path, tmp_path)
    assert spy.finished == 1
    assert counts[3] >= 8 and q is not None  # the refusals above were quarantined alike
    reasons = [json.loads(line)["reason"] for line in q.splitlines()]
    assert any("exponent" in r for r in reasons) and any("is before" in r for r in reasons)
    assert sum("repeated_row_in_file" in r["flags"] for r in rows) == 2


def test_the_rules_between_columns_alike(tmp_path, monkeypatch):
    """Commitment discounts, capacity reservations, allocated charges, corrections (1.1 - 1.3)."""
    spy = Spy(monkeypatch)
    head = (
        "BilledCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,BillingPeriodStart,ChargeCategory,"
        "ChargeClass,CommitmentDiscountId,CommitmentDiscountStatus,CapacityReservationId,"
        "CapacityReservationStatus,AllocatedMethodId,AllocatedResourceId,AllocatedTags,Tags,x_Note"
    )
    t0, t1, b = "2026-11-02T00:00:00Z", "2026-11-02T01:00:00Z", "2026-11-01T00:00:00Z"
    lines = [
        f"1,USD,{t0},{t1},{b},Usage,,cd-1,Used,,,,,,{{}},",
        f"1,USD,{t0},{t1},{b},Usage,,,Unused,,,,,,{{}},1.50",
        f"1,USD,{t0},{t1},{b},Purchase,,cd-1,Used,,,,,,{{}},2026-11-01 00:00",
        f"1,USD,{t0},{t1},{b},Usage,,,,cr-1,Maybe,,,,{{}},",
        f"1,USD,{t0},{t1},{b},Usage,,,,,Used,,,,{{}},",
        f'1,USD,{t0},{t1},{b},Usage,,,,,,,r-9,"{{""team"":""b""}}","{{""team"":""a""}}",',
        f'1,USD,{t0},{t1},{b},Usage,,,,,,m-1,r-9,"{{""k"":1}}","{{}}",',
        f"1,USD,{t0},{t1},2026-12-01T00:00:00Z,Adjustment,Correction,,,,,,,,{{}},",
        f"1,USD,{t0},{t1},{b},Usage,,,,,,,,not json,{{}},",
    ]
    path = tmp_path / "rules.csv"
    path.write_text(head + "\r\n" + "\r\n".join(lines) + "\r\n", encoding="utf-8")
    counts, rows, _ = assert_same(path, tmp_path)
    assert spy.finished == 1 and counts[1] == len(lines) and counts[4] >= 7


@pytest.mark.parametrize(
    "how",
    ["bom", "semicolon", "quoted-newline", "lenient-quote", "width", "nul", "utf16", "gb18030", "blank-start",
     "bad-utf8"],
)
def test_inputs_the_fast_path_gives_back_or_reads_alike(how, tmp_path, monkeypatch):
    spy = Spy(monkeypatch)
    rows = ["1,1,1,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,{}"] * 2
    text, enc = HEAD + "\n" + "\n".join(rows) + "\n", "utf-8"
    if how == "bom":
        enc = "utf-8-sig"
    elif how == "semicolon":
        text = text.replace(",", ";")
    elif how == "quoted-newline":
        text += '2,2,2,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,"{""a"":\n""b""}"\n'
    elif how == "lenient-quote":
        text += '2,2,2,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,"Usage" x,{}\n'
    elif how == "width":
        text += "2,2,2,USD\n"
    elif how == "nul":
        text += "2,2,2,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Us\x00age,{}\n"
    elif how in ("utf16", "gb18030"):
        text, enc = text.replace("Usage", "用量"), "utf-16" if how == "utf16" else "gb18030"
    elif how == "blank-start":
        text = "\n" + text
    path = tmp_path / "bill.csv"
    bad = b"2,2,2,USD,2026-11-01T00:00:00Z,,\xff\xfe,{}\n" if how == "bad-utf8" else b""
    path.write_bytes(text.encode(enc) + bad)
    options = {"encoding": "gb18030"} if how == "gb18030" else {}
    got = assert_same(path, tmp_path, **options)
    errors = ("nul", "bad-utf8")
    assert got[0] == "error" if how in errors else got[0][0] >= 2  # the per-row path's own error
    read_fast = how in ("bom", "semicolon")
    assert spy.finished == (1 if read_fast else 0)


@pytest.mark.parametrize("bad", [b"\xff", b"\xe4\xb8", b"\xed\xa0\x80", b"\xc0\xaf"],
                         ids=["ff", "cut-sequence", "surrogate", "overlong"])
def test_the_reader_refuses_a_block_that_is_not_utf8(bad, tmp_path):
    """The CSV parser does not check UTF-8 (``check_utf8=False``): the reader checks each block
    whole (``fastcsv._utf8``) and gives the file back, wherever the byte is — here in a quoted
    field in the middle of a line, between valid multi-byte text."""
    from trainledger.ingest.text import ContentWatch

    line = '1,1,1,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,"用量 {b} x",{{}}\n'
    good = (HEAD + "\n").encode() + line.replace("{b}", "ok").encode() * 3
    path = tmp_path / "bill.csv"
    path.write_bytes(good + line.encode().replace(b"{b}", bad) + line.replace("{b}", "ok").encode())
    with pytest.raises(fastcsv.NotFast, match="not UTF-8"):
        list(fastcsv.chunks(path, ",", ContentWatch(), lambda header: None))
    path.write_bytes(good)  # and the same text without the byte reads
    (chunk,) = list(fastcsv.chunks(path, ",", ContentWatch(), lambda header: None))
    assert chunk.columns[6].to_pylist() == ["用量 ok x"] * 3


def test_a_fault_found_after_rows_were_written_starts_the_file_again(tmp_path, monkeypatch):
    """Small chunks: the quoted newline near the end is found after several chunks were
    written; the import still equals the per-row one (nothing of the first attempt kept)."""
    monkeypatch.setattr(fastcsv, "CHUNK_BYTES", 256)
    spy = Spy(monkeypatch)
    rows = [f"{i}.25,1,1,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,{{}}" for i in range(60)]
    rows.append('bad,1,1,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,"{\n}"')
    path = tmp_path / "bill.csv"
    path.write_text(HEAD + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    counts, rows_out, _ = assert_same(path, tmp_path)
    assert spy.gave_back == 1 and counts[0] == 61 and len(rows_out) == 60
    assert not list((tmp_path / "fast" / ".tmp").glob("*"))


def test_small_chunks_number_rows_and_lines_alike(tmp_path, monkeypatch):
    monkeypatch.setattr(fastcsv, "CHUNK_BYTES", 200)
    spy = Spy(monkeypatch)
    rows = []
    for i in range(40):
        rows.append(f"{i},{i},x{i},USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,{{}}")
        if i % 7 == 0:
            rows.append("")
    path = tmp_path / "bill.csv"
    path.write_text(HEAD + "\n" + "\n".join(rows), encoding="utf-8")  # no final newline
    counts, _, q = assert_same(path, tmp_path)
    assert spy.finished == 1 and counts[3] == 40 and q is not None  # ListCost x{i}: all refused
    lines = [json.loads(x)["line"] for x in q.splitlines()]
    assert lines[:3] == [2, 4, 5]


@settings(max_examples=max(EXAMPLES // 5, 10), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from([seed("bill-focus.csv"), seed("focus-sample-data/focus_sample.csv")]).flatmap(
    lambda s: mutated(s, ",")
))
def test_mutated_bills_import_alike(data):
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "bill.csv"
        path.write_bytes(data)
        fast, slow = outcome(path, Path(d), True), outcome(path, Path(d), False)
        assert fast == slow


def test_the_reading_thread_stops_when_the_reader_stops(tmp_path, monkeypatch):
    """A caller that stops early (an error in its own work) leaves no reading thread behind; an
    error of the reading thread reaches the caller, in file order."""
    import threading

    from trainledger.ingest.text import ContentWatch

    monkeypatch.setattr(fastcsv, "CHUNK_BYTES", 256)
    rows = [f"{i},1,1,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,{{}}" for i in range(100)]
    path = tmp_path / "bill.csv"
    path.write_text(HEAD + "\n" + "\n".join(rows) + '\n1,"x\n', encoding="utf-8")

    def alive() -> int:
        return sum(t.name == "fastcsv-reader" for t in threading.enumerate())

    stream = fastcsv.chunks(path, ",", ContentWatch(), lambda h: None)
    first = next(stream)
    assert int(first.rows[0]) == 1 and alive() == 1
    stream.close()
    assert alive() == 0
    seen = []
    with pytest.raises(fastcsv.NotFast):
        for chunk in fastcsv.chunks(path, ",", ContentWatch(), lambda h: None):
            seen += chunk.rows.tolist()
    assert seen == list(range(1, len(seen) + 1)) and len(seen) >= 90  # in order, up to the fault
    assert alive() == 0


def test_small_chunks_with_columns_left_unencoded_import_alike(tmp_path, monkeypatch):
    """In chunks of ~30 rows the sample bill's all-distinct columns (costs, ids) are left
    unencoded after the first chunk (``Plan.coded``): rows, quarantine and row hashes (version
    3, a fresh lake) stay those of the per-row path."""
    monkeypatch.setattr(fastcsv, "CHUNK_BYTES", 20_000)
    plain = []
    real = V.Coded.of

    def of(arr, nulls, encode=True):
        plain.append(not encode)
        return real(arr, nulls, encode)

    monkeypatch.setattr(V.Coded, "of", of)
    spy = Spy(monkeypatch)
    counts, rows, _ = assert_same(DATA / "focus-sample-data" / "focus_sample.csv", tmp_path)
    assert spy.finished == 1 and counts[0] == 1000 and len(rows) == counts[1]
    assert sum(plain) > 100  # columns x chunks read unencoded
