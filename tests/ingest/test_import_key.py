"""One import per statement (review 3, G17 / G18): the same file imported again with another
``--set`` is its own import — its own id, its own counts (rows read = accepted + duplicates +
quarantined), dropped alone — while the same options again stay a duplicate, and ids stored by
earlier versions (the content hash) keep naming the same import."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.service import Workspace

DATA = Path(__file__).resolve().parents[1] / "data" / "rv3"
HEADER = ("time,total_job_num,running_job_num,pending_job_num,total_gpujob_num,running_gpujob_num,"
          "pending_gpujob_num,total_gpu_num,running_gpu_num,pending_gpu_num,idle_gpu_num,gpu_utilization")
HELIOS = HEADER + "\n" + "".join(f"2020-05-01 00:0{m}:00,7,7,0,6,6,0,208,162,0,46,0.779\n" for m in range(4))
STEPS = ",worker,gpu,time,batch_time_norm\n0,0,75,1,300\n1,1,75,1,500\n1,2,75,1,400\n"


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def listed(root) -> list[dict]:
    """Every import, the file's first one first (imports made within one second list in key order)."""
    rows = json.loads(run("--workspace", root, "imports", "list", "--json"))
    for r in rows:  # the counts identity, for every import
        assert r["rows_read"] == r["accepted"] + r["duplicates"] + r["quarantined"], r
    return sorted(rows, key=lambda r: (r["imported_at"], r["id"] != r["sha256"][:12]))


def helios(root, src, vc):
    return run("--workspace", root, "import", "occupancy", src, "--preset", "helios", "--set", f"vc={vc}",
               "--tz", "Asia/Shanghai")


def vcs(root) -> list[str]:
    with Workspace.open(root) as wsp:
        return sorted(set(wsp.lake.read("occupancy").column("vc").to_pylist()))


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    Workspace.init(root).close()
    src = tmp_path / "helios.csv"
    src.write_text(HELIOS, encoding="utf-8")
    return root, src


def test_another_set_is_its_own_import_and_drops_alone(ws):
    root, src = ws
    helios(root, src, "vcWRONG")
    out = helios(root, src, "vc6YE")
    wrong, right = listed(root)
    assert wrong["id"] != right["id"] and wrong["sha256"] == right["sha256"]
    assert wrong["id"] == wrong["sha256"][:12]  # the file's first import: its content hash, as before
    assert f"(import {right['id']})" in out and "4 accepted" in out
    for r in (wrong, right):  # not "4 rows read = 8 accepted"
        assert (r["rows_read"], r["accepted"], r["duplicates"], r["quarantined"]) == (4, 4, 0, 0)
    assert vcs(root) == ["vc6YE", "vcWRONG"]
    shown = run("--workspace", root, "imports", "show", right["id"])
    assert "4 rows read = 4 accepted + 0 duplicate + 0 quarantined" in shown and "vc=vc6YE" in shown
    out = run("--workspace", root, "imports", "drop", wrong["id"], "--reason", "vcWRONG was a typo")
    assert "4 accepted row(s) no longer feed any figure" in out
    assert vcs(root) == ["vc6YE"]  # the right series stays
    assert [r["status"] for r in listed(root)] == ["dropped", "live"]


def test_the_same_options_again_are_duplicates_of_their_own_import(ws):
    root, src = ws
    helios(root, src, "vcWRONG")
    helios(root, src, "vc6YE")
    out = helios(root, src, "vc6YE")  # idempotent: nothing read, nothing added
    right = listed(root)[1]
    assert "0 accepted, 4 duplicate" in out and f"(import {right['id']})" in out
    assert "other options" not in out  # its duplicates are its own rows, not vcWRONG's
    assert (right["accepted"], len(listed(root)), vcs(root)) == (4, 2, ["vc6YE", "vcWRONG"])


def test_a_dropped_import_comes_back_under_its_own_id(ws):
    root, src = ws
    helios(root, src, "vcWRONG")
    helios(root, src, "vc6YE")
    wrong, right = listed(root)
    run("--workspace", root, "imports", "drop", right["id"], "--reason", "test")
    assert vcs(root) == ["vcWRONG"]
    out = helios(root, src, "vc6YE")
    assert "4 accepted" in out and f"(import {right['id']})" in out
    assert [(r["id"], r["status"], r["accepted"]) for r in listed(root)] == [
        (wrong["id"], "live", 4), (right["id"], "live", 4)]


