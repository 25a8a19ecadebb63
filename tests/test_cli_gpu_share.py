"""Fractional GPUs and straggler waiting, from the files a user has to the sheet, through the CLI.

Two pods share one GPU of an owned pool for one hour (250 / 750 milli-GPU, the openb preset),
priced at 80.00 per GPU-hour: pod-a pays 20.00, pod-b 60.00. pod-b is a 2-worker job whose step
times (1: 300 / 500, 2: 500 / 500) make its workers wait 200 of 2,000 worker-time units at the
barrier: a tenth of its effective time, 0.075 GPU-hours and 6.00, is ``straggler_wait``.
"""

import json
import textwrap
from decimal import Decimal

from click.testing import CliRunner

from trainledger.cli import cli

CONFIG = """
[[projects]]
id = "p1"
name = "pods"
goal = "a goal"
[[batches]]
id = "b1"
project = "p1"
goal = "g"
data_snapshot = "ds1"
data_processing_version = "v1"
model_version = "m1"
code_version = "c1"
config_version = "cfg1"
team = "t"
[[rules]]
id = "pods"
source = "slurm"
field = "cluster"
match = "exact"
pattern = "openb"
batch = "b1"
[[capacity]]
id = "pool"
cluster = "openb"
gpus = 1
from = 1970-01-01T00:00:00Z
until = 1970-01-01T01:00:00Z
currency = "USD"
rate = "80.00"
unit = "gpu_hour"
effective = 1970-01-01
source = "internal rate card"
owner = "platform"
evidence = "contract"
"""
PODS = ("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,"
        "scheduled_time\npod-a,1000,1024,1,250,,LS,Succeeded,0,3600,0\npod-b,1000,1024,1,750,,LS,Succeeded,0,3600,0\n")
STEPS = ",worker,gpu,time,batch_time_norm\n0,0,75,1,300\n1,1,75,1,500\n2,0,75,2,500\n3,1,75,2,500\n"
PROGRESS = "".join(json.dumps({"ts": ts, "run": "pod-b", "event": "step", "step": i}) + "\n"
                   for i, ts in enumerate(["1970-01-01T00:00:00+00:00", "1970-01-01T01:00:00+00:00"]))


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_pods_sharing_a_gpu_and_a_straggler_reach_the_sheet(tmp_path):
    ws = tmp_path / "ws"
    run("init", ws)
    cfg = ws / "trainledger.toml"
    cfg.write_text(cfg.read_text(encoding="utf-8") + textwrap.dedent(CONFIG), encoding="utf-8")
    for name, text in (("pods.csv", PODS), ("steps.csv", STEPS), ("progress.jsonl", PROGRESS)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    run("--workspace", ws, "import", "jobs", tmp_path / "pods.csv", "--preset", "alibaba-openb-2023")
    run("--workspace", ws, "import", "steps", tmp_path / "steps.csv", "--preset", "alibaba-pai-2020",
        "--set", "job=pod-b")
    run("--workspace", ws, "import", "progress", tmp_path / "progress.jsonl")
    run("--workspace", ws, "attribute")
    sheet = json.loads(run("--workspace", ws, "sheet", "b1", "--format", "json"))
    runs = {r["id"]: r for r in sheet["runs"]}
    assert {k: (r["gpus"], r["gpu_share"], r["gpu_equivalents"]) for k, r in runs.items()} == {
        "openb/pod-a": (1, "0.25", "0.25"), "openb/pod-b": (1, "0.75", "0.75")}
    assert [m["amount"] for m in runs["openb/pod-a"]["compute_cost"]] == ["20.00"]
    assert [m["amount"] for m in runs["openb/pod-b"]["compute_cost"]] == ["60.00"]
    states = {r["state"]: r for r in sheet["compute_by_state"]}
    assert (states["straggler_wait"]["gpu_hours"], states["straggler_wait"]["evidence"]) == ("0.0750", ["measured"])
    assert states["effective"]["gpu_hours"] == "0.6750" and states["unclassified"]["gpu_hours"] == "0.2500"
    assert [a["expected"] for a in states["straggler_wait"]["amounts"]] == ["6.00"]
    assert [a["expected"] for a in states["effective"]["amounts"]] == ["54.00"]
    hours = sheet["compute_hours"]
    assert (hours["runs_gpu_hours"], hours["difference"]) == ("1.0000", "0.0000")
    assert sum(Decimal(r["gpu_hours"]) for r in sheet["compute_by_state"]) == 1  # the pool's one GPU-hour
    md = run("--workspace", ws, "sheet", "b1")
    assert "| 0.25 |" in md and "| 0.75 |" in md
    assert md.index("| straggler wait |") < md.index("| effective |")  # the seed's lifecycle order
    zh = run("--workspace", ws, "sheet", "b1", "--lang", "zh-CN")
    assert "同步等待慢节点" in zh and "卡数（折合整卡）" in zh and "迭代屏障等待" in zh
    assert "barrier waiting" in md and "barrier waiting" not in zh
    html = run("--workspace", ws, "sheet", "b1", "--format", "html")
    assert '<td class="num">0.25</td>' in html
