"""decide: each option's cost to go, re-estimated through the estimator where the plan came from one.

Hand-checked on the demo's batch A with a second plan (v2) of 6..8..12 rounds of 5.5G tokens and
``[plan.shrink] rounds = "5..6..7"``; A has done 24,603.787264 Mtoken of useful work:

    work to go   = 5,500 × (5, 6, 7) − 24,603.787264 = 2,896.212736 / 8,396.212736 / 13,896.212736 Mtoken
    billed (exp) = 36 CNY × 8,396.212736 × (0.047867 + 0.018300) GPU-h/Mtoken × (1 + 0.05 + 0.02 rework)
                 = 36 × 555.5491… × 1.07 = 21,399.87 CNY
    billed (low) = 30 × 2,896.212736 × (0.032350 + 0.009693) × (1 + 0.02 + 0) = 3,726.02 CNY
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.review.test_loop import run
from trainledger.demo.plans import SPEC_A
from trainledger.demo.scenario import BATCH_A, BATCH_B
from trainledger.review import service
from trainledger.service import Workspace

D = Decimal


def _spec(ws, shrink: str, name="s.toml"):
    spec = SPEC_A.replace('rounds = "2..3..4"', 'rounds = "6..8..12"').replace(
        "max_rounds = 16", f"max_rounds = 30\n[plan.shrink]\n{shrink}")
    p = ws / "plans" / name
    p.write_text(spec, encoding="utf-8")
    return p


def _opt(d, action):
    return next(o for o in d["options"] if o["action"] == action)


def _row(o, basis):
    return next(x for x in o["cost_to_go"] if x["basis"] == basis)


@pytest.fixture
def v2(ws):
    with Workspace.open(ws) as wsp:
        service.make_plan(wsp, BATCH_A, str(_spec(ws, 'rounds = "5..6..7"')), reason="v2", author="t")
        d = service.decide(wsp, BATCH_A, action="shrink", reason="x", by="a", approver="b", answers=[])
        _pid, plan = service.latest_plan(wsp, BATCH_A)
    return d, plan


def test_shrink_is_re_estimated_for_fewer_rounds_with_hand_checked_figures(v2):
    d, plan = v2
    sh = _opt(d, "shrink")
    src = sh["estimated_from"]
    assert src["kind"] == "estimate" and src["estimate"] == "csa-sft-2026-11-a" and src["rounds"] == "5..6..7"
    done = D("26382.172160")  # a-r07's 1,677.72 Mtoken after resuming a-r03 at step 3600 count (and a-r02's 100.66)
    assert src["work_to_go_mtoken"] == {k: format(D(5500) * r - done, "f")
                                        for k, r in (("low", 5), ("expected", 6), ("high", 7))}
    comp = next(ln for ln in plan.lines if ln.id == "compute")
    assert src["rates"]["compute"] == {k: v.as_dict() for k, v in comp.efficiency.items()}  # same model, same rates
    e, o = comp.efficiency["effective"], comp.efficiency["overhead"]
    assert (e.expected, o.expected, e.low, o.low) == (D("0.047867"), D("0.018300"), D("0.032350"), D("0.009693"))
    billed = _row(sh, "billed")
    hand_exp = D(36) * D("6617.827840") * (e.expected + o.expected) * D("1.07")
    hand_low = D(30) * D("1117.827840") * (e.low + o.low) * D("1.02")
    assert abs(D(billed["expected"]) - hand_exp) <= D("0.005") and abs(D(billed["low"]) - hand_low) <= D("0.005")
    assert (billed["low"], billed["expected"]) == ("1438.10", "16867.21")
    assert D(billed["low"]) < D(billed["expected"]) < D(billed["high"])
    assert not [x for x in sh["cost_to_go"] if x["basis"] == "estimate"]  # storage is not re-estimated
    assert "re-estimated" in sh["what"]["en"] and "重新预估" in sh["what"]["zh-CN"]
    assert "6617.83 Mtoken" in src["text"]["en"] and "6617.83 百万 token" in src["text"]["zh-CN"]
    # continue is the status's EAC − AC; stop only the retention of the batch's kept objects
    assert _opt(d, "continue")["estimated_from"]["kind"] == "eac"
    stop = _opt(d, "stop")
    assert [x["basis"] for x in stop["cost_to_go"]] == ["estimate"] and stop["estimated_from"]["kind"] == "retention"


def test_a_smaller_model_declared_for_shrink_starts_afresh(ws):
    with Workspace.open(ws) as wsp:
        service.make_plan(wsp, BATCH_A, str(_spec(ws, 'rounds = "2"\nparams = "3B"')), reason="v2", author="t")
        d = service.decide(wsp, BATCH_A, action="shrink", reason="x", by="a", approver="b", answers=[])
    src = _opt(d, "shrink")["estimated_from"]
    assert src["params"] == "3B" and D(src["work_to_go_mtoken"]["expected"]) == 11000  # 5,500 × 2: nothing carried
    small = D(src["rates"]["compute"]["effective"]["expected"])
    assert D("0.3") < small / D("0.047867") < D("0.6")  # ~3/7 of the 7B model's FLOPs per token


def test_retarget_is_the_childs_plan_and_a_plan_from_a_review_is_scaled_and_says_so(ws):
    with Workspace.open(ws) as wsp:
        _cid, child = service.latest_plan(wsp, BATCH_B)  # the demo plans B from A's review
        d = service.decide(wsp, BATCH_A, action="retarget", reason="x", by="a", approver="b", answers=[],
                           child=BATCH_B)
        rt = _opt(d, "retarget")
        assert rt["estimated_from"] == {**rt["estimated_from"], "kind": "child_plan", "batch": BATCH_B,
                                        "plan_version": child.version}
        want = {(b, c): v for (b, c), v in child.totals().items()}
        for x in rt["cost_to_go"]:
            assert D(x["expected"]) == want[(x["basis"], x["currency"])].expected.quantize(D("0.01"))
        db = service.decide(wsp, BATCH_B, action="shrink", reason="x", by="a", approver="b", answers=[])
    sh = _opt(db, "shrink")
    assert sh["estimated_from"]["kind"] == "scaled" and "no estimator inputs" in sh["estimated_from"]["text"]["en"]
    f = child.shrink_factor
    for c, s in zip(_opt(db, "continue")["cost_to_go"], sh["cost_to_go"], strict=True):
        assert D(s["expected"]) == (D(c["expected"]) * f).quantize(D("0.01"))


def test_decide_shows_where_each_figure_came_from_in_both_languages(ws):
    _spec(ws, 'rounds = "5..6..7"')
    run(ws, "plan", BATCH_A, "--from-estimate", ws / "plans" / "s.toml", "--reason", "v2")
    en = run(ws, "decide", BATCH_A, "--action", "shrink", "--reason", "x", "--by", "a", "--approver", "b",
             "--lang", "en").output
    assert "estimated from: estimator re-run (csa-sft-2026-11-a, params 7B)" in en
    zh = run(ws, "decide", BATCH_A, "--action", "shrink", "--reason", "x", "--by", "a", "--approver", "b",
             "--lang", "zh-CN").output
    assert "估算依据：重跑预估" in zh or "估算依据: 重跑预估" in zh


def test_an_unknown_shrink_key_is_named(ws):
    bad = _spec(ws, 'round = "2"', "bad.toml")
    r = run(ws, "plan", BATCH_A, "--from-estimate", bad, "--reason", "x", ok=False)
    assert r.exit_code == 2 and "[plan.shrink]" in r.output and "round" in r.output
