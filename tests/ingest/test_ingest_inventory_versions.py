"""review3 G25 end to end: an S3 Inventory report (tests/data/rv3/s3inv, creationTimestamp
2026-11-21T00:00Z) listing one key twice — current 100 GiB written 11-01 and noncurrent 50 GiB
written 10-01. The noncurrent version is stored and billed: it pays 1,224 h, not 0."""

from __future__ import annotations

import shutil
import textwrap
from decimal import Decimal
from pathlib import Path

from tests.ingest.ingest_helpers import run

DATA = Path(__file__).resolve().parents[1] / "data" / "rv3" / "s3inv"
Q = Decimal("0.000001")


def test_a_noncurrent_version_is_charged(lake, tmp_path):
    from tests.engine.factories import CONFIG, T0, price_lookup

    from trainledger import workspace
    from trainledger.engine import Facts, attribute

    src = tmp_path / "s3inv"
    shutil.copytree(DATA, src)
    res = run("inventory", src / "manifest.json", lake,
              storage_prefixes=[{"prefix": "train-ckpt/", "storage_class": "checkpoint"}])
    assert (res.rows_read, res.quarantined) == (5, 1)  # the 4-field line
    root = tmp_path / "ws"
    root.mkdir()
    (root / "trainledger.toml").write_text(textwrap.dedent(CONFIG), encoding="utf-8")
    facts = Facts(storage_objects=tuple(lake.read("storage_objects").to_pylist()))
    result = attribute(facts, workspace.load(root), price_lookup, T0.date())
    by_size = {ln.provenance.row: ln.quantity.quantize(Q) for ln in result.lines if ln.category == "storage"}
    assert sorted(by_size.values()) == [
        Decimal("0"),  # the delete marker
        Decimal("65.753425"),  # current: 100 GiB × 480 h / 730
        Decimal("83.835616"),  # noncurrent: 50 GiB × 1,224 h / 730 (was 0)
        Decimal("624.657534")]  # GLACIER 1000 GiB × 456 h / 730
