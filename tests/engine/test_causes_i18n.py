"""A run's cause source and review note are catalogue messages (i18n/texts_causes.py): the English
as it always was (what JSON consumers and the stored summaries hold), its id beside it, and the
Chinese rendered from the same parameters (the run page: tests/web/test_causes_zh.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from trainledger.engine.causes import RunFacts, explain
from trainledger.i18n import ZH, Msg, localize
from trainledger.i18n.texts_causes import CAUSES

HINT = "confirm with `trainledger runs confirm`"


def rf(run_id, state="COMPLETED", order="1", cause=None, retry_of=None, versions=("", "", "")):
    return RunFacts(run_id=run_id, batch_id="b1", job=run_id, state=state, order=order, tag_cause=cause,
                    retry_of=retry_of, versions=versions)


def _all():
    confirmed = {"e": {"cause": "infra_fault", "by": "li.na", "note": "OPS-1"}, "f": {"cause": "data_quality",
                                                                                     "by": "zhao"}}
    return explain([rf("a", "NODE_FAIL", "01"), rf("b", "FAILED", "02"), rf("c", "FAILED", "03"),
                    rf("d", order="04", cause="data_quality", retry_of="c"), rf("e", "FAILED", "05"),
                    rf("f", "FAILED", "06"), rf("g", "FAILED", "07", cause="exploration"),
                    rf("h", "FAILED", "08", cause="exploration"), rf("i", "NODE_FAIL", "09"),
                    rf("j", order="10", retry_of="i")], confirmed)


def test_the_english_is_what_it_was_and_each_sentence_has_its_id():
    ex = {k: e.as_dict() for k, e in _all().items()}
    expected = {  # the English text of before: byte for byte
        "a": ("cause.scheduler_state", f"suggested by scheduler state NODE_FAIL; {HINT}"),
        "b": ("cause.needs_review", "FAILED: no cause recorded or suggested; needs review"),
        "c": ("cause.retry_names", f"suggested: its retry d names it; {HINT}"),
        "d": ("cause.recorded", "recorded on the job (Comment cause=)"),
        "e": ("cause.confirmed_note", "confirmed by li.na (OPS-1)"),
        "f": ("cause.confirmed", "confirmed by zhao"),
        "j": ("cause.retries", f"suggested: it retries i (NODE_FAIL); {HINT}"),
    }
    for run, (ident, english) in expected.items():
        assert (ex[run]["cause_source_id"], ex[run]["cause_source"]) == (ident, english), run
    assert ex["h"]["review_note"] == "repeats g's exploration with no change of data, code or config version"
    assert ex["h"]["review_note_id"] == "cause.repeats" and ex["a"]["review_note_id"] is None
    assert json.loads(json.dumps(ex))["a"]["cause_source"] == expected["a"][1]  # JSON: the English string


def test_each_sentence_in_chinese_from_the_message_and_from_the_stored_english():
    ex = _all()
    zh = {k: (localize(e.cause_source, ZH), localize(e.review_note, ZH)) for k, e in ex.items()}
    assert zh["a"][0] == "由调度器状态 NODE_FAIL 推断；请用 `trainledger runs confirm` 确认"
    assert zh["e"][0] == "由 li.na 确认（OPS-1）" and zh["f"][0] == "由 zhao 确认"
    assert zh["j"][0] == "推断：它是 i（NODE_FAIL）的重试；请用 `trainledger runs confirm` 确认"
    assert zh["h"][1] == "重复了 g 的失败原因（探索性试验），而数据、代码与配置版本均未变更"  # the cause's label
    for k, e in ex.items():
        if e.cause_source:
            assert isinstance(e.cause_source, Msg) and re.search(r"[\u4e00-\u9fff]", zh[k][0]), k
            # a summary stored as plain text before: the template finds it again
            assert localize(str(e.cause_source), ZH) == zh[k][0] or e.cause_source.id == "cause.repeats", k
    assert localize(str(ex["h"].review_note), ZH).startswith("重复了 g 的失败原因（exploration）")


def test_every_catalogued_cause_sentence_is_said_by_the_engine():
    source = (Path(__file__).resolve().parents[2] / "src" / "trainledger" / "engine" / "causes.py").read_text()
    assert set(re.findall(r'Msg\("cause\.(\w+)"', source)) == set(CAUSES)
