"""Prices reach the engine in the unit it multiplies by: the same price in other units, same figures."""

import textwrap

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.errors import ConfigError
from trainledger.service import Workspace

from .engine.factories import CONFIG

SACCT = """JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|NodeList|Restarts
7001|sft|ml|b1||li|2026-11-02T06:00:00|2026-11-02T06:00:00|2026-11-02T08:00:00|2026-11-02T09:00:00|COMPLETED|0:0|gres/gpu=8,node=1|n1|0
"""
INVENTORY = "path,size_bytes,storage_class,owner,purpose,review_at,last_modified,snapshot_date,batch\n" \
            "oss://b/ckpt/1,1073741824000,checkpoint,o,recovery,2027-01-01,2026-10-01T00:00:00Z,2026-10-31,b1\n"


def price_book(gpu_unit: str, gpu_price: str, storage_unit: str, storage_price: str) -> str:
    return textwrap.dedent(f"""
        [[price]]
        item = "gpu_hour:h800"
        unit = "{gpu_unit}"
        price = "{gpu_price}"
        currency = "CNY"
        source = "quote Q-1"
        effective = 2026-01-01
        gpus_per_node = 8

        [[price]]
        item = "storage:standard"
        unit = "{storage_unit}"
        price = "{storage_price}"
        currency = "CNY"
        source = "list price"
        effective = 2026-01-01
        """)


def workspace(tmp_path, book: str):
    root = tmp_path / "ws"
    root.mkdir()
    config = CONFIG.replace('[workspace]\ncurrency = "CNY"', '[workspace]\ncurrency = "CNY"\nprice_book = "p.toml"')
    (root / "trainledger.toml").write_text(textwrap.dedent(config), encoding="utf-8")
    (root / "p.toml").write_text(book, encoding="utf-8")
    (tmp_path / "sacct.txt").write_text(SACCT, encoding="utf-8")
    (tmp_path / "inv.csv").write_text(INVENTORY, encoding="utf-8")
    wsp = Workspace.init(root)
    wsp.import_files("slurm", [tmp_path / "sacct.txt"], options={"tz": "UTC"})
    wsp.import_files("storage", [tmp_path / "inv.csv"])
    return wsp


def _figures(wsp):
    result = wsp.attribute()
    queued = sum(ln.amount.expected for ln in result.lines if ln.basis == "queued")
    storage = sum(ln.amount.expected for ln in result.lines if ln.category == "storage")
    return queued, storage


@pytest.mark.parametrize(("book", "what"), [
    (price_book("gpu_hour", "36", "gb_month", "0.12"), "base units"),
    (price_book("node_hour", "288", "tb_month", "122.88"), "node-hours and TB-months (1 TB = 1024 GB)"),
    (price_book("card_day", "864", "gb_month", "0.12"), "card-days"),
])
def test_units_are_normalised_before_they_are_multiplied(tmp_path, book, what):
    with workspace(tmp_path, book) as wsp:
        queued, storage = _figures(wsp)
    assert queued == 16 * 36, what  # 8 GPUs queued 2 h at 36 per GPU-hour
    assert storage.quantize(1) == round(1000 * 30 / (730 / 24) * 0.12), what  # 1000 GiB for 30 days at 0.12


def test_a_price_in_the_wrong_dimension_is_a_clear_error(tmp_path):
    with workspace(tmp_path, price_book("gb_month", "36", "gb_month", "0.12")) as wsp, \
            pytest.raises(ConfigError, match="unit mismatch"):
        wsp.attribute()
    result = CliRunner().invoke(cli, ["--workspace", str(tmp_path / "ws"), "attribute", "--json"])
    assert result.exit_code == 2 and "gpu_hour:h800" in result.output


def test_a_storage_bill_is_shown_beside_the_inventory_estimate_not_mixed_in(tmp_path):
    bill = tmp_path / "oss-bill.csv"
    bill.write_text("BilledCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,ServiceCategory,ResourceId,Tags\n"
                    '12.34,CNY,2026-10-01T00:00:00Z,2026-11-01T00:00:00Z,Storage,oss-bucket,"{""batch"": ""b1""}"\n',
                    encoding="utf-8")
    with workspace(tmp_path, price_book("gpu_hour", "36", "gb_month", "0.12")) as wsp:
        wsp.import_files("focus", [bill])
        wsp.attribute()
        rows = wsp.sheet("b1")["storage_by_class"]
    billed = [r for r in rows if r["basis"] == "billed"]
    estimate = [r for r in rows if r["basis"] == "estimate"]
    assert [(r["objects"], r["cost"][0]["expected"]) for r in billed] == [(0, "12.34")]
    assert estimate and estimate[0]["objects"] == 1 and estimate[0]["storage_class"] == "checkpoint"
