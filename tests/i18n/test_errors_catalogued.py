"""Every sentence the code writes for people — errors and remedies, quarantine reasons, row flags,
audit problems — is in the catalogue in both languages, and is found again from its English text."""

from __future__ import annotations

import re

import pytest

from tests.i18n import scan
from trainledger.errors import BadInput, ConfigError, NotFound
from trainledger.i18n import localize, patterns, registry
from trainledger.i18n.core import placeholders

# Sentences made elsewhere and passed on whole: Python's own exception text (``str(e)``), a value
# an earlier catalogued call already made (``record.problem``), a setting's own help. Where each is
# made is scanned like every other call site.
PASSED_ON = {
    "errors.py", "cli/lazy.py", "estimate/engine.py", "ingest/__init__.py", "ingest/base.py", "ingest/convert.py",
    "ingest/delimited.py", "ingest/focus.py", "ingest/invoice.py", "ingest/kube.py", "ingest/progress.py",
    "ingest/slurm.py", "ingest/tabular.py", "ingest/worklog.py", "workspace.py", "ledger/figures.py",
    "ingest/run.py", "ingest/mapfile.py", "ingest/focus_fast.py", "ingest/slurm_fast.py",
    "web/writes.py",  # the decision form's override refusal: a Msg of the web catalogue (review 3 G12)
    "review/service.py",  # decide's override refusal: a Msg whose actions are Terms (review 4 H10)
    "ingest/remap.py",  # a native reader's quarantine reason with the file's own header in it (review 4 H10)
}


# Catalogued parts of sentences, built in a local variable the scan does not follow (``what = f"audit
# entry {id} ..."``); the sentence they go into is scanned, and they are translated inside it.
PARTS = {"audit entry {id} ({action} {object})"}
# What a file is and is not (importers' descriptions, identify()'s reasons, text.sniff's words): returned or
# set as attributes, not raised; tests/ingest/test_detect_zh.py checks them through every wrong-kind error.
PARTS |= {en for en, _zh in __import__("trainledger.i18n.texts_ingest_detect", fromlist=["DETECT"]).DETECT.values()}
# A run's cause source (engine/causes.py): said as Msg("cause.…") ids, not f-strings; tests/engine/test_causes.py
# checks every id is used and each renders in both languages.
PARTS |= {en for en, _zh in __import__("trainledger.i18n.texts_causes", fromlist=["CAUSES"]).CAUSES.values()}
# what the tool stores in the ledger (a plan's default reason, a drop reason): Msg("stored.…") ids
PARTS |= {en for en, _zh in __import__("trainledger.i18n.texts_stored", fromlist=["STORED"]).STORED.values()}
# the dashboard's 404 for a path no route has (web/app.py ``error``): set, not raised (review 5 J13)
PARTS |= {"no page at {path}", "see /batches, or /api/openapi.json"}
# a mapping file's problems and hints (ingest/mapfile.py ``_bad(where, key, problem)``, ``_hint``): made in helpers
# the scan does not follow; tests/ingest/test_mapfile_languages.py renders every one in both languages (issue 8)
PARTS |= {en for en, _zh in __import__("trainledger.i18n.texts_mapfile", fromlist=["MAPFILE"]).MAPFILE.values()}
# a batch entry's missing keys (workspace.py _batch), raised as a ValueError that _entry passes on (review 7 L9)
PARTS |= {"missing keys {names}"}
# decide's override refusal, raised as Msg("error.review.service.decide_rules_recommend_choosing") (review 4 H10)
PARTS |= {"decide {batch_id}: the rules recommend {action}; choosing {action2} overrides them"}


@pytest.fixture(scope="module")
def found() -> list[scan.Found]:
    return scan.scan()


def test_the_scan_sees_the_code(found):
    assert len(found) > 500
    assert any(f.path == "ingest/convert.py" and f.template == "not a number: {shown}" for f in found)


