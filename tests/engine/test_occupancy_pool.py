"""G23: a pool with an imported occupancy series but no job list — all of it would be "capacity no
job held" although the series says most GPUs were running: ``attribute`` names the gap, and the
series moves the money (engine/capacity_occupancy.py): the running GPU-hours are "held, jobs not
imported", only the series' idle GPU-hours are capacity no job held.

Helios Earth VC vc6YE (tests/data/helios, HeliosArtifact), the first day: 1,440 one-minute samples,
208 GPUs. A pool ``cluster = "helios"``, 208 GPUs, 10.00 CNY/GPU-h over that day (Shanghai time)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pandas as pd

from trainledger.report.problems_i18n import message
from trainledger.service import Workspace

DATA = Path(__file__).resolve().parents[1] / "data" / "helios" / "cluster_sequence_vc.csv"

POOL = """
[[capacity]]
id = "helios-pool"
cluster = "helios"
gpus = 208
from = 2020-05-01T00:00:00+08:00
until = 2020-05-02T00:00:00+08:00
currency = "CNY"
rate = "10.00"
unit = "gpu_hour"
effective = 2020-01-01
source = "chargeback"
owner = "platform"
"""


def test_an_occupancy_series_without_jobs_is_named(tmp_path):
    day = tmp_path / "day.csv"
    with DATA.open(encoding="utf-8") as f:
        day.write_text("".join(line for _, line in zip(range(1441), f, strict=False)), encoding="utf-8")
    raw = pd.read_csv(day)
    running = (Decimal(int(raw.running_gpu_num.sum())) / 60).quantize(Decimal("0.01"))  # one-minute samples
    idle = (Decimal(int(raw.idle_gpu_num.sum())) / 60).quantize(Decimal("0.01"))
    root = tmp_path / "ws"
    with Workspace.init(root, currency="CNY") as wsp:
        (root / "trainledger.toml").write_text((root / "trainledger.toml").read_text(encoding="utf-8") + POOL,
                                               encoding="utf-8")
    with Workspace.open(root) as wsp:
        wsp.import_files("occupancy", [day], options={"preset": "helios", "tz": "Asia/Shanghai",
                                                      "set": ["vc=vc6YE"]})
        result = wsp.attribute()
    (rec,) = result.conservation_capacity
    assert rec["total"] == "49920.00" and rec["attributed"] == "0.00"  # 208 × 24 × 10.00, no imported job
    held = (10 * Decimal(int(raw.running_gpu_num.sum())) / 60).quantize(Decimal("0.01"))  # rate × running hours
    assert rec["held_not_imported"] == format(held, "f")
    assert Decimal(rec["unheld"]) == Decimal("49920.00") - held  # the rest: idle by the series, to the cent
    assert abs(Decimal(rec["unheld"]) - 10 * idle) <= Decimal("0.05")  # = rate × the series' idle hours
    assert rec["difference"] == "0.00" and rec["gpu_hours"]["difference"] == "0"
    hours = rec["gpu_hours"]
    assert Decimal(hours["held_not_imported"]) + Decimal(hours["unheld"]) == 4992  # hours conserve
    assert Decimal(hours["held_not_imported"]) == Decimal(int(raw.running_gpu_num.sum())) / 60
    (p,) = [p for p in result.problems if p.kind == "occupancy_jobs_missing"]
    assert p.detail["running"] == format(running, "f") and p.detail["idle"] == format(idle, "f")
    assert p.detail["held"] == "0.00" and p.detail["missing"] == format(running, "f")
    assert running > 4000  # most of the 4,992 GPU-hours ran
    zh = message({"kind": p.kind, "detail": p.detail}, "zh-CN")
    assert f"运行中 {running} 卡时" in zh and "请导入该集群的作业清单" in zh
    assert "not as capacity no job held" in p.message
