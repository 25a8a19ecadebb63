"""The labelled-items placeholder of a fine-tune (review 4, H8): the task's labelled set, never
more than the samples the request trains on — not one fresh label per training sample."""

from __future__ import annotations

from tests.estimate.helpers import estimate
from trainledger.estimate.data_costs import placeholders_for
from trainledger.estimate.priors import priors


def _labelled(d: dict) -> dict:
    return next(a for a in d["assumptions"] if a["name"] == "data: labelled items")


def test_a_1b_token_full_finetune_is_not_488k_fresh_labels(book):
    # by hand: 1e9 tokens / (3 x 2048, 2 x 1024, 1 x 512) = 163K / 488K / 1.95M samples trained on;
    # the full_finetune placeholder labels 5K / 30K / 200K of them
    items, meta = placeholders_for("full_finetune", 1e9)["labelled_items"]
    assert items == priors()["defaults"]["full_finetune"]["data"]["labelled_items"] == [5000, 30000, 200000]
    src = str(meta["source"])
    assert "163K / 488K / 1.95M samples" in src and "5K / 30K / 200K items" in src
    assert "existing, public or generated" in src  # the basis, in the assumption's evidence
    zh = meta["source"].text("zh-CN")
    assert "163K / 488K / 1.95M" in zh and "不为本次训练新标注" in zh
    d = estimate(book, task="full_finetune", params=13e9, tokens=1e9, gpu="a100-80gb", gpus=16, samples=2000).to_dict()
    a = _labelled(d)
    assert (a["low"], a["high"]) == ("5000", "200000") and a["evidence"] == "assumed"
    # items 5K-30K-200K (mean 78.3K) x a label price of 0.08-2-25 USD (mean 9.03): ~0.7M USD mean,
    # P50 below it (right skew); one label per training sample (163K-488K-1.95M) gave ~7.8M
    assert 100_000 < float(d["cost"]["data_lines"]["labelling"]["p50"]) < 1_000_000


def test_a_small_lora_labels_no_more_than_it_trains_on():
    # 5e6 / (3 x 2048) = 814, 5e6 / (2 x 1024) = 2,441, 5e6 / 512 = 9,766: below the lora set 1K/10K/50K
    items, _ = placeholders_for("lora", 5e6)["labelled_items"]
    assert items == [814, 2441, 9766]
    # 8,138 / 24,414 / 97,656 samples: the lora set bounds it
    items, _ = placeholders_for("qlora", 5e7)["labelled_items"]
    assert items == [1000, 10000, 50000]
