"""Random sequences of import / import again / drop / --replace over small overlapping FOCUS files:
after every step the money the lake bills is what the live files say by the documented rules, in
whatever order they came (docs/formats.md: a row hash's copies count as the live import stating it
most often does — repeats within a file all count, a row of another file the lake holds is a
duplicate, a restated row (another amount) is another row and counts too), and the lake's
invariant check (``Workspace.lake_problems``, lake/resettle.py) finds nothing.

Both ledgers: SQLite always, PostgreSQL when TRAINLEDGER_TEST_PG_URL is set (the lake is the same;
the ledger keeps the import records and the figures ``attribute`` writes, compared at the end).
"""

from __future__ import annotations

import os
import tempfile
import uuid
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text
from sqlalchemy.engine import make_url

from trainledger.imports import short_id
from trainledger.service import Workspace

HEAD = ("BillingPeriodStart,BillingPeriodEnd,ChargePeriodStart,ChargePeriodEnd,ChargeCategory,"
        "ResourceId,BilledCost,EffectiveCost,BillingCurrency\n")
# a charge is (resource, hour); its amount may differ between files: a restatement
CHARGES = [("h20-01", 16), ("h20-02", 16), ("h20-01", 17)]
AMOUNTS = ["150.00", "120.50"]


def line(charge: int, amount: int) -> str:
    node, hour = CHARGES[charge]
    a = AMOUNTS[amount]
    return (f"2026-11-01T00:00:00Z,2026-12-01T00:00:00Z,2026-11-01T{hour}:00:00Z,2026-11-01T{hour + 1}:00:00Z,"
            f"Usage,{node},{a},{a},CNY\n")


rows = st.tuples(st.integers(0, len(CHARGES) - 1), st.integers(0, len(AMOUNTS) - 1))
files = st.lists(st.lists(rows, min_size=1, max_size=4), min_size=2, max_size=3)
steps = st.lists(st.tuples(st.sampled_from(["import", "drop", "replace"]), st.integers(0, 2), st.integers(0, 2)),
                 min_size=1, max_size=7)


def oracle(contents: dict[str, list[tuple[int, int]]], live: set[str]) -> Decimal:
    """The documented rules from the live files alone: per distinct row, the most copies any live
    file states of it, times its amount."""
    most: Counter = Counter()
    for name in live:
        for row, n in Counter(contents[name]).items():
            most[row] = max(most[row], n)
    return sum((Decimal(AMOUNTS[a]) * n for (_c, a), n in most.items()), Decimal(0))


def lake_billed(wsp: Workspace) -> Decimal:
    return sum((Decimal(v) for v in wsp.lake.read("bill_lines").column("billed_cost").to_pylist()), Decimal(0))


def run(tmp: Path, db_url: str, data: list[list[tuple[int, int]]], plan: list[tuple[str, int, int]]) -> None:
    paths, contents = [], {}
    for i, rs in enumerate(data):
        p = tmp / f"bill-{i}.csv"
        p.write_text(HEAD + "".join(line(*r) for r in rs), encoding="utf-8")
        paths.append(p)
        contents[p.name] = rs
    by_text: dict[str, str] = {}  # two generated files with the same bytes are one import
    for p in paths:
        by_text.setdefault(p.read_text(), p.name)
    canon = {p.name: by_text[p.read_text()] for p in paths}
    root = tmp / "ws"
    Workspace.init(root, db_url=db_url, currency="CNY").close()
    live: set[str] = set()
    ids: dict[str, str] = {}
    with Workspace.open(root) as wsp:
        for what, i, j in plan:
            a, b = paths[i % len(paths)], paths[j % len(paths)]
            if what == "import":
                (res,) = wsp.import_files("focus", [a])
                ids[canon[a.name]] = short_id(res.import_key or res.sha256)
                live.add(canon[a.name])
            elif what == "drop" and canon[a.name] in live:
                wsp.drop_import(ids[canon[a.name]], "property test")
                live.discard(canon[a.name])
            elif what == "replace" and canon[a.name] in live:
                (res,) = wsp.import_files("focus", [b], replace=ids[canon[a.name]], reason="property test")
                live.discard(canon[a.name])
                ids[canon[b.name]] = short_id(res.import_key or res.sha256)
                live.add(canon[b.name])
            else:
                continue
            assert lake_billed(wsp) == oracle(contents, live), (what, a.name, b.name, live)
            assert wsp.lake_problems() == []
        if live:  # the figures attribute writes into the ledger: the same money
            conservation = wsp.attribute().summary()["conservation"]
            assert sum((Decimal(c["billed_total"]) for c in conservation), Decimal(0)) == oracle(contents, live)


def _per_example_db(backend: str, tmp: Path, request) -> tuple[str, object]:
    """A fresh ledger for one example: a SQLite file, or a PostgreSQL schema (dropped after)."""
    if backend == "sqlite":
        return f"sqlite:///{tmp / 'ledger.db'}", None
    engine, url, prefix = request.getfixturevalue("pg_admin")
    schema = f"{prefix}_rs_{uuid.uuid4().hex[:8]}"
    with engine.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    scoped = make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})

    def drop() -> None:
        with engine.connect() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    return scoped.render_as_string(hide_password=False), drop


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
@settings(max_examples=int(os.environ.get("TRAINLEDGER_FUZZ_EXAMPLES", "25")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=files, plan=steps)
def test_billed_money_is_what_the_live_files_say_after_any_sequence(backend, request, data, plan):
    if backend == "postgresql" and not os.environ.get("TRAINLEDGER_TEST_PG_URL"):
        pytest.skip("TRAINLEDGER_TEST_PG_URL is not set")
    with tempfile.TemporaryDirectory(prefix="tl-resettle-") as d:
        tmp = Path(d)
        url, cleanup = _per_example_db(backend, tmp, request)
        try:
            run(tmp, url, data, plan)
        finally:
            if cleanup is not None:
                cleanup()


def test_the_reviewers_sequence(tmp_path):
    """review 7 L5: A = r1, r2; B = r1, r1, r2; import A, B; drop A; import A again: 450.00 each time."""
    r1, r2 = (0, 0), (1, 0)
    run(tmp_path, f"sqlite:///{tmp_path / 'ledger.db'}", [[r1, r2], [r1, r1, r2]],
        [("import", 0, 0), ("import", 1, 0), ("drop", 0, 0), ("import", 0, 0), ("replace", 1, 0)])
