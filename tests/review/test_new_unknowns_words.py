"""``decide`` / ``review`` name what is unknown about the runs they list (review 3 G15): "new
unknowns: 2 run(s): 9101, 9102" said nothing of what was unknown — their reason for running."""

from __future__ import annotations

from types import SimpleNamespace as NS

from trainledger.review.service import new_unknowns


def test_each_new_unknown_says_what_is_unknown():
    plan = NS(lines=[NS(rework={"data_fix": None})])
    runs = [NS(id="9101", reason="unrecorded", cause=None), NS(id="9102", reason="unrecorded", cause=None),
            NS(id="9103", reason="fault_retry", cause="infra_fault"), NS(id="9104", reason="data_fix", cause=None)]
    got = {u["name"]: u for u in new_unknowns(plan, NS(runs=runs))}
    assert set(got) == {"runs without a recorded reason", "rework by fault_retry (infra_fault)"}  # stored names
    unrec = got["runs without a recorded reason"]
    assert unrec["why"].startswith("why 2 run(s) ran is not recorded (no reason= tag")
    assert unrec["why"].endswith("so their cost is not classed yet: 9101, 9102")
    assert "未记录运行原因" in unrec["why_zh"] and unrec["why_zh"].endswith("9101, 9102")
    retry = got["rework by fault_retry (infra_fault)"]
    assert "fault retry (infra fault)" in retry["why"] and "no rework allowance" in retry["why"]
    assert "故障重试（基础设施故障）" in retry["why_zh"]  # words, not codes
