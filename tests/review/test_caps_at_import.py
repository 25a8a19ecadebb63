"""Hard caps at every import: the rounds cap from the imported jobs, before any attribution."""

from __future__ import annotations

from trainledger.demo.scenario import BATCH_A
from trainledger.ledger import review_repo
from trainledger.review import service
from trainledger.service import Workspace

HEADER = ("JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES"
          "|NodeList|Restarts")


def _one_more_job(path, job_id="48990", run="a-r16", n=1):
    """``n`` more batch-A tuning trials in the demo's sacct layout (its rule: the wckey)."""
    rows = [f"{int(job_id) + i}|sft-a-extra|applied-ml|{BATCH_A}|batch={BATCH_A};run={run}-{i};reason=param_tuning;"
            "cause=exploration|he.jun|2026-11-08T10:00:00|2026-11-08T10:00:00|2026-11-08T10:00:02|2026-11-08T12:00:02"
            "|COMPLETED|0:0|billing=64,cpu=64,gres/gpu:h800=8,mem=500G,node=1|gpu-node-01|0" for i in range(n)]
    path.write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")
    return path


def test_an_import_that_reaches_max_rounds_raises_the_alert_without_attribution(ws, tmp_path):
    with Workspace.open(ws) as wsp:
        _pid, plan = service.latest_plan(wsp, BATCH_A)
        st = service.status(wsp, BATCH_A)
        # the demo: 15 runs, 13 rounds (a-r02 and a-r07 are fault retries continuing a-r01 / a-r03), of 16
        assert (st["rounds"]["used"], plan.max_rounds) == (13, 16)
        assert not [a for a in service.alerts(wsp, BATCH_A) if a["kind"] == "rounds"]
        attributions = wsp.ledger.latest_attribution()["id"]
        assert len(service.rounds_from_jobs(wsp)[BATCH_A]) == 13  # the same count the attribution made

        wsp.import_files("slurm", [_one_more_job(tmp_path / "more.txt", n=3)])
        assert wsp.ledger.latest_attribution()["id"] == attributions  # no attribution ran
        (rounds,) = [a for a in service.alerts(wsp, BATCH_A) if a["kind"] == "rounds"]
        assert rounds["open"] and (rounds["value"], rounds["bound"]) == ("16", "16")
        assert "counted from the imported jobs" in rounds["text"]["en"]
        assert "按已导入作业计数" in rounds["text"]["zh-CN"]
        assert "16 job(s)" in rounds["driver"]["en"]
        before = {a["id"] for a in service.alerts(wsp, BATCH_A)}
        assert service.check_at_import(wsp) == []  # once per plan version and bound

        wsp.attribute()
        after = service.alerts(wsp, BATCH_A)
        assert [a for a in after if a["kind"] == "rounds"] == [rounds]  # the attribution raises it no second time
        assert service.status(wsp, BATCH_A)["rounds"]["used"] == 16
        assert {a["id"] for a in after} >= before


def test_below_the_cap_an_import_raises_nothing(ws, tmp_path):
    with Workspace.open(ws) as wsp:
        _pid, plan = service.latest_plan(wsp, BATCH_A)
        n = len(service.alerts(wsp))
        p = tmp_path / "same.txt"
        p.write_text((ws / "data" / "sacct.txt").read_text(encoding="utf-8"), encoding="utf-8")
        wsp.import_files("slurm", [p])  # the same jobs again: duplicates, still 15 of 16
        assert len(service.alerts(wsp)) == n


def test_money_caps_at_import_are_the_last_attributions_figures_and_say_so(ws, tmp_path):
    with Workspace.open(ws) as wsp:
        # a new plan version made without its check (the plan command runs one; the service call does not)
        service.make_plan(wsp, BATCH_A, str(ws / "plans" / "spec-a.toml"), reason="v2, unchecked", author="t")
        _pid, v2 = service.latest_plan(wsp, BATCH_A)
        assert not [a for a in service.alerts(wsp, BATCH_A) if a["plan_version"] == v2.version]
        at = wsp.ledger.latest_attribution()["created_at"].isoformat(timespec="seconds")
        p = tmp_path / "same.txt"
        p.write_text((ws / "data" / "sacct.txt").read_text(encoding="utf-8"), encoding="utf-8")
        wsp.import_files("slurm", [p])
        raised = [a for a in service.alerts(wsp, BATCH_A) if a["plan_version"] == v2.version]
        kinds = {a["kind"] for a in raised}
        assert "spend" in kinds and "gate" not in kinds  # judgement rules only at gates (attribution)
        for a in raised:
            assert f"as of the last attribution ({at})" in a["text"]["en"] and "截至上次归集" in a["text"]["zh-CN"]
        rows = review_repo.alert_rows(wsp.ledger, BATCH_A)
        assert len({(r["plan_id"], r["key"]) for r in rows}) == len(rows)  # no key twice per version