def test_steps_with_another_job_are_another_import(tmp_path):
    root = tmp_path / "ws"
    Workspace.init(root).close()
    src = tmp_path / "steps.csv"
    src.write_text(STEPS, encoding="utf-8")
    run("--workspace", root, "import", "steps", src, "--preset", "alibaba-pai-2020", "--set", "job=A")
    run("--workspace", root, "import", "steps", src, "--preset", "alibaba-pai-2020", "--set", "job=B")
    a, b = listed(root)
    assert a["id"] != b["id"] and (a["accepted"], b["accepted"], a["rows_read"]) == (3, 3, 3)
    run("--workspace", root, "imports", "drop", a["id"], "--reason", "job A was a typo")
    with Workspace.open(root) as wsp:
        assert set(wsp.lake.read("worker_steps").column("job").to_pylist()) == {"B"}


def _shared_share(root) -> Decimal:
    with Workspace.open(root) as wsp:
        t = wsp.lake.read("jobs").to_pylist()
    (pod,) = [r for r in t if r["job_id"].endswith("shared") or "shared" in str(r.get("job_name"))]
    return Decimal(pod["gpu_share"])


def test_k8s_gpu_replicas_again_says_how_to_change_the_rows(tmp_path):
    root = tmp_path / "ws"
    Workspace.init(root).close()
    src = DATA / "pods.json"
    run("--workspace", root, "import", "k8s", src)
    first = listed(root)[0]
    assert _shared_share(root) == 1  # time-sliced, counted whole (and flagged)
    out = run("--workspace", root, "import", "k8s", src, "--set", "gpu_replicas=4")
    ident = first["id"]
    hint = f"these rows were read before with other options (import {ident}); to change them use --replace {ident}"
    assert "0 accepted, 7 duplicate, 1 quarantined" in out and hint in out
    zh = run("--workspace", root, "--lang", "zh-CN", "import", "k8s", src, "--set", "gpu_replicas=4")
    assert f"这些行此前已按其他选项读取（导入 {first['id']}）；如需更改，请使用 --replace {first['id']}" in zh
    first, second = listed(root)
    assert second["id"] != first["id"] and (second["rows_read"], second["accepted"], second["duplicates"]) == (8, 0, 7)
    assert _shared_share(root) == 1  # nothing changed: hence the hint
    with Workspace.open(root) as wsp:  # the Event row is one row in quarantine, not one per import
        (problem,) = wsp.quarantine_problems()
    assert problem.message.startswith("1 k8s row(s) are in quarantine") and second["id"] in problem.message
    out = run("--workspace", root, "import", "k8s", src, "--set", "gpu_replicas=4", "--replace", first["id"])
    assert "7 accepted" in out and "other options" not in out
    assert _shared_share(root) == Decimal("0.25")  # 1 shared GPU / 4 replicas


def test_ids_stored_before_import_keys_keep_naming_their_import(ws):
    """A lake written before imports had their own keys: log lines without ``statement``, a
    ledger record keyed by the content hash. Its ids still resolve, to the same import."""
    root, src = ws
    helios(root, src, "vcWRONG")
    helios(root, src, "vc6YE")
    log = root / "lake" / "imports.jsonl"
    lines = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    assert all("statement" in x for x in lines)
    log.write_text("".join(json.dumps({k: v for k, v in x.items() if k != "statement"}) + "\n" for x in lines),
                   encoding="utf-8")
    wrong, right = listed(root)
    assert wrong["id"] == wrong["sha256"][:12] and right["id"] != wrong["id"]  # grouped by the partitions
    out = helios(root, src, "vcWRONG")  # still idempotent
    assert "0 accepted, 4 duplicate" in out and f"(import {wrong['id']})" in out
    run("--workspace", root, "imports", "drop", wrong["id"], "--reason", "typo")
    assert vcs(root) == ["vc6YE"]


def test_an_old_drop_line_drops_every_import_of_its_file(ws):
    root, src = ws
    helios(root, src, "vcWRONG")
    helios(root, src, "vc6YE")
    with Workspace.open(root) as wsp:  # as an earlier version dropped: all of the file's partitions
        wsp.lake.log_drop("occupancy", listed(root)[0]["sha256"], "old", table="occupancy")
    assert vcs(root) == []
    assert [r["status"] for r in listed(root)] == ["dropped", "dropped"]
