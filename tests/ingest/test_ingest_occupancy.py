"""``import occupancy`` (Helios and Philly presets, a mapping) and ``trainledger occupancy``."""

from __future__ import annotations

import json
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from ingest_helpers import DATA, check_golden, run, snapshot

from trainledger.analysis.occupancy import occupancy_summary
from trainledger.errors import BadInput, WrongFileType
from trainledger.ingest import import_files

HELIOS = DATA / "helios" / "cluster_sequence_vc.csv"
PHILLY = DATA / "philly" / "philly_node_sequence.csv"

SEQUENCE = (
    "time,total_gpu_num,running_gpu_num,pending_gpu_num,idle_gpu_num,running_gpujob_num,"
    "pending_gpujob_num\n"
    "2020-05-01 00:00:00,16,8,8,8,1,1\n"  # 8 GPUs idle while 8 are asked for
    "2020-05-01 00:01:00,16,16,4,0,2,1\n"  # full: waiting demand, nothing idle
    "2020-05-01 00:02:00,16,4,0,10,1,0\n"  # 4 + 10 is not 16: flagged
    "2020-05-01 00:03:00,16,-2,0,18,0,0\n"  # a negative count: quarantined
    "2020-05-01 00:04:00,16,0,2,16,0,1\n"
    "yesterday,16,0,0,16,0,0\n"  # not a time: quarantined
)


def test_helios_preset_reproduces_the_raw_csv(lake):
    r = run("occupancy", HELIOS, lake, preset="helios", tz="Asia/Shanghai", set=["vc=vc6YE"])
    assert (r.rows_read, r.accepted, r.quarantined) == (44640, 44640, 0)
    (s,) = occupancy_summary(lake)
    raw = pd.read_csv(HELIOS)
    assert (s.cluster, s.vc, s.unit, s.samples, s.gaps) == ("helios", "vc6YE", "gpu", len(raw), 0)
    minute = Decimal(60) / Decimal(3600)
    assert s.idle_hours == (int(raw.idle_gpu_num.sum()) * minute).quantize(Decimal("0.000001"))
    assert float(s.capacity_hours) == pytest.approx(raw.total_gpu_num.sum() / 60, abs=1e-6)
    assert float(s.pending_hours) == pytest.approx(raw.pending_gpu_num.sum() / 60, abs=1e-6)
    waiting = np.minimum(raw.pending_gpu_num, raw.idle_gpu_num)
    assert float(s.pending_while_idle_hours) == pytest.approx(waiting.sum() / 60, abs=1e-6)
    assert s.samples_pending_while_idle == int((waiting > 0).sum())
    assert s.first.isoformat() == "2020-04-30T16:00:00+00:00"  # 2020-05-01 00:00 in Shanghai
    row = lake.read("occupancy").slice(0, 1).to_pylist()[0]
    assert json.loads(row["extra"])["gpu_utilization"] == "0.779"


def test_philly_preset_counts_idle_nodes(lake):
    r = run("occupancy", PHILLY, lake, preset="philly", tz="UTC")
    assert r.accepted == r.rows_read == 105644
    (s,) = occupancy_summary(lake)
    raw = pd.read_csv(PHILLY, parse_dates=["time"])
    assert (s.unit, s.pending_hours, s.pending_while_idle_hours) == ("node", None, None)
    assert float(s.idle_hours) == pytest.approx((raw.total - raw.active).sum() / 60, abs=1e-6)
    assert float(s.running_hours) == pytest.approx(raw.active.sum() / 60, abs=1e-6)
    assert s.gaps == int((raw.time.diff().dt.total_seconds() > 60).sum()) == 1


def test_inline_sequence_golden(lake, write):
    r = run("occupancy", write("seq.csv", SEQUENCE), lake, preset="helios", tz="UTC", set=["vc=vcA"])
    assert (r.rows_read, r.accepted, r.quarantined) == (6, 4, 2)
    snap = snapshot(lake, "occupancy", [r])
    check_golden("occupancy_sequence", snap)
    reasons = {q["row"]: q["reason"] for q in snap["quarantine"]}
    assert "must be >= 0" in reasons[4] and "not an ISO 8601" in reasons[6]
    assert snap["rows"][2]["flags"] == ["running 4 + idle 10 is not total 16"]
    (s,) = occupancy_summary(lake)
    # pending while idle: min(8, 8) + min(4, 0) + min(0, 10) + min(2, 16) = 10 GPU-minutes
    assert s.pending_while_idle_hours == Decimal("0.166667")
    assert s.idle_hours == (Decimal(8 + 0 + 10 + 16) / 60).quantize(Decimal("0.000001"))
    assert s.gaps == 1  # 00:02 → 00:04: the quarantined minute is no sample


