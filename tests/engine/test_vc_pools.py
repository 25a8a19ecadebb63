"""Per-VC capacity pools: a ``[[capacity]]`` pool of one virtual cluster (``cluster`` + ``vc``)
takes its GPUs day by day from the imported capacity facts of that VC, and holds the jobs of that
VC (engine/capacity_pools.py, capacity_facts.py); money and GPU-hours conserve per pool.

The golden example (tests/data/vc-pools, hand-written, UTC) — cluster X, two days:

    GPUs      vcA: 8 on 11-02, 8 on 11-03      vcB: 4 on 11-02, 8 on 11-03
    jobs      1 alice vcA 4 GPUs 11-02 00-12 h   48 GPU-h     2 alice vcA 8 GPUs 11-03 06-12 h  48 GPU-h
              3 bob   vcB 2 GPUs 11-02 12 h → 11-03 12 h       48 GPU-h (24 each day; bob has no batch)
              5 alice vcB 6 GPUs 11-03 00-04 h                 24 GPU-h (with job 3: 8 GPUs, all vcB has)
              4 alice vcC 1 GPU  11-02 00-01 h                 no pool holds vcC
    pool vcA at 10.00 / GPU-hour: (8 + 8) × 24 = 384 GPU-h = 3,840.00; held 96 GPU-h (jobs 1, 2) =
              960.00 to batch b1; unheld 288 GPU-h = 2,880.00
    pool vcB at 5.00 / GPU-hour: (4 + 8) × 24 = 288 GPU-h = 1,440.00; job 5 24 GPU-h = 120.00 to b1;
              job 3 48 GPU-h = 240.00 held by a job without a batch; unheld 216 GPU-h = 1,080.00
"""

import textwrap
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from trainledger import workspace
from trainledger.engine import Facts, attribute
from trainledger.engine.capacity import Capacity, parse
from trainledger.engine.capacity_pools import job_vc, placements
from trainledger.engine.context import RunInfo
from trainledger.errors import ConfigError
from trainledger.ingest import import_files
from trainledger.lake import Lake
from trainledger.model import Basis, Run, RunReason

from .factories import CONFIG, price_lookup

DATA = Path(__file__).resolve().parents[1] / "data"
VC = DATA / "vc-pools"
RULE = """
[[rules]]
id = "alice"
source = "slurm"
field = "user"
match = "exact"
pattern = "alice"
batch = "b1"
"""
POOL = """
[[capacity]]
id = "{id}"
cluster = "X"
{vc}from = 2026-11-02T00:00:00Z
until = 2026-11-04T00:00:00Z
currency = "CNY"
rate = "{rate}"
unit = "gpu_hour"
effective = 2026-11-01
source = "internal chargeback rate card"
owner = "platform: zhou"
"""
TWO_VCS = POOL.format(id="pool-a", vc='vc = "vcA"\n', rate="10.00") + POOL.format(id="pool-b", vc='vc = "vcB"\n',
                                                                                  rate="5.00")


def _config(root: Path, extra: str):
    (root / "trainledger.toml").write_text(textwrap.dedent(CONFIG).replace(
        '[[rules]]\nid = "wckey"', (RULE + extra).strip() + '\n[[rules]]\nid = "wckey"', 1), encoding="utf-8")
    return workspace.load(root)


def _kinds(result) -> dict[str, list]:
    out: dict[str, list] = {}
    for p in result.problems:
        out.setdefault(p.kind, []).append(p)
    return out


@pytest.fixture(scope="module")
def vc_facts(tmp_path_factory):
    lake = Lake(tmp_path_factory.mktemp("vc-pools") / "lake")
    import_files("nodes", [VC / "gpus.csv"], lake, options={"preset": "helios-gpus", "tz": "UTC", "set": ["cluster=X"]})
    import_files("jobs", [VC / "jobs.csv"], lake, options={"preset": "slurm-trace", "tz": "UTC", "set": ["cluster=X"]})
    return Facts.from_lake(lake)


def _pool_lines(result, cap_id):
    (rec,) = [r for r in result.conservation_capacity if r["capacity"] == cap_id]
    return rec


