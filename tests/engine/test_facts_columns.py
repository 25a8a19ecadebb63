"""Facts held as the lake's Arrow tables (``context.Rows``): the same rows as dicts, and the
column paths (bill stage, tz check's billed hours, restatements, storage rows) equal to the row paths."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pyarrow as pa
from hypothesis import example, given, settings
from hypothesis import strategies as st

from trainledger.engine import restated, tzcheck
from trainledger.engine.context import CHUNK, Facts, Rows
from trainledger.engine.runs import billed_hours
from trainledger.lake.schemas import BILL_LINES

T0 = datetime(2026, 11, 1, tzinfo=UTC)


def _table(rows: list[dict], schema: pa.Schema = BILL_LINES) -> pa.Table:
    schema = pa.schema([f.with_nullable(True) for f in schema])
    return pa.table({f.name: pa.array([r.get(f.name) for r in rows], f.type) for f in schema}, schema=schema)


def test_rows_read_as_the_dicts_the_lake_gave():
    rows = [{"billed_cost": str(i), "currency": "CNY", "charge_period_start": T0 + timedelta(hours=i),
             "charge_period_end": T0 + timedelta(hours=i + 1), "source_sha256": "a", "row": i + 1}
            for i in range(CHUNK + 5)]  # more than one chunk
    table = _table(rows)
    view = Rows(table)
    plain = table.to_pylist()
    assert view.is_columns and len(view) == len(plain)
    assert list(view) == plain  # chunk by chunk, in order
    assert view[0] == plain[0] and view[-1] == plain[-1] and view[CHUNK] == plain[CHUNK]
    assert view[3:7] == tuple(plain[3:7]) and view[::CHUNK] == tuple(plain[::CHUNK])
    assert list(view.columns("row", "nope"))[2] == {"row": 3, "nope": None}
    assert view.latest("charge_period_end", "nope") == T0 + timedelta(hours=CHUNK + 5)
    assert not Rows(table.slice(0, 0)) and Rows(table.slice(0, 0)).latest("charge_period_end") is None
    try:
        view[len(plain)]
    except IndexError:
        pass
    else:  # pragma: no cover
        raise AssertionError("past the end must raise")


def test_columns_without_a_value_hold_no_buffers_and_read_as_none():
    rows = [{"billed_cost": "1", "currency": "CNY", "charge_period_end": T0, "row": i} for i in range(1000)]
    table = _table(rows)
    view = Rows(table)
    assert pa.types.is_null(view.table.column("sku_id").type)  # all null: no offsets buffer
    assert view.table.nbytes < table.nbytes / 3
    assert list(view) == table.to_pylist()  # the same dicts
    assert len(view.where("sku_id", lambda v: v is None)) == 1000 and not view.where("sku_id", bool)
    assert view.latest("charge_period_end", "billing_period_end") == T0


def test_facts_wrap_tables_and_dicts_alike():
    rows = [{"billed_cost": "1.5", "currency": "CNY", "service_category": c, "row": i}
            for i, c in enumerate(["Storage", "Compute", None, " storage", "Networking"])]
    as_dicts, as_table = Facts(bill_lines=rows), Facts(bill_lines=_table(rows))
    assert not as_dicts.bill_lines.is_columns and as_table.bill_lines.is_columns
    assert as_dicts.bill_lines == [dict(r, **{}) for r in rows]
    storage = [r["row"] for r in as_table.bill_lines.where("service_category",
                                                           lambda v: str(v or "").strip().lower() == "storage")]
    assert storage == [0, 3]
    nulls = [r["row"] for r in as_table.bill_lines.where("service_category", lambda v: v is None)]
    assert nulls == [2]
    assert [r["row"] for r in as_dicts.bill_lines.where("service_category", lambda v: v is None)] == [2]


hourly = st.lists(st.tuples(st.sampled_from(["n1", "n1.cluster.local", "n2", "other", None]),
                            st.sampled_from([None, "n2", "n3.x"]), st.integers(-3, 40),
                            st.sampled_from([-1, 0, 1, 2, 30])),
                  max_size=40)


@settings(max_examples=60, deadline=None)
@given(hourly)
@example([("n1", None, 0, 1), ("n1", None, 1, 1), ("n1", None, 3, 2), ("n1.cluster.local", "n2", 4, 1),
          (None, "n3.x", 0, 30), ("other", "n2", 5, 0)])  # adjacent hours merge; a row named twice counts once
def test_billed_hours_from_columns_equal_the_rows_merged(spec):
    rows = [{"resource_id": rid, "resource_name": rname, "charge_period_start": T0 + timedelta(hours=h),
             "charge_period_end": T0 + timedelta(hours=h + d)} for rid, rname, h, d in spec]
    nodes = {"n1", "n2", "n3"}
    from trainledger.engine.compute import _node_of

    want: dict[str, list] = {}
    for r in rows:
        p0, p1 = r["charge_period_start"], r["charge_period_end"]
        if p1 <= p0 or p1 - p0 > timedelta(days=1):
            continue
        if (n := _node_of(r, nodes)) is not None:
            want.setdefault(n, []).append((p0, p1))
    want = {n: tzcheck._merged(p) for n, p in want.items()}
    assert billed_hours(_table(rows), nodes) == want


def test_restatements_from_columns_equal_the_rows():
    base = {"billing_account_id": "acc", "charge_period_start": T0, "charge_period_end": T0 + timedelta(hours=1),
            "charge_category": "Usage", "currency": "CNY", "charge_class": None}
    rows = [base | {"resource_id": "n1", "billed_cost": "10.00", "source_sha256": "a" * 64, "row": 1},
            base | {"resource_id": "n2", "billed_cost": "5.00", "source_sha256": "a" * 64, "row": 2},
            base | {"resource_id": "n1", "billed_cost": "12.00", "source_sha256": "b" * 64, "row": 1},
            base | {"resource_id": "n3", "billed_cost": "1.00", "source_sha256": "b" * 64, "row": 2},
            base | {"resource_id": "n2", "billed_cost": "-5.00", "source_sha256": "b" * 64, "row": 3,
                    "charge_class": "Correction"}]
    imports = [{"sha256": "a" * 64, "kind": "focus", "path": "a.csv"}, {"sha256": "b" * 64, "kind": "focus",
                                                                       "path": "b.csv"}]
    from_rows = restated.problems(Rows(rows), imports)
    from_columns = restated.problems(Rows(_table(rows)), imports)
    assert [p.as_dict() for p in from_columns] == [p.as_dict() for p in from_rows]
    assert len(from_rows) == 1 and from_rows[0].detail["earlier_amount"] == "10.00"
    assert restated.problems(Rows(_table(rows[:2])), imports) == []  # one import restates nothing


class _Untouchable(Rows):
    """Bill rows that fail the test when walked as dicts (the DuckDB path must read their columns)."""

    __slots__ = ()

    def __iter__(self):
        raise AssertionError("the bill rows were walked as dicts")


def test_duckdb_attribute_reads_the_bill_columns_and_equals_the_python_engine_on_dicts(config):
    from trainledger.engine import attribute
    from trainledger.lake.schemas import JOBS, PROGRESS_EVENTS

    from .factories import T0 as F0
    from .factories import at, bill, event, job, price_lookup

    jobs = (job("100", start=at(0), end=at(90), row=1), job("101", start=at(30), end=at(60), wckey="", row=2))
    bills = (bill(at(0), row=1), bill(at(60), row=2), bill(at(0), amount="5.55", resource="nat-gw", row=3),
             bill(at(0), amount="7.00", resource="etl-vm", tags='{"batch": "b1"}', row=4),
             bill(at(120), amount="-3.00", row=5))  # a usage row below zero on the node: a credit, a problem
    events = (event("100", 10, "step", step=1), event("100", 15, "step", step=2), event("100", 90, "step", step=3))
    plain = Facts(jobs=jobs, bill_lines=bills, progress_events=events)
    columns = Facts(jobs=_table(list(jobs), JOBS), bill_lines=_Untouchable(_table(list(bills))),
                    progress_events=_table(list(events), PROGRESS_EVENTS))
    want = attribute(plain, config, price_lookup, F0.date())
    got = attribute(columns, config, price_lookup, F0.date(), engine="duckdb")
    assert [repr(x) for x in got.lines] == [repr(x) for x in want.lines]
    assert [p.as_dict() for p in got.problems] == [p.as_dict() for p in want.problems]
    assert got.conservation == want.conservation and got.summary() == want.summary()
    assert "negative_usage" in {p.kind for p in got.problems}
