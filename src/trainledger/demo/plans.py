"""The demo's plan / execution / review / decision loop (seed 000: 计划、执行和复盘要三次更新估算).

Before the attribution, batch A gets a baseline from an estimate spec (``plans/spec-a.toml``, the
estimator's ``--from`` format plus a ``[plan]`` table). The attribution then raises the alerts the
figures call for (the demo imports the whole period at once, so every bound it crosses is crossed at
that one attribution). After it, batch A's alerts are answered by a decision — retarget to batch B,
which carries A's checkpoints and eval set over, overriding the rules' verdict with a second
approver — and batch B's baseline is seeded from A's review (measured efficiency, rework and price).
B's alerts stay open: its sheet shows them awaiting a decision. Re-running the demo changes nothing.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

from trainledger import fmt
from trainledger.demo import config
from trainledger.demo.scenario import BATCH_A, BATCH_B
from trainledger.review.baseline import spread
from trainledger.review.variance import PARTS

SPEC_A = """\
# batch A's plan baseline: the estimator's --from spec, plus the plan's own [plan] table
name = "csa-sft-2026-11-a"
task = "full_finetune"
params = "7B"
tokens = "5.5G"            # one final run: ~3 epochs of the 10-31 snapshot
gpu = "h800"
gpus = 16
rounds = "2..3..4"         # final-run equivalents, sweeps included
currency = "CNY"
price_book = "plan-prices.toml"
on = "2026-11-02"
samples = 4000

[data]
licensing = [0, 0, 0]
cleaning_person_months = [0, 0, 0]
labelled_items = [0, 0, 0]
eval_items = [0, 0, 0]

[labor.build]
training_engineering = [0.05, 0.1, 0.2]
[labor.run]
training_engineering = [0.02, 0.04, 0.06]
business_eval = [0.01, 0.02, 0.04]

