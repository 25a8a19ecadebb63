"""Known vs placeholder money, sized placeholders, and the means that add up."""

from __future__ import annotations

import pytest

from tests.estimate.helpers import estimate
from trainledger.report.estimate_render import render_estimate

LORA = dict(task="lora", params="7B", tokens="50M", gpu="h800", gpus=1)
FULL_DATA = {
    "licensing": [0, 0, 0],
    "cleaning_person_months": [0.5, 1, 2],
    "labelled_items": [4000, 5000, 6000],
    "review_fraction": [0.1, 0.2, 0.3],
    "eval_items": [500, 800, 1000],
}
FULL_LABOR = {"build": {"training_engineering": [0.5, 1, 2]}, "run": {"training_engineering": [0.1, 0.2, 0.4]}}


@pytest.mark.parametrize(
    "values",
    [
        LORA,
        dict(task="pretrain", params="7B", tokens="2T", gpu="h800", gpus=512),
        dict(task="rag"),
        dict(LORA, data=FULL_DATA),
    ],
    ids=["lora", "pretrain", "rag", "lora-with-data"],
)
def test_component_means_add_up_and_known_plus_placeholder_is_the_total(book, values):
    e = estimate(book, **values)
    m = e.split.mean
    assert m["compute"] + m["data"] + m["labor"] == pytest.approx(m["total"], rel=1e-12)
    assert m["known"] + m["placeholder"] == pytest.approx(m["total"], rel=1e-12)


def test_a_lora_on_placeholders_says_so_in_the_headline(book):
    e = estimate(book, **LORA)
    sp = e.split
    # compute is the only known money: the known P50 is the compute P50
    assert sp.known.p50 == pytest.approx(e.cost["compute"].p50, rel=1e-9)
    assert sp.placeholder_share_of_p50 > 0.99
    md = render_estimate(e.to_dict(), "md", "en")
    assert f"{sp.placeholder_share_of_p50:.0%} of the P50 total" in md
    head = md.split("## ", 1)[0]  # the headline, above the first section
    assert "Known and placeholder parts" in head and f"{sp.placeholder_share_of_p50:.0%}" in head
    assert "由占位值驱动" in render_estimate(e.to_dict(), "md", "zh-CN").split("## ", 1)[0]
    assert "percentiles are not additive" in md


def test_the_headline_shows_the_sourced_and_the_placeholder_part_apart(book):
    """The README's example (review 3 G15): the headline led with the P50 total, 460,000 USD, of a 50M-token
    LoRA whose sourced part is its compute (18.60 USD); the two parts are now said apart, the sourced first."""
    from trainledger.report.estimate_view import fmt_money as money

    e = estimate(book, **LORA)
    d, sp = e.to_dict(), e.split
    cur = d["cost"]["currency"]
    known, placeholder = money(sp.known.p50, cur), money(sp.placeholder.p50, cur)
    for lang, words in (("en", ("Known from your inputs", "resting on placeholders", "no budget until")),
                        ("zh-CN", ("已知部分", "基于占位值的部分", "不能当作预算"))):
        head = render_estimate(d, "md", lang).split("## ", 1)[0]
        line = next(ln for ln in head.splitlines() if words[0] in ln)
        assert all(w in line for w in words)
        assert line.index(f"P50 {known}") < line.index(f"P50 {placeholder}")  # the sourced part first, apart
        table = render_estimate(d, "md", lang).split("## ", 2)[2]
        total = next(ln for ln in table.splitlines() if ln.startswith(("| Total programme", "| 总预算")))
        assert f"{sp.placeholder_share_of_p50:.0%}" in total  # the result's total says what drives it
    full = render_estimate(estimate(book, **LORA, data=FULL_DATA, labor=FULL_LABOR).to_dict(), "md", "en")
    assert "| Total programme budget |" in full and "of its P50 on placeholders" not in full


def test_with_the_plan_given_nothing_is_placeholder(book):
    e = estimate(book, **LORA, data=FULL_DATA, labor=FULL_LABOR)
    assert e.split.placeholder.p90 == 0 and e.split.placeholder_share_of_p50 == 0
    assert e.split.placeholder_lines == ()
    assert e.split.known.p50 == pytest.approx(e.cost["total"].p50)
    assert "no placeholders" in render_estimate(e.to_dict(), "md", "en")


def test_a_given_data_line_leaves_the_placeholder_money(book):
    part = estimate(book, **LORA, data={"labelled_items": [4000, 5000, 6000]})
    assert "data:labelling" not in part.split.placeholder_lines
    assert "data:cleaning" in part.split.placeholder_lines
    # validation rests on the labelled items (given) and the review fraction (a placeholder)
    assert "data:validation" in part.split.placeholder_lines


def _row(e, part):
    rows = [a for a in e.assumptions if part in str(a.name)]
    assert len(rows) == 1
    return rows[0]


def test_placeholders_are_sized_from_task_and_scale_with_owner_and_source(book):
    lora = estimate(book, **LORA)
    small = estimate(book, **dict(LORA, tokens="5M"))
    cpt = estimate(book, task="continued_pretrain", params="7B", tokens="20B", gpu="h800", gpus=64)
    big_cpt = estimate(book, task="continued_pretrain", params="7B", tokens="400B", gpu="h800", gpus=64)
    a, b = _row(lora, "labelled items"), _row(small, "labelled items")
    # the lora placeholder's labelled set (1K-10K-50K), never more than the samples trained on:
    # 50M tokens train on 8,138+ samples (the set bounds it), 5M on 814-9,766 (the samples bound it)
    assert (float(a.low), float(a.high)) == (1000, 50000)
    assert (float(b.low), float(b.high)) == (814, 9766)
    assert a.owner == "data lead" and "50M training tokens" in str(a.source)
    # a continued pre-training gets a corpus budget, not labelled samples; cleaning grows with the corpus
    c, big = _row(cpt, "cleaning person months"), _row(big_cpt, "cleaning person months")
    assert float(big.high) > float(c.high) and "sqrt" in str(c.source) and c.owner == "data lead"
    lic_lora, lic_cpt = _row(lora, "licensing"), _row(cpt, "licensing")
    assert float(lic_cpt.high) > float(lic_lora.high)
    assert lora.cost["data"].p50 != cpt.cost["data"].p50
    for e in (lora, cpt):
        for r in e.assumptions:
            if "placeholder" in str(r.source):
                assert r.owner in ("data lead", "project lead"), r.name


def test_json_block_is_additive(book):
    d = estimate(book, **LORA).to_dict()
    kp = d["known_vs_placeholder"]
    assert set(kp) >= {"known", "placeholder", "placeholder_share_of_p50", "mean", "placeholder_lines"}
    assert set(d["cost"]) >= {"compute", "data", "labor", "total"}
