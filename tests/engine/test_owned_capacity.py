"""Owned and reserved capacity: a Slurm cluster with no cloud bill gets compute cost per state."""

import textwrap
from datetime import date
from decimal import Decimal

import pytest

from trainledger import workspace
from trainledger.engine import Facts, attribute
from trainledger.engine.capacity import parse
from trainledger.errors import ConfigError
from trainledger.model import Basis, Evidence
from trainledger.model.vocab import ComputeState as S

from .factories import BATCH_B2, CONFIG, T0, at, event, job, price_lookup

RATE_CARD = """
[[capacity]]
id = "own-a"
nodes = ["n1"]
gpus_per_node = 8
from = 2026-11-02T00:00:00Z
until = 2026-11-02T02:00:00Z
currency = "CNY"
rate = "100.00"
unit = "node_hour"
effective = 2026-10-01
source = "platform chargeback rate card FY2026"
owner = "platform: zhou"
"""

AMORTIZED = """
[[capacity]]
id = "own-b"
nodes = ["n1", "n2"]
gpus_per_node = 8
from = 2026-11-02T00:00:00Z
until = 2026-11-03T00:00:00Z
currency = "CNY"
source = "fixed-asset register"
owner = "finance"
[capacity.amortized]
purchase_price_per_node = "876000"
depreciation_years = 4
power_kw_per_node = "10"
power_price_per_kwh = "0.70"
hosting_per_node_month = "3650"
ops_staff_per_year = "175200"
"""


def _config(tmp_path, extra):
    (tmp_path / "trainledger.toml").write_text(textwrap.dedent(CONFIG) + textwrap.dedent(extra), encoding="utf-8")
    return workspace.load(tmp_path)


def test_a_rate_card_prices_an_owned_node_per_state(tmp_path):
    # 100.00 per node-hour = 12.50 per GPU-hour; two hours of an 8-GPU node: 200.00.
    # Job 100 holds 4 GPUs 0-90 min: setup 0-10 (4 × 10/60 × 12.50 = 8.33…), effective 10-90, so
    # 4 × 1.5 h = 6 GPU-hours = 75.00 to batch b1; the other 10 GPU-hours (125.00) no job held.
    cfg = _config(tmp_path, RATE_CARD)
    facts = Facts(jobs=(job("100", start=at(0), end=at(90), gpus=4),),
                  progress_events=tuple(event("100", m, "step", step=m) for m in range(10, 91, 5)))
    result = attribute(facts, cfg, price_lookup, T0.date())
    lines = [ln for ln in result.lines if ln.provenance.source_kind in ("config", "capacity")]
    assert {ln.basis for ln in lines} == {Basis.RATE_CARD}
    assert {ln.evidence for ln in lines} == {Evidence.ASSUMED}  # an internal rate card is not a contract
    b1 = [ln for ln in lines if ln.batch_id == "b1"]
    assert sum(ln.amount.expected for ln in b1) == Decimal("75.00")
    assert sum(ln.quantity for ln in b1) == Decimal(6)
    states = {ln.detail for ln in b1}
    assert states == {S.SETUP, S.EFFECTIVE}
    unheld = [ln for ln in lines if ln.batch_id is None]
    assert {ln.detail for ln in unheld} == {S.CAPACITY_UNHELD}
    assert sum(ln.amount.expected for ln in unheld) == Decimal("125.00")
    (rec,) = result.conservation_capacity
    assert rec == {"capacity": "own-a", "basis": "rate_card", "currency": "CNY", "price_per_gpu_hour": "12.50",
                   "total": "200.00", "attributed": "75.00", "unheld": "125.00", "job_without_batch": "0.00",
                   "unattributed": "125.00",
                   "unattributed_by_reason": [{"reason": "capacity_unheld", "detail": "node n1", "amount": "125.00"}],
                   "difference": "0.00",
                   # 8 GPUs × 2 h = 16 GPU-hours: 6 held by job 100, 10 no job held
                   "gpu_hours": {"total": "16", "held": "6", "unheld": "10", "oversubscribed": "0",
                                 "carried": "16", "difference": "0"}}
    assert result.conservation == []  # no cloud bill: nothing in the cash view
    assert not [p for p in result.problems if p.kind in ("conservation", "no_node_on_bill")]


