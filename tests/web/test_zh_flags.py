"""Review 4, H3: a bill row's flags (stored in the lake as English sentences) are said in Chinese on
the zh-CN quarantine page (已接收但带标记的行) and the source-row page, with the batch sheet's
sentence for the same fact; the lake keeps the English, and an unknown note prints as stored."""

from __future__ import annotations

import re

import pytest

from tests.test_provisional_notes import make
from trainledger.report.flag_text import flag_text, flags_text

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")

PROV = ("provisional: the aliyun-split-bill bill for 2026-11 is final after 2026-12-04T12:00:00+08:00; "
        "import the final export then (this row may still change)")
NOTE = "note: amounts keep 6 decimals / 金额保留6位小数"


def test_a_stored_provisional_sentence_reads_as_the_sheet_says_it():
    zh = flag_text(PROV, "zh-CN", "aliyun", "e771987bdcc7")
    assert zh == ("2026-11 账单：1 行为暂估数据，2026-12-04 12:00 +08:00 后才出账（阿里云，导入 e771987bdcc7）；"
                  "数字可能变化——届时请导入最终账单")
    assert flag_text(PROV, "en", "aliyun") == PROV  # English pages keep the stored text
    # an old lake / unknown import kind: the vendor from the preset name in the sentence
    assert "（阿里云，导入 —）" in flag_text(PROV, "zh-CN")


def test_a_vendor_note_takes_its_chinese_half_and_the_rows_month():
    both = flags_text([NOTE, PROV], "zh-CN", "aliyun", "abc")
    assert both.startswith("2026-11 账单：1 行带有厂商说明（阿里云，导入 abc）：金额保留6位小数；"
                           "2026-11 账单：1 行为暂估")
    assert flag_text(NOTE, "zh-CN") == "金额保留6位小数"  # no month known: the note alone
    assert flags_text([NOTE, PROV], "en") == f"{NOTE}; {PROV}"


def test_an_unknown_note_prints_as_stored():
    odd = "the tool never wrote this sentence"
    assert flag_text(odd, "zh-CN", "aliyun") == odd


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    root = make(tmp_path_factory.mktemp("zhflags") / "ws", "2026-12-01")
    with TestClient(create_app(root)) as c:
        yield c


def _bill(app):
    return next(i for i in app.get("/imports", headers={"accept": "application/json"}).json()["imports"]
                if i["kind"] == "huawei")


def test_the_zh_quarantine_page_says_the_flags_in_chinese(app):
    imp = _bill(app)
    zh = app.get(imp["href"], params={"lang": "zh-CN"}).text
    reasons = re.findall(r'class="f-reason">([^<]*)', zh)
    assert reasons and all("行为暂估数据，2026-12-04 10:00 +08:00 后才出账（华为云，导入 " in r for r in reasons)
    assert "is final after" not in zh and "provisional:" not in zh
    assert any("抹零" in r and "厂商说明" in r for r in reasons)  # the 8-decimal note, its Chinese half
    en = app.get(imp["href"], params={"lang": "en"}).text
    assert "is final after 2026-12-04T10:00:00+08:00" in en and "暂估" not in en
    j = app.get(imp["href"], headers={"accept": "application/json"}).json()
    assert j["flagged_rows"][0]["reason"].startswith("provisional: the ")  # the stored English is kept


def test_the_zh_source_row_page_says_the_flags_in_chinese(app):
    imp = _bill(app)
    href = app.get(imp["href"], headers={"accept": "application/json"}).json()["flagged_rows"][0]["href"]
    zh = app.get(href, params={"lang": "zh-CN"}).text
    assert "行为暂估数据" in zh and "is final after" not in zh
    en = app.get(href, params={"lang": "en"}).text
    assert "is final after" in en and "暂估" not in en
    j = app.get(href, headers={"accept": "application/json"}).json()
    assert "is final after" in j["values"]["flags"] and "行为暂估数据" in j["flags_zh"]
