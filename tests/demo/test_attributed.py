"""The demo attributed end to end, read as a finance user reads its sheets — rented and owned.

Figures are checked against the raw files (bill CSV, sacct) with the standard library, not
against the engine's own totals.
"""

import csv
import json
from datetime import datetime, timedelta, timezone
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.cli.demo_cmd import run_demo
from trainledger.demo import DEFAULT_SEED
from trainledger.report.access import for_role
from trainledger.service import Workspace

SHANGHAI = timezone(timedelta(hours=8))
A, B = "csa-sft-2026-11-a", "csa-sft-2026-11-b"


def _build(tmp_path_factory, scenario):
    root = tmp_path_factory.mktemp(scenario)
    run_demo(root, DEFAULT_SEED, echo=lambda *a, **k: None, scenario=scenario)
    with Workspace.open(root) as wsp:
        sheets = {b.id: for_role(wsp.sheet(b.id))[0] for b in wsp.config.batches}  # as the admin sees it
        summary = wsp.ledger.latest_attribution()["summary"]
    return root, sheets, summary


@pytest.fixture(scope="module")
def rented(tmp_path_factory):
    return _build(tmp_path_factory, "rented")


@pytest.fixture(scope="module")
def owned(tmp_path_factory):
    return _build(tmp_path_factory, "owned")


@pytest.mark.parametrize("scenario", ["rented", "owned"])
def test_the_demo_reports_exactly_these_problem_kinds(request, scenario):
    _, _, summary = request.getfixturevalue(scenario)
    assert {p["kind"] for p in summary["problems"]} == {"job_without_batch"}  # the platform's maintenance job


@pytest.mark.parametrize("scenario", ["rented", "owned"])
def test_every_sheet_adds_up(request, scenario):
    from trainledger.report.render import render

    _, sheets, _ = request.getfixturevalue(scenario)
    for s in sheets.values():
        md = render(s, "md", "en")
        assert "Unattributed bucket by reason" in md and "| no rule matched | NAT Gateway" in md
        if scenario == "rented":
            assert "| capacity unheld | node gpu-node-01 |" in md
        else:  # owned capacity no job held is conserved per capacity, in its own table
            assert "| h800-own | amortized | 11.8758 |" in md
        assert "未归属桶按原因" in render(s, "md", "zh-CN")
        cash = {}
        for t in s["totals_by_basis"]:
            if t["cash"]:
                cash[t["currency"]] = cash.get(t["currency"], Decimal(0)) + Decimal(t["expected"])
        assert {c["currency"]: Decimal(c["total"]) for c in s["sections"]} == cash
        for c in s["sections"]:
            assert sum(Decimal(x["amount"]) for x in c["sections"]) == Decimal(c["total"])
            assert Decimal(c["difference"]) == 0
        h = s["compute_hours"]
        runs = sum(Decimal(v) for r in s["runs"] for v in r["gpu_hours_by_state"].values())
        assert Decimal(h["runs_gpu_hours"]) == runs.quantize(Decimal("0.0001"))
        assert h["valued_gpu_hours"] == h["runs_gpu_hours"] and Decimal(h["not_valued_gpu_hours"]) == 0
        held = sum(Decimal(r["gpu_hours"]) for r in s["compute_by_state"] if r["gpu_hours"] and r["basis"] != "queued")
        assert abs(held - runs) < Decimal("0.01")  # the table's rows (4 decimals each) against the runs


def test_batch_a_hours_are_the_runs_not_the_credit(rented):
    _, sheets, _ = rented
    s = sheets[A]
    assert s["compute_hours"]["runs_gpu_hours"] == "2249.5067"  # not 2285.10: the SLA credit carries no hours
    credit = [r for r in s["compute_by_state"] if r["state"] == "credit"]
    assert credit and credit[0]["gpu_hours"] is None and credit[0]["amounts"][0]["expected"].startswith("-")
    for r in s["compute_by_state"]:
        if r["basis"] == "billed" and r["gpu_hours"]:
            assert r["price_per_gpu_hour"] == {"amount": "36.0000", "currency": "CNY"}  # 288.00 / 8 GPUs


def _sacct(root: Path):
    lines = (root / "data" / "sacct.txt").read_text(encoding="utf-8").splitlines()
    head = lines[0].split("|")
    for line in lines[1:]:
        row = dict(zip(head, line.split("|"), strict=True))
        if "." not in row["JobID"] and row["Start"] not in ("Unknown", "None"):
            yield row


