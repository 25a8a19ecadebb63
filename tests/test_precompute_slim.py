"""The precompute's memory savings (report/precompute.py, ledger/figures.py; review 4 H12) give what the
plain forms gave: the streamed gzip is ``gzip.compress(json.dumps(...))`` byte for byte, the rows with
shared texts and Decimals are equal rows, the summary's facts and hours read by the database are the
stored ones, and the streamed table digest is the digest of the fingerprint list."""

from __future__ import annotations

import gzip
import json
from decimal import Decimal

import pytest

from trainledger.report import precompute


def plain(body) -> bytes:
    return gzip.compress(json.dumps(body, separators=(",", ":")).encode("utf-8"), compresslevel=1, mtime=0)


@pytest.mark.parametrize("body", [
    {},
    {"a": 1, "b": [], "c": {}},
    {"runs": {f"r{i}": {"billed": [{"amount": str(i), "currency": "CNY"}], "q": [i, None, True]}
              for i in range(3000)},
     "facts": {"facts": [{"run_id": f"r{i}", "versions": ["d", "c", "k"], "zh": "有效训练"} for i in range(3000)]},
     "flat": "x" * 3_000_000, 7: "a non-text key is dumped whole", "nested": [[{"deep": [1, {"x": "é"}]}]]},
])
def test_the_streamed_gzip_is_the_plain_one_byte_for_byte(body):
    assert precompute._gzip_json(body) == plain(body)
    assert json.loads(gzip.decompress(precompute._gzip_json(body))) == json.loads(json.dumps(body))


def test_shared_rows_are_equal_rows_with_one_object_per_repeated_text():
    sha = "ab" * 32
    rows = [{"source_sha256": "".join(["ab"] * 32), "low": Decimal("1.10"), "expected": Decimal("1.10"),
             "high": Decimal("1.1"), "quantity": None, "n": i} for i in range(3)]
    out = list(precompute._shared(iter(rows)))
    assert out == rows
    assert all(r["source_sha256"] is out[0]["source_sha256"] for r in out) and out[0]["source_sha256"] == sha
    assert out[0]["expected"] is out[0]["low"]  # same digits and exponent: one object
    assert str(out[0]["high"]) == "1.1" and out[0]["high"] is not out[0]["expected"]  # equal value, other exponent


def test_the_summary_for_sheets_is_the_stored_summary_less_its_explanations(demo_copy):
    from sqlalchemy import select

    from trainledger.engine.summary_runs import KEY
    from trainledger.ledger.schema import attributions
    from trainledger.report.sheet import SUMMARY_KEYS, RetryLinks
    from trainledger.service import Workspace

    with Workspace.open(demo_copy) as wsp, wsp.ledger.snapshot() as conn:
        aid, whole = conn.execute(select(attributions.c.id, attributions.c.summary)
                                  .order_by(attributions.c.id.desc()).limit(1)).first()
        keys = (*SUMMARY_KEYS, "allocation")
        part = precompute._summary_for_sheets(conn, aid, keys)
    assert whole[KEY]["facts"]["run_id"], "the demo's summary has run columns"
    assert part == {k: whole[k] for k in keys if k in whole} | {KEY: {p: whole[KEY][p] for p in ("facts", "hours")}}
    runs = set(whole[KEY]["facts"]["run_id"])
    assert RetryLinks(part).closure(runs) == RetryLinks(whole).closure(runs)
    assert dict(RetryLinks(part).hours) == dict(RetryLinks(whole).hours)


def test_the_streamed_table_digest_is_the_digest_of_the_fingerprints(demo_copy):
    from trainledger.ledger import figures
    from trainledger.service import Workspace

    with Workspace.open(demo_copy) as wsp, wsp.ledger.snapshot() as conn:
        for name in figures.KEYS:
            fps = figures.table_fingerprints(conn, name)
            assert len(fps) > 1
            assert figures.table_digest(conn, name) == (figures.digest_of(fps), len(fps))


@pytest.mark.parametrize("n", [0, 1, precompute.SMALL, precompute.SMALL + 1, precompute.SLICE, precompute.SLICE + 1,
                               2 * precompute.SLICE, 2 * precompute.SLICE + 7])
def test_long_maps_and_lists_dumped_a_slice_at_a_time_are_the_plain_text(n):
    body = {"m": {f"r{i}": {"a": [str(i), None], "zh": "等待"} for i in range(n)},
            "l": [[i, {"x": i}] for i in range(n)], "deep": {"k": [{"m": {str(i): i for i in range(n)}}]}}
    assert "".join(precompute._pieces(body, 3)) == json.dumps(body, separators=(",", ":"))
    assert precompute._gzip_json(body) == plain(body)


def test_shared_tuples_with_their_keys_are_the_shared_mappings():
    keys = ("source_sha256", "low", "expected", "high", "n")
    rows = [("".join(["cd"] * 32), Decimal("2.50"), Decimal("2.50"), Decimal("2.5"), i) for i in range(3)]
    out = list(precompute._shared(iter(rows), keys))
    assert out == list(precompute._shared(dict(zip(keys, r, strict=True)) for r in rows))
    assert out[0] == {"source_sha256": "cd" * 32, "low": Decimal("2.50"), "expected": Decimal("2.50"),
                      "high": Decimal("2.5"), "n": 0}
    assert out[2]["source_sha256"] is out[0]["source_sha256"] and out[0]["expected"] is out[0]["low"]
