"""jobs, occupancy and steps: summaries of what schedulers and workers recorded (lake only, no ledger)."""

from __future__ import annotations

import json
from datetime import UTC

import click

from trainledger import workspace as ws
from trainledger.errors import BadInput

TEXT = {
    "en": {
        "jobs": "jobs", "attempts": "attempts", "never_started": "never started",
        "open": "started, not ended", "queue": "queue (start − eligible, else − submit) over {n} started attempts",
        "wait": "never started, given up after waiting (submit → end), {n} jobs",
        "wait_open": "never started, no end: {n} jobs whose wait is in no queued figure (not PENDING, no submit"
                     " time, or eligible only after the cutoff)",
        "wait_so_far": "still pending, waited so far (eligible, else submit → {cut}), {n} jobs",
        "cutoff": "the cutoff {cut}: {why}",
        "queued_h": "queued GPU-hours, as the sheets' queued rows count them (valued or not): {total} = started"
                    " attempts' queue {started} + given up before starting {given_up} + still pending, to the"
                    " cutoff {pending}",
        "open_h": "of which {n} open attempts (started, not ended), each counted to where attribute cuts it"
                  " (Start + Elapsed from the export, else the cutoff {cut}): {h}",
        "gpu_hours": "GPU-hours (fractional GPUs pro rata)",
        "whole": "if every GPU touched counted whole", "by_state": "by the job's final state",
        "by_attempt": "by each attempt's own end state (requeued, preempted, failed attempts apart)",
        "occ": "occupancy", "samples": "samples", "hours": "hours covered", "idle": "idle {u}-hours",
        "pending": "pending {u}-hours", "pending_idle": "demand left waiting while capacity was idle",
        "running": "running {u}-hours", "total": "capacity {u}-hours", "none": "(none imported)",
        "steps": "jobs with per-worker step times", "barrier": "share of worker time waiting at the barrier",
        "stats": "mean {mean} s, p50 {p50}, p90 {p90}", "p99": ", p99 {p99}", "gaps": "gaps",
        "step_line": "{workers} workers, {complete} iterations (+{incomplete} incomplete)", "slowest": "slowest",
    },
    "zh-CN": {
        "jobs": "作业数", "attempts": "尝试数", "never_started": "从未启动",
        "open": "已启动未结束", "queue": "排队时长（启动 − 可调度时刻，无则 − 提交），{n} 次已启动尝试",
        "wait": "从未启动、等待后放弃（提交 → 结束）的作业，{n} 个",
        "wait_open": "从未启动、无结束时间：{n} 个作业的等待不计入任何排队数字（非 PENDING、无提交时间，"
                     "或截止时刻之后才可调度）",
        "wait_so_far": "仍在排队、至今已等待（可调度时刻，无则提交 → {cut}）的作业，{n} 个",
        "cutoff": "截止时刻 {cut}：{why}",
        "queued_h": "排队卡时（与底稿排队行的计法相同，无论是否计价）：{total} = 已启动尝试的排队 {started}"
                    " + 启动前放弃 {given_up} + 仍在排队、计至截止时刻 {pending}",
        "open_h": "其中 {n} 次未结束的尝试（已启动未结束），各计至 attribute 的截止点"
                  "（导出中的 Start + Elapsed，无则截止时刻 {cut}）：{h}",
        "gpu_hours": "卡时（分数 GPU 按比例）",
        "whole": "若按整卡计", "by_state": "按作业最终状态",
        "by_attempt": "按每次尝试自身的结束状态（重新排队、被抢占、失败的尝试单列）",
        "occ": "占用序列", "samples": "采样点", "hours": "覆盖小时", "idle": "空闲{u}小时",
        "pending": "排队{u}小时", "pending_idle": "有空闲容量时仍在排队的需求",
        "running": "运行{u}小时", "total": "容量{u}小时", "none": "（尚未导入）",
        "steps": "有逐 worker 步时的作业", "barrier": "worker 在同步屏障处等待的时间占比",
        "stats": "均值 {mean} 秒，p50 {p50}，p90 {p90}", "p99": "，p99 {p99}", "gaps": "缺口",
        "step_line": "{workers} 个 worker，{complete} 次迭代（另有 {incomplete} 次未完成）", "slowest": "最慢",
    },
}  # fmt: skip


def _lake(ctx: click.Context):
    from trainledger.lake import Lake

    config = ws.load(ctx.obj["workspace"])
    return Lake(config.root / "lake"), config.get("workspace.language")


def _lang(lang: str | None, default: str) -> dict[str, str]:
    return TEXT.get(lang or default, TEXT["en"])


def _s(x) -> str:
    return "–" if x is None else f"{x:g}"


