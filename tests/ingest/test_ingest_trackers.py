"""Experiment trackers into the progress table: an MLflow file-store run (layout and metric
line format of MLflow's FileStore: ``metrics/<name>`` lines ``timestamp value step``, ``tags/``,
``params/``, ``meta.yaml``) and a W&B run history (``wandb-history.jsonl``: ``_step``,
``_runtime``, ``_timestamp``); values made up."""

from __future__ import annotations

import json

import pytest
from tests.ingest.ingest_helpers import check_golden, run, snapshot

from trainledger.errors import WrongFileType
from trainledger.ingest import import_files

T0 = 1793606400000  # 2026-11-02T08:00:00Z in ms

META = (
    "artifact_uri: file:///mlruns/1/4f2a/artifacts\nend_time: {end}\nentry_point_name: ''\n"
    "experiment_id: '1'\nlifecycle_stage: active\nrun_id: 4f2a\nrun_name: pretrain-7b\n"
    "run_uuid: 4f2a\nsource_name: ''\nsource_type: 4\nsource_version: ''\nstart_time: {start}\n"
    "status: 3\ntags: []\nuser_id: alice\n"
)


def mlrun(tmp_path, *, extra_loss: str = ""):
    d = tmp_path / "mlruns" / "1" / "4f2a"
    for sub in ("metrics/train", "tags", "params"):
        (d / sub).mkdir(parents=True, exist_ok=True)
    (d / "meta.yaml").write_text(META.format(start=T0, end=T0 + 3_600_000))
    (tmp_path / "mlruns" / "1" / "meta.yaml").write_text(
        "artifact_location: file:///mlruns/1\nexperiment_id: '1'\nlifecycle_stage: active\n"
        "name: llm\n")
    (d / "tags" / "mlflow.runName").write_text("pretrain-7b")
    (d / "tags" / "run").write_text("r1")
    (d / "tags" / "batch").write_text("b7")
    (d / "params" / "lr").write_text("3e-4")
    # step 200 is logged, the job restarts from the checkpoint of step 100 and logs 200 again
    (d / "metrics" / "train" / "loss").write_text(
        f"{T0 + 60000} 2.5 100\n{T0 + 120000} 2.1 200\n{T0 + 600000} 2.2 100\n" + extra_loss)
    (d / "metrics" / "train" / "tokens").write_text(
        f"{T0 + 60000} 409600 100\n{T0 + 120000} 819200 200\n")
    (d / "metrics" / "checkpoint_save_s").write_text(f"{T0 + 90000} 42.5 100\n")
    return d / "meta.yaml"


def test_mlflow_golden(lake, tmp_path):
    res = run("mlflow", mlrun(tmp_path), lake)
    check_golden("mlflow_run", snapshot(lake, "mlflow", [res]))


def test_mlflow_events(lake, tmp_path):
    res = run("mlflow", mlrun(tmp_path), lake)
    rows = lake.read("progress_events").to_pylist()
    assert [(r["event"], r["step"]) for r in rows] == [
        ("start", None), ("step", 100), ("checkpoint_saved", 100), ("step", 200),
        ("resume", 100), ("end", None)]
    assert res.accepted == 6 and {r["run"] for r in rows} == {"r1"}
    step200 = rows[3]
    assert step200["tokens"] == 819200 and json.loads(step200["extra"])["batch"] == "b7"
    assert json.loads(step200["extra"])["metrics"] == {"train/loss": 2.1, "train/tokens": 819200}
    assert rows[2]["duration_s"] == 42.5
    assert json.loads(rows[0]["extra"])["params"] == {"lr": "3e-4"}
    assert rows[5]["ts"].isoformat() == "2026-11-02T09:00:00+00:00"


def test_mlflow_run_that_logged_more_is_read_again(lake, tmp_path):
    meta = mlrun(tmp_path)
    first = run("mlflow", meta, lake)
    same = run("mlflow", meta, lake)
    assert (same.accepted, same.duplicates) == (0, first.rows_read)
    meta = mlrun(tmp_path, extra_loss=f"{T0 + 700000} 2.0 300\nnot a metric line\n")
    more = run("mlflow", meta, lake)
    assert (more.accepted, more.duplicates, more.quarantined) == (1, 6, 1)
    with open(more.quarantine_file, encoding="utf-8") as f:
        q = [json.loads(x) for x in f]
    assert q[0]["raw"] == "metrics/train/loss:5: not a metric line" and "MLflow" in q[0]["reason"]


