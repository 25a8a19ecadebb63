"""K2: a rate-card run costs exactly ROUND(rate × its GPU-hours), and the capacity still conserves.

A run's capacity lines are per node and day (and state); before, a batch got rate × its GPU-hours and
spread that over its lines, so a run that crossed midnight drifted a cent or more from its own
ROUND(rate × GPU-hours). Now each run is the unit: its lines sum to its rounded value, a batch is the
sum of its runs, and the time no job held takes the remainder (largest remainder when it cannot).
"""

import textwrap
from datetime import date
from decimal import ROUND_HALF_EVEN, Decimal

from trainledger import workspace
from trainledger.engine import Facts, attribute

from .factories import BATCH_B2, CONFIG, at, job, price_lookup

CENT = Decimal("0.01")

CAPACITY = BATCH_B2 + """
[[capacity]]
id = "own-k"
nodes = ["n1", "n2"]
gpus_per_node = 8
from = 2026-11-02T00:00:00Z
until = 2026-11-05T00:00:00Z
currency = "CNY"
rate = "{rate}"
unit = "gpu_hour"
effective = 2026-10-01
source = "reserved-capacity contract"
owner = "procurement"
evidence = "contract"
"""


def _attribute(tmp_path, jobs, rate="12.37"):
    (tmp_path / "trainledger.toml").write_text(
        textwrap.dedent(CONFIG) + textwrap.dedent(CAPACITY).replace("{rate}", rate), encoding="utf-8")
    return attribute(Facts(jobs=jobs), workspace.load(tmp_path), price_lookup, date(2026, 11, 5))


def _capacity_lines(result):
    return [ln for ln in result.lines if ln.provenance.source_kind in ("config", "capacity")]


def _by_run(lines):
    runs: dict[str, list] = {}
    for ln in lines:
        if ln.quantity is not None and ln.run_id and not str(ln.reason or "").startswith("capacity_unheld"):
            runs.setdefault(ln.run_id, []).append(ln)
    return runs


def _long_jobs(n=24, node_of=lambda k: ("n1", "n2")[k % 2]):
    # odd lengths of 9-40 hours, so most runs cross one or two midnights (a line per day)
    return tuple(job(str(2000 + k), start=at(k * 131.7), end=at(k * 131.7 + 547.3 + (k % 5) * 401.9),
                     gpus=1 + k % 3, nodes=node_of(k), wckey=("b1", "b2", "")[k % 3], row=k + 1)
                 for k in range(n))


def test_each_run_is_rate_times_its_gpu_hours_and_the_capacity_conserves(tmp_path):
    result = _attribute(tmp_path, _long_jobs())
    lines = _capacity_lines(result)
    runs = _by_run(lines)
    assert len(runs) == 24 and sum(len(ls) > 1 for ls in runs.values()) > 12  # most runs: several lines
    for run, ls in runs.items():  # by hand: 12.37 × GPU-hours, half-even to the cent
        hours = sum(ln.quantity for ln in ls).quantize(Decimal("1e-9"))
        assert sum(ln.amount.expected for ln in ls) == (Decimal("12.37") * hours).quantize(CENT, ROUND_HALF_EVEN), run
    batches: dict[str, Decimal] = {}
    for ls in runs.values():
        for ln in ls:
            if ln.batch_id:
                batches[ln.batch_id] = batches.get(ln.batch_id, Decimal(0)) + ln.amount.expected
    assert set(batches) == {"b1", "b2"}
    (rec,) = result.conservation_capacity  # 2 nodes × 8 GPUs × 72 h × 12.37 = 14,250.24
    assert rec["total"] == "14250.24" and rec["difference"] == "0.00"
    assert Decimal(rec["attributed"]) == sum(batches.values())
    assert sum(ln.amount.expected for ln in lines) == Decimal("14250.24")
    assert rec["gpu_hours"]["difference"] == "0"


def test_a_fully_held_capacity_splits_its_total_over_the_runs_by_largest_remainder(tmp_path):
    # every GPU held for the whole period: nothing unheld takes a remainder, so the total (14,250.24) goes to
    # the runs by largest remainder of their exact worths. Runs 2, 3 and 4 share half of n1 one after the
    # other: 412.333…, 412.333… and 2,737.893… round to a cent less than their 3,562.56, so one of them
    # takes that cent — each run within a cent of its rate × hours, the capacity exact.
    jobs = (job("1", start=at(0), end=at(72 * 60), gpus=4, nodes="n1", wckey="b1", row=1),
            job("2", start=at(0), end=at(500), gpus=4, nodes="n1", wckey="b1", row=2),
            job("3", start=at(500), end=at(1000), gpus=4, nodes="n1", wckey="b2", row=3),
            job("4", start=at(1000), end=at(72 * 60), gpus=4, nodes="n1", wckey="", row=4),
            job("5", start=at(0), end=at(72 * 60), gpus=8, nodes="n2", wckey="b2", row=5))
    result = _attribute(tmp_path, jobs)
    runs = _by_run(_capacity_lines(result))
    got = {run: sum(ln.amount.expected for ln in ls) for run, ls in runs.items()}
    exact = {run: Decimal("12.37") * sum(ln.quantity for ln in ls) for run, ls in runs.items()}
    assert sum(got.values()) == Decimal("14250.24")
    assert all(abs(got[r] - exact[r]) < CENT for r in got)
    off = [r for r in got if got[r] != exact[r].quantize(CENT, ROUND_HALF_EVEN)]
    assert len(off) == 1 and off[0] in {"2", "3", "4"}
    (rec,) = result.conservation_capacity
    assert rec["total"] == "14250.24" and rec["difference"] == "0.00" and rec["unheld"] == "0.00"


def test_runs_rounding_up_past_the_unheld_time_split_the_total_by_largest_remainder():
    # two runs of 8.4 GPU-hours at 0.04 (0.336 each: 0.34 rounded) and 0.025 GPU-hours no job held (0.001):
    # the rounded runs (0.68) exceed the capacity (0.673), so the total goes by largest remainder of the
    # exact worths — the runs 0.336 each, the time no job held 0.001: nothing below zero, the sum exact
    from trainledger.engine.capacity_exact import exact_rate_card
    from trainledger.model import AmountRange, Basis, CostLine, Evidence, Provenance

    def line(amount, hours, run=None, batch=None):
        a = Decimal(amount)
        return CostLine(category="compute", basis=Basis.RATE_CARD, evidence=Evidence.ASSUMED,
                        amount=AmountRange(a, a, a, "CNY"), provenance=Provenance("c" * 64, 1, "capacity", "config"),
                        batch_id=batch, run_id=run, quantity=Decimal(hours), unit="gpu_hour", detail="effective",
                        reason="" if run else "capacity_unheld: node n1")

    lines = [line("0.336", "8.4", "r1", "b1"), line("0.336", "8.4", "r2", "b2"), line("0.001", "0.025")]
    got = [ln.amount.expected for ln in exact_rate_card(lines, {1: Decimal("0.04")}, "CNY")]
    assert got == [Decimal("0.336"), Decimal("0.336"), Decimal("0.001")] and sum(got) == Decimal("0.673")
    # when the time no job held can take the remainder, each run is its rate × hours to the cent
    lines[2] = line("0.014", "0.35")
    got = [ln.amount.expected for ln in exact_rate_card(lines, {1: Decimal("0.04")}, "CNY")]
    assert got == [Decimal("0.34"), Decimal("0.34"), Decimal("0.006")]
