"""The one registry: every message in both languages, same placeholders, nothing empty, no collisions."""

from __future__ import annotations

import re

import pytest

from trainledger.i18n import Msg, registry, text
from trainledger.i18n.core import placeholders


@pytest.fixture(scope="module")
def catalogue() -> dict[str, tuple[str, str]]:
    return registry.catalogue()


def test_every_namespace_loads_and_is_not_empty(catalogue):
    for namespace in registry.SOURCES:
        assert registry.table(namespace), f"namespace {namespace} has no messages"
    assert len(catalogue) > 1500


def test_every_message_has_both_languages(catalogue):
    bad = [i for i, pair in catalogue.items()
           if len(pair) != 2 or not all(isinstance(x, str) and x.strip() for x in pair)]
    assert not bad, f"messages lacking a language or empty: {bad[:20]}"


def test_both_languages_use_the_same_placeholders(catalogue):
    bad = [i for i, (en, zh) in catalogue.items() if placeholders(en) != placeholders(zh)]
    assert not bad, f"placeholders differ between en and zh-CN: {bad[:20]}"


def test_chinese_is_chinese(catalogue):
    """A zh-CN text with no Chinese character is an untranslated copy — allowed only where the text is
    a code, a unit or a name that reads the same in both (then both are equal and short)."""
    untranslated = [i for i, (en, zh) in catalogue.items()
                    if not any("\u4e00" <= ch <= "\u9fff" for ch in zh)
                    and len(re.findall(r"[A-Za-z]{2,}", re.sub(r"\{[^}]*\}", "", en))) > 2]
    assert not untranslated, f"zh-CN text without Chinese: {untranslated[:20]}"


def test_a_collision_is_refused(monkeypatch):
    """``sheet`` gaining a key ``key.project`` would shadow ``sheet.key``'s ``project``."""
    monkeypatch.setitem(registry.SOURCES, "sheet", ("trainledger.report.i18n:TEXT",
                                                   lambda t: iter([*t.items(), ("key.project", ("p", "项"))])))
    registry.table.cache_clear()
    try:
        with pytest.raises(ValueError, match="'sheet.key.project' is registered twice"):
            registry.catalogue()
    finally:
        registry.table.cache_clear()


def test_one_api_over_every_domain():
    from trainledger.estimate.messages import Msg as EstimateMsg

    assert text("sheet.title", "zh-CN") == "训练批次成本底稿"
    assert text("problem.job_without_batch.label", "en") == "job without a batch"
    assert text("vocab.effective", "zh-CN") == "有效训练"
    m = EstimateMsg("unit.gpu_hour")
    assert isinstance(m, Msg) and m.key == "estimate.unit.gpu_hour" and m.id == "unit.gpu_hour"
    assert m.text("zh-CN") == text("estimate.unit.gpu_hour", "zh-CN") != str(m)
    with pytest.raises(KeyError):
        text("nowhere.at_all")
