"""The loop on the demo workspace, through the command line: plan, status, alerts, decide, review."""

from __future__ import annotations

import json
import shutil
import sqlite3
from decimal import Decimal

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.demo.scenario import BATCH_A, BATCH_B

D = Decimal


def run(ws, *args, ok=True):
    """In English unless the test gives --lang (the demo workspace's language is zh-CN)."""
    lang = () if "--lang" in args else ("--lang", "en")
    r = CliRunner().invoke(cli, ["--workspace", str(ws), *lang, *map(str, args)], catch_exceptions=False)
    if ok:
        assert r.exit_code == 0, r.output
    return r


def js(ws, *args):
    return json.loads(run(ws, *args, "--json").output)


def test_status_json_shape_and_figures(demo_dir):
    st = js(demo_dir, "status", BATCH_A)
    assert {"batch", "plan_version", "ac", "ev", "eac", "rounds", "alerts", "gates"} <= set(st)
    assert st["batch"] == BATCH_A and st["plan_version"] == 1
    assert st["rounds"] == {"used": 13, "max": 16}  # 15 runs: a-r02, a-r07 retry a-r01, a-r03 (one round each)
    billed = {k: next(r for r in st[k] if r["basis"] == "billed" and r["currency"] == "CNY")
              for k in ("plan", "ac", "ev", "eac")}
    assert billed["ac"]["expected"] == "80523.30"  # the sheet's billed total for batch A
    for k, r in billed.items():
        assert D(r["low"]) <= D(r["expected"]) <= D(r["high"]), k
    assert D(billed["ev"]["expected"]) <= D(billed["plan"]["expected"])  # EV never above the plan
    assert any(g["reached"] for g in st["gates"])
    assert all(not a["open"] for a in st["alerts"])  # the demo's decision answered them all


def test_review_parts_sum_exactly_per_basis_and_currency(demo_dir):
    rv = js(demo_dir, "review", BATCH_A)
    assert {"batch", "plan_version", "variance", "review_classes", "lessons"} <= set(rv)
    assert {(v["basis"], v["currency"]) for v in rv["variance"]} >= {("billed", "CNY"), ("internal", "CNY")}
    for v in rv["variance"]:
        parts = sum(D(v[k]) for k in ("price", "volume", "efficiency", "rework", "other", "not_split"))
        assert parts == D(v["actual"]) - D(v["plan"]), v
    billed = next(v for v in rv["variance"] if v["basis"] == "billed")
    # batch A's SLA credit (−533.90) and its tagged CPU data-cleaning instance (74.96) are their own
    # part, not price: the bill's GPU price is exactly the plan's 36.00, so the price part is 0
    assert D(billed["other"]) == D("-533.90") + D("74.96")
    assert abs(D(billed["price"])) < D("0.001")  # only the 1e-6 GPU-h reading of the quantities
    cl = json.loads((demo_dir / "reports" / f"{BATCH_A}.json").read_text())
    total = sum(D(t["expected"]) for t in cl["totals_by_basis"]  # one row per evidence level
                if t["basis"] == "billed" and t["currency"] == "CNY")
    assert D(billed["actual"]) == total  # the review's actual is the sheet's total
    assert {c["review_class"] for c in rv["review_classes"]} >= {"reasonable_exploration", "unforeseeable_fault"}
    assert any(x["name"].startswith("compute: effective") for x in rv["lessons"])