def test_capacity_held_by_a_job_without_a_batch_is_not_unheld(tmp_path):
    # Job 100 (batch b1) holds 4 GPUs 0-90 min = 6 GPU-h = 75.00; job 200 (no batch: wckey nobody) holds
    # 2 GPUs 0-60 min = 2 GPU-h = 25.00 — held, not idle; the other 8 GPU-h (100.00) no job held.
    cfg = _config(tmp_path, RATE_CARD)
    facts = Facts(jobs=(job("100", start=at(0), end=at(90), gpus=4, row=1),
                        job("200", start=at(0), end=at(60), gpus=2, wckey="", row=2)))
    result = attribute(facts, cfg, price_lookup, T0.date())
    (rec,) = result.conservation_capacity
    assert (rec["attributed"], rec["unheld"], rec["job_without_batch"], rec["unattributed"]) == (
        "75.00", "100.00", "25.00", "125.00")
    assert rec["unattributed_by_reason"] == [
        {"reason": "capacity_unheld", "detail": "node n1", "amount": "100.00"},
        {"reason": "job_without_batch", "detail": "job 200", "amount": "25.00"}]
    assert rec["difference"] == "0.00"
    assert any(p.kind == "job_without_batch" and p.detail["job_id"] == "200" for p in result.problems)


def test_amortized_hardware_cost_per_gpu_hour_by_hand(tmp_path):
    # per node-hour: 876000 / (4 × 8760) = 25.00 purchase; 10 kW × 0.70 = 7.00 power;
    # 3650 / 730 = 5.00 hosting; 175200 / (8760 × 2 nodes) = 10.00 ops → 47.00 / 8 GPUs = 5.875
    cfg = _config(tmp_path, AMORTIZED)
    (cap,) = parse(cfg.raw["capacity"], "t")
    assert cap.price_per_gpu_hour == Decimal("5.8750") and cap.basis is Basis.AMORTIZED
    facts = Facts(jobs=(job("100", start=at(0), end=at(60), gpus=16, nodes="n1,n2"),))
    result = attribute(facts, cfg, price_lookup, T0.date())
    (rec,) = result.conservation_capacity
    assert Decimal(rec["total"]) == Decimal("2256")  # 5.875 × 16 GPUs × 24 h
    job_lines = [ln for ln in result.lines if ln.run_id == "100"]
    assert sum(ln.amount.expected for ln in job_lines) == Decimal("94.00")  # 16 GPU-hours × 5.875
    assert {ln.detail for ln in job_lines} == {S.UNCLASSIFIED}  # no progress signal: never effective
    assert {ln.evidence for ln in job_lines} == {Evidence.ASSUMED}
    assert Decimal(rec["attributed"]) + Decimal(rec["unheld"]) == Decimal(rec["total"])
    drawer = [a for a in result.assumptions if a.name.startswith("capacity own-b")]
    assert drawer and drawer[0].value == "5.8750" and "depreciation_years=4" in drawer[0].note


@pytest.mark.parametrize(("change", "message"), [
    ('rate = "1"', "give one of"),  # both rate and amortized
    ('bogus = 1', "unknown key"),
    ('until = 2026-11-01T00:00:00Z', "until must be after from"),
])
def test_bad_capacity_entries_are_config_errors(tmp_path, change, message):
    text = AMORTIZED.replace('currency = "CNY"', f'currency = "CNY"\n{change}')
    if change.startswith("until"):
        text = AMORTIZED.replace("until = 2026-11-03T00:00:00Z", change)
    with pytest.raises(ConfigError, match=message):  # on load (unknown keys) or on attribution (values)
        attribute(Facts(), _config(tmp_path, text), price_lookup, T0.date())


def test_an_assumed_rate_card_needs_an_owner(tmp_path):
    cfg = _config(tmp_path, RATE_CARD.replace('owner = "platform: zhou"\n', ""))
    with pytest.raises(ConfigError, match="owner"):
        attribute(Facts(), cfg, price_lookup, T0.date())


def test_an_open_period_is_charged_to_the_hour_the_cutoff_is_in(tmp_path):
    from datetime import datetime

    from trainledger.engine.capacity import capacity_rows

    cfg = _config(tmp_path, AMORTIZED)
    (cap,) = parse(cfg.raw["capacity"], "t")
    cutoff = datetime.fromisoformat("2026-11-02T05:20:31.123456+00:00")
    rows = list(capacity_rows(cap, cutoff))
    assert [(r["charge_period_start"].hour, r["charge_period_end"].hour) for _, _, r in rows] == [(0, 6), (0, 6)]
    assert {amount for _, amount, _ in rows} == {Decimal("5.8750") * 8 * 6}  # exact: 282.0000 per node


