"""A batch sheet carries the problems that concern the batch and one counted line per other kind of the
workspace's problems (review 5 J10): never another batch's job or run names, never the whole list."""

from __future__ import annotations

import json

from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.report import problems_i18n as pi
from trainledger.report.sheet_problems import ELSEWHERE, Index, for_sheet

SHA_A, SHA_B = "a" * 64, "b" * 64


def _p(kind: str, **detail) -> dict:
    return {"kind": kind, "message": f"{kind} {detail}", "detail": detail}


PROBLEMS = [
    *[_p("job_without_batch", job_id=f"pod-{i}") for i in range(1782)],
    _p("bad_tag", job_id="a/1", what="reason", value="x", allowed="y"),  # the batch's job
    _p("bad_tag", job_id="b/9", what="reason", value="x", allowed="y"),  # another batch's job
    _p("duplicate_run_id", run_id="r-a1", job_id="a/2", taken_by="b/9"),  # names the other batch's job too
    _p("missing_labor_rate", role="ml_engineer"),
    _p("missing_labor_rate", role="annotator"),
    _p("unpriced_storage", item="storage:cold", tier="cold"),  # the workspace's: no batch named, listed
    *[_p("oversubscribed_node", node=f"n{i}", row=i, at="x", held="9", slots=8) for i in range(5)],  # 3 listed
    _p("timezone_mismatch", source_sha256=SHA_A, path="a.txt", read_tz="UTC", shift_hours=8,
       likely_tz="Asia/Shanghai", jobs=3, import_id="a" * 12),
    _p("timezone_mismatch", source_sha256=SHA_B, path="b.txt", read_tz="UTC", shift_hours=8,
       likely_tz="Asia/Shanghai", jobs=3, import_id="b" * 12),
    _p("open_job", job_id="a/2", state="RUNNING", until="x", source="y", why="z"),
]


def test_a_batch_gets_what_names_only_its_runs_jobs_roles_and_files():
    own, elsewhere = Index(PROBLEMS).of(["r-a1", "r-a2"], ["a/1", "a/2"], ["ml_engineer"], [SHA_A])
    assert [(p["kind"], p["detail"].get("job_id") or p["detail"].get("role") or p["detail"].get("source_sha256")
             or p["detail"].get("item") or p["detail"].get("node")) for p in own] == [
        ("bad_tag", "a/1"), ("missing_labor_rate", "ml_engineer"), ("unpriced_storage", "storage:cold"),
        ("oversubscribed_node", "n0"), ("oversubscribed_node", "n1"), ("oversubscribed_node", "n2"),
        ("timezone_mismatch", SHA_A), ("open_job", "a/2")]
    assert elsewhere == {"job_without_batch": 1782, "bad_tag": 1, "duplicate_run_id": 1, "missing_labor_rate": 1,
                         "oversubscribed_node": 2, "timezone_mismatch": 1}
    assert len(own) + sum(elsewhere.values()) == len(PROBLEMS)  # each problem once: listed or counted
    assert "b/9" not in json.dumps(for_sheet(own, elsewhere))  # no other batch's job, even in a mixed problem


def test_a_batch_of_nothing_named_gets_only_the_workspaces_first_few():
    own, elsewhere = Index(PROBLEMS).of([], [])
    assert [p["kind"] for p in own] == ["unpriced_storage", *["oversubscribed_node"] * 3]
    assert len(own) + sum(elsewhere.values()) == len(PROBLEMS)


def test_the_counted_line_in_both_languages():
    rows = for_sheet([], {"job_without_batch": 1782})
    assert rows[0]["kind"] == ELSEWHERE and rows[0]["detail"] == {"of": "job_without_batch", "count": "1,782"}
    assert rows[0]["message"].startswith("job without a batch × 1,782 more in the workspace")
    assert "trainledger --verbose attribute" in rows[0]["message"]
    assert rows[0]["message_zh"].startswith("工作区中另有 作业无批次 × 1,782")
    assert rows[0]["label"] == "more in the workspace" and rows[0]["label_zh"] == "工作区其他问题"
    assert pi.ELSEWHERE not in pi.KINDS  # not a kind the engine emits


def _sheet(ws, batch: str, fmt: str = "json", lang: str = "en") -> str:
    r = CliRunner().invoke(cli, ["--workspace", str(ws), "--lang", lang, "sheet", batch, "--format", fmt],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.output


def test_the_demo_sheets_list_their_own_problems_and_count_the_unbatched_job(demo_pristine):
    from trainledger.report.sheet import build_sheet
    from trainledger.service import Workspace

    with Workspace.open(demo_pristine) as wsp:
        summary = wsp.ledger.latest_attribution()["summary"]
        every = summary["problems"]
        for b in ("csa-sft-2026-11-a", "csa-sft-2026-11-b"):
            jobs = {r.source_job for r in wsp.ledger.runs(b)}
            s = json.loads(_sheet(demo_pristine, b))
            own = [p for p in s["problems"] if p["kind"] != ELSEWHERE]
            counted = {p["detail"]["of"]: int(p["detail"]["count"].replace(",", ""))
                       for p in s["problems"] if p["kind"] == ELSEWHERE}
            assert all(p["detail"]["job_id"] in jobs for p in own if "job_id" in p["detail"])
            assert counted.get("job_without_batch") == sum(p["kind"] == "job_without_batch" for p in every) >= 1
            assert len(own) + sum(counted.values()) == len(every)
            unbatched = next(p["detail"]["job_id"] for p in every if p["kind"] == "job_without_batch")
            md = _sheet(demo_pristine, b, "md").split("## Problems found")[1]
            assert f"job {unbatched}" not in md and "job without a batch × 1 more in the workspace" in md
            assert "作业无批次 × 1" in _sheet(demo_pristine, b, "md", "zh-CN")
            assert build_sheet(wsp, b)["problems"] == s["problems"]  # precomputed or from the ledger alone


def test_the_workbook_readme_lists_them(demo_pristine, tmp_path):
    from openpyxl import load_workbook

    out = tmp_path / "a.xlsx"
    r = CliRunner().invoke(cli, ["--workspace", str(demo_pristine), "sheet", "csa-sft-2026-11-a", "--format", "xlsx",
                                 "--out", str(out)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    cells = [c for row in load_workbook(out)["README"].iter_rows(values_only=True) for c in row if c]
    assert "Problems found / 发现的问题" in cells
    assert any(str(c).startswith("job without a batch × 1 more in the workspace") for c in cells)
    assert any(str(c).startswith("工作区中另有 作业无批次 × 1") for c in cells)
