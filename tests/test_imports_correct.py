"""Correcting an import: list, show, drop, replace — each in the audit chain, and the next
`attribute` reflects it while nothing else changes. Quarantined rows are listable; --strict."""

from __future__ import annotations

import json
import textwrap
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.service import Workspace

from .configs import ONE_BATCH

DATA = Path(__file__).resolve().parent / "data"
EXTRA_BILL = DATA / "focus-spec-examples" / "commitment_discount_purchase_scenario_1.csv"
SACCT = """JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|NodeList|Restarts
7001|sft|ml|b1|reason=planned_experiment|li|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T08:10:00|2026-11-02T10:10:00|COMPLETED|0:0|billing=64,cpu=64,gres/gpu=8,mem=500G,node=1|gpu-node-01|0
7002|sft|ml|b1|reason=fault_retry;cause=infra_fault|li|2026-11-02T11:00:00|2026-11-02T11:00:00|not-a-time|2026-11-02T12:00:00|COMPLETED|0:0|gres/gpu=8,node=1|gpu-node-01|0
"""
RULE = """
[[rules]]
id = "wckey"
source = "slurm"
field = "wckey"
match = "template"
"""


def cli_run(*args, code=0):
    args = ("--lang", "en", *args) if "--lang" not in args else args  # the workspace's language is zh-CN
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    Workspace.init(root).close()
    with open(root / "trainledger.toml", "a", encoding="utf-8") as f:
        f.write(textwrap.dedent(ONE_BATCH + RULE))
    (tmp_path / "sacct.txt").write_text(SACCT, encoding="utf-8")
    return root


def listing(ws):
    return json.loads(cli_run("--workspace", ws, "imports", "list", "--json").output)


def test_wrong_time_zone_is_replaced_and_the_runs_move(ws, tmp_path):
    src = tmp_path / "sacct.txt"
    cli_run("--workspace", ws, "import", "slurm", src, "--tz", "UTC")
    (imp,) = listing(ws)
    assert (imp["status"], imp["rows_read"], imp["accepted"], imp["quarantined"]) == ("live", 2, 1, 1)
    assert imp["options"]["tz"] == "UTC"
    with Workspace.open(ws) as wsp:
        (run,) = wsp.attribute().runs.values()
    assert run.run.started_at == datetime(2026, 11, 2, 8, 10, tzinfo=UTC)

    out = cli_run("--workspace", ws, "import", "slurm", src, "--tz", "Asia/Shanghai",
                  "--replace", imp["id"], "--reason", "cluster runs on Beijing time").output
    assert "1 accepted" in out
    (again,) = listing(ws)
    assert (again["status"], again["accepted"], again["options"]["tz"]) == ("live", 1, "Asia/Shanghai")
    with Workspace.open(ws) as wsp:
        result = wsp.attribute()
        (run,) = result.runs.values()  # the old reading is gone, not beside the new one
        assert len(wsp.lake.read("jobs")) == 1
        actions = [(e["action"], e["detail"].get("reason")) for e in wsp.ledger.audit_log()]
    assert run.run.started_at == datetime(2026, 11, 2, 0, 10, tzinfo=UTC)
    assert ("drop_import", "cluster runs on Beijing time") in actions
    assert json.loads(cli_run("--workspace", ws, "audit", "--json").output)["intact"]


def figures(result):
    return Counter((ln.category, str(ln.basis), ln.batch_id, ln.detail, ln.amount.expected, ln.currency,
                    ln.provenance.source_sha256, ln.provenance.row) for ln in result.lines)


