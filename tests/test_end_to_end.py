"""The demo, end to end, through the same CLI a user runs — and the contracts scripts rely on."""

import json
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli

SHEET_KEYS = {"batch", "key", "totals_by_basis", "compute_by_state", "runs", "storage_by_class",
              "labor_by_phase", "external", "assumptions", "conservation"}


def run(*args, ok=True):
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("demo")
    result = run("demo", "--dir", root)
    return root, result.output


def batches(root):
    return json.loads(run("--workspace", root, "batch", "list", "--json").output)


def test_demo_leaves_three_reports_per_batch(demo):
    root, output = demo
    ids = [b["id"] for b in batches(root)]
    assert len(ids) == 2
    for b in ids:
        for ext in ("md", "json", "html"):
            assert (root / "reports" / f"{b}.{ext}").stat().st_size > 1000
        assert str(root / "reports" / f"{b}.md") in output


def test_attribution_difference_is_exactly_zero(demo):
    root, _ = demo
    records = json.loads(run("--workspace", root, "attribute", "--json").output)
    assert records, "the demo has bills"
    currencies = {r["currency"] for r in records}
    assert {"CNY", "USD"} <= currencies  # two currencies, reported apart, never summed
    for r in records:
        assert set(r) == {"currency", "billed_total", "attributed", "unattributed", "difference",
                          "unattributed_by_reason", "storage_reconciliation", "unattributed_noncash", "labor_hours"}
        assert Decimal(r["difference"]) == 0
        by_reason = sum((Decimal(x["amount"]) for x in r["unattributed_by_reason"]), Decimal(0))
        assert by_reason == Decimal(r["unattributed"])
        assert Decimal(r["attributed"]) + Decimal(r["unattributed"]) == Decimal(r["billed_total"])
        assert Decimal(r["attributed"]) > 0


def test_reimport_adds_nothing(demo):
    root, _ = demo
    before = json.loads(run("--workspace", root, "attribute", "--json").output)
    for kind, name in (("slurm", "sacct.txt"), ("focus", "bill-focus.csv"), ("progress", "progress.jsonl"),
                       ("storage", "storage-inventory.csv"), ("timesheet", "timesheet.csv"),
                       ("invoice", "vendor-invoices.csv")):
        out = json.loads(run("--workspace", root, "import", kind, root / "data" / name, "--json").output)
        assert set(out) == {"accepted", "duplicates", "quarantined", "quarantine_file"}
        assert out["accepted"] == 0 and out["duplicates"] > 0, (kind, out)
    after = json.loads(run("--workspace", root, "attribute", "--json").output)
    assert after == before


def test_sheet_shows_every_concept(demo):
    root, _ = demo
    for b in batches(root):
        sheet = json.loads(run("--workspace", root, "sheet", b["id"], "--format", "json").output)
        assert set(sheet) >= SHEET_KEYS
        assert sheet["key"]["batch_id"] == b["id"] and sheet["key"]["data_snapshot"]
        bases = [(t["basis"], t["currency"]) for t in sheet["totals_by_basis"]]
        assert len(bases) == len(set((t["basis"], t["evidence"], t["currency"]) for t in sheet["totals_by_basis"]))
        assert {"billed", "queued", "internal", "estimate"} <= {t["basis"] for t in sheet["totals_by_basis"]}
        assert {"effective", "setup", "queued"} <= {c["state"] for c in sheet["compute_by_state"]}
        assert all(r["reason"] for r in sheet["runs"])
        assert sheet["storage_by_class"] and sheet["labor_by_phase"]
        assert any(a["evidence"] == "assumed" and a.get("owner") for a in sheet["assumptions"])
        assert all(Decimal(r["difference"]) == 0 for r in sheet["conservation"]["by_currency"])
        for e in sheet["compute_efficiency"]:  # effective + other states = billed run compute, exactly
            assert Decimal(e["effective"]) + Decimal(e["other_states"]) == Decimal(e["billed"])
            assert 0 < Decimal(e["effective_share"]) < 1
        grouped = sum(g["runs"] for g in sheet["runs_by_review_class"])
        assert grouped == len(sheet["runs"])  # every run is in exactly one review class
    all_runs = [r for b in batches(root) for r in
                json.loads(run("--workspace", root, "sheet", b["id"], "--format", "json").output)["runs"]]
    assert len(all_runs) >= 12
    reasons = {r["reason"] for r in all_runs}
    assert {"planned_experiment", "param_tuning", "fault_retry", "data_fix", "eval_rework"} <= reasons
    assert {"infra_fault", "config_error"} <= {r["cause"] for r in all_runs}
    states = {c["state"] for b in batches(root) for c in json.loads(
        run("--workspace", root, "sheet", b["id"], "--format", "json").output)["compute_by_state"]}
    assert {"checkpoint", "data_stall", "hang", "lost_progress", "allocated_idle"} <= states


