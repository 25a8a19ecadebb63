"""A batch on cloud GPUs (a FOCUS bill) AND owned capacity (a [[capacity]] rate card): the plan
prices each part on its own basis, split by the planned or measured share of GPU-hours, and status /
review compare each basis with its own actuals — never a sum of bases.

The workspace, by hand: batch ``mix-a`` runs job 501 on ``cloud-01`` (8 GPUs, 10:00–12:00 UTC:
16 GPU-h, billed 2 × 256.00 = 512.00 by the bill) and job 502 on ``own-01`` (8 GPUs, 10:00–13:00:
24 GPU-h) — a rate card of 20.00 CNY per GPU-hour over 10:00–14:00 (32 GPU-h = 640.00: 480.00 held
by the batch, 160.00 no job held). Measured share: billed 16 / 40 = 0.4, rate card 24 / 40 = 0.6."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from trainledger.errors import BadInput
from trainledger.review import service
from trainledger.service import Workspace

SACCT = """JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|NodeList|Restarts
501|mix-cloud|ml|mix-a||alice|2026-11-10T10:00:00|2026-11-10T10:00:00|2026-11-10T10:00:00|2026-11-10T12:00:00|COMPLETED|0:0|billing=64,cpu=64,gres/gpu:a100=8,mem=500G,node=1|cloud-01|0
502|mix-own|ml|mix-a||alice|2026-11-10T10:00:00|2026-11-10T10:00:00|2026-11-10T10:00:00|2026-11-10T13:00:00|COMPLETED|0:0|billing=64,cpu=64,gres/gpu:a100=8,mem=500G,node=1|own-01|0
"""
FOCUS_HEAD = ("BilledCost,BillingCurrency,BillingPeriodStart,BillingPeriodEnd,ChargeCategory,ChargePeriodStart,"
              "ChargePeriodEnd,ConsumedQuantity,ConsumedUnit,EffectiveCost,ListCost,ProviderName,ResourceId,"
              "ServiceCategory,ServiceName,Tags")
FOCUS_ROW = ("256.00,CNY,2026-11-01T00:00:00Z,2026-12-01T00:00:00Z,Usage,2026-11-10T{a}:00:00Z,2026-11-10T{b}:00:00Z,"
             "1,Hours,256.00,256.00,Cloud,cloud-01,Compute,GPU instance,\"{{}}\"")
CONFIG = """
[[projects]]
id = "llm"
name = "LLM"
goal = "ship"
owner = "alice"

[[batches]]
id = "mix-a"
project = "llm"
name = "mixed"
goal = "g"
data_snapshot = "d1"
data_processing_version = "p1"
model_version = "m1"
code_version = "c1"
config_version = "cf1"
team = "t"
owner = "alice"

[[rules]]
id = "slurm-wckey"
source = "slurm"
field = "wckey"
match = "template"