def test_open_alerts_and_the_decision_that_answers_them(ws):
    open_b = js(ws, "alerts", "--batch", BATCH_B, "--open")
    assert open_b and all(a["open"] for a in open_b)
    first, *rest = (a["id"] for a in open_b)
    # a decision that does not name an alert leaves it open
    run(ws, "decide", BATCH_B, "--action", "shrink", "--reason", "cut the grid", "--by", "wang.lei",
        "--approver", "li.na")
    assert [a["id"] for a in js(ws, "alerts", "--batch", BATCH_B, "--open")] == [first, *rest]
    d = js(ws, "decide", BATCH_B, "--action", "shrink", "--reason", "answer the first", "--by", "wang.lei",
           "--approver", "li.na", "--answers", first)
    assert d["answers"] == [first] and d["supersedes"] is not None
    still = [a["id"] for a in js(ws, "alerts", "--batch", BATCH_B, "--open")]
    assert still == rest
    again = run(ws, "decide", BATCH_B, "--action", "stop", "--reason", "x", "--by", "a", "--approver", "b",
                "--answers", first, ok=False)
    assert again.exit_code == 2 and "already answered" in again.output
    a_alert = js(ws, "alerts", "--batch", BATCH_A)[0]["id"]
    foreign = run(ws, "decide", BATCH_B, "--action", "stop", "--reason", "x", "--by", "a", "--approver", "b",
                  "--answers", a_alert, ok=False)
    assert foreign.exit_code == 2 and "not an alert of this batch" in foreign.output


def test_an_override_needs_a_second_named_approver(ws):
    st = js(ws, "status", BATCH_B)
    verdict = next(g["verdict"]["action"] for g in reversed(st["gates"]) if g["reached"])
    other = next(a for a in ("continue", "shrink", "stop", "retarget") if a != verdict)
    r = run(ws, "decide", BATCH_B, "--action", other, "--reason", "r", "--by", "wang.lei", ok=False)
    assert r.exit_code == 2 and "second named approver" in r.output
    assert f"the rules recommend {verdict}; choosing {other} overrides them" in r.output  # English: the codes
    zh = run(ws, "--lang", "zh-CN", "decide", BATCH_B, "--action", other, "--reason", "r", "--by", "wang.lei",
             ok=False)
    from trainledger.model.vocab import label

    # review 4 H10: the Chinese refusal says the actions as words, no English code inside it
    assert f"规则建议“{label(verdict, 'zh-CN')}”；选择“{label(other, 'zh-CN')}”会推翻规则的建议" in zh.output
    assert verdict not in zh.output.split("\n")[0] and other not in zh.output.split("\n")[0]
    r = run(ws, "decide", BATCH_B, "--action", other, "--reason", "r", "--by", "wang.lei", "--approver",
            "wang.lei", ok=False)
    assert r.exit_code == 2
    d = js(ws, "decide", BATCH_B, "--action", other, "--reason", "r", "--by", "wang.lei", "--approver", "li.na")
    assert d["override"] is True and d["verdict"]["action"] == verdict
    # sunk cost is shown; the options carry their cost to go
    assert d["sunk_cost"] and {o["action"] for o in d["options"]} == {"continue", "shrink", "stop", "retarget"}
    assert d["reusable_assets"] and all(a["owner"] and a["monthly_cost"] for a in d["reusable_assets"])


def _plan_rows(ws):
    db = sqlite3.connect(ws / "ledger.db")
    try:
        return db.execute("SELECT id, batch_id, stage, created_at, body FROM plans ORDER BY id").fetchall()
    finally:
        db.close()


def test_no_command_changes_a_plan_version(ws):
    before = _plan_rows(ws)
    run(ws, "status", BATCH_A)
    run(ws, "alerts")
    run(ws, "review", BATCH_A, "--json")
    run(ws, "attribute")
    run(ws, "decide", BATCH_A, "--action", "retarget", "--reason", "again", "--by", "wang.lei", "--approver", "li.na")
    no_reason = run(ws, "plan", BATCH_A, "--from-estimate", ws / "plans" / "spec-a.toml", ok=False)
    assert no_reason.exit_code == 2 and "--reason" in no_reason.output
    v2 = js(ws, "plan", BATCH_A, "--from-estimate", ws / "plans" / "spec-a.toml", "--reason", "after the data fix")
    assert v2["version"] == 2 and v2["reason"] == "after the data fix"
    after = _plan_rows(ws)
    assert after[: len(before)] == before  # v1 (and B's v1) untouched, byte for byte
    assert len(after) == len(before) + 1
    assert js(ws, "status", BATCH_A)["plan_version"] == 2
    listed = js(ws, "plan", "list")
    assert [(r["batch"], r["version"]) for r in listed] == [(BATCH_A, 1), (BATCH_A, 2), (BATCH_B, 1)]