def test_a_price_book_rate_card_is_looked_up_per_day(tmp_path):
    """``price_item``: the price-book entry in force each day — 10.00 per GPU-hour on 11-02, 12.00 from
    11-03 (a new rate card) — with the entry's evidence; conservation per capacity still exact."""
    from datetime import date

    from trainledger.model import PriceEntry

    extra = AMORTIZED.split("[capacity.amortized]")[0].replace('id = "own-b"', 'id = "own-c"').replace(
        "until = 2026-11-03T00:00:00Z", "until = 2026-11-04T00:00:00Z") + 'price_item = "gpu_hour:own"\n'
    cfg = _config(tmp_path, extra)

    def lookup(item, on, unit):
        if item != "gpu_hour:own":
            return None
        price, eff = ("12.00", date(2026, 11, 3)) if on >= date(2026, 11, 3) else ("10.00", date(2026, 10, 1))
        return PriceEntry(item=item, unit="gpu_hour", price=price, currency="CNY", source="rate card v2",
                          effective=eff, evidence="measured")

    facts = Facts(jobs=(job("100", start=at(0), end=at(60), gpus=8, nodes="n1"),))
    from datetime import timedelta

    result = attribute(facts, cfg, lookup, T0.date() + timedelta(days=2))
    (rec,) = result.conservation_capacity
    assert Decimal(rec["total"]) == Decimal("10.00") * 16 * 24 + Decimal("12.00") * 16 * 24  # 2 nodes × 8 GPUs
    assert rec["difference"] == "0.00" and rec["price_per_gpu_hour"] == "gpu_hour:own"
    job_lines = [ln for ln in result.lines if ln.run_id == "100"]
    assert sum(ln.amount.expected for ln in job_lines) == Decimal("80.00")  # 8 GPU-hours on 11-02 at 10.00
    # unclassified (no progress signal): the cost is the entry's, split by measured GPU-seconds;
    # what is assumed is the state (the sheet's drawer), not the evidence of the amount
    assert {ln.evidence for ln in job_lines} == {Evidence.MEASURED}
    unheld = {ln.evidence for ln in result.lines if ln.batch_id is None}
    assert unheld == {Evidence.MEASURED}  # the entry's evidence, not stronger
    assert [a.value for a in result.assumptions if a.name.startswith("capacity own-c")] == ["10.00", "12.00"]


def test_runs_outside_the_capacitys_period_are_named_not_silently_unvalued(tmp_path):
    # G1: own-a is costed 00:00-02:00. Job 300 holds 4 GPUs 100-160 min: 40 min after `until`
    # (4 × 40/60 = 2.67 GPU-h); job 400 holds 4 GPUs 200-260 min, all outside (4 GPU-h): 6.67 GPU-h
    # not valued, 2 runs. Job 100 (0-90 min) is inside and not named.
    from trainledger.report.problems_i18n import message

    cfg = _config(tmp_path, RATE_CARD)
    facts = Facts(jobs=(job("100", start=at(0), end=at(90), gpus=4, row=1),
                        job("300", start=at(100), end=at(160), gpus=4, row=2),
                        job("400", start=at(200), end=at(260), gpus=4, row=3)))
    result = attribute(facts, cfg, price_lookup, T0.date())
    (p,) = [p for p in result.problems if p.kind == "capacity_period_misses_runs"]
    assert (p.detail["capacity"], p.detail["runs"], p.detail["gpu_hours"]) == ("own-a", 2, "6.67")
    assert p.detail["where"] == "n1" and "2026-11-02T02:00:00+00:00" in p.detail["period"]
    assert "100" not in p.detail["examples"] and "300" in p.detail["examples"]
    en, zh = (message({"kind": p.kind, "detail": p.detail}, lang) for lang in ("en", "zh-CN"))
    assert "own-a" in en and "6.67 GPU-hours there are not valued" in en
    assert "容量 own-a" in zh and "6.67 卡时未计价" in zh
    inside = attribute(Facts(jobs=(job("100", start=at(0), end=at(90), gpus=4),)), cfg, price_lookup, T0.date())
    assert not [p for p in inside.problems if p.kind == "capacity_period_misses_runs"]


DRIFT = BATCH_B2 + """
[[capacity]]
id = "own-c"
nodes = ["n1"]
gpus_per_node = 8
from = 2026-11-02T00:00:00Z
until = 2026-11-05T00:00:00Z
currency = "CNY"
rate = "12.50"
unit = "gpu_hour"
effective = 2026-10-01
source = "reserved-capacity contract"
owner = "procurement"
evidence = "contract"
"""