def test_dropping_a_bill_takes_exactly_its_rows_out(tmp_path):
    from trainledger.cli.demo_cmd import run_demo

    root = tmp_path / "demo"
    run_demo(root, 20261129, echo=lambda *a, **k: None)
    with Workspace.open(root) as wsp:
        before = wsp.attribute()
    cli_run("--workspace", root, "import", "focus", EXTRA_BILL, "--currency", "USD")
    with Workspace.open(root) as wsp:
        with_extra = wsp.attribute()
        extra = next(r for r in wsp.ledger.imports() if r.path == str(EXTRA_BILL))
    assert figures(with_extra) != figures(before)  # the extra bill is in the figures...
    usd = lambda res: next(c for c in res.conservation if c["currency"] == "USD")["billed_total"]  # noqa: E731
    assert usd(with_extra) != usd(before)

    out = cli_run("--workspace", root, "imports", "drop", extra.source_sha256[:12], "--reason", "not ours").output
    assert "no longer feed any figure" in out
    with Workspace.open(root) as wsp:
        after = wsp.attribute()
        recs = {r.path: r for r in wsp.ledger.imports()}
    assert figures(after) == figures(before)  # ...and dropping it restores every line exactly
    assert after.conservation == before.conservation
    assert recs[str(EXTRA_BILL)].dropped_at is not None and recs[str(EXTRA_BILL)].drop_reason == "not ours"
    assert sum(r.dropped_at is not None for r in recs.values()) == 1  # nothing else changed
    shown = json.loads(cli_run("--workspace", root, "imports", "show", extra.source_sha256[:8], "--json").output)
    assert shown["status"] == "dropped" and shown["attempts"][0]["options"]["currency"] == "USD"
    # dropped twice is an error naming the remedy; importing it again brings it back
    again = cli_run("--workspace", root, "imports", "drop", extra.source_sha256[:12], "--reason", "x", code=2)
    assert "already dropped" in again.output and "import the file again" in again.output
    cli_run("--workspace", root, "import", "focus", EXTRA_BILL, "--currency", "USD")
    with Workspace.open(root) as wsp:
        assert figures(wsp.attribute()) == figures(with_extra)
        assert next(r for r in wsp.ledger.imports() if r.path == str(EXTRA_BILL)).dropped_at is None
    assert json.loads(cli_run("--workspace", root, "audit", "--json").output)["intact"]


def test_quarantine_lists_rows_with_reasons_and_strict_exits_1(ws, tmp_path):
    src = tmp_path / "sacct.txt"
    out = cli_run("--workspace", ws, "import", "slurm", src, "--tz", "UTC", "--strict", code=1).output
    assert "row 2: Start: not an ISO 8601 timestamp: 'not-a-time'" in out  # the reason, not only a path
    assert f"trainledger --workspace {ws} imports show" in out
    rows = json.loads(cli_run("--workspace", ws, "quarantine", "--json").output)
    assert [(r["status"], r["kind"], r["row"]) for r in rows] == [("quarantined", "slurm", 2)]
    assert rows[0]["reason"] and rows[0]["remedy"]
    assert json.loads(cli_run("--workspace", ws, "quarantine", "--kind", "focus", "--json").output) == []
    text = cli_run("--workspace", ws, "quarantine").output
    assert "not-a-time" in text
    (imp,) = listing(ws)
    show = cli_run("--workspace", ws, "imports", "show", imp["id"]).output
    assert "row 2 (line 3)" in show and "quarantine file" in show
    with Workspace.open(ws) as wsp:
        assert "quarantined_rows" in {p.kind for p in wsp.attribute().problems}
    cli_run("--workspace", ws, "imports", "drop", imp["id"], "--reason", "wrong export")
    assert json.loads(cli_run("--workspace", ws, "quarantine", "--json").output) == []  # a dropped file's rows
    with Workspace.open(ws) as wsp:  # ...are in no problem either: the file is withdrawn
        assert "quarantined_rows" not in {p.kind for p in wsp.attribute().problems}
    # usage errors are exit 2 with a remedy
    assert "imports list" in cli_run("--workspace", ws, "imports", "show", "abcdef123456", code=2).output
    assert "at least 6 hex" in cli_run("--workspace", ws, "imports", "drop", "zz", "--reason", "r", code=2).output