[[capacity]]
id = "own-rack"
nodes = ["own-01"]
gpus_per_node = 8
from = 2026-11-10T10:00:00Z
until = 2026-11-10T14:00:00Z
currency = "CNY"
rate = "20.00"
unit = "gpu_hour"
effective = 2026-11-01
source = "internal chargeback card"
owner = "platform: bo"
evidence = "contract"
"""
PRICES = (Path(__file__).resolve().parents[1] / "data" / "rv3" / "ws2-prices.toml").read_text(encoding="utf-8")
# (gpu_hour:a100-80gb at 256.00 per node-hour of 8 GPUs = 32.00 per GPU-hour; labor rates; USD/CNY)
SPEC = """name = "mix-a"
task = "full_finetune"
params = "7B"
tokens = "200M"
gpu = "a100-80gb"
gpus = 8
rounds = "1..2..3"
currency = "CNY"
price_book = "prices.toml"
on = "2026-11-09"
"""


def mixed_workspace(tmp_path, *, bill: bool = True, attributed: bool = True):
    """The workspace: the sacct of jobs 501 (cloud-01) and 502 (own rack), and the FOCUS bill of
    cloud-01's two node-hours (``bill``), attributed (``attributed``)."""
    root = tmp_path / "ws"
    with Workspace.init(root, currency="CNY"):
        pass
    cfg = (root / "trainledger.toml").read_text(encoding="utf-8")
    cfg = cfg.replace('price_book = ""', 'price_book = "prices.toml"').replace(
        'gpu_item = ""', 'gpu_item = "gpu_hour:a100-80gb"')
    (root / "trainledger.toml").write_text(cfg + CONFIG, encoding="utf-8")
    (root / "prices.toml").write_text(PRICES, encoding="utf-8")
    (root / "spec.toml").write_text(SPEC, encoding="utf-8")
    (tmp_path / "sacct.txt").write_text(SACCT, encoding="utf-8")
    (tmp_path / "bill.csv").write_text("\n".join([FOCUS_HEAD, FOCUS_ROW.format(a=10, b=11),
                                                  FOCUS_ROW.format(a=11, b=12)]) + "\n", encoding="utf-8")
    with Workspace.open(root) as wsp:
        wsp.import_files("slurm", [tmp_path / "sacct.txt"])
        if bill:
            wsp.import_files("focus", [tmp_path / "bill.csv"])
        if attributed:
            wsp.attribute()
    return root


@pytest.fixture
def mixed(tmp_path):
    return mixed_workspace(tmp_path)


def _compute(plan) -> dict:
    return {str(ln.basis): ln for ln in plan.lines if ln.category == "compute"}


def test_the_workspace_is_what_the_hand_says(mixed):
    with Workspace.open(mixed) as wsp:
        lines = [ln for ln in wsp.ledger.cost_lines("mix-a") if ln.category == "compute"]
    money, hours = {}, {}
    for ln in lines:
        b = str(ln.basis)
        money[b] = money.get(b, Decimal(0)) + ln.amount.expected
        hours[b] = hours.get(b, Decimal(0)) + (ln.quantity or 0)
    assert money == {"billed": Decimal("512.00"), "rate_card": Decimal("480.00")}
    assert {b: h.quantize(Decimal("0.000001")) for b, h in hours.items()} == {"billed": 16, "rate_card": 24}


def test_a_plan_made_after_attribution_takes_the_measured_share_and_each_basis_its_own_price(mixed):
    with Workspace.open(mixed) as wsp:
        _pid, plan = service.make_plan(wsp, "mix-a", str(mixed / "spec.toml"), reason="", author="t")
        comp = _compute(plan)
        assert set(comp) == {"billed", "rate_card"}  # the old plan had rate_card only: billed unplanned
        assert comp["billed"].id == "compute" and comp["rate_card"].id == "compute:rate_card"
        assert comp["billed"].price.expected == 32 and comp["rate_card"].price.expected == 20
        qb, qr = (comp[b].quantity(plan.work, "expected") for b in ("billed", "rate_card"))
        whole = qb + qr
        assert qb == whole * Decimal("0.4") and qr == whole * Decimal("0.6")  # 16 : 24 GPU-h measured
        assert comp["billed"].evidence["share"]["evidence"] == "measured"
        assert "billed 16.00, rate_card 24.00" in comp["billed"].evidence["share"]["source"]
        totals = {b: v.expected for (b, _c), v in plan.totals().items()}
        assert totals["billed"] == 32 * qb and totals["rate_card"] == 20 * qr  # never one summed number
        st = service.status(wsp, "mix-a")
        rv = service.review(wsp, "mix-a")
    ac = {r["basis"]: Decimal(r["expected"]) for r in st["ac"]}
    assert ac == {"billed": Decimal("512.00"), "rate_card": Decimal("480.00")}  # each basis its own actuals
    pl = {r["basis"]: Decimal(r["expected"]) for r in st["plan"]}
    assert pl["billed"] == 32 * qb and pl["rate_card"] == 20 * qr
    rows = {r["basis"]: r for r in rv["variance"]}
    assert set(rows) >= {"billed", "rate_card"}
    for basis, actual, price, q in (("billed", "512.00", 32, qb), ("rate_card", "480.00", 20, qr)):
        r = rows[basis]
        assert Decimal(r["actual"]) == Decimal(actual)
        assert Decimal(r["plan"]).quantize(Decimal("0.01")) == (price * q).quantize(Decimal("0.01"))
        parts = sum(Decimal(r[k]) for k in ("price", "volume", "efficiency", "rework", "other", "not_split"))
        assert parts == Decimal(r["actual"]) - Decimal(r["plan"])
        assert abs(Decimal(r["price"])) < Decimal("0.005")  # 512 / 16 = 32, 480 / 24 = 20: each at its plan price
    hours = {h["state"]: Decimal(h["actual"]) for h in st["gpu_hours_by_state"]}
    assert sum(hours.values()) == 40  # hours add up across bases: 16 + 24


