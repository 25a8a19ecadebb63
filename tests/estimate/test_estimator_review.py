"""The estimator review: workspace history outside a workspace, Markdown injection, one price lookup
and one wording of staleness."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.errors import ConfigError, NotFound
from trainledger.estimate import calibrate
from trainledger.estimate.messages import MESSAGES
from trainledger.estimate.pricing import Pricing
from trainledger.mdtext import inline
from trainledger.pricebook import SAMPLE_PRICE_BOOK, PriceBook, load_price_book, stale_reason
from trainledger.report.estimate_render import render_compare, render_estimate

from .helpers import estimate

COMMON = ["--on", "2026-11-29", "--samples", "3000"]
LORA = ["estimate", "--task", "lora", "--params", "7B", "--tokens", "50M", "--gpu", "h800", *COMMON]
CALIBRATION = "overhead calibration"


def invoke(args, **kw):
    r = CliRunner().invoke(cli, args, catch_exceptions=False, **kw)
    assert r.exit_code == 0, r.output
    return r


def _json(args) -> dict:
    return json.loads(invoke([*args, "--format", "json"]).stdout)


def _calibration_source(d: dict, lang: str = "en") -> str:
    row = next(a for a in d["assumptions"] if a["name"] == CALIBRATION)
    return row["source_zh"] if lang == "zh" else row["source"]


# ---------------------------------------------------------------- 1. workspace history


def test_outside_a_workspace_the_default_dot_is_no_workspace(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no trainledger.toml here: the CLI's --workspace is its default "."
    d = _json(LORA)
    src = _calibration_source(d)
    assert src.startswith("no workspace (no trainledger.toml in '.')") and "sourced priors" in src
    assert "NotFound" not in json.dumps(d, ensure_ascii=False)
    assert "no ledger history read" not in json.dumps(d)
    assert _calibration_source(d, "zh").startswith("未找到工作区")
    assert src in d["notes"] and not any("could not be read" in w for w in d["warnings"])


def test_workspace_ratios_without_a_workspace(tmp_path):
    h = calibrate.workspace_ratios(tmp_path)
    assert h.ratios == [] and h.note.id == "hist.not_a_workspace" and h.warning is None
    assert calibrate.workspace_ratios(None).note.id == "hist.no_workspace"


def test_the_dead_hook_branch_and_its_message_are_gone():
    assert "hist.no_hook" not in MESSAGES
    assert "ImportError" not in Path(calibrate.__file__).read_text(encoding="utf-8")


def test_an_empty_workspace_says_it_has_no_finished_batches(tmp_path):
    invoke(["--workspace", str(tmp_path), "init"])
    h = calibrate.workspace_ratios(tmp_path)
    assert h.ratios == [] and h.note.id == "hist.empty" and h.warning is None


def test_a_broken_workspace_is_a_warning_naming_the_error(tmp_path):
    (tmp_path / "trainledger.toml").write_text("this is = = not toml\n", encoding="utf-8")
    h = calibrate.workspace_ratios(tmp_path)
    assert h.ratios == [] and h.warning is not None
    assert "ConfigError" in h.warning and "not valid TOML" in h.warning and "ConfigError" in h.warning.zh
    r = CliRunner().invoke(cli, ["--workspace", str(tmp_path), *LORA, "--format", "json"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert any("ConfigError" in w and "could not be read" in w for w in d["warnings"])
    assert any("ConfigError" in w for w in d["warnings_zh"])
    assert "ConfigError" in _calibration_source(d) and "ConfigError" in r.stderr


def test_not_found_inside_a_real_workspace_is_not_no_workspace(tmp_path, monkeypatch):
    (tmp_path / "trainledger.toml").write_text("", encoding="utf-8")

    def missing(workspace):
        raise NotFound("no batch 'b1' in the ledger")

    monkeypatch.setattr(calibrate, "finished_batch_ratios", missing)
    h = calibrate.workspace_ratios(tmp_path)
    assert h.note.id == "hist.unreadable" and h.warning is not None and "no batch 'b1'" in h.warning


def test_unexpected_exceptions_from_the_ledger_are_raised(tmp_path, monkeypatch):
    def boom(workspace):
        raise RuntimeError("a bug, not a missing ledger")

    monkeypatch.setattr(calibrate, "finished_batch_ratios", boom)
    with pytest.raises(RuntimeError, match="a bug"):
        calibrate.workspace_ratios(tmp_path)


def test_history_is_read_through_the_ledger_function(tmp_path, monkeypatch):
    monkeypatch.setattr(calibrate, "finished_batch_ratios", lambda w: [1.2, 0.5, 1.3])
    h = calibrate.workspace_ratios(tmp_path)
    assert h.ratios == [1.2, 1.3] and h.note.id == "hist.calibrated_dropped" and h.warning is None


# ---------------------------------------------------------------- 2. Markdown injection

INJECTED_NAME = "x\r# INJECTED <img onerror=1>"


def _assert_inert(md: str, *markers: str) -> None:
    assert "<img" not in md and "<script" not in md
    for line in md.splitlines():
        for m in markers:
            assert not line.lstrip().startswith(m), line


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_name_cannot_inject_markdown(lang):
    md = invoke(["estimate", "--name", INJECTED_NAME, *LORA[1:], "--format", "md", "--lang", lang]).stdout
    _assert_inert(md, "# INJECTED")
    assert "x \\# INJECTED &lt;img onerror=1>" in md.splitlines()[0]


def test_price_book_text_cannot_inject_markdown(tmp_path):
    text = SAMPLE_PRICE_BOOK.read_text(encoding="utf-8")
    old = 'source = "DeepSeek-V3 Technical Report (arXiv:2412.19437, 2024-12), section 1:'
    assert text.count(old) == 1
    text = text.replace(old, 'source = "quote\\n# SOURCE <img src=x>\\r\\n| row |\\u2028`code` ' + old[10:])
    p = tmp_path / "evil.toml"
    p.write_text(text.replace('owner = "procurement"', 'owner = "proc\\n## OWNER <script>"', 1), encoding="utf-8")
    load_price_book(p)
    md = invoke([*LORA, "--price-book", str(p), "--format", "md"]).stdout
    _assert_inert(md, "# SOURCE", "## OWNER", "| row |")
    drawer = [ln for ln in md.splitlines() if "quote \\# SOURCE" in ln]
    assert len(drawer) == 1 and "\\| row \\|" in drawer[0] and "\\`code\\`" in drawer[0]
    assert drawer[0].count(" | ") == 6  # still seven cells: the injected pipes are escaped


def test_every_text_of_the_markdown_views_is_escaped(book):
    bad = "a\n# BAD <img>\u2029`x`"
    d = estimate(book, task="lora", params="7B", tokens="50M", gpu="h800", samples=3000).to_dict()
    d.update(name=bad, price_book=bad, warnings=[bad], notes=[bad])
    for a in d["assumptions"]:
        a.update(source=bad, owner=bad, note=bad)
    _assert_inert(render_estimate(d, "md"), "# BAD")
    from trainledger.estimate.procurement import compare

    c = compare(book, gpu="h100-80gb", gpus=64, years=3, on=date(2026, 11, 29), samples=2000, seed=1).to_dict()
    c.update(price_book=bad, warnings=[bad], basis=bad)
    for a in c["assumptions"]:
        a.update(source=bad, owner=bad, note=bad)
    for o in c["options"]:
        o.update(basis=bad, unavailable_reason=bad)
    md = render_compare(c, "md")
    _assert_inert(md, "# BAD")
    assert inline(bad) in md


# ---------------------------------------------------------------- 3. one lookup, one wording of staleness


def test_priced_entry_is_one_lookup_with_origin_and_converted_price(book, monkeypatch):
    on, item = date(2025, 1, 1), "gpu_hour:a100-80gb@aws-p4de"
    be, e = book.priced_entry(item, "gpu_hour", on)
    assert be == book.entry_for(item, on) and be.entry.unit == "node_hour" and be.gpus_per_node == 8
    assert e == book.unit_price(item, "gpu_hour", on) and e.unit == "gpu_hour"
    assert e.price == be.entry.price / 8

    calls = []
    real = PriceBook.entry_for

    def counting(self, *a, **kw):
        calls.append(a[0])
        return real(self, *a, **kw)

    monkeypatch.setattr(PriceBook, "entry_for", counting)
    u = Pricing(book, on, "USD").rate(item, "gpu_hour")
    assert calls == [item]  # not once for the origin and again for the unit price
    assert u.mode == pytest.approx(float(e.price)) and be.origin in u.note


def _stale_book(tmp_path) -> PriceBook:
    p = tmp_path / "stale.toml"
    p.write_text(
        '[[price]]\nitem = "gpu_hour:old"\nunit = "gpu_hour"\nprice = 1\n'
        'currency = "USD"\nsource = "x"\neffective = 2024-01-01\nexpires = 2024-12-31\n'
        '[[price]]\nitem = "gpu_hour:new"\nunit = "gpu_hour"\nprice = 1\n'
        'currency = "USD"\nsource = "x"\neffective = 2026-01-01\n',
        encoding="utf-8",
    )
    return load_price_book(p)


@pytest.mark.parametrize(
    ("item", "why", "why_zh"),
    [
        ("gpu_hour:old", "expired 2024-12-31", "已于 2024-12-31 过期"),
        ("gpu_hour:new", "effective only from 2026-01-01", "2026-01-01 起才生效"),
    ],
)
def test_staleness_has_one_wording_everywhere(tmp_path, item, why, why_zh):
    b, on = _stale_book(tmp_path), date(2025, 6, 1)
    e = b.lookup(item, on, allow_stale=True)
    reason = stale_reason(on, e.effective, e.expires)
    assert reason == why and reason.zh == why_zh
    with pytest.raises(NotFound, match=re.escape(f"is stale ({why})")):
        b.lookup(item, on)
    assert {s.item: s.reason for s in b.stale(on)}[item] == why
    pricing = Pricing(b, on, "USD")
    pricing.rate(item, "gpu_hour")
    (warning,) = pricing.summary_warnings()
    assert f"{item} ({why})" in warning and f"{item}（{why_zh}）" in warning.zh
    assert stale_reason(date(2024, 6, 1), date(2024, 1, 1), date(2024, 12, 31)) is None


def test_stale_wording_is_written_only_in_the_helper():
    src = Path(calibrate.__file__).parent
    for path in [src / "pricing.py", src.parent / "pricebook.py", src.parent / "cli" / "estimate.py"]:
        code = path.read_text(encoding="utf-8")
        assert "expired on" not in code and "effective from {" not in code
        assert code.count('"price.expired"') + code.count('"price.not_yet"') == (2 if "pricebook" in path.name else 0)


def test_stale_fx_reason_uses_the_helper(tmp_path):
    p = tmp_path / "fx.toml"
    p.write_text(
        '[[fx]]\nbase = "USD"\nquote = "CNY"\nrate = 7.2\ndate = 2024-01-01\nexpires = 2024-06-30\nsource = "x"\n',
        encoding="utf-8",
    )
    (s,) = load_price_book(p).stale(date(2025, 1, 1))
    assert s.kind == "fx" and s.reason == "expired 2024-06-30"


def test_config_error_is_still_raised_for_bad_units(book):
    with pytest.raises(ConfigError, match="unit mismatch"):
        book.priced_entry("storage:standard", "gpu_hour", date(2026, 3, 1))
