"""Price book: loading, unit normalisation, staleness, dated FX, and clear errors."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from trainledger.errors import ConfigError, NotFound
from trainledger.estimate.catalog import catalog
from trainledger.pricebook import SAMPLE_PRICE_BOOK, UNITS, load_price_book

BOOK = """
currency = "USD"
[[price]]
item = "gpu_hour:a800-80gb"
unit = "card_day"
price = 48
low = 40
high = 60
currency = "CNY"
source = "contract C-1"
effective = 2025-01-01
expires = 2025-12-31

[[price]]
item = "gpu_hour:a800-80gb"
unit = "node_month"
gpus_per_node = 8
price = 87600
currency = "CNY"
source = "contract C-2"
effective = 2026-01-01

[[price]]
item = "storage:standard"
unit = "tb_month"
price = 23
currency = "USD"
source = "S3 list"
effective = 2024-01-01
evidence = "assumed"
owner = "procurement"

[[fx]]
base = "USD"
quote = "CNY"
rate = 7.0
date = 2025-01-01
source = "test rate"

[[fx]]
base = "USD"
quote = "CNY"
rate = 7.3
date = 2026-01-01
source = "test rate"
"""


@pytest.fixture()
def book(tmp_path):
    p = tmp_path / "book.toml"
    p.write_text(BOOK)
    return load_price_book(p)


def test_card_day_is_24_gpu_hours(book):
    e = book.unit_price("gpu_hour:a800-80gb", "gpu_hour", date(2025, 6, 1))
    assert (e.price, e.low, e.high) == (Decimal(2), Decimal(40) / 24, Decimal("2.5"))
    assert e.currency == "CNY" and e.unit == "gpu_hour"


def test_node_month_is_730_hours_times_gpus_per_node(book):
    # 87,600 CNY per 8-GPU node-month = 87,600 / (8 x 730) = 15 CNY per GPU-hour
    e = book.unit_price("gpu_hour:A800-80GB", "gpu_hour", date(2026, 3, 1))
    assert e.price == Decimal(15)


def test_tb_month_to_gb_month(book):
    e = book.unit_price("storage:standard", "gb_month", date(2026, 3, 1))
    assert e.price == Decimal(23) / 1024  # a TB is 1024 GB of 2^30 bytes, as storage bills count


def test_unit_mismatch_names_file_and_entry(book):
    with pytest.raises(ConfigError) as err:
        book.unit_price("storage:standard", "gpu_hour", date(2026, 3, 1))
    assert "book.toml" in str(err.value) and "storage:standard" in str(err.value)
    assert "mismatch" in str(err.value)


def test_unit_mismatch_at_load(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text(
        '[[price]]\nitem = "gpu_hour:h100-80gb"\nunit = "gb_month"\nprice = 1\n'
        'currency = "USD"\nsource = "x"\neffective = 2025-01-01\n'
    )
    with pytest.raises(ConfigError, match=r"bad\.toml, \[\[price\]\] #1 \(gpu_hour:h100-80gb\).*mismatch"):
        load_price_book(p)


def test_node_unit_needs_gpus_per_node(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text(
        '[[price]]\nitem = "gpu_hour:x"\nunit = "node_month"\nprice = 1\n'
        'currency = "USD"\nsource = "x"\neffective = 2025-01-01\n'
    )
    with pytest.raises(ConfigError, match="gpus_per_node"):
        load_price_book(p)


def test_assumed_price_needs_owner(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text(
        '[[price]]\nitem = "gpu_hour:x"\nunit = "gpu_hour"\nprice = 1\nevidence = "assumed"\n'
        'currency = "USD"\nsource = "x"\neffective = 2025-01-01\n'
    )
    with pytest.raises(ConfigError, match="owner"):
        load_price_book(p)


def test_latest_valid_price_wins_and_stale_is_refused(book):
    assert book.lookup("gpu_hour:a800-80gb", date(2025, 6, 1)).unit == "card_day"
    assert book.lookup("gpu_hour:a800-80gb", date(2026, 6, 1)).unit == "node_month"
    with pytest.raises(NotFound, match="effective only from"):
        book.lookup("gpu_hour:a800-80gb", date(2024, 6, 1))


def test_expired_price_is_flagged_never_silently_used(tmp_path):
    p = tmp_path / "old.toml"
    p.write_text(
        '[[price]]\nitem = "gpu_hour:x"\nunit = "gpu_hour"\nprice = 1\n'
        'currency = "USD"\nsource = "x"\neffective = 2024-01-01\nexpires = 2024-12-31\n'
    )
    b = load_price_book(p)
    with pytest.raises(NotFound, match=r"is stale \(expired 2024-12-31\)"):
        b.lookup("gpu_hour:x", date(2025, 1, 1))
    e = b.lookup("gpu_hour:x", date(2025, 1, 1), allow_stale=True)
    assert e.is_stale(date(2025, 1, 1))
    assert [s.item for s in b.stale(date(2025, 1, 1))] == ["gpu_hour:x"]
    assert b.stale(date(2024, 6, 1)) == []


def test_unknown_item_is_not_found(book):
    with pytest.raises(NotFound, match="no price for 'gpu_hour:h100-80gb'"):
        book.lookup("gpu_hour:h100-80gb", date(2026, 1, 1))


def test_dated_fx_uses_latest_rate_on_or_before(book):
    assert book.convert(Decimal(10), "USD", "CNY", date(2025, 6, 1)) == Decimal("70.0")
    assert book.convert(Decimal(10), "USD", "CNY", date(2026, 6, 1)) == Decimal("73.0")
    assert book.convert(Decimal(73), "CNY", "USD", date(2026, 6, 1)) == Decimal(10)
    with pytest.raises(NotFound, match="exchange rate"):
        book.convert(Decimal(1), "USD", "CNY", date(2024, 1, 1))


def test_csv_price_book(tmp_path):
    p = tmp_path / "book.csv"
    p.write_text(
        "item,unit,price,low,high,currency,source,effective,expires,evidence,owner,gpus_per_node\n"
        "gpu_hour:h800,node_hour,16,,,USD,quote Q-9,2025-03-01,,contract,,8\n"
        "fx:USD/CNY,,7.2,,,,central parity,2025-03-01,,,,\n"
    )
    b = load_price_book(p)
    assert b.unit_price("gpu_hour:h800", "gpu_hour", date(2025, 4, 1)).price == Decimal(2)
    assert b.convert(Decimal(1), "USD", "CNY", date(2025, 4, 1)) == Decimal("7.2")


def test_csv_bad_unit_names_row(tmp_path):
    p = tmp_path / "book.csv"
    p.write_text("item,unit,price,currency,source,effective\nlabor:data_prep,gpu_hour,1,USD,x,2025-01-01\n")
    with pytest.raises(ConfigError, match=r"book\.csv, row 1 \(labor:data_prep\).*mismatch"):
        load_price_book(p)


def test_sample_book_is_sourced_and_prices_every_catalog_accelerator():
    b = load_price_book(SAMPLE_PRICE_BOOK)
    for be in b.entries:
        assert be.entry.source.strip() and be.entry.effective
        assert be.entry.unit in UNITS
        if be.entry.evidence == "assumed":
            assert be.owner
    for acc_id in catalog():
        assert f"gpu_hour:{acc_id}" in b.items()
    assert all(r.source for r in b.fx)