def test_a_rate_card_batch_costs_rate_times_its_gpu_hours_to_the_cent(tmp_path):
    # G3: 60 jobs of odd lengths (whole seconds, not minutes) over 3 days, two batches and jobs without a
    # batch, split per node and day: every run is 12.50 × its GPU-hours rounded to the cent (K2: the run is
    # the unit), a batch the sum of its runs — within half a cent per run of 12.50 × the batch's GPU-hours —
    # and the capacity still conserves exactly (3 days × 8 GPUs × 12.50 = 7,200.00).
    cfg = _config(tmp_path, DRIFT)
    jobs = tuple(job(str(1000 + k), start=at(k * 71.3), end=at(k * 71.3 + 23.7 + (k % 7) * 19.1),
                     gpus=1 + k % 3, wckey=("b1", "b2", "")[k % 3], row=k + 1) for k in range(60))
    result = attribute(Facts(jobs=jobs), cfg, price_lookup, date(2026, 11, 5))
    lines = [ln for ln in result.lines if ln.provenance.source_kind in ("config", "capacity")]
    groups: dict[str, list] = {}
    for ln in lines:
        if ln.quantity is not None and not str(ln.reason or "").startswith("capacity_unheld"):
            groups.setdefault(ln.run_id, []).append(ln)
    assert len(groups) == 60
    for g, ls in groups.items():  # by hand: rate × GPU-hours, half-even to the cent
        hours = sum(ln.quantity for ln in ls).quantize(Decimal("1e-9"))  # GPU-seconds / 3600 in 28 digits
        assert sum(ln.amount.expected for ln in ls) == (Decimal("12.50") * hours).quantize(Decimal("0.01")), g
    for b in ("b1", "b2"):
        mine = [ln for ls in groups.values() for ln in ls if ln.batch_id == b]
        runs = len({ln.run_id for ln in mine})
        exact = Decimal("12.50") * sum(ln.quantity for ln in mine)
        assert runs == 20 and abs(sum(ln.amount.expected for ln in mine) - exact) <= Decimal("0.005") * runs
    (rec,) = result.conservation_capacity
    assert rec["total"] == "7200.00" and rec["difference"] == "0.00"
    parts = Decimal(rec["attributed"]) + Decimal(rec["unheld"]) + Decimal(rec["job_without_batch"])
    assert parts == Decimal("7200.00") and sum(ln.amount.expected for ln in lines) == Decimal("7200.00")
    assert rec["gpu_hours"]["difference"] == "0"


def test_a_held_capacity_line_names_the_jobs_row_and_import(tmp_path):
    """J5: a line a job held is the job's row (its content, row and the import it came through), the
    capacity by id and the workspace file in its rule; the time no job held keeps the workspace file.
    The import key is the row's own (a second import of the same content: lake/rowkeys.py)."""
    cfg = _config(tmp_path, RATE_CARD)
    sha, second = "1" * 64, "2" * 64
    jobs = (job("100", start=at(0), end=at(90), gpus=4) | {"source_sha256": sha, "row": 7, "import_key": second},)
    result = attribute(Facts(jobs=jobs), cfg, price_lookup, T0.date())
    held = [ln for ln in result.lines if ln.basis is Basis.RATE_CARD and ln.batch_id]
    assert held and {(ln.provenance.source_sha256, ln.provenance.row, ln.provenance.import_key,
                      ln.provenance.source_kind) for ln in held} == {(sha, 7, second, "capacity")}
    assert all(ln.provenance.rule.startswith("capacity own-a (trainledger.toml row ") for ln in held)
    unheld = [ln for ln in result.lines if ln.basis is Basis.RATE_CARD and not ln.batch_id]
    assert unheld and {(ln.provenance.source_kind, ln.provenance.import_key) for ln in unheld} == {("config", "")}
    queued = [ln for ln in result.lines if ln.basis is Basis.QUEUED]
    assert all(ln.provenance.import_key == second for ln in queued)
    (rec,) = result.conservation_capacity  # the capacity still conserves, money and GPU-hours
    assert rec["difference"] == "0.00" and rec["gpu_hours"]["difference"] == "0"
    assert Decimal(rec["attributed"]) == Decimal("75.00") and Decimal(rec["total"]) == Decimal("200.00")