[plan]
max_rounds = 16
[plan.rework]               # rerun GPU-hours as a share of the first-pass GPU-hours
fault_retry = [0.02, 0.05, 0.10]
data_fix = [0, 0.02, 0.05]
[plan.labor_rework]         # hours
platform_support = [2, 4, 8]
[plan.storage]              # GiB-months kept over the batch, and kept past retention dates
item = "storage:standard"
gib_months = [800, 1500, 2500]
retention_rework = [0, 0, 50]
[[plan.curves]]             # a progress metric's planned curve over the share of planned work
metric = "loss"
better = "lower"
points = [[0.1, 1.2], [0.5, 0.8], [1.0, 0.5]]
[[plan.gates]]
id = "half"
at_work = 0.5
min_spend = "10000"
[[plan.rules]]
id = "same-fault-twice"
when = ["rework_share > 0.15", "same_cause_max >= 2"]
action = "review"
[[plan.rules]]
id = "over-budget"
when = ["eac_over_plan > 0.3"]
action = "shrink"
[[plan.assumptions]]
name = "eval-v3 reflects the current refund policy"
owner = "business: zhou.qi"
value = "yes, to be confirmed on the first candidate"
[[plan.assumptions]]
name = "H800 rental price holds for November"
owner = "finance: zhao.min"
value = "36.00 CNY per GPU-hour"
"""

def price_book() -> str:
    """The demo's price book plus the workspace's hourly labor rates (per person-hour: the workspace's
    ``[[labor_rates]]`` win inside the workspace; these serve a plan made outside it) and data item
    prices (CNY), which the estimator needs to price a plan."""
    out = [config.render_price_book().rstrip("\n"), "",
           "# plan-only entries (illustrative): the rate card's hourly rates, and data work"]
    for role, lo, mid, hi, src, src_zh, ev, owner in config.LABOR_RATES:
        out += ["", "[[price]]", f'item = "labor:{role}"', 'unit = "person_hour"', f'price = "{mid}"',
                f'low = "{lo}"', f'high = "{hi}"', 'currency = "CNY"', f'source = "{src}"',
                f'source_zh = "{src_zh}"',
                "effective = 2026-11-01", "expires = 2027-03-31", f'evidence = "{ev}"', f'owner = "{owner}"']
    for item, p, lo, hi in (("data:label_item", "2", "0.5", "10"), ("data:review_item", "0.5", "0.1", "2")):
        out += ["", "[[price]]", f'item = "{item}"', 'unit = "item"', f'price = "{p}"', f'low = "{lo}"',
                f'high = "{hi}"', 'currency = "CNY"', f'source = "{config.DEMO_SOURCE}"',
                f'source_zh = "{config.DEMO_SOURCE_ZH}"',
                "effective = 2026-11-01", "expires = 2027-03-31", 'evidence = "assumed"',
                'owner = "data lead: chen.yu"']
    return "\n".join(out) + "\n"


def write_specs(directory: Path) -> Path:
    d = Path(directory) / "plans"
    d.mkdir(parents=True, exist_ok=True)
    (d / "plan-prices.toml").write_text(price_book(), encoding="utf-8")
    spec = d / "spec-a.toml"
    spec.write_text(SPEC_A, encoding="utf-8")
    return spec


def _t(msg_id: str, **params) -> str:
    """A demo line in the language of the running command (trainledger/i18n); codes (bases, actions)
    as their labels in Chinese; ``totals`` is a list of (basis, amount)."""
    import click

    from trainledger.i18n import choose, text
    from trainledger.model.vocab import label

    lang = choose.of(click.get_current_context(silent=True))
    say = (lambda v: v) if lang == "en" else (lambda v: label(v, lang))
    params = {k: say(v) if k in ("action", "rules") else v for k, v in params.items()}
    if "totals" in params:
        params["totals"] = ("; " if lang == "en" else "；").join(f"{say(b)} {a}" for b, a in params["totals"])
    return text(msg_id, lang, **params)


def before_attribution(wsp, directory: Path, echo) -> None:
    from trainledger.ledger import review_repo
    from trainledger.review import service

    spec = write_specs(directory)
    wsp.sync_config()
    if not review_repo.plan_versions(wsp.ledger, BATCH_A):
        _id, plan = service.make_plan(wsp, BATCH_A, str(spec), reason="first baseline (demo)", author="wang.lei")
        totals = [(b, f"{fmt.amount(v.expected, c)} {c}") for (b, c), v in sorted(plan.totals().items())]
        echo(_t("cli.demo.plan", batch=BATCH_A, version=plan.version, totals=totals))


def after_attribution(wsp, echo) -> None:
    from trainledger.ledger import review_repo
    from trainledger.review import service

    open_a = [a["id"] for a in service.alerts(wsp, BATCH_A, open_only=True)]
    if open_a and not review_repo.decision_rows(wsp.ledger, BATCH_A):
        d = service.decide(wsp, BATCH_A, action="retarget", by="wang.lei", approver="li.na", answers=open_a,
                           reason="eval-v3 shows stale refund-policy replies: the data, not the training, is"
                                  " wrong; retarget to batch B on the fixed snapshot, carrying the checkpoints"
                                  " and eval set over / 评测显示退款政策样本过期，问题在数据而非训练：重定目标到"
                                  "批次 B（修正后的数据），沿用检查点与评测集",
                           next_review=date(2026, 11, 16), today=date(2026, 11, 6), child=BATCH_B)
        echo(_t("cli.demo.decide", batch=BATCH_A, action=d["action"], rules=d["verdict"]["action"],
                approver=d["approver"], answers=d["answers"]))
    if not review_repo.plan_versions(wsp.ledger, BATCH_B):
        _pid, plan_a = service.latest_plan(wsp, BATCH_A)
        done_a = service.actuals(wsp, plan_a).work
        scale = Decimal(wsp.config.batch(BATCH_B).max_rounds) / Decimal(plan_a.max_rounds)
        work = spread(plan_a.work, (done_a * scale).quantize(Decimal("0.000001")))
        _id, plan = service.plan_from_review(
            wsp, BATCH_B, BATCH_A, author="wang.lei", work=work,
            reason=f"A's measured efficiency, rework and price; work = A's useful work x {scale} (max rounds"
                   f" {wsp.config.batch(BATCH_B).max_rounds} / {plan_a.max_rounds}) / 沿用 A 的实测效率、返工与价格，"
                   "工作量按最大轮数比例放大")
        service.check(wsp, BATCH_B)
        echo(_t("cli.demo.plan_from_review", batch=BATCH_B, version=plan.version, source=BATCH_A,
                work=fmt.quantity(work.expected, 2)))
    rv = service.review(wsp, BATCH_A)
    _pid, plan_a = service.latest_plan(wsp, BATCH_A)
    bases = {str(ln.basis) for ln in plan_a.lines if ln.category == "compute"}  # billed, or the capacity's
    for v in rv["variance"]:
        if v["basis"] in bases:
            r = {k: fmt.amount(Decimal(v[k]), v["currency"]) for k in ("plan", "actual", *PARTS)}
            if v["basis"] == "billed":
                echo(_t("cli.demo.review", batch=BATCH_A, currency=v["currency"], **r))
            else:
                echo(_t("cli.demo.review_on", batch=BATCH_A, basis=v["basis"], currency=v["currency"], **r))
    echo(_t("cli.demo.open_alerts", n=len(service.alerts(wsp, open_only=True))))