def test_virtual_clusters_with_the_same_numbers_are_not_duplicates(lake, write):
    path = write("seq.csv", SEQUENCE)
    a = run("occupancy", path, lake, preset="helios", tz="UTC", set=["vc=vcA"])
    b = run("occupancy", write("other.csv", SEQUENCE), lake, preset="helios", tz="UTC", set=["vc=vcB"])
    again = run("occupancy", write("copy.csv", SEQUENCE), lake, preset="helios", tz="UTC", set=["vc=vcA"])
    assert (a.accepted, b.accepted, again.accepted, again.duplicates) == (4, 4, 0, 4)
    assert [s.vc for s in occupancy_summary(lake)] == ["vcA", "vcB"]


def test_a_sample_imported_twice_counts_once(lake, write):
    run("occupancy", write("a.csv", SEQUENCE), lake, preset="helios", tz="UTC", set=["vc=vcA"])
    later = SEQUENCE.splitlines(keepends=True)[0] + "2020-05-01 00:04:00,16,0,2,15,0,1\n"
    run("occupancy", write("b.csv", later), lake, preset="helios", tz="UTC", set=["vc=vcA"])
    (s,) = occupancy_summary(lake)
    assert s.samples == 4 and s.idle_hours == (Decimal(8 + 0 + 10 + 15) / 60).quantize(Decimal("0.000001"))


def test_window(lake, write):
    from datetime import UTC, datetime

    run("occupancy", write("a.csv", SEQUENCE), lake, preset="helios", tz="UTC", set=["vc=vcA"])
    (s,) = occupancy_summary(lake, since=datetime(2020, 5, 1, 0, 1, tzinfo=UTC),
                             until=datetime(2020, 5, 1, 0, 3, tzinfo=UTC))  # fmt: skip
    assert s.samples == 2 and s.idle_hours == Decimal("0.166667")


def test_mapping_file_and_wrong_kinds(lake, write):
    mapping = write("m.toml", 'table = "occupancy"\nunit = "gpu"\ninterval_s = 300\n[time]\nformat = "number"\n'
                    'unit = "s"\norigin = "2026-01-01T00:00:00Z"\n[columns]\nts = "t"\ntotal = "cap"\n'
                    'running = "used"\nvc = "pool"\n')  # fmt: skip
    r = run("occupancy", write("o.csv", "t,cap,used,pool\n0,8,2,p1\n300,8,8,p1\n0,4,0,p2\n"), lake,
            mapping=str(mapping))  # fmt: skip
    assert r.accepted == 3
    by_vc = {s.vc: s for s in occupancy_summary(lake)}
    assert by_vc["p1"].idle_hours == Decimal("0.500000") and by_vc["p2"].idle_hours == Decimal("0.333333")
    with pytest.raises(WrongFileType, match="this looks like a FOCUS bill"):
        import_files("occupancy", [DATA / "focus-sample-data" / "focus_sample.csv"], lake,
                     options={"preset": "helios", "tz": "UTC"})  # fmt: skip
    with pytest.raises(BadInput, match="use --preset philly"):
        import_files("occupancy", [PHILLY], lake, options={"preset": "helios", "tz": "UTC"})
    bad = write("bad.toml", 'table = "occupancy"\nunit = "cpu"\n[time]\nformat = "iso"\n[columns]\nts = "t"\n')
    with pytest.raises(BadInput, match="unit 'cpu'"):
        import_files("occupancy", [PHILLY], lake, options={"mapping": str(bad), "tz": "UTC"})
    with pytest.raises(BadInput, match="no such field"):
        import_files("occupancy", [PHILLY], lake, options={"preset": "philly", "tz": "UTC", "set": ["gpu=1"]})
