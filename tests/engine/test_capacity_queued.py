"""Review 5 J11: a capacity's queued time is valued at its own price, not at ``[cluster] gpu_item``.

The owned Ascend cluster of test_ascend_capacity_ws (asc-own, amortised 7.3172 CNY per card-hour)
and one cloud H800 job on a node of no capacity. ``gpu_item`` is ``gpu_hour:h800`` at 36.00 CNY.
By hand: job 7001 (16 NPUs) waited 2 h → 32 card-hours; job 7003 (8 NPUs) 30 min → 4; job 9001 on
the cloud node h8-node-09 (8 GPUs) 1 h → 8 GPU-hours.

* default: the capacity's own price — 36 × 7.3172 = 263.4192 CNY (a valuation keeps its digits; it was
  36 × 36.00 = 1,296.00); 9001 stays at gpu_item: 8 × 36.00 = 288.00;
* ``queued_rate = "20"``: 36 × 20 = 720.00;
* ``queued_item = "gpu_hour:asc-queue"`` (12.50 in the price book): 36 × 12.50 = 450.00.
"""

from __future__ import annotations

import textwrap
from decimal import Decimal

import pytest

from trainledger.service import Workspace

from ..test_ascend_capacity_ws import CAPACITY, H
from .factories import CONFIG

BOOK = """
[[price]]
item = "gpu_hour:h800"
unit = "gpu_hour"
price = "36.00"
currency = "CNY"
source = "quote Q-1"
effective = 2026-01-01

[[price]]
item = "gpu_hour:asc-queue"
unit = "gpu_hour"
price = "12.50"
currency = "CNY"
source = "platform queue value memo"
effective = 2026-01-01
owner = "platform: li"
evidence = "assumed"
"""
SACCT = H + "".join(
    f"{c}|{j}|{j}|pt|llm|b1||chen|{sub}|{sub}|{s}|{e}|{el}|COMPLETED|0:0|{tres}|{nodes}|0\n"
    for c, j, sub, s, e, el, tres, nodes in [
        ("asc", "7001", "2026-11-10T06:00:00", "2026-11-10T08:00:00", "2026-11-10T20:00:00", "12:00:00",
         "billing=192,cpu=192,gres/npu:910b=16,mem=1500G,node=2", "asc-node-[01-02]"),
        ("asc", "7003", "2026-11-11T07:30:00", "2026-11-11T08:00:00", "2026-11-11T09:30:00", "01:30:00",
         "cpu=96,gres/npu:910b=8,node=1", "asc-node-01"),
        ("cloud", "9001", "2026-11-10T09:00:00", "2026-11-10T10:00:00", "2026-11-10T11:00:00", "01:00:00",
         "cpu=96,gres/gpu:h800=8,node=1", "h8-node-09"),
    ]
)  # fmt: skip


def _attribute(tmp_path, extra: str = ""):
    root = tmp_path / "ws"
    root.mkdir()
    config = CONFIG.replace('[workspace]\ncurrency = "CNY"', '[workspace]\ncurrency = "CNY"\nprice_book = "p.toml"')
    capacity = textwrap.dedent(CAPACITY).replace('evidence = "assumed"\n', f'evidence = "assumed"\n{extra}')
    (root / "trainledger.toml").write_text(textwrap.dedent(config) + capacity, encoding="utf-8")
    (root / "p.toml").write_text(textwrap.dedent(BOOK), encoding="utf-8")
    (tmp_path / "sacct.txt").write_text(SACCT, encoding="utf-8")
    with Workspace.init(root) as wsp:
        wsp.import_files("slurm", [tmp_path / "sacct.txt"], options={"tz": "Asia/Shanghai"})
        return wsp.attribute()


def _queued(result) -> dict[str, tuple[Decimal, Decimal]]:
    """Per job: (queued GPU-hours, value)."""
    return {ln.run_id.split("/")[-1]: (ln.quantity, ln.amount.expected) for ln in result.lines
            if str(ln.basis) == "queued"}


def _drawer(result) -> dict[str, object]:
    return {a.name: a for a in result.assumptions if a.name.startswith("value of a queued GPU-hour")}


@pytest.mark.parametrize(("extra", "asc_price", "source"), [
    ("", Decimal("7.3172"), "fixed-asset register FA-2026-07"),  # the capacity's own source
    ('queued_rate = "20"\n', Decimal(20), "[[capacity]] asc-own queued_rate"),
    ('queued_item = "gpu_hour:asc-queue"\n', Decimal("12.50"), "platform queue value memo"),  # the entry's
])
def test_a_capacitys_queue_is_valued_at_its_own_price(tmp_path, extra, asc_price, source):
    result = _attribute(tmp_path, extra)
    got = _queued(result)
    assert {k: v[0] for k, v in got.items()} == {"7001": 32, "7003": 4, "9001": 8}
    for job in ("7001", "7003"):
        hours, value = got[job]
        assert value == hours * asc_price  # exact: 4 decimals at most
    assert got["9001"][1] == Decimal("288.00")  # no capacity: gpu_item, as before
    assert sum(v for _, v in got.values()) == 36 * asc_price + Decimal("288.00")
    drawer = _drawer(result)
    row = drawer["value of a queued GPU-hour on capacity asc-own (opportunity, not cash)"]
    assert (str(row.evidence), row.unit) == ("assumed", "CNY/gpu_hour")  # a valuation, whatever the price's
    assert Decimal(row.value) == asc_price and row.source == source
    assert "gpu_item is not used" in row.note
    assert "value of a queued GPU-hour (opportunity, not cash)" in drawer  # gpu_item: job 9001's
    assert not [p for p in result.problems if p.kind in ("unpriced_queue", "unpriced_capacity_queue")]


def test_the_h800_price_is_no_longer_the_ascend_queues(tmp_path):
    got = _queued(_attribute(tmp_path))
    assert got["7001"][1] == Decimal("234.1504")  # 32 × 7.3172; at gpu_item it was 1,152.00
    assert got["7001"][1] != 32 * Decimal("36.00")


def test_a_capacity_queue_item_without_a_price_is_not_valued_and_said(tmp_path):
    result = _attribute(tmp_path, 'queued_item = "gpu_hour:nowhere"\n')
    got = _queued(result)
    assert got["7001"] == (32, 0) and got["9001"][1] == Decimal("288.00")
    (problem,) = [p for p in result.problems if p.kind == "unpriced_capacity_queue"]
    assert problem.detail == {"capacity": "asc-own"}
    reasons = {ln.reason for ln in result.lines if str(ln.basis) == "queued" and ln.run_id.endswith("7001")}
    assert reasons == {"not_valued: no price for capacity asc-own's queue"}


def test_queued_rate_and_item_together_are_refused(tmp_path):
    from trainledger.errors import ConfigError

    with pytest.raises(ConfigError, match="queued_item .* or queued_rate, not both"):
        _attribute(tmp_path, 'queued_rate = "1"\nqueued_item = "gpu_hour:asc-queue"\n')
