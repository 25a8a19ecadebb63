"""Progress events that match no run are said, not dropped (engine/runs.py ``unmatched_progress``).

A W&B history (``wandb-history.jsonl`` under ``run-20261102_080000-ab12cd34``: its run is
``ab12cd34``) of three steps from 2026-11-02 08:00:12.5 UTC, and sacct job 9001 on gpu-node-01
16:00–16:05 Asia/Shanghai (08:00–08:05 UTC). Imported as is, no job is ``ab12cd34``: one workspace
problem, 3 events of 1 run, named; the job's five minutes stay unclassified. With the job tagged
``run=ab12cd34`` (sacct Comment), or the history named by no run directory and imported with
``--set run=9001``, the events are the job's: no problem, and the job has effective time.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from trainledger.engine import Facts, attribute
from trainledger.report import problems_i18n
from trainledger.service import Workspace

from .factories import T0, event, job, price_lookup

ROOT = Path(__file__).resolve().parents[2]
SACCT = ("JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|NodeList|"
         "Restarts\n9001|a|x|sft-a||u|2026-11-02T16:00:00|2026-11-02T16:00:00|2026-11-02T16:00:00|"
         "2026-11-02T16:05:00|COMPLETED|0:0|billing=64,gres/gpu:h800=8,node=1|gpu-node-01|0\n")
WANDB = "".join(json.dumps(o) + "\n" for o in (
    {"_step": 0, "_runtime": 12.5, "_timestamp": 1793606412.5, "loss": 3.1, "tokens": 0},
    {"_step": 1, "_runtime": 70.0, "_timestamp": 1793606470.0, "loss": 2.9, "tokens": 4096},
    {"_step": 2, "_runtime": 130.0, "_timestamp": 1793606530.0, "loss": 2.8, "tokens": 8192}))


def _attribute(tmp_path: Path, options: dict | None, comment: str = "",
               where: str = "wandb/run-20261102_080000-ab12cd34/files/wandb-history.jsonl"):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "trainledger.toml").write_text(
        (ROOT / "docs/first-hour/slurm-cloud/trainledger.toml").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "sacct.txt").write_text(SACCT.replace("|sft-a||", f"|sft-a|{comment}|"), encoding="utf-8")
    hist = tmp_path / where
    hist.parent.mkdir(parents=True, exist_ok=True)
    hist.write_text(WANDB, encoding="utf-8")
    with Workspace.open(root) as w:
        w.import_files("slurm", [tmp_path / "sacct.txt"])
        w.import_files("wandb", [hist], options=options)
        facts = Facts.from_lake(w.lake)
        return attribute(facts, w.config, w.price_lookup(), date(2026, 11, 3))


def test_a_wandb_history_no_job_claims_is_a_workspace_problem(tmp_path):
    result = _attribute(tmp_path, None)
    (p,) = [p for p in result.problems if p.kind == "progress_without_job"]
    assert p.detail == {"events": 3, "runs": 1, "names": "ab12cd34", "first": "ab12cd34"}
    assert "--set run=" in p.message and "run=NAME" in p.message
    assert problems_i18n.message(p.as_dict(), "en") == p.message  # the catalogue says what the engine says
    zh = problems_i18n.message(p.as_dict(), "zh-CN")
    assert "ab12cd34" in zh and "--set run=" in zh and "未匹配任何作业" in zh
    assert {str(s.state) for s in result.runs["9001"].segments} == {"unclassified"}


def test_with_the_job_tagged_the_events_are_the_jobs_and_nothing_is_said(tmp_path):
    result = _attribute(tmp_path, None, comment="run=ab12cd34")
    assert "progress_without_job" not in {p.kind for p in result.problems}
    assert "effective" in {str(s.state) for s in result.runs["9001"].segments}


def test_a_history_named_with_set_run_is_the_jobs(tmp_path):
    result = _attribute(tmp_path, {"set": ["run=9001"]}, where="history.jsonl")
    assert "progress_without_job" not in {p.kind for p in result.problems}
    assert "effective" in {str(s.state) for s in result.runs["9001"].segments}


def test_the_problem_counts_every_event_and_names_the_first_runs(config):
    jobs = (job("100", start=T0, end=None, state="RUNNING", tags='{"run": "tagged"}'),)
    ev = (event("tagged", 5, "step", step=1), event("100", 6, "step", step=2),
          *(event(f"orphan-{i}", 10 + i, "step", step=i) for i in range(7)), event("orphan-0", 30, "step", step=9))
    result = attribute(Facts(jobs=jobs, progress_events=ev), config, price_lookup, T0.date())
    (p,) = [p for p in result.problems if p.kind == "progress_without_job"]
    assert (p.detail["events"], p.detail["runs"]) == (8, 7)  # the job's own and its tag's are not counted
    assert p.detail["names"] == "orphan-0, orphan-1, orphan-2, orphan-3, orphan-4"  # the first five
    assert "7 run(s) (first: orphan-0, orphan-1" in p.message