def test_attribution_again_raises_no_alert_twice(ws):
    n = len(js(ws, "alerts"))
    run(ws, "attribute")
    assert len(js(ws, "alerts")) == n


@pytest.mark.parametrize("table,column,key", [("plans", "body", "reason"), ("alerts", "body", "value"),
                                               ("decision_records", "body", "reason")])
def test_audit_fails_when_a_record_is_edited(ws, table, column, key):
    assert run(ws, "audit").exit_code == 0
    db = sqlite3.connect(ws / "ledger.db")
    (rowid, body) = db.execute(f"SELECT rowid, {column} FROM {table} ORDER BY rowid LIMIT 1").fetchone()
    edited = json.loads(body)
    edited[key] = "edited quietly"
    db.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (json.dumps(edited), rowid))
    db.commit()
    r = run(ws, "audit", ok=False)
    assert r.exit_code == 1 and "does not match the hash in its audit entry" in r.output
    db.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (body, rowid))
    db.commit()
    db.close()
    assert run(ws, "audit").exit_code == 0


def test_plan_from_review_takes_measured_rates(demo_dir):
    p = js(demo_dir, "plan", BATCH_B, "--show")
    assert p["source"] == {"kind": "review", "batch": BATCH_A, "plan_version": 1}
    comp = next(ln for ln in p["lines"] if ln["id"] == "compute")
    assert comp["evidence"]["efficiency"]["evidence"] == "measured"
    assert comp["price"]["evidence"] == "measured"
    rv = js(demo_dir, "review", BATCH_A)
    eff = next(x for x in rv["lessons"] if x["name"] == "compute: effective gpu_hour per Mtoken")
    assert comp["efficiency"]["effective"]["expected"] == eff["after"]["value"]
    assert p["max_rounds"] == 44  # batch B's own maximum


def test_both_languages(demo_dir):
    zh = run(demo_dir, "status", BATCH_B, "--lang", "zh-CN").output
    en = run(demo_dir, "status", BATCH_B, "--lang", "en").output
    assert "完工估算" in zh and "未决" in zh and "estimate at completion" in en and "awaiting a decision" in en
    assert "差异桥" in run(demo_dir, "review", BATCH_A, "--lang", "zh-CN").output
    assert "variance bridge" in run(demo_dir, "review", BATCH_A, "--lang", "en").output
    assert "高风险假设" in run(demo_dir, "plan", BATCH_A, "--show", "--lang", "zh-CN").output


def test_the_sheet_shows_the_loop(demo_dir):
    md = (demo_dir / "reports" / f"{BATCH_A}.md").read_text()  # the demo writes zh-CN
    assert "## 计划与实际 (v1)" in md and "差异桥" in md and "重定目标" in md and "可复用资产" in md
    html = (demo_dir / "reports" / f"{BATCH_B}.html").read_text()
    assert 'id="variance-bridge"' in html and "未决" in html  # B's alerts are still open
    sheet = json.loads((demo_dir / "reports" / f"{BATCH_B}.json").read_text())
    sec = sheet["plan_vs_actual"]
    assert sec["open_alerts"] > 0 and sec["rounds"] == {"used": 38, "max": 44}  # held int8 export: no round
    from trainledger.report.render import render

    en = render(sheet, "md", "en")
    assert "## Plan vs actual (v1)" in en and "awaiting a decision" in en


def test_bad_plan_table_is_named(tmp_path, demo_dir):
    spec = (demo_dir / "plans" / "spec-a.toml").read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text(spec.replace('when = ["eac_over_plan > 0.3"]', 'when = ["eac_over_budget > 0.3"]'))
    shutil.copy(demo_dir / "plans" / "plan-prices.toml", tmp_path / "plan-prices.toml")
    r = run(demo_dir, "plan", BATCH_A, "--from-estimate", bad, "--reason", "x", ok=False)
    assert r.exit_code == 2 and "bad.toml" in r.output and "eac_over_budget" in r.output


