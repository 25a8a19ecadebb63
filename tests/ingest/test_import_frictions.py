"""Review 4 H10, import frictions: a quarantine reason names the file's own header (an Alibaba API
export's PretaxAmount, W&B's _timestamp), not the preset's alias or the lake column; `import wandb`
takes --set run=NAME for a history without a run column; `imports show` lists only the options
the kind reads (a FOCUS bill never reads --tz)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from trainledger.cli import cli

CN = Path(__file__).resolve().parents[1] / "data" / "cn-bills"


def run(*args, code: int = 0):
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result.output


def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    run("init", root, "--currency", "CNY")
    return root


def quarantine(root: Path, kind: str) -> list[dict]:
    return [r for r in json.loads(run("--workspace", root, "quarantine", "--json")) if r["status"] == "quarantined"
            and r["kind"] == kind]


def test_an_alibaba_api_export_is_told_by_its_own_header(tmp_path):
    lines = (CN / "aliyun_split_bill_api.csv").read_text(encoding="utf-8").splitlines()
    head = lines[0].split(",")
    bad = lines[1].split(",")
    bad[head.index("PretaxAmount")] = "1六0.00"
    bill = tmp_path / "aliyun-api.csv"
    bill.write_text("\n".join([lines[0], *lines[1:], ",".join(bad)]) + "\n", encoding="utf-8")
    root = ws(tmp_path)
    out = run("--workspace", root, "import", "aliyun", bill)
    (q,) = quarantine(root, "aliyun")
    assert q["reason"].startswith("PretaxAmount: not a number: '1六0.00'"), q
    assert "应付金额" not in out and f"row {len(lines)}: PretaxAmount: not a number" in out
    zh = json.loads(run("--workspace", root, "quarantine", "--json"))
    assert any(r.get("reason_zh", "").startswith("PretaxAmount：不是数字") for r in zh)


def test_the_documented_chinese_export_keeps_its_chinese_header(tmp_path):
    lines = (CN / "aliyun_split_bill_documented.csv").read_text(encoding="utf-8").splitlines()
    head = next(i for i, ln in enumerate(lines) if "应付金额" in ln)
    cols = lines[head].split(",")
    bad = lines[head + 1].split(",")
    bad[cols.index("应付金额")] = "x"
    bill = tmp_path / "aliyun-zh.csv"
    bill.write_text("\n".join([*lines, ",".join(bad)]) + "\n", encoding="utf-8")
    root = ws(tmp_path)
    run("--workspace", root, "import", "aliyun", bill)
    (q,) = quarantine(root, "aliyun")
    assert q["reason"].startswith("应付金额: not a number"), q


def _history(tmp_path: Path) -> Path:
    path = tmp_path / "history.csv"  # run.history() as a CSV: no run column, no run directory
    path.write_text("_step,_timestamp,loss,train/samples\n0,1794276000,1.0,0\n1,1794276060,0.9,64\n"
                    "2,yesterday,0.8,128\n", encoding="utf-8")
    return path


def test_a_wandb_history_without_a_run_takes_set_run(tmp_path):
    root, path = ws(tmp_path), _history(tmp_path)
    out = run("--workspace", root, "import", "wandb", path)
    assert "0 accepted, 0 duplicate, 3 quarantined" in out
    reasons = [q["reason"] for q in quarantine(root, "wandb")]
    assert reasons[:2] == ["run is empty", "run is empty"]
    assert reasons[2].startswith("_timestamp: ") and "ts:" not in reasons[2]  # the file's column, not the lake's
    assert "--set run=NAME" in out
    out = run("--workspace", root, "import", "wandb", path, "--set", "run=r03")
    assert "2 accepted, 0 duplicate, 1 quarantined" in out
    out = run("--workspace", root, "import", "wandb", path, "--set", "run=r04")  # another run: not a duplicate
    assert "2 accepted, 0 duplicate, 1 quarantined" in out
    again = run("--workspace", root, "import", "wandb", path, "--set", "run=r04")
    assert "0 accepted, 2 duplicate" in again
    from trainledger.service import Workspace

    with Workspace.open(root) as w:
        runs = w.lake.read("progress_events").column("run").to_pylist()
    assert sorted(runs) == ["r03", "r03", "r04", "r04"]
    err = run("--workspace", root, "import", "wandb", path, "--set", "vc=a", code=2)
    assert "--set vc: `import wandb` takes --set run" in err


def test_imports_show_lists_the_options_the_kind_reads(tmp_path):
    root = ws(tmp_path)
    focus = Path(__file__).resolve().parents[1] / "data" / "focus-sample-data" / "focus_sample.csv"
    run("--workspace", root, "import", "focus", focus)
    (rec,) = json.loads(run("--workspace", root, "imports", "list", "--json"))
    assert "tz" not in rec["options"] and "storage_prefixes" not in rec["options"]
    assert "tz" not in run("--workspace", root, "imports", "show", rec["id"])


def test_an_s3_inventory_without_rules_is_accepted_and_a_schemed_rule_matches_it(tmp_path):
    """Review 4 H10: an S3 Inventory whose rows carry StorageClass but match no [[storage_prefixes]]
    rule is accepted (class unknown, priced by its tier, flagged) rather than quarantined whole.
    Issue 8 K8: a rule written s3://bucket/… matches the inventory's bucket + key (paths are
    stored s3://bucket/key, rules match without the scheme); a rule of the inventory's bucket that
    matches no object gets the notice rule_unmatched, in both languages."""
    from tests.ingest.test_ingest_inventory import DAY1, LINES, s3_report

    from trainledger.service import Workspace

    root = ws(tmp_path)
    manifest = s3_report(tmp_path, DAY1, LINES)
    with Workspace.open(root) as w:
        (res,) = w.import_files("inventory", [manifest])
        rows = w.lake.read("storage_objects").to_pylist()
    # three objects with a provider class: in; tmp/x (no class at all) and the short row: quarantined
    assert (res.rows_read, res.accepted, res.quarantined) == (5, 3, 2) and not res.notices
    assert {(r["storage_class"], r["tier"]) for r in rows} == {("unknown", "standard"), ("unknown", "deep_archive")}
    assert all("what the object is for is unknown" in r["flags"] for r in rows)
    root = ws(tmp_path / "two")
    toml = root / "trainledger.toml"
    toml.write_text(toml.read_text() + '\n[[storage_prefixes]]\nprefix = "s3://llm-ckpt/runs/"\n'
                    'storage_class = "checkpoint"\n\n[[storage_prefixes]]\nprefix = "s3://llm-ckpt/checkpoints/"\n'
                    'storage_class = "checkpoint"\n\n[[storage_prefixes]]\nprefix = "oss://other-bucket/"\n'
                    'storage_class = "cache"\n')
    with Workspace.open(root) as w:
        (res,) = w.import_files("inventory", [manifest])
        rows = w.lake.read("storage_objects").to_pylist()
    assert sorted((r["path"], r["storage_class"]) for r in rows) == [
        ("s3://llm-ckpt/raw/shard-0001.tar", "unknown"),
        ("s3://llm-ckpt/runs/r1/step=1000/model.pt", "checkpoint"),
        ("s3://llm-ckpt/runs/r1/step=500/model.pt", "checkpoint")]
    # the unmatched rule of this bucket is told of; the rule of a bucket this import does not list is not
    assert [(k, v["prefix"]) for k, v in res.notices] == [("rule_unmatched", "s3://llm-ckpt/checkpoints/")]
    out = run("--workspace", root, "import", "inventory", manifest)
    assert ("storage rule prefix s3://llm-ckpt/checkpoints/ matches no object of this import, though it lists"
            " objects of bucket llm-ckpt (e.g. llm-ckpt/raw/shard-0001.tar)") in " ".join(out.split())
    zh = run("--workspace", root, "--lang", "zh-CN", "import", "inventory", manifest)
    assert "存储前缀规则 s3://llm-ckpt/checkpoints/ 未匹配本次导入的任何对象" in zh and "matches no" not in zh
