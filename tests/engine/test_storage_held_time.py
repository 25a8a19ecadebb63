"""Storage held time (review3 G19, G25): an object pays from the instant it was written (not its
day) to its snapshot's instant (00:00 UTC of the snapshot date), and an object is its path *and*
its write instant — a noncurrent version beside the current one, or two listings of one path in
one snapshot, each pay for their own time. Figures worked by hand: GiB × hours / 730."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from trainledger.engine import Facts, attribute
from trainledger.engine.assets import held_intervals, snapshot_instant
from trainledger.model import PriceEntry

from .factories import T0

Q = Decimal("0.000001")


def _obj(path, snap, row, written, gib=100):
    return {"path": path, "size_bytes": gib * 1024**3, "storage_class": "checkpoint", "tier": "standard",
            "owner": "o", "purpose": "p", "retention_until": None, "review_at": None, "last_modified": written,
            "snapshot_date": snap, "batch": "b1", "source_sha256": "5" * 64, "row": row, "flags": "[]"}


def _price(item, on, unit):
    if item == "storage:standard" and unit == "gb_month":
        return PriceEntry(item=item, unit="gb_month", price=Decimal("0.12"), currency="CNY", source="list",
                          effective=T0.date() - timedelta(days=365))
    return None


def _lines(config, *rows):
    result = attribute(Facts(storage_objects=rows), config, _price, T0.date())
    return sorted((ln for ln in result.lines if ln.category == "storage"), key=lambda ln: ln.provenance.row)


def test_the_snapshot_date_is_its_utc_midnight():
    assert snapshot_instant(datetime(2026, 11, 20).date()) == datetime(2026, 11, 20, tzinfo=UTC)


def test_an_object_pays_from_its_write_instant_not_its_day(config):
    """inv2c.csv: 100 GiB written 2026-11-19T18:00Z, snapshot 2026-11-20 (00:00 UTC): 6 h × 100 / 730
    = 0.821918 GiB-months, 0.10 CNY at 0.12 (the write day would give 24 h: 3.287671, 0.39)."""
    written = datetime(2026, 11, 19, 18, tzinfo=UTC)
    (line,) = _lines(config, _obj("obs://obs-ckpt/llm-x/step-1600/", "2026-11-20", 1, written))
    assert line.quantity.quantize(Q) == Decimal("0.821918")
    assert line.amount.expected == Decimal("0.09863014")  # 0.821918 × 0.12, kept at 8 places: 0.10


def test_ws2_checkpoints_by_hand(config):
    """inv1.csv + inv2.csv: step-600 (written 11-01) 216 h to 11-10 and 240 h to 11-20; step-1600
    written 11-10T05:12Z, 234.8 h to 11-20 — 100 × 690.8 / 730 = 94.630137 GiB-months (not 95.34)."""
    w600, w1600 = datetime(2026, 11, 1, tzinfo=UTC), datetime(2026, 11, 10, 5, 12, tzinfo=UTC)
    lines = _lines(config, _obj("obs://obs-ckpt/llm-x/step-600/", "2026-11-10", 1, w600),
                   _obj("obs://obs-ckpt/llm-x/step-600/", "2026-11-20", 2, w600),
                   _obj("obs://obs-ckpt/llm-x/step-1600/", "2026-11-20", 3, w1600))
    assert [ln.quantity.quantize(Q) for ln in lines] == [Decimal("29.589041"), Decimal("32.876712"),
                                                         Decimal("32.164384")]
    assert sum(ln.quantity for ln in lines).quantize(Q) == Decimal("94.630137")


def test_a_noncurrent_version_pays_beside_the_current_one(config):
    """G25: one key, two versions in the 2026-11-21 report: current 100 GiB written 11-01 (480 h:
    65.753425) and noncurrent 50 GiB written 10-01 (1,224 h: 50 × 1224 / 730 = 83.835616, 10.06 CNY)."""
    key = "train-ckpt/llm-x/step=600/model.pt"
    lines = _lines(config, _obj(key, "2026-11-21", 1, "2026-11-01T00:00:00+00:00"),
                   _obj(key, "2026-11-21", 2, "2026-10-01T00:00:00+00:00", gib=50))
    assert [ln.quantity.quantize(Q) for ln in lines] == [Decimal("65.753425"), Decimal("83.835616")]
    assert [ln.amount.expected for ln in lines] == [Decimal("7.89041096"), Decimal("10.06027397")]


def test_a_version_listed_again_pays_since_its_previous_snapshot():
    """The noncurrent version of 11-21 was the current one on 11-14: it pays 10-01 → 11-14, then 7 days;
    the new current version (written 11-15) pays from its write."""
    key = "b/k"
    old, new = "2026-10-01T00:00:00+00:00", "2026-11-15T12:00:00+00:00"
    rows = (_obj(key, "2026-11-14", 1, old), _obj(key, "2026-11-21", 2, old), _obj(key, "2026-11-21", 3, new))
    held = held_intervals(rows, T0.date())
    d = {r: held[("5" * 64, r)] for r in (1, 2, 3)}
    assert d[1] == (datetime(2026, 10, 1, tzinfo=UTC), datetime(2026, 11, 14, tzinfo=UTC))
    assert d[2] == (datetime(2026, 11, 14, tzinfo=UTC), datetime(2026, 11, 21, tzinfo=UTC))
    assert d[3] == (datetime(2026, 11, 15, 12, tzinfo=UTC), datetime(2026, 11, 21, tzinfo=UTC))


def test_two_listings_of_one_path_in_one_snapshot_both_pay(config):
    """inv2.csv and inv2b.csv imported side by side (both 11-20): step-1600 is listed written 11-10T05:12Z
    and 11-19T00:00Z — two objects, 234.8 h and 24 h, neither charged 0."""
    p = "obs://obs-ckpt/llm-x/step-1600/"
    lines = _lines(config, _obj(p, "2026-11-20", 1, datetime(2026, 11, 10, 5, 12, tzinfo=UTC)),
                   _obj(p, "2026-11-20", 2, datetime(2026, 11, 19, tzinfo=UTC)))
    assert [ln.quantity.quantize(Q) for ln in lines] == [Decimal("32.164384"), Decimal("3.287671")]


def test_a_write_later_on_the_snapshot_day_pays_nothing_and_is_no_problem(config):
    rows = (_obj("b/z", "2026-11-20", 1, datetime(2026, 11, 20, 5, tzinfo=UTC)),)
    result = attribute(Facts(storage_objects=rows), config, _price, T0.date())
    (line,) = [ln for ln in result.lines if ln.category == "storage"]
    assert line.quantity == 0
    assert "modified_after_snapshot" not in {p.kind for p in result.problems}


def test_a_listing_without_last_modified_pays_since_its_previous_snapshot(config):
    """Review 5 J2: 500 GiB listed on 11-10 and 11-11 with no last_modified: the 11-11 row pays the
    day since 11-10 — 500 × 24 / 730 = 16.438356 GiB-months (1.97 CNY at 0.12); the first snapshot's
    held time is unknown: 0, and said (one problem per inventory date), never a silent 0."""
    key = "obs://pt-ckpt/llm-pt-asc-1/step-1000/"
    rows = (_obj(key, "2026-11-10", 1, None, gib=500), _obj(key, "2026-11-11", 2, None, gib=500),
            _obj("obs://pt-data/corpus-v3/", "2026-11-10", 3, "", gib=2048))
    held = held_intervals(rows, T0.date())
    assert held[("5" * 64, 2)] == (datetime(2026, 11, 10, tzinfo=UTC), datetime(2026, 11, 11, tzinfo=UTC))
    assert held[("5" * 64, 1)] == (datetime(2026, 11, 10, tzinfo=UTC),) * 2
    result = attribute(Facts(storage_objects=rows), config, _price, T0.date())
    lines = sorted((ln for ln in result.lines if ln.category == "storage"), key=lambda ln: ln.provenance.row)
    assert [ln.quantity.quantize(Q) for ln in lines] == [Decimal(0), Decimal("16.438356"), Decimal(0)]
    assert lines[1].amount.expected == Decimal("1.97260274")
    (p,) = [p for p in result.problems if p.kind == "storage_held_unknown"]
    assert p.detail == {"count": 2, "path": "obs://pt-ckpt/llm-pt-asc-1/step-1000/", "snapshot": "2026-11-10"}
    assert "no last_modified: held time before this snapshot unknown, not charged" in p.message


def test_rows_with_a_write_time_raise_no_unknown_held_time(config):
    w = datetime(2026, 11, 1, tzinfo=UTC)
    result = attribute(Facts(storage_objects=(_obj("b/k", "2026-11-10", 1, w),)), config, _price, T0.date())
    assert "storage_held_unknown" not in {p.kind for p in result.problems}
