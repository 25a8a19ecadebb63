"""The assumptions the engine names itself read in Chinese on a zh-CN sheet (review 7 L10: an owned
cluster's drawer printed "capacity h800-own: amortized hardware" in a Chinese sheet)."""

from __future__ import annotations

import pytest

from trainledger.report.i18n import assumption_name


@pytest.mark.parametrize("name, zh", [
    ("capacity h800-own: amortized hardware", "容量 h800-own：硬件摊销"),
    ("capacity h800-reserved: rate card", "容量 h800-reserved：费率卡"),
    ("capacity h800-reserved: rate card gpu:h800-reserved from 2026-11-01",
     "容量 h800-reserved：费率卡 gpu:h800-reserved，自 2026-11-01 起"),
    ("value of a queued GPU-hour on capacity h800-own (opportunity, not cash)",
     "容量 h800-own 排队卡时的价值（机会成本，非现金）"),
])
def test_capacity_assumptions_in_chinese_and_unchanged_in_english(name, zh):
    assert assumption_name(name, "zh-CN") == zh
    assert assumption_name(name, "en") == name


def test_a_name_the_engine_did_not_write_is_left_as_written():
    assert assumption_name("capacity x: something else", "zh-CN") == "capacity x: something else"
