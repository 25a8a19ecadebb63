"""Review 3 G12/G15: the command line says a plan's bounds, an import's options and the dashboard's
writes in words — no raw JSON, no "read-only" banner over a dashboard with write forms."""

from __future__ import annotations

import json

from trainledger.review.plan import DEFAULT_BOUNDS


def test_bounds_are_sentences_in_both_languages():
    from trainledger.cli.plan_cmds import bounds_text

    en, zh = bounds_text(DEFAULT_BOUNDS, "en"), bounds_text(DEFAULT_BOUNDS, "zh-CN")
    assert en == ("spend alerts at 50, 80, 100 % of the plan; an alert when the EAC's high is over the plan's"
                  " high; an alert when the rounds reach the maximum")
    assert zh == "支出达到计划的 50、80、100% 时预警；完工估算上限超过计划上限时预警；轮数达到上限时预警"
    off = bounds_text({**DEFAULT_BOUNDS, "rounds_at_max": False, "other": [1]}, "en")
    assert off.endswith("an alert when the rounds reach the maximum: off; other=[1]")
    assert "{" not in en + zh and "spend_pct" not in en + zh


def test_import_options_are_name_value_pairs():
    from trainledger.cli.imports_cmds import options_text

    opts = {"storage_prefixes": [["oss://a/raw/", "raw_data"], ["oss://b/", "cache"]], "tz": "UTC", "x": []}
    got = options_text(json.loads(json.dumps(opts)))
    assert got == "storage_prefixes oss://a/raw/ → raw_data, oss://b/ → cache; tz UTC; x none"


def test_serve_banner_names_the_writes(monkeypatch, tmp_path):
    import uvicorn
    from click.testing import CliRunner

    from trainledger.cli import cli

    CliRunner().invoke(cli, ["init", str(tmp_path / "ws")], catch_exceptions=False)
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: None)
    for lang, words in (("en", "forms write to its ledger"), ("zh-CN", "会写入账本")):
        r = CliRunner().invoke(cli, ["--workspace", str(tmp_path / "ws"), "--lang", lang, "serve", "--port", "0"])
        assert r.exit_code == 0, r.output
        assert words in r.output and "read-only" not in r.output and "只读看板" not in r.output