def test_every_sentence_the_code_writes_is_catalogued(found):
    known = patterns.known_templates()
    missing = sorted({f"{f.path}:{f.line}  {f.template}" for f in found if f.template and f.template not in known})
    assert not missing, ("sentences with no entry in trainledger/i18n/texts_errors*.py / texts_ingest*.py"
                         " (python tests/i18n/scan.py prints them):\n" + "\n".join(missing[:30]))


def test_values_passed_on_whole_come_only_from_known_places(found):
    dynamic = sorted({f.path for f in found if f.template is None})
    assert set(dynamic) <= PASSED_ON, f"a non-literal message in a new place: {set(dynamic) - PASSED_ON}"


def test_no_catalogue_entry_is_stale(found):
    written = {f.template for f in found if f.template}
    stale = sorted(en for en in patterns.known_templates() if en not in written | PARTS)
    assert not stale, f"catalogued sentences the code no longer writes: {stale[:20]}"


def _fill(template: str, values: dict[str, str]) -> str:
    return template.format(**values)


@pytest.mark.parametrize("namespace", patterns.NAMESPACES)
def test_each_sentence_is_found_again_from_its_english(namespace):
    """Render each template's English with sample values, translate it back: the Chinese of the same
    template with the same values (the values are distinct tokens, so a wrong split shows)."""
    wrong = []
    for key, (en, zh) in registry.table(namespace).items():
        names = sorted({n for n, _c, _s in placeholders(en)})
        values = {n: f"V{i}x" for i, n in enumerate(names)}
        english = _fill(en, values)
        if patterns._literal_len(en) < 2:
            continue
        got = localize(english, "zh-CN")
        if got != patterns.spaced(zh, values):  # a space where Chinese meets a Latin value
            wrong.append(f"{namespace}.{key}: {english!r} -> {got!r}")
    assert not wrong, "\n".join(wrong[:20])


def test_an_error_reads_in_chinese_with_its_file_row_and_remedy():
    e = BadInput("the header has no 'JobID' column", path="jobs.csv", row=3, remedy="rename or drop one of them")
    assert str(e) == "jobs.csv, row 3: the header has no 'JobID' column\n  remedy: rename or drop one of them"
    assert e.text("en") == str(e)
    assert e.text("zh-CN") == "jobs.csv 第 3 行：表头没有 'JobID' 列\n  解决办法：重命名或删除其中一个"
    assert NotFound("no batch b9 in ws/trainledger.toml", remedy="see `trainledger batch list`").text("zh-CN") == (
        "ws/trainledger.toml 中没有批次 b9\n  解决办法：见 `trainledger batch list`")


def test_a_composed_sentence_translates_its_parts():
    """``{label}: {e}`` around a converter's message: both parts in Chinese, the value as it was."""
    assert localize("Elapsed: not a number: 'abc'", "zh-CN") == "Elapsed：不是数字：'abc'"


def test_an_audit_problem_reads_in_chinese():
    en = ("audit entry 7 (import slurm:ab12): prev_hash does not match the hash of entry 6 (an entry was removed,"
          " inserted or reordered)")
    assert localize(en, "zh-CN") == ("审计条目 7（import slurm:ab12）：prev_hash 与条目 6 的哈希不符"
                                     "（有条目被删除、插入或调换顺序）")


def test_text_no_template_made_stays_as_it_is():
    assert localize("something nobody catalogued", "zh-CN") == "something nobody catalogued"
    assert localize("not a number: 'abc'", "en") == "not a number: 'abc'"
    assert ConfigError("free text").text("zh-CN") == "free text"


def test_chinese_templates_keep_no_english_sentence():
    """The zh-CN side of an error says it in Chinese: no run of three English words outside a code span,
    an option or a placeholder."""
    words = re.compile(r"(?<![-\w.`/{])[A-Za-z]{2,}(?: [A-Za-z]{2,}){3,}")
    bad = []
    for ns in patterns.NAMESPACES:
        for key, (_en, zh) in registry.table(ns).items():
            stripped = re.sub(r"`[^`]*`|\{[^}]*\}|'[^']*'|\"[^\"]*\"|--[\w-]+", "", zh)
            if words.search(stripped):
                bad.append(f"{ns}.{key}: {zh}")
    assert not bad, "\n".join(bad[:20])
