"""The node map (review K12): bills name GPU nodes by instance id, jobs by host name; ``[[nodes]]`` joins them.

The first-hour bill (docs/first-hour/slurm-cloud) with its node rows named as a cloud names them —
ResourceId ``i-bp1node01aaaa`` / ``i-bp1node02bbbb``, no ResourceName — and three jobs on
``gpu-node-01`` 02-11 08:00–09:00 Asia/Shanghai (8 + 8 + 4 GPUs: oversubscribed, 288.00 split
115.20 / 115.20 / 57.60). Without a map no row names a node: 6 × 288.00 = 1,728.00 no rule matched.
With the map the figures are the first-hour bill's, by hand: sft-a 230.40 (2 × 115.20, 16 GPU-h;
with its tagged checkpoint storage 272.90),
job 8003 57.60 (4 GPU-h, no batch), gpu-node-01's hours 01–03 no job held 2 × 288.00 = 576.00
(16 GPU-h), gpu-node-02 (declared, no job ran on it) 3 × 288.00 = 864.00 (24 GPU-h) capacity no
job held — the whole bill 1,787.80 = 1,728.00 + 42.50 + 17.30.
"""

from __future__ import annotations

import os
import shutil
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from tests.engine.test_capacity_nodes import SACCT
from trainledger.engine import Facts
from trainledger.engine.compute import bill_stage
from trainledger.engine.frame.oracle import context
from trainledger.errors import ConfigError
from trainledger.service import Workspace

ROOT = Path(__file__).resolve().parents[2]
IDS = {"gpu-node-01": "i-bp1node01aaaa", "gpu-node-02": "i-bp1node02bbbb"}
MAP = "".join(f'\n[[nodes]]\nnode = "{host}"\nresource_id = "{rid}"\n' for host, rid in IDS.items())
SPARK = [pytest.mark.skipif(os.environ.get("TRAINLEDGER_TEST_SPARK") != "1" or shutil.which("java") is None,
                            reason="slow (a Spark session): set TRAINLEDGER_TEST_SPARK=1 (and Java)"),
         pytest.mark.filterwarnings("ignore::DeprecationWarning"),
         pytest.mark.filterwarnings("ignore::FutureWarning"),
         pytest.mark.filterwarnings("ignore::ResourceWarning")]
ENGINES = ["python", "duckdb", pytest.param("spark", marks=SPARK)]


def _bill(replace_sku: bool = False) -> str:
    text = (ROOT / "docs/first-hour/slurm-cloud/bill.csv").read_text(encoding="utf-8")
    for host, rid in IDS.items():
        text = text.replace(f",{host},", f",{rid},")
    if replace_sku:  # gpu-node-02's rows say another SKU: only the map says it is a node
        text = "\n".join(ln.replace("8 x H800 node-hour", "instance-hour") if IDS["gpu-node-02"] in ln else ln
                         for ln in text.splitlines()) + "\n"
    return text


def _workspace(tmp_path: Path, extra_config: str = "", bill: str | None = None, sacct: str = SACCT,
               kind: str = "focus", name: str = "bill.csv", slurm: dict | None = None, **options) -> Path:
    root = tmp_path / "ws"
    root.mkdir(parents=True)
    cfg = (ROOT / "docs/first-hour/slurm-cloud/trainledger.toml").read_text(encoding="utf-8")
    (root / "trainledger.toml").write_text(cfg + extra_config, encoding="utf-8")
    (tmp_path / name).write_text(_bill() if bill is None else bill, encoding="utf-8")
    (tmp_path / "sacct.txt").write_text(sacct, encoding="utf-8")
    with Workspace.open(root) as wsp:
        wsp.import_files("slurm", [tmp_path / "sacct.txt"], options=slurm)
        wsp.import_files(kind, [tmp_path / name], options=options or None)
    return root


def _stage(root: Path, engine: str = "python", on: date = date(2026, 11, 3)):
    with Workspace.open(root) as w:
        facts = Facts.from_lake(w.lake)
        ctx = context(facts, w.config, w.price_lookup(), on)
        if engine == "python":
            return bill_stage(facts, ctx)
        from trainledger.engine.frame import connect
        from trainledger.engine.frame import stage as frame_stage

        return frame_stage.bill_stage(facts, ctx, connect(engine))