def test_two_vc_pools_by_hand(vc_facts, tmp_path):
    result = attribute(vc_facts, _config(tmp_path, TWO_VCS), price_lookup, date(2026, 11, 4))
    a, b = _pool_lines(result, "pool-a"), _pool_lines(result, "pool-b")
    assert (a["total"], a["attributed"], a["unheld"], a["job_without_batch"], a["difference"]) == (
        "3840.00", "960.00", "2880.00", "0.00", "0.00")
    assert a["gpu_hours"] == {"total": "384", "held": "96", "unheld": "288", "oversubscribed": "0",
                              "carried": "384", "difference": "0"}
    assert (b["total"], b["attributed"], b["unheld"], b["job_without_batch"], b["difference"]) == (
        "1440.00", "120.00", "1080.00", "240.00", "0.00")
    assert b["gpu_hours"] == {"total": "288", "held": "72", "unheld": "216", "oversubscribed": "0",
                              "carried": "288", "difference": "0"}
    # each job's GPU-hours on its own VC's pool, at that pool's price
    held: dict[tuple[str, str], Decimal] = {}
    for ln in result.lines:
        if ln.basis is Basis.RATE_CARD and ln.run_id:
            k = (ln.run_id.split("/")[-1], ln.provenance.rule)
            held[k] = held.get(k, Decimal(0)) + ln.quantity
    by_job = {}
    for (job, _rule), h in held.items():
        by_job[job] = by_job.get(job, Decimal(0)) + h
    assert by_job == {"1": 48, "2": 48, "3": 48, "5": 24}
    money = {}
    for ln in result.lines:
        if ln.basis is Basis.RATE_CARD and ln.run_id:
            money[ln.run_id.split("/")[-1]] = money.get(ln.run_id.split("/")[-1], Decimal(0)) + ln.amount.expected
    assert money == {"1": Decimal("480.00"), "2": Decimal("480.00"), "3": Decimal("240.00"), "5": Decimal("120.00")}
    kinds = _kinds(result)
    (p,) = kinds["vc_not_pooled"]  # job 4 of vcC: no pool holds it
    assert (p.detail["cluster"], p.detail["jobs"], p.detail["examples"]) == ("X", 1, "vcC")
    assert not {k for k in kinds if k.startswith("capacity") or k in ("pool_oversubscribed", "conservation")}


def test_a_cluster_pool_beside_a_vc_pool_is_the_rest_of_the_cluster(vc_facts, tmp_path):
    """pool-a as above; the cluster's pool takes vcB's facts only (vcA has its own pool) — 288 GPU-h at
    5.00 = 1,440.00 — and holds every other job of X: 3 and 5 as on pool-b, and 4 (vcC, 1 GPU-hour on
    11-02 = 5.00 to b1), so nothing is left unpooled and no GPU is costed twice."""
    cfg = POOL.format(id="pool-a", vc='vc = "vcA"\n', rate="10.00") + POOL.format(id="rest", vc="", rate="5.00")
    result = attribute(vc_facts, _config(tmp_path, cfg), price_lookup, date(2026, 11, 4))
    a, rest = _pool_lines(result, "pool-a"), _pool_lines(result, "rest")
    assert a["total"] == "3840.00" and a["attributed"] == "960.00"
    assert (rest["total"], rest["attributed"], rest["job_without_batch"], rest["unheld"], rest["difference"]) == (
        "1440.00", "125.00", "240.00", "1075.00", "0.00")
    assert rest["gpu_hours"]["held"] == "73" and rest["gpu_hours"]["difference"] == "0"
    assert "vc_not_pooled" not in _kinds(result)


def test_vc_pools_only_report_the_vcs_they_leave_unpriced(tmp_path):
    (tmp_path / "g.csv").write_text("date,vcA,vcB,vcZ,total\n2026-11-02,8,4,0,12\n", encoding="utf-8")
    lake = Lake(tmp_path / "lake")
    import_files("nodes", [tmp_path / "g.csv"], lake, options={"preset": "helios-gpus", "tz": "UTC",
                                                              "set": ["cluster=X"]})
    cfg = POOL.format(id="pool-a", vc='vc = "vcA"\n', rate="10.00")
    result = attribute(Facts.from_lake(lake), _config(tmp_path, cfg), price_lookup, date(2026, 11, 4))
    kinds = _kinds(result)
    (p,) = kinds["capacity_vcs_unpriced"]  # vcB's 4 GPUs; vcZ states 0, which costs nothing anyway
    assert (p.detail["cluster"], p.detail["vcs"], p.detail["examples"]) == ("X", 1, "vcB")
    assert "capacity_facts_unpriced" not in kinds
    (missing,) = kinds["capacity_not_stated"]  # 11-03: no fact of vcA
    assert (missing.detail["cluster"], missing.detail["hours"]) == ("X/vcA", "24")
    assert _pool_lines(result, "pool-a")["total"] == "1920.00"  # 8 × 24 × 10.00, 11-02 only