def test_a_retarget_links_its_child_batch(ws, demo_dir):
    (d,) = js(demo_dir, "alerts", "--batch", BATCH_A)[:1]
    from trainledger.review import service
    from trainledger.service import Workspace

    with Workspace.open(demo_dir) as wsp:
        (rec,) = service.decisions(wsp, BATCH_A)
    assert rec["action"] == "retarget" and rec["child_batch"] == BATCH_B and rec["override"] is True
    assert rec["assets_by_reference"] and all(p.startswith("oss://") for p in rec["assets_by_reference"])
    assert d["answered_by"] == rec["id"]
    r = run(ws, "decide", BATCH_A, "--action", "stop", "--reason", "x", "--by", "a", "--approver", "b",
            "--child", BATCH_B, ok=False)
    assert r.exit_code == 2 and "--child" in r.output


def test_a_stale_price_is_flagged_not_silently_used(tmp_path, ws):
    book = (ws / "plans" / "plan-prices.toml").read_text()
    stale = book.replace("expires = 2027-03-31", "expires = 2026-11-01", 1)  # the first entry: gpu_hour:h800
    (ws / "plans" / "plan-prices.toml").write_text(stale)
    p = js(ws, "plan", BATCH_A, "--from-estimate", ws / "plans" / "spec-a.toml", "--reason", "stale test")
    comp = next(ln for ln in p["lines"] if ln["id"] == "compute")
    assert comp["price"]["stale"] is True
    assert any("gpu_hour:h800 expired 2026-11-01" in w for w in p["source"]["warnings"])
    shown = run(ws, "plan", BATCH_A, "--show", "--lang", "zh-CN").output
    assert "已于 2026-11-01 过期" in shown


def test_allocation_policy_views_are_not_actual_spend(ws):
    """A policy's share of idle or shared cost (basis ``allocated``) sits beside the direct cost on
    the sheet; it is not money the batch spent, so it has no variance row and no AC."""
    rv = js(ws, "review", BATCH_A)
    assert rv["variance"] and "allocated" not in {v["basis"] for v in rv["variance"]}
    st = js(ws, "status", BATCH_A)
    assert st["ac"] and "allocated" not in {a["basis"] for a in st["ac"]}


def test_answers_takes_several_ids_after_one_flag_as_the_docs_write(ws):
    open_b = [a["id"] for a in js(ws, "alerts", "--batch", BATCH_B, "--open")]
    assert len(open_b) >= 2
    d = js(ws, "decide", BATCH_B, "--action", "shrink", "--reason", "answer them", "--by", "wang.lei",
           "--approver", "li.na", "--answers", *open_b[:2])
    assert d["answers"] == sorted(open_b[:2])
    assert [a["id"] for a in js(ws, "alerts", "--batch", BATCH_B, "--open")] == open_b[2:]
    # ids after one flag and a repeated flag mix; the batch argument may follow the ids
    if len(open_b) >= 4:
        r = run(ws, "decide", "--action", "shrink", "--reason", "r", "--by", "wang.lei", "--approver", "li.na",
                "--answers", open_b[2], "--answers", open_b[3], BATCH_B, "--json")
        assert json.loads(r.output)["answers"] == sorted(open_b[2:4])


def test_one_review_class_per_run_in_the_sheet_review_and_runs_list(demo_dir):
    """run_causes.review_key decides for all three (a retry's suggested cause included)."""
    for batch in (BATCH_A, BATCH_B):
        sheet = json.loads((demo_dir / "reports" / f"{batch}.json").read_text())
        by_run = {r["id"]: r["suggested_review_class"] for r in sheet["runs"]}
        listed = js(demo_dir, "runs", "list", "--batch", batch)
        assert {k: r["review_class"] for k, r in listed.items()} == by_run
        rv = js(demo_dir, "review", batch)
        assert {c["review_class"]: c["runs"] for c in rv["review_classes"]} == {
            c["review_class"]: c["runs"] for c in sheet["runs_by_review_class"]}
        assert {r for c in rv["review_classes"] for r in c["run_ids"]
                if c["review_class"] == "unforeseeable_fault"} == {k for k, v in by_run.items()
                                                                   if v == "unforeseeable_fault"}