def _hosts(nodelist: str) -> list[str]:
    """Slurm's compressed host list: ``gpu-node-[01-02]`` → gpu-node-01, gpu-node-02."""
    if "[" not in nodelist:
        return nodelist.split(",")
    prefix, rng = nodelist.rstrip("]").split("[")
    lo, hi = rng.split("-")
    return [f"{prefix}{i:0{len(lo)}d}" for i in range(int(lo), int(hi) + 1)]


def _t(text):
    return datetime.fromisoformat(text).replace(tzinfo=SHANGHAI)


def test_idle_node_capacity_reproduced_from_the_raw_files(rented):
    """gpu-node-01: its bill rows minus 36.00 per GPU-hour every job held on it (GPUs split evenly
    over a job's nodes). 36.00 per GPU-hour is 0.01 per GPU-second, so the figure is exact."""
    root, _, summary = rented
    with (root / "data" / "bill-focus.csv").open(encoding="utf-8", newline="") as f:
        billed = sum(Decimal(r["BilledCost"]) for r in csv.DictReader(f) if r["ResourceId"] == "gpu-node-01")
    held_gpu_seconds = 0
    for j in _sacct(root):
        nodes = _hosts(j["NodeList"])
        if "gpu-node-01" in nodes:
            gpus = int(j["AllocTRES"].split("gres/gpu:h800=")[1].split(",")[0])
            held_gpu_seconds += gpus // len(nodes) * int((_t(j["End"]) - _t(j["Start"])).total_seconds())
    expected = billed - Decimal(held_gpu_seconds) * Decimal("0.01")
    (cny,) = [r for r in summary["conservation"] if r["currency"] == "CNY"]
    (item,) = [x for x in cny["unattributed_by_reason"] if x == {**x, "reason": "capacity_unheld",
                                                                  "detail": "node gpu-node-01"}]
    assert Decimal(item["amount"]) == expected
    assert sum(Decimal(x["amount"]) for x in cny["unattributed_by_reason"]) == Decimal(cny["unattributed"])


def test_the_node_failure_and_its_recovery_are_costed_together(rented):
    root, sheets, _ = rented
    (chain,) = [c for c in sheets[A]["retry_chains"] if c["failed"] == "a-r03"]
    assert chain["attempts"] == ["a-r03", "a-r07"] and chain["state"] == "NODE_FAIL"
    assert (chain["cause"], chain["cause_evidence"]) == ("infra_fault", "assumed")
    runs = {r["id"]: r for r in sheets[A]["runs"]}
    failure = sum(Decimal(m["amount"]) for m in runs["a-r03"]["compute_cost"])
    with Workspace.open(root) as w:  # the rerun's way back (setup / preemption recovery), not its training
        back = sum(ln.amount.expected for ln in w.ledger.cost_lines(A) if ln.run_id == "a-r07"
                   and ln.category == "compute" and str(ln.detail) in ("setup", "preemption_recovery"))
        rerun = sum(ln.amount.expected for ln in w.ledger.cost_lines(A) if ln.run_id == "a-r07"
                    and ln.category == "compute" and ln.basis == "billed")
    with Workspace.open(root) as w:  # what the node failure destroyed: a-r03's hang and lost progress
        destroyed = sum(ln.amount.expected for ln in w.ledger.cost_lines(A) if ln.run_id == "a-r03"
                        and ln.category == "compute" and str(ln.detail) in ("hang", "lost_progress"))
    # by hand: lost 1,045.76 + hang 908.80 + a-r07's setup 141.44 = 2,096.00 (the review bridge's failure);
    # a-r03's checkpointed training 11,407.36 is kept; its SLA credit −533.90 beside: 12,969.46 in all
    assert Decimal(chain["failure_cost"][0]["amount"]) == destroyed + back == Decimal("2096.00")
    assert Decimal(chain["recovery_cost"][0]["amount"]) == back == Decimal("141.44") < rerun
    assert Decimal(chain["kept_cost"][0]["amount"]) == Decimal("11407.36")
    assert Decimal(chain["other_cost"][0]["amount"]) == Decimal("-533.90")
    assert Decimal(chain["total"][0]["amount"]) == failure + back == Decimal("12969.46")
    assert runs["a-r03"]["suggested_review_class"] == "unforeseeable_fault"  # no longer "needs review"
    assert runs["a-r07"]["retry_of"] == "a-r03"


