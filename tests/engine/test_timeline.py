from datetime import timedelta

from trainledger.engine.timeline import classify
from trainledger.model.vocab import ComputeState as S

from .factories import at, event


def _by_state(segments):
    out = {}
    for s in segments:
        out[s.state] = out.get(s.state, 0) + s.seconds / 60
    return out


def steps(run, first, last, every=5, **kw):
    return [event(run, m, "step", step=i * 10) for i, m in enumerate(range(first, last + 1, every), start=1)]


def test_completed_run_with_checkpoint_stall_and_idle_tail():
    ev = [event("r", 5, "start"), *steps("r", 10, 60),
          event("r", 30, "checkpoint_saved", step=50, duration_s=120),
          event("r", 45, "data_wait", duration_s=180), event("r", 62, "end")]
    segs = classify(at(0), at(90), "COMPLETED", ev)
    got = _by_state(segs)
    # setup 0→10; effective 10→60 minus ckpt 28→30 and stall 42→45; 60→62 unclassified; idle 62→90
    assert got == {S.SETUP: 10, S.EFFECTIVE: 45, S.CHECKPOINT: 2, S.DATA_STALL: 3, S.UNCLASSIFIED: 2,
                   S.ALLOCATED_IDLE: 28}
    assert segs[0].start == at(0) and segs[-1].end == at(90)
    assert all(a.end == b.start for a, b in zip(segs, segs[1:], strict=False))


def test_failed_run_loses_progress_after_last_checkpoint_and_hangs():
    ev = [*steps("r", 10, 50), event("r", 30, "checkpoint_saved", step=50, duration_s=60)]
    got = _by_state(classify(at(0), at(120), "NODE_FAIL", ev))
    # effective 10→30 (minus the 1-minute save), lost 30→50, hang 50→120
    assert got == {S.SETUP: 10, S.EFFECTIVE: 19, S.CHECKPOINT: 1, S.LOST_PROGRESS: 20, S.HANG: 70}


def test_a_requeued_allocation_loses_its_unsaved_work_like_a_failed_one():
    """Review 6 K17: ``sacct -D``'s earlier allocation of a requeued job ends REQUEUED; its steps after
    the last checkpoint are redone by the next allocation, so they are lost progress, not effective."""
    ev = [*steps("r", 10, 50), event("r", 30, "checkpoint_saved", step=50, duration_s=60)]
    assert _by_state(classify(at(0), at(120), "REQUEUED", ev)) == _by_state(classify(at(0), at(120), "NODE_FAIL", ev))
    assert S.LOST_PROGRESS not in _by_state(classify(at(0), at(120), "COMPLETED", ev))


def test_retry_after_preemption_and_a_stale_gap_mid_run():
    ev = [event("r", 20, "resume", step=50), *steps("r", 25, 40), *steps("r", 80, 90)]
    got = _by_state(classify(at(0), at(90), "COMPLETED", ev, after_preemption=True,
                             stale_gap=timedelta(minutes=15)))
    assert got[S.PREEMPTION_RECOVERY] == 20
    assert got[S.HANG] == 35  # 40 + one 5-minute interval → 80
    assert S.SETUP not in got


def test_no_progress_signal_is_never_called_effective():
    assert _by_state(classify(at(0), at(30), "COMPLETED", [])) == {S.UNCLASSIFIED: 30}
    assert classify(None, at(30), "CANCELLED", []) == []


def test_a_checkpoint_saved_after_the_last_step_sample_loses_nothing():
    # "log step N, then save step N": the save finishes after the last sample, then the node dies
    ev = [*steps("r", 10, 50), event("r", 52, "checkpoint_saved", step=90, duration_s=60)]
    got = _by_state(classify(at(0), at(55), "FAILED", ev))
    assert S.LOST_PROGRESS not in got
    assert got == {S.SETUP: 10, S.EFFECTIVE: 40, S.CHECKPOINT: 1, S.HANG: 4}  # save 51→52 inside the hang


def test_windows_from_another_analysis_enter_through_the_hook():
    """STRAGGLER_HOOK: a window found elsewhere (e.g. waiting on a straggler) takes its share of the
    effective span, and only that share; the timeline invents none by itself."""
    from datetime import timedelta as td

    from trainledger.engine.timeline import classify

    from .factories import at, event

    steps = [event("r", m, "step", step=m) for m in range(0, 61, 5)]
    plain = classify(at(0), at(60), "COMPLETED", steps)
    hooked = classify(at(0), at(60), "COMPLETED", steps, extra_layers=[("data_stall", at(20), at(30))])
    assert [(s.state.value, s.end - s.start) for s in hooked] == [
        ("effective", td(minutes=20)), ("data_stall", td(minutes=10)), ("effective", td(minutes=30))]
    assert [s.state.value for s in plain] == ["effective"]