def test_sheet_renders_in_both_languages(demo):
    root, _ = demo
    b = batches(root)[0]["id"]
    md_zh = run("--workspace", root, "sheet", b, "--format", "md", "--lang", "zh-CN").output
    md_en = run("--workspace", root, "sheet", b, "--format", "md", "--lang", "en").output
    assert "训练批次成本底稿" in md_zh and "假设抽屉" in md_zh and "有效训练" in md_zh
    assert "资源状态边界" in md_zh and "数据快照" in md_zh and "人力费率：训练工程" in md_zh
    assert "compute-state boundaries" not in md_zh and "labor rate:" not in md_zh
    assert "Batch cost sheet" in md_en and "Assumptions drawer" in md_en
    out = root / "x.html"
    run("--workspace", root, "sheet", b, "--format", "html", "--out", out)
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!doctype html>") and 'id="assumptions"' in html and "http" not in html.split("<body>")[0]


def test_unknown_batch_is_a_clear_error(demo):
    root, _ = demo
    result = run("--workspace", root, "sheet", "no-such-batch", ok=False)
    assert result.exit_code == 2 and "no-such-batch" in result.output and "batch list" in result.output


def test_demo_on_every_ledger_backend(tmp_path, db_url, demo):
    """The same chain on SQLite and PostgreSQL gives the same sheet, to the last digit."""
    root = tmp_path / "demo"
    run("demo", "--dir", root, "--db", db_url)
    records = json.loads(run("--workspace", root, "attribute", "--json").output)
    assert records and all(Decimal(r["difference"]) == 0 for r in records)
    b = batches(root)[0]["id"]
    sheet = json.loads(run("--workspace", root, "sheet", b, "--format", "json").output)
    reference = json.loads((demo[0] / "reports" / f"{b}.json").read_text(encoding="utf-8"))
    for key in ("totals_by_basis", "compute_by_state", "runs", "storage_by_class", "labor_by_phase", "external"):
        assert sheet[key] == reference[key]


def test_attribute_explains_the_unattributed_bucket(demo):
    root, _ = demo
    zh = run("--workspace", root, "attribute").output  # the demo workspace's language is zh-CN
    zh_bucket = zh.split("未归属桶")[1]
    assert "无作业占用的容量 容量空闲，无作业可归属 —— 共 4 项" in zh_bucket  # basis, then its own reason
    assert "节点 gpu-node-0" in zh_bucket and "capacity_unheld" not in zh
    out = run("--workspace", root, "--lang", "en", "attribute").output
    bucket = out.split("unattributed bucket")[1]
    assert "capacity_unheld — 4 items, the largest:" in bucket  # capacity no job held, per node
    assert "CNY  node gpu-node-04" in bucket  # the largest item of the reason, below it
    assert "no_rule_matched — 11 items" in bucket  # shared infrastructure nobody tagged
    assert "job_without_batch: job 48139" in bucket  # the platform's own maintenance job (one item)
    assert f"every item: `trainledger --workspace {root} attribute --json`" in bucket
    groups = [line.split() for line in bucket.split("\n  !")[0].splitlines()[1:]]
    amounts = [Decimal(w[0].replace(",", "")) for w in groups  # a reason's line: amount, currency, basis
               if len(w) > 2 and w[2] in ("capacity_unheld", "billed", "amortized")]
    cny = json.loads(run("--workspace", root, "attribute", "--json").output)
    total = next(Decimal(r["unattributed"]) for r in cny if r["currency"] == "CNY")
    assert sum(amounts) == total  # the demo's whole unattributed money is CNY


def test_demo_runs_again_in_place_but_refuses_to_mix_data_sets(demo):
    root, _ = demo
    before = json.loads(run("--workspace", root, "attribute", "--json").output)
    run("demo", "--dir", root)  # the same demo again: nothing added
    assert json.loads(run("--workspace", root, "attribute", "--json").output) == before
    other = run("demo", "--dir", root, "--seed", 7, ok=False)
    assert other.exit_code == 2 and "not empty" in other.output and "--dir" in other.output
    assert json.loads(run("--workspace", root, "attribute", "--json").output) == before


def _sum(items, currency, key="expected"):
    return sum((Decimal(m[key]) for m in items if m["currency"] == currency), Decimal(0))