def test_strict_without_quarantine_exits_0(ws, tmp_path):
    good = tmp_path / "good.txt"
    good.write_text("\n".join(SACCT.splitlines()[:2]) + "\n", encoding="utf-8")
    cli_run("--workspace", ws, "import", "slurm", good, "--tz", "UTC", "--strict")


def test_replace_checks_the_new_file_before_dropping(ws, tmp_path):
    cli_run("--workspace", ws, "import", "slurm", tmp_path / "sacct.txt", "--tz", "UTC")
    (imp,) = listing(ws)
    bill = tmp_path / "not-sacct.txt"
    bill.write_text("hello\n", encoding="utf-8")
    cli_run("--workspace", ws, "import", "slurm", bill, "--replace", imp["id"], code=2)
    (still,) = listing(ws)
    assert still["status"] == "live"  # a wrong file stops the command before anything is dropped


def _overlapping_exports(ws, tmp_path):
    head = ("BillingPeriodStart,BillingPeriodEnd,ChargePeriodStart,ChargePeriodEnd,ChargeCategory,"
            "ResourceId,BilledCost,EffectiveCost,BillingCurrency\n")
    rows = [f"2023-01-01T00:00:00Z,2023-02-01T00:00:00Z,2023-01-0{d}T00:00:00Z,2023-01-0{d}T01:00:00Z,Usage,"
            f"vm-{d},{d}.25,{d}.25,USD\n" for d in range(1, 6)]
    full = tmp_path / "full-month.csv"
    full.write_text(head + "".join(rows), encoding="utf-8")
    lines = [head, *rows]
    part = tmp_path / "mid-month.csv"
    part.write_text("".join(lines[:3]), encoding="utf-8")  # header + the first 2 rows of the full export
    imp = lambda p, *more: cli_run("--workspace", ws, "import", "focus", p, "--currency", "USD", *more)  # noqa: E731
    imp(part)
    imp(full)
    recs = {Path(r["path"]).name: r for r in listing(ws)}
    assert (recs[full.name]["accepted"], recs[full.name]["duplicates"]) == (len(lines) - 3, 2)
    return full, part, lines, imp, recs


def test_dropping_an_overlapping_export_gives_the_later_one_its_shared_rows(ws, tmp_path):
    """The full-month export states the 2 rows it shared with the mid-month one: dropping the
    mid-month export leaves them counted, now as the full export's rows (lake/resettle.py)."""
    full, part, lines, _imp, recs = _overlapping_exports(ws, tmp_path)
    out = cli_run("--workspace", ws, "imports", "drop", recs[part.name]["id"], "--reason", "superseded").output
    assert f"{recs[full.name]['id']} +2" in out and "--replace" not in out
    with Workspace.open(ws) as wsp:
        bill = wsp.lake.read("bill_lines")
        assert len(bill) == len(lines) - 1  # every row of the full export, once
        assert set(bill.column("source_sha256").to_pylist()) == {recs[full.name]["sha256"]}
        assert sorted(bill.column("row").to_pylist()) == [1, 2, 3, 4, 5]  # the full export's own row numbers
        assert wsp.lake_problems() == []
    recs = {Path(r["path"]).name: r for r in listing(ws)}
    assert (recs[full.name]["accepted"], recs[full.name]["duplicates"]) == (len(lines) - 1, 0)


def test_dropping_an_overlapping_export_says_how_to_get_the_shared_rows_back(ws, tmp_path):
    """An import written before imports recorded their duplicates (no held record) cannot get its
    shared rows back: the drop names it and the --replace that reads it again."""
    full, part, lines, imp, recs = _overlapping_exports(ws, tmp_path)
    for held in (ws / "lake" / "bill_lines").glob("source=*/held-*.parquet"):
        held.unlink()  # as an older trainledger left the lake
    out = cli_run("--workspace", ws, "imports", "drop", recs[part.name]["id"], "--reason", "superseded").output
    assert recs[full.name]["id"] in out and "--replace" in out
    with Workspace.open(ws) as wsp:
        assert len(wsp.lake.read("bill_lines")) == len(lines) - 3  # the shared rows are gone for now
    imp(full, "--replace", recs[full.name]["id"], "--reason", "re-read after dropping the mid-month export")
    with Workspace.open(ws) as wsp:
        assert len(wsp.lake.read("bill_lines")) == len(lines) - 1  # every row of the full export, once
    recs = {Path(r["path"]).name: r for r in listing(ws)}
    assert (recs[full.name]["status"], recs[full.name]["accepted"], recs[full.name]["duplicates"]) == \
        ("live", len(lines) - 1, 0)


