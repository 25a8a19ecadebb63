"""The source → table map is the importers' registry's: every kind fills a lake table, every lake
table is filled, the mapping kinds and the engine's rule sources resolve through it."""

from __future__ import annotations

import dataclasses

import pytest

from trainledger.engine import Facts, _rule_field_problems
from trainledger.errors import BadInput
from trainledger.ingest import IMPORTERS, KIND_TABLES, MAPPED_KIND, importer_for, table_of
from trainledger.ingest.mapfile import TABLES as MAPPING_TABLES
from trainledger.ingest.mapfile import mapped_kind
from trainledger.lake import Lake
from trainledger.lake.schemas import TABLES
from trainledger.workspace import RULE_SOURCES, Rule

FACT_TABLES = {f.name for f in dataclasses.fields(Facts)} - {"imports"}


@pytest.mark.parametrize("imp", IMPORTERS, ids=lambda i: i.kind)
def test_every_registered_kind_fills_a_lake_table(imp):
    assert KIND_TABLES[imp.kind] == table_of(imp.kind) == imp.table
    assert imp.table in TABLES, f"{imp.kind} fills {imp.table!r}, which the lake has no schema for"


def test_every_lake_table_is_filled_by_an_importer():
    assert set(KIND_TABLES.values()) == set(TABLES)


def test_an_unknown_kind_is_refused_naming_the_kinds():
    with pytest.raises(BadInput, match="unknown import kind 'excel'") as e:
        table_of("excel")
    assert "slurm" in (e.value.remedy or "")


def test_the_lake_is_asked_by_table_not_by_kind(tmp_path):
    lake = Lake(tmp_path)
    assert not lake.has_source("a" * 64, table_of("invoice"))
    with pytest.raises(BadInput, match="no lake table 'invoice'"):
        lake.has_source("a" * 64, "invoice")  # a kind is not a table: the registry says which


def test_every_mapping_table_has_one_kind_reading_it_through_a_mapping():
    generic = [i for i in IMPORTERS if not getattr(i, "claims", True)]
    assert sorted(i.table for i in generic) == sorted(MAPPING_TABLES)  # one each, no more
    for table in MAPPING_TABLES:
        assert importer_for(mapped_kind(table)).table == table
    assert set(MAPPED_KIND) == set(MAPPING_TABLES)


@pytest.mark.parametrize("source", RULE_SOURCES)
def test_the_engines_rule_sources_resolve_to_fact_tables(source):
    assert KIND_TABLES[source] in FACT_TABLES


def test_a_rule_on_a_missing_field_is_found_through_the_registry():
    """The engine looks a rule's rows up by the registry's table: an invoice rule reads
    external_services (a hand-kept map that sent it elsewhere would find no rows, no problem)."""
    facts = Facts(external_services=({"invoice_id": "I-1", "vendor": "acme", "source_sha256": "x", "row": 1,
                                      "row_hash": "h"},))

    class Cfg:
        rules = (Rule(id="r1", source="invoice", field="project", match="exact", pattern="p", batch="b"),)

    (p,) = _rule_field_problems(facts, Cfg())  # type: ignore[arg-type]
    assert p.kind == "unknown_rule_field" and p.detail["source"] == "invoice"
    assert "invoice_id" in p.detail["known"]
