"""The stored summary's ``as_of`` and every figure come from ``--as-of`` or the data, never the day
``attribute`` runs (``engine.asof.data_day``)."""

import textwrap
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from trainledger import workspace as ws
from trainledger.service import Workspace

from .engine.factories import CONFIG
from .test_service_prices import INVENTORY, SACCT

# the GPU-hour price changes on 2026-11-15: a figure valued "as of today" would move with the clock
BOOK = """
[[price]]
item = "gpu_hour:h800"
unit = "gpu_hour"
price = "36"
currency = "CNY"
source = "quote Q-1"
effective = 2026-01-01

[[price]]
item = "gpu_hour:h800"
unit = "gpu_hour"
price = "99"
currency = "CNY"
source = "quote Q-2"
effective = 2026-11-15
"""


@pytest.fixture
def wsp(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    config = CONFIG.replace('[workspace]\ncurrency = "CNY"', '[workspace]\ncurrency = "CNY"\nprice_book = "p.toml"')
    (root / "trainledger.toml").write_text(textwrap.dedent(config), encoding="utf-8")
    (root / "p.toml").write_text(textwrap.dedent(BOOK), encoding="utf-8")
    (tmp_path / "sacct.txt").write_text(SACCT, encoding="utf-8")
    (tmp_path / "inv.csv").write_text(INVENTORY, encoding="utf-8")
    with Workspace.init(root) as w:
        w.import_files("slurm", [tmp_path / "sacct.txt"], options={"tz": "UTC"})
        w.import_files("storage", [tmp_path / "inv.csv"])
        yield w


def _run(w):
    result = w.attribute()
    queued = sum(ln.amount.expected for ln in result.lines if ln.basis == "queued")
    return queued, w.ledger.latest_attribution()["summary"]["as_of"]


@pytest.mark.parametrize("clock", [date(2026, 11, 3), date(2026, 12, 1), date(2027, 6, 1)])
def test_figures_and_as_of_do_not_follow_the_clock(wsp, monkeypatch, clock):
    monkeypatch.setattr(ws, "today", lambda: clock)
    queued, as_of = _run(wsp)
    # the data's last day: job 7001 ends 2026-11-02 09:00 (the inventory snapshot is 2026-10-31)
    assert as_of == "2026-11-02"
    assert queued == Decimal(16 * 36)  # 8 GPUs queued 2 h, at the price in force on 2026-11-02


def test_as_of_given_wins(wsp):
    result = wsp.attribute(as_of_time=datetime(2026, 11, 20, 12, tzinfo=UTC))
    assert sum(ln.amount.expected for ln in result.lines if ln.basis == "queued") == Decimal(16 * 99)
    assert wsp.ledger.latest_attribution()["summary"]["as_of"] == "2026-11-20"
