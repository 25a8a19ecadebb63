"""``import k8s``: pods as ``kubectl get pods -o json`` and watch streams write them.

The fixtures follow the Kubernetes API reference (core/v1 Pod: metadata.creationTimestamp /
deletionTimestamp / labels / annotations / ownerReferences, spec.containers[].resources,
spec.nodeName, status.phase / conditions[PodScheduled] / containerStatuses[].state.terminated),
NVIDIA's device plugin resource names (nvidia.com/gpu, MIG nvidia.com/mig-1g.10gb, time-sliced
nvidia.com/gpu.shared) and Alibaba's GPU-sharing annotation alibabacloud.com/gpu-milli.
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ingest_helpers import DATA, check_golden, run, snapshot

from trainledger.analysis.jobs import job_summary
from trainledger.engine.rules import matcher
from trainledger.engine.runs import latest_job_rows
from trainledger.errors import BadInput, WrongFileType
from trainledger.ingest import import_files
from trainledger.lake import Lake
from trainledger.workspace import Rule


def pod(name, *, gpus=None, phase="Running", created="2026-11-02T08:00:00Z", scheduled="2026-11-02T08:05:00Z",
        deleted=None, finished=None, exit_code=0, reason=None, labels=None, annotations=None, owner=None,
        container_reason=None, node="gpu01", ns="llm"):  # fmt: skip
    meta = {"name": name, "namespace": ns, "uid": f"uid-{name}", "creationTimestamp": created,
            "labels": labels or {}, "annotations": annotations or {}}  # fmt: skip
    if deleted:
        meta["deletionTimestamp"] = deleted
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": owner, "uid": "j1",
                                    "controller": True}]  # fmt: skip
    conditions = [{"type": "PodScheduled", "status": "True" if scheduled else "False",
                   "lastTransitionTime": scheduled or created,
                   **({} if scheduled else {"reason": "Unschedulable"})}]  # fmt: skip
    status = {"phase": phase, "conditions": conditions, "qosClass": "Guaranteed"}
    if reason:
        status["reason"] = reason
    if finished:
        term = {"exitCode": exit_code, "finishedAt": finished, "startedAt": scheduled,
                "reason": container_reason or ("Completed" if exit_code == 0 else "Error")}  # fmt: skip
        status["containerStatuses"] = [{"name": "main", "restartCount": 1, "state": {"terminated": term}}]
    return {
        "apiVersion": "v1", "kind": "Pod", "metadata": meta,
        "spec": {"nodeName": node if scheduled else None, "schedulerName": "volcano",
                 "containers": [{"name": "main", "image": "trainer:1",
                                 "resources": {"limits": gpus or {}, "requests": gpus or {}}}]},
        "status": status,
    }  # fmt: skip


PODS = {
    "apiVersion": "v1",
    "kind": "List",
    "metadata": {"resourceVersion": ""},
    "items": [
        # 8 whole GPUs for 2 h, a Job's pod, batch from a trainledger label, team label
        pod("pretrain-0", gpus={"nvidia.com/gpu": "8"}, phase="Succeeded", finished="2026-11-02T10:05:00Z",
            labels={"team": "nlp", "trainledger.io/batch": "b-2026-07", "job-name": "pretrain"}, owner="pretrain"),
        # two MIG 1g.10gb slices: 2/7 of a GPU, still running
        pod("notebook", gpus={"nvidia.com/mig-1g.10gb": "2"}, labels={"team": "cv"}),
        # a quarter of one GPU (Alibaba GPU sharing), deleted while running after 1 h
        pod("infer", gpus={"nvidia.com/gpu": "1"}, annotations={"alibabacloud.com/gpu-milli": "250"},
            deleted="2026-11-02T09:05:00Z"),
        # a time-sliced share, finished after 30 min
        pod("shared", gpus={"nvidia.com/gpu.shared": "1"}, phase="Succeeded", finished="2026-11-02T08:35:00Z"),
        # never scheduled, deleted after 10 min of waiting
        pod("waiting", gpus={"nvidia.com/gpu": "4"}, phase="Pending", scheduled=None,
            deleted="2026-11-02T08:10:00Z"),
        # killed for memory after 15 min
        pod("oom", gpus={"nvidia.com/gpu": "1"}, phase="Failed", finished="2026-11-02T08:20:00Z", exit_code=137,
            container_reason="OOMKilled"),
        # not a pod: quarantined, named
        {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pretrain", "namespace": "llm"}},
        # a time without an offset: quarantined
        pod("bad-time", created="2026-11-02 08:00:00"),
    ],
}  # fmt: skip


def _write_pods(write, name="pods.json", doc=None):
    return write(name, json.dumps(doc or PODS, indent=4) + "\n")


def test_pod_list_golden(lake, write):
    r = run("k8s", _write_pods(write), lake, set=["gpu_replicas=4", "cluster=ack-1"])
    assert (r.rows_read, r.accepted, r.quarantined) == (8, 6, 2)
    snap = snapshot(lake, "k8s", [r])
    check_golden("k8s_pods", snap)
    rows = {x["job_id"]: x for x in snap["rows"]}
    assert rows["llm/pretrain-0"]["job_name"] == "pretrain" and rows["llm/pretrain-0"]["tags"]["batch"] == "b-2026-07"
    assert (rows["llm/notebook"]["gpus"], rows["llm/notebook"]["gpu_share"]) == (2, "0.285714")
    assert (rows["llm/infer"]["gpu_share"], rows["llm/infer"]["state"]) == ("0.25", "CANCELLED")
    assert rows["llm/shared"]["gpu_share"] == "0.25"
    assert rows["llm/waiting"]["start"] is None and rows["llm/waiting"]["state"] == "CANCELLED"
    assert (rows["llm/oom"]["state"], rows["llm/oom"]["exit_code"]) == ("OUT_OF_MEMORY", "137")
    reasons = [q["reason"] for q in snap["quarantine"]]
    assert "a Job, not a Pod" in reasons[0] and "no UTC offset" in reasons[1]
    assert json.loads(snap["quarantine"][0]["raw"])["kind"] == "Job"

    s = job_summary(lake)
    assert (s.jobs, s.attempts, s.never_started, s.open_attempts) == (6, 6, 1, 1)
    # 8 × 2 h + 0.25 × 1 h + 0.25 × 0.5 h + 1 × 0.25 h; the notebook has not ended: counted, as attribute
    # counts it, to the latest fact, 2 h after its start, at 0.285714 of its 2 GPUs: + 0.571428 (R8-4)
    assert s.open_gpu_hours == Decimal("0.571428")
    assert s.gpu_hours == Decimal("16.625000") + s.open_gpu_hours
    assert dict(s.gpu_hours_by_final_state) == {
        "COMPLETED": Decimal("16.125000"), "CANCELLED": Decimal("0.250000"), "OUT_OF_MEMORY": Decimal("0.250000"),
        "RUNNING": Decimal("0.571428")}
    assert s.never_started_wait_seconds.mean == 600.0
    assert s.queue_seconds.mean == 300.0


def test_labels_and_annotations_are_attribution_fields(lake, write):
    run("k8s", _write_pods(write), lake, set=["gpu_replicas=4"])
    rows = lake.read("jobs").to_pylist()
    rules = [Rule(id="team", source="slurm", field="tags.labels.team", match="exact", pattern="cv", batch="b-cv"),
             Rule(id="own", source="slurm", field="tags.batch", match="template")]  # fmt: skip
    m = matcher(rules, ["b-cv", "b-2026-07"])
    got = {r["job_id"]: m.match("slurm", r)[0] for r in rows}
    assert got["llm/notebook"] == "b-cv" and got["llm/pretrain-0"] == "b-2026-07" and got["llm/oom"] is None
    infer = next(r for r in rows if r["job_id"] == "llm/infer")
    assert json.loads(infer["tags"])["annotations.alibabacloud.com/gpu-milli"] == "250"


def test_time_sliced_without_replicas_is_flagged_whole(lake, write):
    run("k8s", _write_pods(write), lake)
    shared = next(r for r in lake.read("jobs").to_pylist() if r["job_id"] == "llm/shared")
    assert shared["gpu_share"] == "1" and "gpu_replicas" in json.loads(shared["flags"])[0]


def test_watch_stream_snapshots_are_one_attempt(lake, write):
    """``kubectl get pods -w -o json --output-watch-events``: pretty objects one after another."""
    created = pod("train", gpus={"nvidia.com/gpu": "2"}, phase="Pending", scheduled=None)
    running = pod("train", gpus={"nvidia.com/gpu": "2"})
    done = pod("train", gpus={"nvidia.com/gpu": "2"}, phase="Succeeded", finished="2026-11-02T09:05:00Z")
    text = "".join(json.dumps({"type": t, "object": o}, indent=2) + "\n"
                   for t, o in (("ADDED", created), ("MODIFIED", running), ("MODIFIED", done)))  # fmt: skip
    r = run("k8s", write("watch.json", text), lake)
    assert (r.rows_read, r.accepted) == (3, 3)
    rows = lake.read("jobs").to_pylist()
    s = job_summary(lake)
    assert len(latest_job_rows(rows)) == s.attempts == 1
    assert (s.jobs, s.never_started, s.gpu_hours) == (1, 0, Decimal("2.000000"))
    assert dict(s.gpu_hours_by_final_state) == {"COMPLETED": Decimal("2.000000")}
    # the same events as JSON lines, under another name: the same rows
    lines = "".join(json.dumps({"type": t, "object": o}) + "\n" for t, o in (("ADDED", created), ("MODIFIED", done)))
    again = run("k8s", write("watch.jsonl", lines), lake)
    assert (again.accepted, again.duplicates) == (0, 2)


def test_a_stream_cut_short_keeps_what_came_before(lake, write):
    text = json.dumps(pod("a", gpus={"nvidia.com/gpu": "1"}), indent=2) + "\n" + '{"apiVersion": "v1", "kind": "Po'
    r = run("k8s", write("cut.json", text), lake)
    assert (r.rows_read, r.accepted, r.quarantined) == (2, 1, 1)
    (q,) = lake.quarantine("k8s", r.sha256)
    assert "not JSON from line" in q["reason"] and q["raw"].startswith('{"apiVersion"')


def test_idempotent_and_wrong_kinds(lake, write):
    path = _write_pods(write)
    first = run("k8s", path, lake)
    again = run("k8s", path, lake)
    assert (again.accepted, again.duplicates, again.quarantined) == (0, first.accepted, first.quarantined)
    with pytest.raises(WrongFileType, match="it looks like a FOCUS bill"):
        import_files("k8s", [DATA / "focus-sample-data" / "focus_sample.csv"], lake)
    with pytest.raises(WrongFileType, match="this looks like Kubernetes pods"):
        import_files("jobs", [path], lake, options={"preset": "alibaba-openb-2023"})
    with pytest.raises(BadInput, match="not a k8s setting"):
        import_files("k8s", [path], lake, options={"set": ["vc=x"]})


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**6) | st.text(max_size=12)
    | st.sampled_from(["2026-11-02T08:00:00Z", "True", "8", "nvidia.com/gpu", "Pod", "List"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)  # fmt: skip
PATHS = [("metadata",), ("metadata", "name"), ("metadata", "creationTimestamp"), ("metadata", "labels"),
         ("spec",), ("spec", "containers"), ("status",), ("status", "phase"), ("status", "conditions"),
         ("status", "containerStatuses"), ("kind",)]  # fmt: skip


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.sampled_from(PATHS), JSON), max_size=4), extra=st.lists(JSON, max_size=2))
def test_fuzzed_pods_keep_the_books(tmp_path_factory, edits, extra):
    doc = json.loads(json.dumps(pod("p", gpus={"nvidia.com/gpu": "1"}, finished="2026-11-02T09:00:00Z",
                                    phase="Succeeded")))  # fmt: skip
    for path, value in edits:
        target = doc
        for k in path[:-1]:
            target = target.setdefault(k, {}) if isinstance(target, dict) else {}
        if isinstance(target, dict):
            target[path[-1]] = value
    path = tmp_path_factory.mktemp("k") / "pods.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [doc, *extra]}), encoding="utf-8")
    lake = Lake(tmp_path_factory.mktemp("lake"))
    (r,) = import_files("k8s", [path], lake)
    assert r.accepted + r.duplicates + r.quarantined == r.rows_read == 1 + len(extra)
    job_summary(lake)


def test_kueue_gate_is_queueing_and_volcano_names_the_job(lake, write):
    gated = pod("w-0", gpus={"nvidia.com/gpu": "1"}, phase="Pending", scheduled=None,
                labels={"kueue.x-k8s.io/queue-name": "team-a", "volcano.sh/job-name": "vj"})  # fmt: skip
    gated["status"]["conditions"][0]["reason"] = "SchedulingGated"
    admitted = pod("w-0", gpus={"nvidia.com/gpu": "1"}, scheduled="2026-11-02T08:30:00Z", phase="Succeeded",
                   finished="2026-11-02T09:30:00Z",
                   labels={"kueue.x-k8s.io/queue-name": "team-a", "volcano.sh/job-name": "vj"})  # fmt: skip
    r = run("k8s", write("w.jsonl", "".join(json.dumps(p) + "\n" for p in (gated, admitted))), lake)
    assert r.accepted == 2
    s = job_summary(lake)
    assert (s.attempts, s.never_started, s.queue_seconds.mean, s.gpu_hours) == (1, 0, 1800.0, Decimal("1.000000"))
    row = next(x for x in lake.read("jobs").to_pylist() if x["start"] is not None)
    assert row["job_name"] == "vj" and json.loads(row["tags"])["labels.kueue.x-k8s.io/queue-name"] == "team-a"


def test_mig_slices_are_a_share_of_their_gpu_by_its_slice_count(lake, write):
    """NVIDIA MIG User Guide, Supported MIG Profiles: an A100 / H100 has 7 compute slices (3g.20gb
    is 3/7 of the GPU), an A30-24GB has 4 (1g.6gb is 1/4, 2g.12gb 2/4, 4g.24gb the whole GPU)."""
    pods = {"apiVersion": "v1", "kind": "List", "items": [
        pod("a100", gpus={"nvidia.com/mig-3g.20gb": "1"}, phase="Succeeded", finished="2026-11-02T09:05:00Z"),
        pod("a30", gpus={"nvidia.com/mig-1g.6gb": "1"}, phase="Succeeded", finished="2026-11-02T09:05:00Z"),
        pod("a30-half", gpus={"nvidia.com/mig-2g.12gb": "1"}, phase="Succeeded", finished="2026-11-02T09:05:00Z"),
    ]}  # fmt: skip
    run("k8s", write("mig.json", json.dumps(pods)), lake)
    share = {r["job_id"]: r["gpu_share"] for r in lake.read("jobs").to_pylist()}
    assert share == {"llm/a100": "0.428571", "llm/a30": "0.25", "llm/a30-half": "0.5"}