def test_a_day_the_facts_state_zero_gpus_is_over_the_pool_when_jobs_ran(tmp_path):
    """As Helios Earth's vc6YE on one day of May 2020: the daily file says 0 GPUs while jobs run."""
    (tmp_path / "g.csv").write_text("date,vcA,total\n2026-11-02,8,8\n2026-11-03,0,0\n", encoding="utf-8")
    (tmp_path / "j.csv").write_text(
        (VC / "jobs.csv").read_text(encoding="utf-8").splitlines()[0] + "\n"
        "7,alice,vcA,4,1,1,COMPLETED,2026-11-03 01:00:00,2026-11-03 01:00:00,2026-11-03 02:00:00,3600,0\n",
        encoding="utf-8")
    lake = Lake(tmp_path / "lake")
    import_files("nodes", [tmp_path / "g.csv"], lake, options={"preset": "helios-gpus", "tz": "UTC",
                                                              "set": ["cluster=X"]})
    import_files("jobs", [tmp_path / "j.csv"], lake, options={"preset": "slurm-trace", "tz": "UTC",
                                                             "set": ["cluster=X"]})
    cfg = POOL.format(id="pool-a", vc='vc = "vcA"\n', rate="10.00")
    result = attribute(Facts.from_lake(lake), _config(tmp_path, cfg), price_lookup, date(2026, 11, 4))
    (p,) = _kinds(result)["pool_oversubscribed"]
    assert (p.detail["pool"], p.detail["gpus"], p.detail["peak"]) == ("X/vcA", 0, "4")
    rec = _pool_lines(result, "pool-a")
    assert rec["total"] == "1920.00" and rec["unheld"] == "1920.00"  # 11-02 only: the 0-GPU day costs nothing


def _run(key, cluster, sha="s", row=1, nodes=()):
    t0 = datetime(2026, 11, 2, tzinfo=UTC)
    run = Run(id=key, batch_id="", reason=RunReason.UNRECORDED, source_job=key, state="COMPLETED", started_at=t0,
              ended_at=t0 + timedelta(hours=1), gpus=1)
    return RunInfo(run=run, batch_id=None, rule="", nodes=nodes, segments=("a segment",), source_sha256=sha,
                   row=row, cluster=cluster)


def test_a_jobs_vc_from_sacct_partition_kueue_queue_or_a_named_field():
    assert job_vc({"tags": '{"vc": "vcA", "queue": "q"}', "extra": "{}"}) == "vcA"
    assert job_vc({"tags": "{}", "extra": '{"Partition": "gpu-a100"}'}) == "gpu-a100"  # sacct
    assert job_vc({"tags": '{"labels.kueue.x-k8s.io/queue-name": "team-a"}', "extra": "{}"}) == "team-a"
    assert job_vc({"tags": '{"vc": "vcA"}', "account": "acct1", "extra": "{}"}, "account") == "acct1"
    assert job_vc({"tags": "{}", "extra": '{"pool": "p2"}'}, "extra.pool") == "p2"
    assert job_vc({"tags": "{}", "extra": "{}"}) == "" and job_vc(None) == ""
    caps = parse([{"id": "a", "cluster": "X", "vc": "gpu-a100", "gpus": 8, "from": "2026-11-02T00:00:00+00:00",
                   "until": "2026-11-03T00:00:00+00:00", "currency": "CNY", "rate": "1", "effective": "2026-11-01",
                   "source": "s", "owner": "o"}], "ws")
    assert caps[0].nodes == ("pool:X/gpu-a100",) and isinstance(caps[0], Capacity)
    runs = {"1": _run("1", "X", row=1), "2": _run("2", "X", row=2), "3": _run("3", "Y", row=3),
            "4": _run("4", "X", row=4, nodes=("n1",))}
    jobs = [{"source_sha256": "s", "row": 1, "tags": "{}", "extra": '{"Partition": "gpu-a100"}'},
            {"source_sha256": "s", "row": 2, "tags": "{}", "extra": '{"Partition": "cpu"}'}]
    placed, problems = placements(runs, caps, jobs)
    assert placed["1"].nodes == ("pool:X/gpu-a100",)
    assert placed["2"].nodes == () and placed["3"].nodes == () and placed["4"].nodes == ("n1",)
    (p,) = problems
    assert (p.kind, p.detail["examples"], p.detail["jobs"]) == ("vc_not_pooled", "cpu", 1)