def _by_reason(lines) -> dict[str, tuple[Decimal, Decimal]]:
    out: dict[str, tuple[Decimal, Decimal]] = {}
    for ln in lines:
        key = ln.batch_id or ln.reason
        m, h = out.get(key, (Decimal(0), Decimal(0)))
        out[key] = (m + ln.amount.expected, h + (ln.quantity or 0))
    return out


FIRST_HOUR = {
    "sft-a": (Decimal("272.90"), Decimal(16)),  # 2 × 115.20 compute + the 42.50 checkpoint storage it tags
    "job_without_batch: job 8003": (Decimal("57.60"), Decimal(4)),
    "capacity_unheld: node gpu-node-01": (Decimal("576.00"), Decimal(16)),
    "node_without_jobs: node gpu-node-02": (Decimal("864.00"), Decimal(24)),
}


@pytest.mark.parametrize("engine", ENGINES)
def test_without_the_map_no_bill_row_names_a_node(tmp_path, engine):
    if engine != "python":
        pytest.importorskip("ibis")
    out = _stage(_workspace(tmp_path), engine)
    got = _by_reason(out.lines)
    assert got["no_rule_matched: Elastic Compute Service i-bp1node01aaaa"][0] == Decimal("864.00")
    assert not any(ln.run_id for ln in out.lines)
    problem = next(p for p in out.problems if p.kind == "no_node_on_bill")
    assert "[[nodes]]" in problem.message  # the remedy names the map


@pytest.mark.parametrize("engine", ENGINES)
def test_a_bill_row_whose_id_maps_to_a_node_joins_its_jobs(tmp_path, engine):
    if engine != "python":
        pytest.importorskip("ibis")
    out = _stage(_workspace(tmp_path, MAP), engine)
    got = _by_reason(out.lines)
    for key, figures in FIRST_HOUR.items():
        assert got[key] == figures, key
    assert not [k for k in got if str(k).startswith("no_rule_matched") and "i-bp1" in str(k)]
    assert sum(ln.amount.expected for ln in out.lines) == Decimal("1787.80")
    assert "no_node_on_bill" not in {p.kind for p in out.problems}
    assert next(p for p in out.problems if p.kind == "node_without_jobs").detail["nodes"] == ["gpu-node-02"]


@pytest.mark.parametrize("engine", ["duckdb", pytest.param("spark", marks=SPARK)])
@pytest.mark.parametrize("replace_sku", [False, True])
def test_the_frame_engines_join_through_the_map_as_python_does(tmp_path, engine, replace_sku):
    pytest.importorskip("ibis")
    root = _workspace(tmp_path, MAP, _bill(replace_sku))
    py, frame = _stage(root), _stage(root, engine)
    assert [repr(x) for x in frame.lines] == [repr(x) for x in py.lines]
    assert [repr(p) for p in frame.problems] == [repr(p) for p in py.problems]


def test_a_declared_node_no_job_ran_on_is_capacity_no_job_held_whatever_its_sku(tmp_path):
    """gpu-node-02's rows say another SKU than gpu-node-01's: the signature cannot tell it is a GPU
    node, the map does — 864.00, 24 GPU-h of capacity no job held, not no rule matched."""
    root = _workspace(tmp_path, MAP, _bill(replace_sku=True))
    got = _by_reason(_stage(root).lines)
    assert got["node_without_jobs: node gpu-node-02"] == (Decimal("864.00"), Decimal(24))
    # without the map it would be a resource of another SKU: no rule matched
    bare = _by_reason(_stage(_workspace(tmp_path / "bare", MAP.replace("gpu-node-02", "gpu-node-09")
                                        .replace(IDS["gpu-node-02"], "i-other"), _bill(replace_sku=True))).lines)
    assert bare["no_rule_matched: Elastic Compute Service i-bp1node02bbbb"][0] == Decimal("864.00")