def test_an_owned_cluster_gets_compute_cost_per_state(owned):
    _, sheets, summary = owned
    caps = {r["capacity"]: r for r in summary["conservation_capacity"]}
    assert set(caps) == {"h800-own", "h800-reserved"}
    for r in caps.values():
        assert Decimal(r["difference"]) == 0
        assert Decimal(r["attributed"]) + Decimal(r["unheld"]) + Decimal(r["job_without_batch"]) == Decimal(r["total"])
        assert Decimal(r["job_without_batch"]) > 0  # the demo's jobs without a batch hold GPUs: not idle
        assert sum(Decimal(x["amount"]) for x in r["unattributed_by_reason"]) == Decimal(r["unattributed"])
    # 2 nodes × 8 GPUs × 504 h of the period at the capacity's price per GPU-hour
    assert Decimal(caps["h800-own"]["total"]) == Decimal("11.8758") * 2 * 8 * 504
    assert Decimal(caps["h800-reserved"]["total"]) == Decimal("30.00") * 2 * 8 * 504
    effective = {r["basis"]: r for r in sheets[A]["compute_by_state"] if r["state"] == "effective"}
    assert set(effective) == {"amortized", "rate_card"}
    assert effective["amortized"]["price_per_gpu_hour"]["amount"] == "11.8758"
    assert effective["amortized"]["evidence"] == ["assumed"]  # assumed inputs: never measured or contract
    billed_nodes = [r for r in sheets[A]["compute_by_state"] if r["basis"] == "billed" and r["gpu_hours"]]
    assert billed_nodes == []  # no GPU rows on the bill


def test_a_confirmed_cause_is_in_the_audit_chain_and_on_the_sheet(owned):
    root, _, _ = owned
    runner = CliRunner()
    out = runner.invoke(cli, ["--workspace", str(root), "runs", "confirm", "a-r03", "--cause", "infra_fault",
                              "--by", "li.na", "--note", "OPS-1182"], catch_exceptions=False)
    assert out.exit_code == 0 and "由 li.na 确认（OPS-1182）" in out.output  # the demo speaks zh-CN; so does the source
    bad = runner.invoke(cli, ["--workspace", str(root), "runs", "confirm", "nope", "--cause", "infra_fault",
                              "--by", "li.na"])
    assert bad.exit_code == 2 and "runs list" in bad.output
    with Workspace.open(root) as wsp:
        entry = wsp.ledger.audit_log()[-1]
        assert (entry["action"], entry["detail"]["run"], entry["detail"]["previous"]["evidence"]) == (
            "confirm_cause", "a-r03", "assumed")
        assert wsp.ledger.verify_audit_chain() == []
        runs = {r["id"]: r for r in wsp.sheet(A)["runs"]}
    assert (runs["a-r03"]["cause"], runs["a-r03"]["cause_evidence"]) == ("infra_fault", "measured")
    listed = json.loads(runner.invoke(cli, ["--workspace", str(root), "runs", "list", "--json"]).output)
    assert listed["a-r03"]["cause_source"].startswith("confirmed by li.na")


def test_allocation_policies_are_a_view_beside_the_direct_cost(rented):
    _, sheets, summary = rented
    pools = {(r["policy"], r["source_basis"]): Decimal(r["pool"]) for r in summary["allocation"]}
    assert ("capacity_unheld", "capacity_unheld") in pools and ("build-phase-labor", "internal") in pools
    (cny,) = [r for r in summary["conservation"] if r["currency"] == "CNY"]
    unheld = sum(Decimal(x["amount"]) for x in cny["unattributed_by_reason"] if x["reason"] == "capacity_unheld")
    assert pools[("capacity_unheld", "capacity_unheld")] == unheld
    for (policy, basis), pool in pools.items():  # the batches' shares add up to each pool exactly
        shares = [Decimal(a["share"]) for s in sheets.values() for a in s["allocation"]
                  if (a["policy"], a["source_basis"]) == (policy, basis)]
        shown = pool if basis in ("billed", "capacity_unheld") else pool.quantize(Decimal("0.01"), ROUND_HALF_EVEN)
        assert sum(shares) == shown  # cash to every digit; a non-cash pool as shown, to the cent (K13)
        assert {Decimal(a["pool"]) for s in sheets.values() for a in s["allocation"]
                if (a["policy"], a["source_basis"]) == (policy, basis)} == {shown}
    for s in sheets.values():
        assert "allocated" not in {t["basis"] for t in s["totals_by_basis"]}  # never in a basis total


