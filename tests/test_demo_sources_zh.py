"""The demo's own sources in Chinese: its labor rate card, price book, FX rate and capacities carry a
reviewed ``source_zh`` (workspace.py ``with_zh``), so a zh-CN sheet's assumptions drawer reads Chinese
and the English sheet and JSON keep the English as written."""

import json

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.errors import ConfigError
from trainledger.i18n.core import Twin
from trainledger.workspace import with_zh

BATCH = "csa-sft-2026-11-a"


def _run(root, *args: str) -> str:
    r = CliRunner().invoke(cli, ["--workspace", str(root), *args], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.output


@pytest.fixture(scope="module")
def owned(tmp_path_factory):
    root = tmp_path_factory.mktemp("demo-owned") / "ws"
    r = CliRunner().invoke(cli, ["--lang", "en", "demo", "--scenario", "owned", "--dir", str(root)],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return root


@pytest.mark.parametrize("which", ["rented", "owned"])
def test_every_demo_assumption_has_its_chinese(demo_pristine, owned, which):
    root = demo_pristine if which == "rented" else owned
    rows = json.loads(_run(root, "sheet", BATCH, "--format", "json", "--role", "finance"))["assumptions"]
    assert len(rows) >= 10
    missing = [a["name"] for a in rows if not a.get("source_zh")]
    assert missing == []
    names = {a["name"]: a for a in rows}
    assert names["labor rate: data_prep"]["source"] == "finance rate card FY2026, data engineer band"
    assert names["labor rate: data_prep"]["source_zh"] == "财务 FY2026 费率卡，数据工程师档"
    if which == "owned":
        cap = next(a for a in rows if a["name"].startswith("capacity h800-reserved"))
        assert cap["source"].startswith("reserved-capacity contract RC-2026-031")
        assert cap["source_zh"].startswith("预留容量合同 RC-2026-031")


def test_the_zh_drawer_reads_chinese_and_the_english_one_english(demo_pristine):
    zh = _run(demo_pristine, "--lang", "zh-CN", "sheet", BATCH, "--role", "finance")
    en = _run(demo_pristine, "--lang", "en", "sheet", BATCH, "--role", "finance")
    assert "财务 FY2026 费率卡，SRE 档" in zh and "finance rate card FY2026, SRE band" not in zh
    assert "演示数据（示意）" in zh and "demo data (illustrative)" not in zh
    assert "finance rate card FY2026, SRE band" in en and "费率卡" not in en


def test_a_source_zh_needs_its_english():
    assert isinstance(with_zh({"source": "rate card", "source_zh": "费率卡"}, "source"), Twin)
    assert with_zh({"source": "rate card", "source_zh": "  "}, "source") == "rate card"
    with pytest.raises(ValueError, match="source_zh is given without source"):
        with_zh({"source": "", "source_zh": "费率卡"}, "source")


def test_a_workspace_rate_without_english_source_names_its_entry(tmp_path):
    from trainledger import workspace

    (tmp_path / workspace.CONFIG_NAME).write_text(
        '[workspace]\nname = "w"\ncurrency = "CNY"\n\n[[labor_rates]]\nrole = "data_prep"\ncurrency = "CNY"\n'
        'low = "1"\nexpected = "2"\nhigh = "3"\nsource = ""\nsource_zh = "费率卡"\nevidence = "assumed"\n'
        'owner = "finance"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[\[labor_rates\]\] entry 1 \(data_prep\): source_zh is given without"):
        workspace.load(tmp_path)