def test_a_provider_id_names_the_node_by_its_instance_id(tmp_path):
    """``kubectl get nodes`` gives spec.providerID ``aws:///us-east-2a/i-…``: pasted as is, it maps."""
    mapping = MAP.replace('"i-bp1node01aaaa"', '"aws:///cn-north-1a/i-bp1node01aaaa"')
    got = _by_reason(_stage(_workspace(tmp_path, mapping)).lines)
    assert got["sft-a"] == (Decimal("272.90"), Decimal(16))


CLUSTERS = """Cluster|JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|NodeList|Restarts
a|8001|a|x|sft-a|run=r1|u|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T09:00:00|COMPLETED|0:0|billing=64,gres/gpu:h800=8,node=1|gpu-node-01|0
b|8001|b|x||run=r2|u|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T09:00:00|COMPLETED|0:0|billing=64,gres/gpu:h800=4,node=1|gpu-node-01|0
"""  # noqa: E501


def test_a_cluster_ties_a_host_name_to_its_own_cluster_jobs(tmp_path):
    """Clusters a and b both have a gpu-node-01; the bill's i-bp1node01aaaa is cluster a's. Its hour
    00 (288.00) is split over cluster a's 8 GPUs only: sft-a 288.00, nothing idle — cluster b's job
    (4 GPUs on its own gpu-node-01) is not on that bill row, so it carries none of it (without the
    cluster it would take 288.00 × 4 / 12 = 96.00 of it)."""
    mapping = '\n[[nodes]]\nnode = "gpu-node-01"\ncluster = "a"\nresource_id = "i-bp1node01aaaa"\n'
    got = _by_reason(_stage(_workspace(tmp_path, mapping, sacct=CLUSTERS)).lines)
    assert got["sft-a"] == (Decimal("330.50"), Decimal(8))  # 288.00 + the 42.50 storage it tags
    assert got["capacity_unheld: node a/gpu-node-01"] == (Decimal("576.00"), Decimal(16))
    assert not [k for k in got if "job_without_batch" in str(k)]  # cluster b's job holds no billed node


HUAWEI_HEAD = "账期,产品类型编码,产品类型,账单类型,使用开始时间,使用结束时间,资源ID,资源名称,资源标签,应付金额\n"


def _huawei(rows: list[tuple[str, int]]) -> str:
    """Huawei resource-detail rows (the preset's documented headers, and only those a detail bill
    without 产品 / 产品ID has: nothing says the SKU), one an hour of 2026-11-02 (Beijing time)."""
    out = [HUAWEI_HEAD]
    for rid, hour in rows:
        out.append(f"2026-11,hws.service.type.ec2,弹性云服务器,消费-使用,2026-11-02 {8 + hour:02d}:00:00 GMT+08:00,"
                   f"2026-11-02 {9 + hour:02d}:00:00 GMT+08:00,{rid},ecs-{rid[:8]},,288.00\n")
    return "".join(out)


HW = {"gpu-node-01": "5b6f2d3e-8a1c-4e2b-9d7f-0c1a2b3c4d5e", "gpu-node-02": "7c8d9e0f-1a2b-4c3d-8e9f-a0b1c2d3e4f5"}
HW_MAP = "".join(f'\n[[nodes]]\nnode = "{host}"\nresource_id = "{rid}"\n' for host, rid in HW.items())