def test_a_quarantine_fixed_by_a_reimport_stays_fixed(ws, tmp_path):
    """Rows quarantined for want of a currency, accepted by a re-import with --currency: an
    identical re-run of the first import repeats its old counts, but the file's record and the
    problems follow the attempt that published rows."""
    bill = tmp_path / "no-currency.csv"
    bill.write_text("BillingPeriodStart,BillingPeriodEnd,ChargePeriodStart,ChargePeriodEnd,ChargeCategory,"
                    "ResourceId,BilledCost,EffectiveCost,BillingCurrency\n"  # the column there, empty
                    + "".join(f"2023-01-01T00:00:00Z,2023-02-01T00:00:00Z,2023-01-0{d}T00:00:00Z,"
                              f"2023-01-0{d}T01:00:00Z,Usage,vm-{d},{d}.00,{d}.00,\n" for d in (1, 2, 3)),
                    encoding="utf-8")
    cli_run("--workspace", ws, "import", "focus", bill)
    assert [(r["accepted"], r["quarantined"]) for r in listing(ws)] == [(0, 3)]
    cli_run("--workspace", ws, "import", "focus", bill, "--currency", "USD")
    cli_run("--workspace", ws, "import", "focus", bill)  # the first reading again: nothing new
    assert [(r["accepted"], r["duplicates"], r["quarantined"]) for r in listing(ws)] == [(3, 0, 0)]
    with Workspace.open(ws) as wsp:
        assert "quarantined_rows" not in {p.kind for p in wsp.attribute().problems}


def test_replace_refuses_an_import_of_another_kind_and_drops_nothing(ws, tmp_path):
    """Review 7 L19: `import timesheet FILE --replace <the bill's id>` dropped the bill (its rows left
    every figure, conservation still 0.00). A file may replace only an import of its own kind of record."""
    cli_run("--workspace", ws, "import", "slurm", tmp_path / "sacct.txt", "--tz", "UTC")
    cli_run("--workspace", ws, "import", "focus", EXTRA_BILL, "--currency", "USD")
    bill = next(r for r in listing(ws) if r["kind"] == "focus")
    sheet = tmp_path / "timesheet.csv"
    sheet.write_text("date,person,role,hours,batch,phase,activity\n2026-11-02,li,ml,2,b1,run,tuning\n",
                     encoding="utf-8")
    out = cli_run("--workspace", ws, "import", "timesheet", sheet, "--replace", bill["id"], code=2).output
    assert f"import {bill['id']} is a focus import" in out and "nothing was dropped" in out
    assert "imports list --kind timesheet" in out
    after = {r["id"]: r for r in listing(ws)}
    assert after[bill["id"]]["status"] == "live"  # the bill is still in every figure
    assert not any(r["kind"] == "timesheet" for r in after.values())  # and nothing was imported
    zh = cli_run("--workspace", ws, "--lang", "zh-CN", "import", "timesheet", sheet, "--replace", bill["id"],
                 code=2).output
    assert "不能由 timesheet 文件替换" in zh and "nothing" not in zh
    # the same kind still replaces: a corrected bill for the bill
    again = cli_run("--workspace", ws, "import", "focus", EXTRA_BILL, "--currency", "USD", "--replace", bill["id"],
                    "--reason", "re-export").output
    assert "can replace" not in again
    assert [r["status"] for r in listing(ws) if r["kind"] == "focus"] == ["live"]  # dropped, then the same file again