@click.command("jobs")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
@click.option("--cluster", default=None, help="Only the jobs of this cluster.")
@click.option("--lang", type=click.Choice(["en", "zh-CN"]), default=None, help="Default: the workspace language.")
@click.pass_context
def jobs(ctx: click.Context, as_json: bool, cluster: str | None, lang: str | None) -> None:
    """Summary of imported scheduler jobs. / 已导入调度作业的汇总。"""
    from trainledger.analysis.jobs import clusters, job_summary
    from trainledger.engine import asof

    lake, default = _lake(ctx)
    if cluster is not None and cluster not in (known := clusters(lake)):
        raise BadInput(f"no imported job names cluster {cluster!r}",
                       remedy=f"clusters of the imported jobs: {', '.join(repr(c) for c in known if c) or 'none'}")
    s = job_summary(lake, cluster)
    if as_json:
        click.echo(json.dumps(s.as_json(), ensure_ascii=False))
        return
    t = _lang(lang, default)
    lang_no = 1 if (lang or default) == "zh-CN" else 0  # engine/asof.py WHY: (en, zh-CN)
    q, w = s.queue_seconds, s.never_started_wait_seconds
    click.echo(f"{t['jobs']}: {s.jobs}   {t['attempts']}: {s.attempts}   {t['never_started']}: {s.never_started}"
               f"   {t['open']}: {s.open_attempts}")
    click.echo(f"{t['queue'].format(n=q.count)}: {t['stats'].format(mean=_s(q.mean), p50=_s(q.p50), p90=_s(q.p90))}"
               + t["p99"].format(p99=_s(q.p99)))
    if w.count:  # a wait is known only for jobs given up (an End); a pending job has none yet
        click.echo(f"{t['wait'].format(n=w.count)}: {t['stats'].format(mean=_s(w.mean), p50=_s(w.p50), p90=_s(w.p90))}")
    p = s.pending_wait_seconds
    cut = s.cutoff.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC") if s.cutoff else "–"
    if p.count:  # the engine's queued figure counts their wait to the cutoff: so does this
        click.echo(f"{t['wait_so_far'].format(cut=cut, n=p.count)}: "
                   f"{t['stats'].format(mean=_s(p.mean), p50=_s(p.p50), p90=_s(p.p90))}")
    if s.never_started > w.count + p.count:
        click.echo(t["wait_open"].format(n=s.never_started - w.count - p.count))
    if p.count or s.open_attempts:
        click.echo("  " + t["cutoff"].format(cut=cut, why=asof.WHY[asof.LATEST_FACT][lang_no]))
    click.echo(t["queued_h"].format(total=s.queued_gpu_hours, started=s.started_queued_gpu_hours,
                                    given_up=s.given_up_queued_gpu_hours, pending=s.pending_queued_gpu_hours))
    click.echo(f"{t['gpu_hours']}: {s.gpu_hours}   ({t['whole']}: {s.whole_gpu_hours})")
    if s.open_attempts:
        click.echo("  " + t["open_h"].format(n=s.open_attempts, cut=cut, h=s.open_gpu_hours))
    for state, h in s.gpu_hours_by_final_state:
        click.echo(f"  {t['by_state']} {state}: {h}")
    if s.gpu_hours_by_attempt_state != s.gpu_hours_by_final_state:  # some attempt ended otherwise than its job
        for state, h in s.gpu_hours_by_attempt_state:
            click.echo(f"  {t['by_attempt']} {state}: {h}")


@click.command("occupancy")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per series, in a list.")
@click.option("--lang", type=click.Choice(["en", "zh-CN"]), default=None, help="Default: the workspace language.")
@click.pass_context
def occupancy(ctx: click.Context, as_json: bool, lang: str | None) -> None:
    """Idle capacity and waiting demand from occupancy series. / 占用序列：空闲容量与排队需求。"""
    from trainledger.analysis.occupancy import occupancy_summary

    lake, default = _lake(ctx)
    series = occupancy_summary(lake)
    if as_json:
        click.echo(json.dumps([s.as_json() for s in series], ensure_ascii=False))
        return
    t = _lang(lang, default)
    if not series:
        click.echo(f"{t['occ']}: {t['none']}")
    for s in series:
        u = s.unit.upper() if s.unit == "gpu" else s.unit
        click.echo(f"{t['occ']} {s.cluster}/{s.vc or '*'} ({s.first:%Y-%m-%d %H:%M} – {s.last:%Y-%m-%d %H:%M} UTC):"
                   f" {t['samples']} {s.samples}, {t['hours']} {s.covered_hours}, {t['gaps']} {s.gaps}")
        for key, value in (("total", s.capacity_hours), ("running", s.running_hours), ("idle", s.idle_hours),
                           ("pending", s.pending_hours)):
            click.echo(f"  {t[key].format(u=u)}: {'–' if value is None else value}")
        pwi = "–" if s.pending_while_idle_hours is None else s.pending_while_idle_hours
        click.echo(f"  {t['pending_idle']} ({u}-h): {pwi}")


@click.command("steps")
@click.option("--job", default=None, help="Only this job.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per job, in a list.")
@click.option("--lang", type=click.Choice(["en", "zh-CN"]), default=None, help="Default: the workspace language.")
@click.pass_context
def steps(ctx: click.Context, job: str | None, as_json: bool, lang: str | None) -> None:
    """Waiting at the iteration barrier, from per-worker step times. / 同步屏障等待（慢节点）。"""
    from trainledger.analysis.stragglers import barrier_wait

    lake, default = _lake(ctx)
    found = barrier_wait(lake, job)
    if as_json:
        click.echo(json.dumps([s.as_json() for s in found], ensure_ascii=False))
        return
    t = _lang(lang, default)
    click.echo(f"{t['steps']}: {len(found) or t['none']}")
    for s in found:
        share = "–" if s.share is None else f"{s.share:.2%}"
        slow = ", ".join(f"{w} ({n})" for w, n in s.slowest)
        line = t["step_line"].format(workers=s.workers, complete=s.complete, incomplete=s.incomplete)
        click.echo(f"  {s.job}: {line}; {t['barrier']}: {share}; {t['slowest']}: {slow}")


COMMANDS = (jobs, occupancy, steps)
