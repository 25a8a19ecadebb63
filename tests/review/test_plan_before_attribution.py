"""A plan made before any attribution, without ``[plan] compute_share``, for a batch on cloud GPUs and
owned capacity (test_mixed_plan's workspace, imported but not attributed).

By hand: the bill names cloud-01 — a node job 501 (8 GPUs) ran on, no ``[[capacity]]``'s — for two
hours: 2 node-hours × ``cluster.gpus_per_node`` 8 = 16 GPU-hours the bill offers. The rate card
own-rack offers 8 GPUs × 4 h = 32 GPU-hours. The assumed split is 16 : 32: billed 0.333333, rate card
0.666667 (the last basis takes the remainder), and the plan warns the lead to set compute_share or
re-plan after ``attribute``. Before that change the plan had the rate-card line only.
"""

from __future__ import annotations

from decimal import Decimal

from trainledger.review import capacity_plan, service
from trainledger.service import Workspace

from .test_mixed_plan import SPEC, _compute, mixed_workspace


def _workspace(tmp_path, *, bill: bool):
    return mixed_workspace(tmp_path, bill=bill, attributed=False)


def test_the_bill_offers_its_gpu_nodes_hours(tmp_path):
    root = _workspace(tmp_path, bill=True)
    assert capacity_plan.billed_offered(root, "CNY") == (Decimal(16), 2)
    assert capacity_plan.billed_offered(root, "USD") == (Decimal(0), 0)  # the plan's currency only


def test_a_plan_before_attribution_gets_a_billed_line_by_the_hours_each_basis_offers(tmp_path):
    root = _workspace(tmp_path, bill=True)
    with Workspace.open(root) as wsp:
        assert wsp.ledger.latest_attribution() is None
        _pid, plan = service.make_plan(wsp, "mix-a", str(root / "spec.toml"), reason="", author="t")
    comp = _compute(plan)
    assert set(comp) == {"billed", "rate_card"}  # was rate_card only
    qb, qr = (comp[b].quantity(plan.work, "expected") for b in ("billed", "rate_card"))
    assert qb == (qb + qr) * Decimal("0.333333") and qr == (qb + qr) * Decimal("0.666667")
    assert comp["billed"].price.expected == 32 and comp["rate_card"].price.expected == 20
    share = comp["billed"].evidence["share"]
    assert share["evidence"] == "assumed" and "the bill's GPU nodes 16.00" in share["source"]
    warnings = plan.source["warnings"]
    assert any("set [plan] compute_share, or re-plan after `trainledger attribute`" in w for w in warnings)
    assert any("compute_share" in w and "trainledger attribute" in w for w in plan.source["warnings_zh"])


def test_without_a_bill_naming_a_gpu_node_the_capacity_only_and_the_plan_says_so(tmp_path):
    root = _workspace(tmp_path, bill=False)
    with Workspace.open(root) as wsp:
        _pid, plan = service.make_plan(wsp, "mix-a", str(root / "spec.toml"), reason="", author="t")
    assert set(_compute(plan)) == {"rate_card"}
    assert any("if the batch also runs on cloud GPUs, set [plan] compute_share" in w for w in plan.source["warnings"])


def test_a_declared_share_needs_no_warning(tmp_path):
    root = _workspace(tmp_path, bill=True)
    spec = root / "spec-share.toml"
    spec.write_text(SPEC + '\n[plan]\ncompute_share = { billed = "0.25" }\n', encoding="utf-8")
    with Workspace.open(root) as wsp:
        _pid, plan = service.make_plan(wsp, "mix-a", str(spec), reason="", author="t")
    assert not any("compute_share" in w for w in plan.source["warnings"])
    comp = _compute(plan)
    qb, qr = (comp[b].quantity(plan.work, "expected") for b in ("billed", "rate_card"))
    assert qb == (qb + qr) * Decimal("0.25")