def test_a_declared_share_wins_and_the_rest_goes_to_the_capacity(mixed, tmp_path):
    spec = mixed / "spec-share.toml"
    spec.write_text(SPEC + '\n[plan]\ncompute_share = { billed = "0.25" }\n', encoding="utf-8")
    with Workspace.open(mixed) as wsp:
        _pid, plan = service.make_plan(wsp, "mix-a", str(spec), reason="", author="t")
        comp = _compute(plan)
        qb, qr = (comp[b].quantity(plan.work, "expected") for b in ("billed", "rate_card"))
        assert qb == (qb + qr) * Decimal("0.25") and qr == (qb + qr) * Decimal("0.75")
        assert comp["rate_card"].evidence["share"]["evidence"] == "assumed"
        assert "[plan] compute_share" in comp["rate_card"].evidence["share"]["source"]
        for bad, why in (('{ amortized = "0.5" }', "declares no .* on basis amortized"),
                         ('{ billed = "0.5", rate_card = "0.6" }', "adds up to 1\\.1"),
                         ('{ billed = "1.5" }', "not a share"), ('{ cloud = "0.5" }', "names basis 'cloud'")):
            spec.write_text(SPEC + f"\n[plan]\ncompute_share = {bad}\n", encoding="utf-8")
            with pytest.raises(BadInput, match=why):
                service.make_plan(wsp, "mix-a", str(spec), reason="bad", author="t")


def test_before_any_attribution_the_capacity_periods_decide_as_before(tmp_path):
    root = tmp_path / "ws"
    with Workspace.init(root, currency="CNY"):
        pass
    cfg = (root / "trainledger.toml").read_text(encoding="utf-8").replace('price_book = ""',
                                                                        'price_book = "prices.toml"')
    (root / "trainledger.toml").write_text(cfg + CONFIG, encoding="utf-8")
    (root / "prices.toml").write_text(PRICES, encoding="utf-8")
    (root / "spec.toml").write_text(SPEC, encoding="utf-8")
    with Workspace.open(root) as wsp:
        _pid, plan = service.make_plan(wsp, "mix-a", str(root / "spec.toml"), reason="", author="t")
    assert set(_compute(plan)) == {"rate_card"}  # nothing measured or declared: the capacity only


def test_decides_re_estimate_keeps_the_plans_split(mixed):
    from trainledger.review.options import reestimate
    from trainledger.review.plan import Rng

    with Workspace.open(mixed) as wsp:
        _pid, plan = service.make_plan(wsp, "mix-a", str(mixed / "spec.toml"), reason="", author="t")
    togo = Rng.point(Decimal(100))
    _money, meta = reestimate(plan, plan.source["inputs"], plan.source["plan_table"], togo, workspace=str(mixed))
    rates = meta["rates"]
    assert set(rates) == {"compute", "compute:rate_card"}  # both bases, as the plan (not rate card only)
    b, r = (Decimal(rates[k]["effective"]["expected"]) for k in ("compute", "compute:rate_card"))
    assert (b / (b + r)).quantize(Decimal("0.0001")) == Decimal("0.4000")  # the measured 0.4 / 0.6 kept