@pytest.mark.parametrize("entry, needle", [
    ({"vc": "vcA"}, "needs the cluster"),
    ({"cluster": "X", "vc_field": "account"}, "it needs vc"),
])
def test_a_vc_pool_needs_its_cluster(entry, needle):
    base = {"id": "a", "gpus": 8, "from": "2026-11-02T00:00:00+00:00", "until": "2026-11-03T00:00:00+00:00",
            "currency": "CNY", "rate": "1", "effective": "2026-11-01", "source": "s", "owner": "o"}
    with pytest.raises(ConfigError, match=needle):
        parse([{**base, **entry}], "ws")


def test_vc_pools_of_one_cluster_read_the_vc_from_one_field():
    base = {"cluster": "X", "gpus": 8, "from": "2026-11-02T00:00:00+00:00", "until": "2026-11-03T00:00:00+00:00",
            "currency": "CNY", "rate": "1", "effective": "2026-11-01", "source": "s", "owner": "o"}
    with pytest.raises(ConfigError, match="different fields"):
        parse([{**base, "id": "a", "vc": "a", "vc_field": "account"}, {**base, "id": "b", "vc": "b"}], "ws")
    with pytest.raises(ConfigError, match="already in capacity a"):
        parse([{**base, "id": "a", "vc": "a"}, {**base, "id": "b", "vc": "a"}], "ws")


def test_helios_earth_vc6ye_may_2020_from_its_daily_gpus(tmp_path):
    """HeliosArtifact Earth_gpu_number.csv, column vc6YE, May 2020 (Shanghai days). By hand (pandas):
    208 GPUs on 30 days and 0 on 2020-05-09 → 30 × 208 × 24 = 149,760 GPU-hours; at 1.00 / GPU-hour
    149,760.00, all unheld (the trace's jobs are not in the snapshot). The same VC's per-minute
    sequence (cluster_sequence_vc.csv) says 208 GPUs every minute of May: 31 × 208 × 24 = 154,752
    GPU-hours — the daily file's 0 on 05-09 is the whole difference (4,992 = 208 × 24): that day the
    sequence has 208 GPUs a minute and 4,872.1 GPU-hours running (pandas: Σ running_gpu_num / 60).
    (Only 05-09 of the sequence is imported here, to keep the test fast.)"""
    lake = Lake(tmp_path / "lake")
    opts = {"tz": "Asia/Shanghai"}
    import_files("nodes", [DATA / "helios" / "Earth_gpu_number.csv"], lake,
                 options={**opts, "preset": "helios-gpus", "set": ["cluster=Earth"]})
    lines = (DATA / "helios" / "cluster_sequence_vc.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "seq-0509.csv").write_text("".join([lines[0], *(ln for ln in lines if ln.startswith("2020-05-09"))]),
                                           encoding="utf-8")
    import_files("occupancy", [tmp_path / "seq-0509.csv"], lake,
                 options={**opts, "preset": "helios", "set": ["cluster=Earth", "vc=vc6YE"]})
    entry = (POOL.format(id="vc6ye", vc='vc = "vc6YE"\n', rate="1.00").replace('cluster = "X"', 'cluster = "Earth"')
             .replace("2026-11-02T00:00:00Z", "2020-05-01T00:00:00+08:00")
             .replace("2026-11-04T00:00:00Z", "2020-06-01T00:00:00+08:00").replace("2026-11-01", "2020-05-01"))
    result = attribute(Facts.from_lake(lake), _config(tmp_path, entry), price_lookup, date(2020, 6, 1))
    rec = _pool_lines(result, "vc6ye")
    assert (rec["total"], rec["unheld"], rec["difference"]) == ("149760.00", "149760.00", "0.00")
    assert rec["gpu_hours"]["total"] == "149760" and rec["gpu_hours"]["difference"] == "0"
    kinds = _kinds(result)
    (other,) = kinds["capacity_vcs_unpriced"]  # Earth's other 24 VCs: no pool prices them
    assert other.detail["cluster"] == "Earth" and other.detail["vcs"] > 0
    from trainledger.analysis.occupancy import occupancy_summary

    (day,) = occupancy_summary(lake)
    assert (day.samples, day.capacity_hours, day.running_hours) == (1440, Decimal(4992), Decimal("4872.1"))
    assert Decimal(rec["gpu_hours"]["total"]) + day.capacity_hours == 31 * 208 * 24