def test_mlflow_diverged_values_are_kept_as_written(lake, tmp_path):
    meta = mlrun(tmp_path, extra_loss=f"{T0 + 700000} nan 300\n{T0 + 710000} inf 301\n{T0 + 720000} 1E+400 302\n")
    res = run("mlflow", meta, lake)
    steps = {r["step"]: json.loads(r["extra"])["metrics"] for r in lake.read("progress_events").to_pylist()
             if r["event"] == "step"}
    assert res.quarantined == 0
    assert [steps[s]["train/loss"] for s in (300, 301, 302)] == ["nan", "inf", "1E+400"]


def test_mlflow_experiment_meta_is_refused_with_the_runs_to_import(lake, tmp_path):
    mlrun(tmp_path)
    with pytest.raises(WrongFileType) as e:
        import_files("mlflow", [tmp_path / "mlruns" / "1" / "meta.yaml"], lake)
    assert "experiment" in str(e.value) and "*/meta.yaml" in str(e.value)


WANDB = "".join(
    json.dumps(o) + "\n"
    for o in (
        {"_step": 0, "_runtime": 12.5, "_timestamp": 1793606412.5, "loss": 3.1, "tokens": 0},
        {"_step": 1, "_runtime": 70.0, "_timestamp": 1793606470.0, "loss": 2.9, "tokens": 4096},
        {"_step": 2, "_runtime": 130.0, "_timestamp": 1793606530.0, "loss": 2.8,
         "tokens": 8192, "lr": 0.0003},
    )
)


def test_wandb_history_jsonl(lake, write):
    path = write("wandb/run-20261102_080000-ab12cd34/files/wandb-history.jsonl", WANDB)
    res = run("wandb", path, lake)
    assert (res.rows_read, res.accepted) == (3, 3)
    rows = lake.read("progress_events").to_pylist()
    assert {r["run"] for r in rows} == {"ab12cd34"}
    assert [(r["event"], r["step"], r["tokens"]) for r in rows] == [
        ("step", 0, 0), ("step", 1, 4096), ("step", 2, 8192)]
    assert rows[0]["ts"].isoformat() == "2026-11-02T08:00:12.500000+00:00"
    assert json.loads(rows[2]["extra"])["lr"] == 0.0003
    check_golden("wandb_history", snapshot(lake, "wandb", [res]))


def test_wandb_set_run_wins_over_the_run_directory(lake, write):
    """``--set run=NAME`` says which run the history is of: it wins over the id of the run directory
    (``wandb/run-…-ab12cd34``), which is only a guess from the path; without it the directory's id is used."""
    path = write("wandb/run-20261102_080000-ab12cd34/files/wandb-history.jsonl", WANDB)
    res = run("wandb", path, lake, set=["run=sft-a-r03"])
    assert res.accepted == 3
    assert {r["run"] for r in lake.read("progress_events").to_pylist()} == {"sft-a-r03"}


def test_wandb_a_run_column_stays_over_set_run(lake, write):
    """The file's own run column is a fact of each row: --set fills only rows without one."""
    csv_text = "_step,_timestamp,run\n0,1793606412.5,ab12cd34\n1,1793606470.0,\n"
    run("wandb", write("wandb/run-20261102_080000-zz99/history.csv", csv_text), lake, set=["run=r03"])
    assert [r["run"] for r in lake.read("progress_events").to_pylist()] == ["ab12cd34", "r03"]


def test_wandb_history_csv_matches_jsonl(lake, write):
    csv_text = ("_step,_runtime,_timestamp,loss,tokens,run\n"
                "0,12.5,1793606412.5,3.1,0,ab12cd34\n1,70.0,1793606470.0,2.9,4096,ab12cd34\n")
    res = run("wandb", write("history.csv", csv_text), lake)
    rows = lake.read("progress_events").to_pylist()
    assert res.accepted == 2 and [r["tokens"] for r in rows] == [0, 4096]
    assert {r["run"] for r in rows} == {"ab12cd34"}
