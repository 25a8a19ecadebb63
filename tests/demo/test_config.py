"""The generated workspace config and price book: valid, complete, every number sourced."""

from __future__ import annotations

from datetime import date

from trainledger import workspace
from trainledger.model.vocab import Evidence, LaborRole, StorageClass, TaskType
from trainledger.pricebook import load_price_book

KEY_FIELDS = ("goal", "data_snapshot", "data_processing_version", "model_version", "code_version",
              "config_version", "team", "owner", "task_type", "max_rounds")


def test_workspace_settings(demo):
    c = demo.config
    assert c["workspace"] == {"name": "cs-assistant-demo", "currency": "CNY", "language": "zh-CN",
                              "timezone": "Asia/Shanghai",  # a Beijing team: the reports' days and months
                              "db_url": "", "price_book": "prices.toml"}
    assert c["sources"]["slurm"]["timezone"] == "Asia/Shanghai"
    assert c["cluster"] == {"gpus_per_node": 8, "gpu_item": "gpu_hour:h800"}


def test_batches_carry_the_full_attribution_key(demo):
    (project,) = demo.config["projects"]
    assert project["goal"] and project["owner"]
    a, b = demo.config["batches"]
    for batch in (a, b):
        assert batch["project"] == project["id"]
        assert all(batch[f] for f in KEY_FIELDS), batch["id"]
        assert TaskType(batch["task_type"]) is TaskType.FULL_FINETUNE
    # batch B is the follow-up after the data fix: new data, same model
    assert a["data_snapshot"] != b["data_snapshot"]
    assert a["data_processing_version"] != b["data_processing_version"]
    assert a["model_version"] == b["model_version"]


def test_every_rule_names_an_existing_batch_or_is_a_template(demo):
    batches = {b["id"] for b in demo.config["batches"]}
    rules = demo.config["rules"]
    assert len({r["id"] for r in rules}) == len(rules)
    for r in rules:
        if r["match"] == "template":
            assert "batch" not in r
        else:
            assert r["batch"] in batches and r["pattern"], r["id"]
    sources = {r["source"]: r for r in rules if r["match"] == "template"}
    assert sources["slurm"]["field"] == "wckey"
    assert sources["focus"]["field"] == "tags.batch"
    assert sources["timesheet"]["field"] == "batch" and sources["invoice"]["field"] == "batch"
    prefix_rules = [r for r in rules if r["source"] == "storage" and r["match"] == "prefix"]
    assert {r["batch"] for r in prefix_rules} == batches


def test_storage_prefixes_and_labor_rates(demo):
    for p in demo.config["storage_prefixes"]:
        StorageClass(p["storage_class"])
    rates = demo.config["labor_rates"]
    assert {r["role"] for r in rates} == {r.value for r in LaborRole}
    for r in rates:
        assert r["currency"] == "CNY" and r["source"]
        assert float(r["low"]) <= float(r["expected"]) <= float(r["high"])
        if Evidence(r["evidence"]) is Evidence.ASSUMED:
            assert r["owner"]


def test_the_real_loader_accepts_the_config(demo_files):
    cfg = workspace.load(demo_files.config.parent)
    assert [b.id for b in cfg.batches] == ["csa-sft-2026-11-a", "csa-sft-2026-11-b"]
    assert len(cfg.labor_rates) == len(LaborRole)


def test_price_book_is_dated_sourced_and_assumed(demo, demo_files):
    entries = demo.prices["price"]
    assert {e["item"] for e in entries} == {"gpu_hour:h800", "storage:standard",
                                            "storage:infrequent", "storage:archive"}
    for e in entries:
        assert e["source"] == "demo data (illustrative)"
        assert e["evidence"] == "assumed" and e["owner"]
        assert isinstance(e["effective"], date) and e["expires"] > e["effective"]
    (fx,) = demo.prices["fx"]
    assert (fx["base"], fx["quote"]) == ("USD", "CNY") and isinstance(fx["date"], date)
    book = load_price_book(demo_files.price_book)
    on = date(2026, 11, 20)
    assert str(book.lookup("gpu_hour:h800", on).price) == "36.00"
    assert book.fx_rate("USD", "CNY", on).rate > 7
    assert not book.stale(on)