def test_a_pool_smaller_than_its_jobs_still_conserves_hours_with_the_excess_named(vc_facts, tmp_path):
    """pool-b written as 1 GPU (the workspace wins over vcB's facts): 11-02 24 GPU-h, job 3 holds 24;
    11-03 24 GPU-h, jobs 3 and 5 hold 24 + 24 = 48, 24 over it. Held 72 + unheld 0 = 48 + 24 over;
    the money (2 × 24 × 5.00 = 240.00) is all on the jobs, by their GPU-seconds."""
    cfg = POOL.format(id="pool-b", vc='vc = "vcB"\ngpus = 1\n', rate="5.00")
    result = attribute(vc_facts, _config(tmp_path, cfg), price_lookup, date(2026, 11, 4))
    rec = _pool_lines(result, "pool-b")
    assert rec["gpu_hours"] == {"total": "48", "held": "72", "unheld": "0", "oversubscribed": "24",
                                "carried": "72", "difference": "0"}
    assert (rec["total"], rec["attributed"], rec["job_without_batch"], rec["unheld"]) == (
        "240.00", "60.00", "180.00", "0.00")  # 11-03: 120.00 split 24:24; job 3 has 120.00 + 60.00
    kinds = _kinds(result)
    assert {"pool_oversubscribed", "capacity_conflict"} <= set(kinds) and "conservation" not in kinds


def test_philly_vcs_are_pools_once_their_gpus_per_node_is_known(tmp_path):
    """philly_vc.csv (HeliosArtifact): VC 6214e9 has 64 nodes. With --set gpus_per_node=8 its pool has
    512 GPUs (64 × 8 × 24 h × 1.00 = 12,288.00 a day); without it the VC counts nodes only."""
    entry = (POOL.format(id="philly-6214e9", vc='vc = "6214e9"\n', rate="1.00").replace('cluster = "X"',
                                                                                       'cluster = "philly"')
             .replace("2026-11-04T00:00:00Z", "2026-11-03T00:00:00Z"))
    known = Lake(tmp_path / "known")
    import_files("nodes", [DATA / "philly" / "philly_vc.csv"], known,
                 options={"preset": "philly-vc", "set": ["gpus_per_node=8"]})
    result = attribute(Facts.from_lake(known), _config(tmp_path, entry), price_lookup, date(2026, 11, 3))
    assert _pool_lines(result, "philly-6214e9")["total"] == "12288.00"
    (other,) = _kinds(result)["capacity_vcs_unpriced"]
    assert (other.detail["vcs"], other.detail["facts"]) == (10, 10)  # the other 10 VCs of the file
    unknown = Lake(tmp_path / "unknown")
    import_files("nodes", [DATA / "philly" / "philly_vc.csv"], unknown, options={"preset": "philly-vc"})
    result = attribute(Facts.from_lake(unknown), _config(tmp_path, entry), price_lookup, date(2026, 11, 3))
    assert _pool_lines(result, "philly-6214e9")["total"] == "0.00"
    (p,) = _kinds(result)["capacity_gpus_unknown"]
    assert (p.detail["cluster"], p.detail["hours"]) == ("philly/6214e9", "24")