def test_evidence_is_never_stronger_than_its_inputs(rented):
    _, sheets, _ = rented
    for s in sheets.values():
        ev = {(t["basis"], t["evidence"]) for t in s["totals_by_basis"]}
        assert ("internal", "contract") not in ev  # the finance rate card is internal, not a contract
        assert ("estimate", "measured") not in ev  # storage at assumed prices is assumed
        assert ("queued", "assumed") in ev
        unclassified = [r for r in s["compute_by_state"] if r["state"] == "unclassified"]
        # billed cash split by measured GPU-seconds; the state is the assumption, in the drawer with an owner
        assert all(r["evidence"] == ["measured"] for r in unclassified if r["basis"] == "billed")
        (states,) = [a for a in s["assumptions"] if a["name"] == "compute-state boundaries"]
        if unclassified:
            assert states["evidence"] == "assumed" and states["owner"] and states["owner_zh"]


def test_a_retry_on_another_cluster_is_never_summed_across_bases(owned):
    _, sheets, _ = owned
    (chain,) = [c for c in sheets[A]["retry_chains"] if c["failed"] == "a-r03"]
    assert [(m["basis"], m["currency"]) for m in chain["total"]] == [("amortized", "CNY"), ("rate_card", "CNY")]
    (eff_amortized,) = [e for e in sheets[A]["compute_efficiency"] if e["basis"] == "amortized"]
    assert Decimal(eff_amortized["effective_share"]) > Decimal("0.9")


def test_storage_bill_reconciled_against_the_inventory(rented):
    """The bill's OSS rows (read with csv) against the inventory estimate, per bucket: every storage
    row is in one group; train-ckpt's parts are its PUT requests (other charges), the rotated
    checkpoints (volume: billed GiB-months above the inventory's) and the 5 % discount on the list
    price the book uses (price: −0.006 per GB-month billed); train-scratch is not in the inventory."""
    from trainledger.engine.storage_reconcile import view

    root, sheets, summary = rented
    with (root / "data" / "bill-focus.csv").open(encoding="utf-8", newline="") as f:
        oss = [r for r in csv.DictReader(f) if r["ServiceCategory"] == "Storage"]
    v = view(summary["storage_reconciliation"])
    (cny,) = v["by_currency"]
    assert Decimal(cny["billed"]) == sum(Decimal(r["BilledCost"]) for r in oss) == Decimal("552.47")
    groups = {(g["month"], g["location"]): g for g in v["groups"]}
    ckpt = groups[("2026-11", "train-ckpt")]
    parts = {p["kind"]: Decimal(p["amount"]) for p in ckpt["parts"]}
    put = next(r for r in oss if r["SkuId"] == "oss-put-requests")
    std = next(r for r in oss if r["ResourceId"] == "train-ckpt" and r["SkuId"] == "oss-storage-standard")
    assert parts["other_charges"] == Decimal(put["BilledCost"])
    assert Decimal(ckpt["billed_gib_months"]) == Decimal(std["PricingQuantity"]).quantize(Decimal("0.0001"))
    assert parts["volume"] > 0 and Decimal(ckpt["billed_gib_months"]) > Decimal(ckpt["estimate_gib_months"])
    assert abs(parts["price"] - Decimal("-0.006") * Decimal(std["PricingQuantity"])) <= Decimal("0.01")
    assert sum(parts.values()) == Decimal(ckpt["difference"])
    (u,) = v["unmatched_bill_rows"]
    assert u["resource"] == "train-scratch" and groups[("2026-11", None)]["billed"] == u["billed"]
    # the inventory's September / October days are before the bill's period: not billed
    assert {g["match"] for (m, _), g in groups.items() if m < "2026-11"} == {"inventory_only"}
    # each batch sheet reconciles whole buckets and shows its own estimate beside: batch A's share is its sheet's
    a = sheets[A]["storage_reconciliation"]["by_currency"][0]
    lines = sum(Decimal(r["cost"][0]["expected"]) for r in sheets[A]["storage_by_class"] if r["basis"] == "estimate")
    assert abs(Decimal(a["batch_estimate"]) - lines) <= Decimal("0.01") * len(sheets[A]["storage_by_class"])