@pytest.mark.parametrize("engine", ENGINES)
def test_a_huawei_bill_node_no_job_ran_on_is_capacity_no_job_held_through_the_map(tmp_path, engine):
    """H11 on the Huawei preset: 资源ID a UUID, 资源名称 the ECS name, no SKU column. gpu-node-01 hour 0
    (jobs hold 20 of 8 GPUs: 288.00 to the runs), hours 1–2 idle (576.00); gpu-node-02 declared,
    no job: 3 × 288.00 = 864.00 capacity no job held — the FOCUS path, node_without_jobs."""
    if engine != "python":
        pytest.importorskip("ibis")
    bill = _huawei([(HW["gpu-node-01"], h) for h in range(3)] + [(HW["gpu-node-02"], h) for h in range(3)])
    bare = _by_reason(_stage(_workspace(tmp_path / "bare", "", bill, kind="huawei", name="hw.csv",
                                        import_date="2026-12-10"), engine).lines)
    assert bare[f"no_rule_matched: 弹性云服务器 {HW['gpu-node-02']}"][0] == Decimal("864.00")  # before: lost
    got = _by_reason(_stage(_workspace(tmp_path / "map", HW_MAP, bill, kind="huawei", name="hw.csv",
                                       import_date="2026-12-10"), engine).lines)
    assert got["node_without_jobs: node gpu-node-02"] == (Decimal("864.00"), Decimal(24))
    assert got["capacity_unheld: node gpu-node-01"] == (Decimal("576.00"), Decimal(16))
    assert got["sft-a"] == (Decimal("230.40"), Decimal(16))
    assert sum(m for m, _ in got.values()) == Decimal("1728.00")


ALIYUN = ("账期,财务单元,账号,产品,产品Code,实例ID,实例规格,分拆项ID,分拆项名称,用量,应付金额\n"
          "2026-11,算法部,ml-finance@example.com,云服务器ECS,ecs,i-bp1node01aaaa,ecs.gn8v-8x.48xlarge,"
          "i-bp1node01aaaa,gpu-node-01,720,207360.00\n"
          "2026-11,算法部,ml-finance@example.com,云服务器ECS,ecs,i-bp1node02bbbb,ecs.gn8v-8x.48xlarge,"
          "i-bp1node02bbbb,gpu-node-02,720,207360.00\n")


def test_an_aliyun_split_bill_node_no_job_ran_on_is_told_by_its_instance_type(tmp_path):
    """The split bill's 实例规格 (InstanceSpec) is its SKU (sku_id): gpu-node-02, billed with the
    instance type of gpu-node-01 (which jobs ran on, by 分拆项名称) and named by no job, is a node
    without jobs — 207,360.00 and 8 GPUs × 720 h = 5,760 GPU-h of capacity no job held (it was no rule
    matched: the preset mapped no SKU-like column)."""
    root = _workspace(tmp_path, "", ALIYUN, kind="aliyun", name="split.csv", import_date="2026-12-10")
    got = _by_reason(_stage(root, on=date(2026, 12, 1)).lines)
    assert got["node_without_jobs: node i-bp1node02bbbb"] == (Decimal("207360.00"), Decimal(5760))
    assert sum(m for m, _ in got.values()) == Decimal("414720.00")