def test_the_sheet_parts_add_up_to_its_totals(demo):
    """Per basis and currency, the sections of a sheet sum exactly to its totals row."""
    root, _ = demo
    for b in batches(root):
        s = json.loads(run("--workspace", root, "sheet", b["id"], "--format", "json").output)
        totals = {}
        for t in s["totals_by_basis"]:
            key = (t["basis"], t["currency"])
            totals[key] = totals.get(key, Decimal(0)) + Decimal(t["expected"])
        for cur in {c for _, c in totals}:
            compute = _sum([m for r in s["compute_by_state"] if r["basis"] == "billed" for m in r["amounts"]], cur)
            external = _sum(s["external"], cur)
            assert compute + external == totals.get(("billed", cur), 0), (b["id"], cur)
            runs = _sum([m for r in s["runs"] for m in r["billed"]], cur)
            tagged = _sum([m for r in s["compute_by_state"] if r["state"] == "tagged_resource"
                           for m in r["amounts"]], cur)
            assert runs + tagged == compute  # every billed compute line is a run's or a tagged resource's
            review = sum((Decimal(m["amount"]) for g in s["runs_by_review_class"] for m in g["billed"]
                          if m["currency"] == cur), Decimal(0))
            assert review == runs
            # estimates and internal labor are rounded for display: equal to the cent
            labor = _sum([m for p in s["labor_by_phase"] for m in p["cost"]], cur)
            assert abs(labor - totals.get(("internal", cur), 0)) <= Decimal("0.01") * len(s["labor_by_phase"])
            storage = _sum([m for c in s["storage_by_class"] for m in c["cost"]], cur)
            assert abs(storage - totals.get(("estimate", cur), 0)) <= Decimal("0.01") * len(s["storage_by_class"])


def test_reading_a_sheet_writes_nothing_to_the_audit_log(demo):
    root, _ = demo
    before = json.loads(run("--workspace", root, "audit", "--json").output)
    run("--workspace", root, "sheet", batches(root)[0]["id"], "--format", "json")
    run("--workspace", root, "batch", "list")
    after = json.loads(run("--workspace", root, "audit", "--json").output)
    assert after["entries"] == before["entries"] and after["intact"]


def test_runs_table_and_review_table_agree(demo):
    root, _ = demo
    for b in batches(root):
        s = json.loads(run("--workspace", root, "sheet", b["id"], "--format", "json").output)
        per_class: dict[str, int] = {}
        for r in s["runs"]:
            per_class[r["suggested_review_class"]] = per_class.get(r["suggested_review_class"], 0) + 1
            if r["state"] in ("FAILED", "NODE_FAIL", "TIMEOUT", "PREEMPTED") and not r["cause"]:
                assert r["suggested_review_class"] == "needs_review", r
        assert per_class == {g["review_class"]: g["runs"] for g in s["runs_by_review_class"]}


def test_the_readme_demo_output_is_what_the_demo_prints(demo):
    """README's abridged demo block (the ```text block after "Abridged:") is checked like
    docs/first-hour.md: each of its lines is a line `trainledger demo` printed (blanks collapsed)."""
    import re

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    after = readme[readme.index("Abridged:"):]
    block = after[after.index("```text\n") + len("```text\n"):]
    block = block[:block.index("```")]
    expected = [ln for ln in block.splitlines() if ln.strip()]
    assert len(expected) >= 8

    def norm(text: str) -> str:
        return re.sub(r"[ \t]+", " ", text).strip()

    printed = {norm(ln) for ln in demo[1].splitlines()}
    missing = [ln for ln in expected if norm(ln) not in printed]
    assert not missing, "README demo lines not in `trainledger demo` output:\n" + "\n".join(missing)


def test_the_allocation_export_splits_summable_metrics_of_the_demo_bill(demo, tmp_path):
    """Review 4 H6: FOCUS requires a summable metric of allocated charges to sum to the origin's —
    ListCost, ContractedCost and the quantities are split by the allocation, never repeated per row."""
    import csv
    from collections import defaultdict

    root, _ = demo
    out = tmp_path / "alloc.csv"
    run("--workspace", root, "export", "focus-allocation", "--out", out)
    with out.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    with (root / "data" / "bill-focus.csv").open(encoding="utf-8", newline="") as f:
        origin = list(csv.DictReader(f))
    per = defaultdict(list)
    for r in rows:
        per[r["x_SourceRow"]].append(r)
    assert max(len(v) for v in per.values()) > 1  # some node-hour is split over several runs and states
    for i, o in enumerate(origin, start=1):
        got = per[str(i)]
        for c in ("ListCost", "ContractedCost", "ConsumedQuantity", "PricingQuantity", "BilledCost"):
            if o[c].upper() in ("", "NULL"):
                assert all(r[c] == "" for r in got), (i, c)
            else:
                assert sum(Decimal(r[c]) for r in got) == Decimal(o[c]), (i, c, [r[c] for r in got], o[c])
        for c in ("ListUnitPrice", "ContractedUnitPrice", "ResourceId", "ChargeDescription"):  # as written
            assert {r[c] for r in got} == {"" if o[c].upper() == "NULL" else o[c]}, (i, c)