def test_the_bridge_counts_the_node_failure_not_its_rerun_as_failure_cost(rented):
    """a-r03 (NODE_FAIL) → a-r07 (fault_retry, infra_fault, resumes a-r03's checkpoint at step 3600).
    The sheet's chain costs a-r03 whole plus a-r07's setup: 12,828.02 + 141.44 = 12,969.46 CNY. The
    variance bridge counts useful work, and a-r03's training up to its checkpoint is work the batch
    kept (its tokens count), so its failure cost is what the failure took: a-r03's lost_progress
    1,045.76 + hang 908.80 and a-r07's setup 141.44 = 2,096.00 CNY (58.222220 GPU-h at the bill's
    36.00) — of kind unforeseeable_fault, not avoidable rework; a-r07's 4,809.76 of new effective
    training is effective work."""
    from trainledger.review import service as review

    root, sheets, _ = rented
    with Workspace.open(root) as w:
        lines = [ln for ln in w.ledger.cost_lines(A) if ln.category == "compute" and str(ln.basis) == "billed"]
        _, plan = review.latest_plan(w, A)
        act = review.actuals(w, plan)
        out = review.review(w, A)

    def money(run, *states):
        return sum((ln.amount.expected for ln in lines if ln.run_id == run and str(ln.detail) in states), Decimal(0))

    def hours(run, *states):
        return sum(((ln.quantity or 0).quantize(Decimal("0.000001")) for ln in lines
                    if ln.run_id == run and str(ln.detail) in states), Decimal(0))

    kept = ("setup", "effective", "checkpoint", "data_stall")
    assert (money("a-r03", "lost_progress"), money("a-r03", "hang"), money("a-r07", "setup")) == (
        Decimal("1045.76"), Decimal("908.80"), Decimal("141.44"))
    assert money("a-r03", *kept) == Decimal("11407.36") and money("a-r03", "credit") == Decimal("-533.90")
    (chain,) = [c for c in sheets[A]["retry_chains"] if c["failed"] == "a-r03"]
    # the sheet's 12,969.46 = the bridge's failure 2,096.00 + a-r03's kept training 11,407.36 − its SLA credit
    assert Decimal(chain["total"][0]["amount"]) == Decimal("12969.46") == (
        Decimal("2096.00") + Decimal("11407.36") - Decimal("533.90"))
    a = act.planned["compute"]
    failure_h = hours("a-r03", "lost_progress", "hang") + hours("a-r07", "setup")
    assert failure_h == Decimal("58.222220")
    assert a.rework[("fault_retry", "infra_fault")] == failure_h
    # a-r01 (FAILED before any step, config error) whole and a-r02's setup: avoidable rework
    config_h = hours("a-r01", "unclassified") + hours("a-r02", "setup")
    assert a.rework == {("fault_retry", "infra_fault"): failure_h, ("fault_retry", "config_error"): config_h}
    assert a.rework_kind == {"unforeseeable_fault": failure_h, "avoidable_rework": config_h}
    # every run's effective training is effective work, the retries' included
    assert a.by_state["effective"] == hours("a-r07", "effective") + sum(
        (hours(r, "effective") for r in {ln.run_id for ln in lines if ln.run_id and ln.run_id != "a-r07"}), Decimal(0))
    (compute,) = [ln for ln in out["lines"] if ln["line"] == "compute"]
    pp = plan.lines[0].price.expected if plan.lines[0].id == "compute" else None
    assert pp == Decimal(36)
    assert Decimal(compute["rework_by"]["fault_retry/infra_fault"]) == pp * failure_h == Decimal("2095.99992")
    assert {k: Decimal(v) for k, v in compute["rework_by_kind"].items()} == {
        "avoidable_rework": pp * config_h, "unforeseeable_fault": Decimal("2095.99992")}
    for row in out["variance"]:  # the bridge still sums exactly to actual − plan per basis and currency
        assert sum(Decimal(row[k]) for k in ("price", "volume", "efficiency", "rework", "other", "not_split")) == (
            Decimal(row["actual"]) - Decimal(row["plan"]))