def test_the_map_is_validated_on_load(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    cfg = (ROOT / "docs/first-hour/slurm-cloud/trainledger.toml").read_text(encoding="utf-8")
    twice = MAP + '\n[[nodes]]\nnode = "gpu-node-03"\nresource_id = ["i-new", "i-bp1node01aaaa"]\n'
    for extra, words in ((twice, "already node gpu-node-01's"), ('\n[[nodes]]\nnode = "gpu-node-03"\n', "resource_id"),
                         ('\n[[nodes]]\nnode = "x"\nresource_id = "i-1"\nhost = "x"\n', "unknown key host")):
        (root / "trainledger.toml").write_text(cfg + extra, encoding="utf-8")
        with pytest.raises(ConfigError) as e:
            Workspace.open(root).close()
        assert words in str(e.value) and "trainledger.toml" in str(e.value)


def test_the_docs_show_every_key_of_the_map():
    from trainledger.workspace import ENTRY_KEYS

    docs = (ROOT / "docs/workspace.md").read_text(encoding="utf-8")
    assert "[[nodes]]" in docs
    for key in ENTRY_KEYS["nodes"]:
        assert f"\n{key} = " in docs, key


def test_the_plan_counts_the_node_hours_the_bill_offers_through_the_map(tmp_path):
    """review/capacity_plan.billed_offered reads the bill's node rows as the engine does: with the map,
    gpu-node-01's 3 rows and gpu-node-02's (declared, no job) 3 rows — 6 × 8 GPUs × 1 h = 48 GPU-h;
    without it no row names a node."""
    from trainledger.review.capacity_plan import billed_offered

    assert billed_offered(_workspace(tmp_path / "map", MAP), "CNY") == (Decimal(48), 6)
    assert billed_offered(_workspace(tmp_path / "bare"), "CNY") == (Decimal(0), 0)


def _fixture_two_nodes(name: str, swaps: dict[str, str], dates: dict[str, str] | None = None) -> str:
    """A tests/data/cn-bills fixture's first data row again for a second node no job ran on (``swaps``
    rename its resource), its dates moved (``dates``) to a job's day."""
    lines = (ROOT / "tests/data/cn-bills" / name).read_text(encoding="utf-8").splitlines()
    for old, new in (dates or {}).items():
        lines = [ln.replace(old, new) for ln in lines]
    second = lines[1]
    for old, new in swaps.items():
        second = second.replace(old, new)
    return "\n".join([*lines, second]) + "\n"


def _sacct(host: str, start: str, end: str) -> str:
    return ("JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|NodeList|"
            f"Restarts\n7001|a|x|sft-a||u|{start}|{start}|{start}|{end}|COMPLETED|0:0|"
            f"billing=32,gres/gpu:h800=4,node=1|{host}|0\n")


PRESETS = {  # kind: (fixture, swaps, dates, the job's host, start, end, by hand: {key: (money, GPU-h)})
    # 49.50 for 08:00–09:00 Beijing; the job holds 4 of 8 GPUs: 24.75 each; vm-gpu02 all idle, 8 GPU-h
    "huawei": ("huawei_resource_bill_documented.csv", {"vm-gpu01,gpu01": "vm-gpu02,gpu02"},
               {"2020-08-23 22:00": "2026-11-02 08:00", "2020-08-23 23:00": "2026-11-02 09:00", "2020-08": "2026-11"},
               "gpu01", "2026-11-02T08:00:00", "2026-11-02T09:30:00",
               {"sft-a": (Decimal("24.75"), Decimal(4)), "capacity_unheld: node gpu01": (Decimal("24.75"), Decimal(4)),
                "node_without_jobs: node vm-gpu02": (Decimal("49.50"), Decimal(8))}),
    # 3,024.00 for the Beijing day 2026-11-02 on gpu01: the job's 4 GPUs × 1.5 h of 8 × 24 h = 94.50;
    # the −100.00 refund of 11-05 (no job) a credit line; i-bp1gpu02 3,024.00, 192 GPU-h idle
    "aliyun": ("aliyun_split_bill_api.csv", {"i-bp1gpu01,gpu01,i-bp1gpu01,gpu01": "i-bp1gpu02,gpu02,i-bp1gpu02,gpu02"},
               None, "gpu01", "2026-11-02T08:00:00", "2026-11-02T09:30:00",
               {"sft-a": (Decimal("94.50"), Decimal(6)),
                "capacity_unheld: node gpu01": (Decimal("2929.50"), Decimal(186)),
                "credit: node gpu01": (Decimal("-100.00"), Decimal(0)),
                "node_without_jobs: node i-bp1gpu02": (Decimal("3024.00"), Decimal(192))}),
    # 27.111111 for 00:00–01:00 Beijing; the job 4 GPUs × 0.5 h of 8 × 1 h: a quarter, 6.777778
    "volcengine": ("volcengine_bill_api.csv", {"i-ycjlq77tdg8rx6ib4v1s,ECS-fEaG": "i-idle,ECS-idle"}, None,
                   "ECS-fEaG", "2023-08-15T00:00:00", "2023-08-15T00:30:00",
                   {"sft-a": (Decimal("6.777778"), Decimal(2)),
                    "capacity_unheld: node ECS-fEaG": (Decimal("20.333333"), Decimal(6)),
                    "node_without_jobs: node i-idle": (Decimal("27.111111"), Decimal(8))}),
}


@pytest.mark.parametrize("kind", sorted(PRESETS))
def test_the_chinese_presets_reach_capacity_no_job_held_by_the_node_signature(tmp_path, kind):
    """H11 without a map, on the real headers of tests/data/cn-bills: a second node billed with the
    SKU-like columns of the node the job ran on (Huawei 产品ID / 产品 / 产品编码, Alibaba 计费项, Volcano
    Engine Element) is a node without jobs, as on a FOCUS bill — never no rule matched."""
    name, swaps, dates, host, start, end, expected = PRESETS[kind]
    bill = _fixture_two_nodes(name, swaps, dates)
    root = _workspace(tmp_path, "", bill, sacct=_sacct(host, start, end), kind=kind, name=name,
                      import_date="2026-12-10")
    got = _by_reason(_stage(root, on=date(2026, 12, 1)).lines)
    for key, figures in expected.items():
        assert got[key] == figures, (key, got)
    idle = next(k for k in expected if k.startswith("node_without_jobs")).rsplit(" ", 1)[-1]
    assert not [k for k in got if str(k).startswith("no_rule_matched") and idle in str(k)]


def test_the_sheet_says_the_changed_problems_as_the_engine_does():
    """The catalogue's English is the engine's message, and zh-CN names the map too."""
    from trainledger.engine.capacity_nodes import no_jobs_problem
    from trainledger.engine.compute import no_node_on_bill
    from trainledger.report import problems_i18n

    for p in (no_jobs_problem({"gpu-node-02"}), no_node_on_bill({"gpu-node-01"})):
        assert problems_i18n.message(p.as_dict(), "en") == p.message
        assert "[[nodes]]" in problems_i18n.message(p.as_dict(), "zh-CN") and "gpu-node-0" in p.message


def test_the_time_zone_check_reads_the_node_hours_through_the_map(tmp_path):
    """sacct read as UTC puts the jobs 8 h after gpu-node-01's billed hours; the bill names the node
    only by i-bp1node01aaaa, so only through the map does the check see the node's hours
    (runs.billed_hours). Its three billed hours (00–03 UTC) fit the one-hour jobs at a shift of 6 to
    8 h alike: the check names one of those; without the map it sees no node hours at all."""
    def found(root):
        with Workspace.open(root) as w:
            return [p.detail for p in w.attribute().problems if p.kind == "timezone_mismatch_bill"]

    (got,) = found(_workspace(tmp_path / "map", MAP, slurm={"tz": "UTC"}))
    assert got["read_tz"] == "UTC" and 6 <= got["shift_hours"] <= 8
    assert found(_workspace(tmp_path / "bare", slurm={"tz": "UTC"})) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_a_node_jobs_ran_on_is_split_over_its_own_gpus(tmp_path, engine):
    """gpu-node-01 says 24 GPUs ([[nodes]] gpus): its hour 00 (jobs hold 8 + 8 + 4 = 20 GPU-h) splits
    288.00 over 24 GPU-h — 96.00 / 96.00 / 48.00 to the jobs, 48.00 (4 GPU-h) no job held — and its idle
    hours 01–02 are 2 × 24 GPU-h, by hand; with cluster.gpus_per_node's 8 the hour went 115.20 / 115.20 /
    57.60 and nothing unheld. gpu-node-02 keeps the cluster's 8: 864.00 (24 GPU-h). The bill still
    sums to 1,787.80."""
    if engine != "python":
        pytest.importorskip("ibis")
    own = MAP.replace('node = "gpu-node-01"\nresource_id = "i-bp1node01aaaa"\n',
                      'node = "gpu-node-01"\nresource_id = "i-bp1node01aaaa"\ngpus = 24\n')
    assert own != MAP
    out = _stage(_workspace(tmp_path, own), engine)
    got = _by_reason(out.lines)
    assert got["sft-a"] == (Decimal("192.00") + Decimal("42.50"), Decimal(16))
    assert got["job_without_batch: job 8003"] == (Decimal("48.00"), Decimal(4))
    assert got["capacity_unheld: node gpu-node-01"] == (Decimal("624.00"), Decimal(52))
    assert got["node_without_jobs: node gpu-node-02"] == (Decimal("864.00"), Decimal(24))
    assert sum(ln.amount.expected for ln in out.lines) == Decimal("1787.80")
    assert "oversubscribed_node" not in {p.kind for p in out.problems}  # 20 of 24 GPUs: not oversubscribed
