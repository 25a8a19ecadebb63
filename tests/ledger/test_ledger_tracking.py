"""ledger/tracking.py (migration 0007): the database's own triggers count every change to a figure
table, so the check after a write that recorded no figures reads counters instead of sealing the
tables again — and declines (the tables sealed again, then the full check) when the tracking moved,
was dropped, disabled, replaced, or its counter tampered with. What the tracking cannot see is left
to the content seal (``since(..., tracked=False)``, the dashboard's background prover): each such
case is here too, so the module docstring's list of gaps stays true."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, delete, text, update

from tests.ledger.test_ledger_figures import attributed, line, run, tamper  # noqa: F401 - fixtures
from trainledger.ledger import seal, tracking
from trainledger.ledger.schema import cost_lines, runs


def _write(ledger, n: int = 1) -> None:
    for i in range(n):
        ledger.audit("tester", "add_decision", "batch:b1", {"n": i})


def _sql(db_url, *statements: str) -> None:
    engine = create_engine(db_url)
    try:
        with engine.begin() as conn:
            for s in statements:
                conn.exec_driver_sql(s)
    finally:
        engine.dispose()


def _no_seal(monkeypatch) -> None:
    def refuse(conn):
        raise AssertionError("the tables were sealed again")
    monkeypatch.setattr(seal, "tables", refuse)


def test_a_write_without_figures_is_carried_over_without_sealing_the_tables(attributed, monkeypatch):  # noqa: F811
    _, base = seal.full(attributed)
    assert base.tracked is not None
    _write(attributed, 2)
    with monkeypatch.context() as m:
        _no_seal(m)
        later = seal.since(attributed, base)
    assert later == seal.full(attributed)[1]  # what the full check proves, at the new head


def test_the_ledgers_own_writes_move_the_counters(attributed, db_url):  # noqa: F811
    with attributed.snapshot() as conn:
        before = dict(tracking.marks(conn)[2])
    attributed.replace_cost_lines([line(1, "10.00"), line(2, "3.00")], summary={"conservation": []},
                                  runs=[run(1)])
    attributed.upsert_runs([run(1), run(5)])
    with attributed.snapshot() as conn:
        after = dict(tracking.marks(conn)[2])
    assert all(after[t] > before[t] for t in ("cost_lines", "runs", "figure_digests"))
    assert after["attributions"] >= before["attributions"]
    assert attributed.verify_figures()[0] == []  # the bulk writes under the triggers still verify


@pytest.mark.parametrize("what", ["line", "run", "deleted_line"])
def test_an_edit_moves_the_tracking_and_the_fast_path_declines(attributed, db_url, what):  # noqa: F811
    _, base = seal.full(attributed)
    stmt = {"line": update(cost_lines).where(cost_lines.c.source_row == 2).values(expected="20.11"),
            "run": update(runs).where(runs.c.id == "job-2").values(gpus=64),
            "deleted_line": delete(cost_lines).where(cost_lines.c.source_row == 3)}[what]
    tamper(db_url, stmt)
    with attributed.snapshot() as conn:
        assert tracking.tracked(conn) != base.tracked
    _write(attributed)
    assert seal.since(attributed, base) is None


def test_an_insert_shows_in_the_count_on_sqlite(attributed, db_url, backend):  # noqa: F811
    _, base = seal.full(attributed)
    _sql(db_url, "INSERT INTO runs (id, batch_id, reason, source_job, state, gpus)"
                 " VALUES ('ghost', 'b1', 'planned_experiment', '', 'COMPLETED', 1)")
    with attributed.snapshot() as conn:
        now = tracking.tracked(conn)
    # SQLite: no INSERT trigger, the row count moved; PostgreSQL: the statement trigger moved the counter
    assert now[:3] == base.tracked[:3] if backend == "sqlite" else now != base.tracked
    assert now != base.tracked
    assert seal.since(attributed, base) is None


@pytest.mark.parametrize("how", ["update", "delete", "replace"])
def test_a_counter_only_goes_up(attributed, db_url, backend, how):  # noqa: F811
    sql = {"update": "UPDATE seal_counters SET n = 0 WHERE name = 'cost_lines'",
           "delete": "DELETE FROM seal_counters WHERE name = 'cost_lines'",
           "replace": "INSERT OR REPLACE INTO seal_counters (name, n) VALUES ('cost_lines', 0)" if backend == "sqlite"
           else "INSERT INTO seal_counters (name, n) VALUES ('cost_lines', 0) ON CONFLICT (name) DO UPDATE SET n = 0"
           }[how]
    tamper(db_url, update(cost_lines).values(expected="1.00"))  # counter > 0
    with pytest.raises(Exception, match="seal_counters"):
        _sql(db_url, sql)
    _sql(db_url, "UPDATE seal_counters SET n = n + 5 WHERE name = 'runs'")  # up is allowed (and seen)


def _drop_edit_recreate(db_url, backend, table: str, edit: str) -> None:
    if backend == "sqlite":
        name = f"seal_count_{table}_update"
        ddl = tracking._sqlite_triggers()[name][1]
        _sql(db_url, f"DROP TRIGGER {name}", edit, ddl)
    else:
        name = f"seal_count_{table}"
        ddl = next(s for s in tracking.tracking_ddl("postgresql") if f"TRIGGER {name} " in s)
        _sql(db_url, f"DROP TRIGGER {name} ON {table}", edit, ddl)


def test_triggers_dropped_for_an_edit_are_declined(attributed, db_url, backend):  # noqa: F811
    _, base = seal.full(attributed)
    name = "seal_count_cost_lines_update" if backend == "sqlite" else "seal_count_cost_lines ON cost_lines"
    _sql(db_url, f"DROP TRIGGER {name}", "UPDATE cost_lines SET expected = '20.11' WHERE source_row = 2")
    with attributed.snapshot() as conn:
        assert tracking.marks(conn) is None  # the tracking is not the one installed: nothing on its word
    _write(attributed)
    assert seal.since(attributed, base) is None
    assert seal.full(attributed)[0]


def test_a_trigger_dropped_and_put_back_exactly_is_seen(attributed, db_url, backend):  # noqa: F811
    _, base = seal.full(attributed)
    _drop_edit_recreate(db_url, backend, "cost_lines", "UPDATE cost_lines SET expected = '20.11' WHERE source_row = 2")
    with attributed.snapshot() as conn:
        now = tracking.marks(conn)
    assert now is not None and now[2] == base.tracked[2]  # the counters did not move…
    assert now[1] != base.tracked[1]  # …but the schema version / the trigger's oid did
    _write(attributed)
    assert seal.since(attributed, base) is None


def test_a_guard_dropped_to_reset_a_counter_is_seen(attributed, db_url, backend):  # noqa: F811
    _, base = seal.full(attributed)
    guard = "seal_guard_update" if backend == "sqlite" else "seal_guard_rows ON seal_counters"
    n = dict(base.tracked[2])["cost_lines"]
    _sql(db_url, "UPDATE cost_lines SET expected = '20.11' WHERE source_row = 2", f"DROP TRIGGER {guard}",
         f"UPDATE seal_counters SET n = {n} WHERE name = 'cost_lines'")
    with attributed.snapshot() as conn:
        assert tracking.marks(conn) is None
    _write(attributed)
    assert seal.since(attributed, base) is None


def test_a_trigger_added_on_a_figure_table_turns_the_fast_path_off(attributed, db_url, backend):  # noqa: F811
    if backend == "sqlite":
        _sql(db_url, "CREATE TRIGGER quiet BEFORE UPDATE ON seal_counters BEGIN SELECT RAISE(IGNORE); END")
    else:
        _sql(db_url, "ALTER TABLE cost_lines DISABLE TRIGGER seal_count_cost_lines")
    with attributed.snapshot() as conn:
        assert tracking.marks(conn) is None


def test_what_the_tracking_cannot_see_the_content_seal_does(attributed, db_url, backend):  # noqa: F811
    """The module docstring's gaps: SQLite's INSERT OR REPLACE (no delete trigger fires, the count
    stays), PostgreSQL's session_replication_role = replica (triggers off for the session). The fast
    path carries them over; the content seal (the background prover's check) and the full check do not."""
    _, base = seal.full(attributed)
    if backend == "sqlite":
        with attributed.snapshot() as conn:
            row = conn.execute(text("SELECT * FROM cost_lines WHERE source_row = 2")).mappings().one()
        cols = ", ".join(row.keys())
        vals = ", ".join(f":{k}" for k in row)
        engine = create_engine(db_url)
        try:
            with engine.begin() as conn:
                conn.execute(text(f"INSERT OR REPLACE INTO cost_lines ({cols}) VALUES ({vals})"),
                             {**row, "expected": "20.11"})
        finally:
            engine.dispose()
    else:
        _sql(db_url, "SET session_replication_role = replica",
             "UPDATE cost_lines SET expected = '20.11' WHERE source_row = 2")
    _write(attributed)
    assert seal.since(attributed, base) is not None  # the gap, as documented
    assert seal.since(attributed, base, tracked=False) is None  # the content seal sees it
    assert seal.full(attributed)[0]  # and the full check names it
