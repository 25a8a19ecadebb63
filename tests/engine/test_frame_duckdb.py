"""The bill stage on DuckDB (``frame/stage.py``) against the Python engine: the same cost lines.

Same means ``repr`` equal, line by line and in order — amount and GPU-hours with their decimal
digits, source file / row / rule, reason, evidence — and the same problems; the buckets each side
sums to also add up exactly to the bill per currency.
"""

from __future__ import annotations

import textwrap
from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ibis = pytest.importorskip("ibis")

from trainledger import workspace  # noqa: E402
from trainledger.engine import Facts  # noqa: E402
from trainledger.engine.compute import bill_stage  # noqa: E402
from trainledger.engine.frame import connect  # noqa: E402
from trainledger.engine.frame import stage as frame_stage  # noqa: E402
from trainledger.engine.frame.oracle import bucket_lines, context  # noqa: E402

from .factories import CONFIG, T0, at, bill, job, price_lookup  # noqa: E402

# ibis 12 still calls duckdb 2.0's deprecated fetch_arrow_table when it reads a file's schema
pytestmark = pytest.mark.filterwarnings("ignore:fetch_arrow_table:DeprecationWarning")

RULES = """
[[rules]]
id = "by-host"
source = "focus"
field = "resource_id"
match = "regex"
pattern = "^n[78](\\\\.|$)"
batch = "b1"
[[rules]]
id = "team"
source = "focus"
field = "tags.team"
match = "prefix"
pattern = "vis"
batch = "b1"
[[rules]]
id = "nobatch"
source = "focus"
field = "service_name"
match = "exact"
pattern = "Support"
batch = "b1"
"""


@pytest.fixture(scope="module")
def rich_config(tmp_path_factory):
    """The engine tests' workspace plus a regex, a tags prefix and an exact rule."""
    root = tmp_path_factory.mktemp("ws-rules")
    (root / "trainledger.toml").write_text(textwrap.dedent(CONFIG) + textwrap.dedent(RULES), encoding="utf-8")
    return workspace.load(root)


def _bill_totals(rows) -> dict[str, Decimal]:
    out: dict[str, Decimal] = defaultdict(Decimal)
    for r in rows:
        if r.get("billed_cost") is not None:
            out[r["currency"]] += Decimal(r["billed_cost"])
    return {k: v for k, v in out.items() if v != 0}


def _sums(buckets) -> dict[str, Decimal]:
    out: dict[str, Decimal] = defaultdict(Decimal)
    for key, value in buckets.items():
        out[key[-1]] += value
    return {k: v for k, v in out.items() if v != 0}


def both(facts: Facts, config, as_of):
    ctx = context(facts, config, price_lookup, as_of)
    return bill_stage(facts, ctx), frame_stage.bill_stage(facts, ctx, connect("duckdb"))


def same(py, frame) -> None:
    assert [repr(x) for x in frame.lines] == [repr(x) for x in py.lines]
    assert [repr(p) for p in frame.problems] == [repr(p) for p in py.problems]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    from trainledger.cli.demo_cmd import run_demo
    from trainledger.demo import DEFAULT_SEED

    root = tmp_path_factory.mktemp("frame-demo")
    run_demo(root, DEFAULT_SEED, echo=lambda *a, **k: None)
    return root


def test_demo_gives_the_python_engines_lines(demo):
    from trainledger.service import Workspace

    with Workspace.open(demo) as w:
        facts = Facts.from_lake(w.lake)
        ctx = context(facts, w.config, w.price_lookup(), date(2026, 12, 1))
        py, frame = bill_stage(facts, ctx), frame_stage.bill_stage(facts, ctx, connect("duckdb"))
    same(py, frame)
    buckets = bucket_lines(frame.lines)
    assert _sums(buckets) == _bill_totals(facts.bill_lines)
    # the figure the issue quotes, by hand from the demo: idle capacity no job held (216,896.62) was net
    # of the SLA credit's share of gpu-node-02's idle time on 2026-11-04; the idle figure is now gross
    # and the credit its own reason (review 4 H10): 219,242.72 − 2,346.10 = 216,896.62
    assert buckets[("unattributed", "capacity_unheld", "CNY")] == Decimal("219242.72")
    assert buckets[("unattributed", "credit", "CNY")] == Decimal("-2346.10")
    assert len(frame.lines) > 1000 and any(ln.quantity is not None for ln in frame.lines)


def test_demo_lines_made_in_small_slices_are_the_same(demo, monkeypatch):
    """frame/columns.py turns the sorted pieces into lines a slice at a time (each slice its own
    dictionaries): 97 pieces per slice gives the same lines, in the same order, as one slice."""
    from trainledger.engine.frame import columns
    from trainledger.service import Workspace

    with Workspace.open(demo) as w:
        facts = Facts.from_lake(w.lake)
        ctx = context(facts, w.config, w.price_lookup(), date(2026, 12, 1))
        py = bill_stage(facts, ctx)
        monkeypatch.setattr(columns, "SLICE", 97)
        calls, real = [], columns._slice
        monkeypatch.setattr(columns, "_slice", lambda p, *a: calls.append(p.num_rows) or real(p, *a))
        frame = frame_stage.bill_stage(facts, ctx, connect("duckdb"))
    assert len(calls) > 10 and max(calls) == 97  # it did slice
    same(py, frame)



def test_demo_lines_made_a_few_bill_rows_at_a_time_are_the_same(demo, monkeypatch, tmp_path):
    """stage.py reads the backend's split result back a chunk of bill rows at a time (``Pieces``:
    sorted by bill row, from a Parquet file in DuckDB's spill directory) and makes each chunk's
    lines there: chunks of 37 bill rows give the same lines, in the same order, as one chunk, and
    the file is gone afterwards."""
    from trainledger.engine.frame import stage
    from trainledger.service import Workspace

    with Workspace.open(demo) as w:
        facts = Facts.from_lake(w.lake)
        ctx = context(facts, w.config, w.price_lookup(), date(2026, 12, 1))
        py = bill_stage(facts, ctx)
        monkeypatch.setattr(stage, "CHUNK", 37)
        got, real = [], stage.Pieces.upto
        monkeypatch.setattr(stage.Pieces, "upto", lambda self, hi: got.append(r := real(self, hi)) or r)
        con = connect("duckdb")
        con.con.execute(f"SET temp_directory = '{tmp_path}'")
        frame = frame_stage.bill_stage(facts, ctx, con)
    assert sum(t is not None for t in got) > 10 and max(t.num_rows for t in got if t is not None) < 37 * 3
    assert not list(tmp_path.glob("tl_pieces_*"))
    same(py, frame)


def test_pieces_out_of_bill_row_order_are_refused():
    """The lines must come out in bill-row order: a stream that goes back is an error, not a reorder."""
    import pyarrow as pa

    from trainledger.engine.frame.stage import Pieces

    batches = [pa.record_batch({"idx": pa.array(v, pa.int64())}) for v in ([0, 1, 1, 3], [3, 4], [2])]
    pieces = Pieces(batches, batches[0].schema)
    assert pieces.upto(2).column("idx").to_pylist() == [0, 1, 1]
    assert pieces.upto(4).column("idx").to_pylist() == [3, 3]
    with pytest.raises(AssertionError, match="bill-row order"):
        pieces.upto(9)


PLACEMENTS = [(("n1",), 4), (("n2",), 8), (("n1", "n2"), 8), (("n3", "n4"), 16), (("n1", "n2", "n3", "n4"), 8),
              (("n1", "n2", "n3", "n4"), 1), (("n1", "n2"), 1), (("n1", "n2", "n3"), 8), (("n1", "n2", "n3"), 3)]
AMOUNTS = ["80.00", "288.00", "99.99", "7.01", "0.01", "0.07", "1", "13.3333", "-2.50", "1234567.891", "0"]
TAGS = ["{}", '{"batch": "b1"}', '{"batch": "zz"}', '{"team": "vision"}', '{"team": 7}', "not json"]


@settings(max_examples=8, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 240), st.floats(0.5, 150), st.sampled_from(PLACEMENTS),
                          st.sampled_from(["b1", "", "nope"])), min_size=1, max_size=6),
       st.lists(st.tuples(st.sampled_from(["n1", "n2", "n3", "n4", "n9", "n7.x", "n1.dc"]), st.integers(0, 5),
                          st.integers(1, 2), st.sampled_from(AMOUNTS), st.sampled_from([None, "same", "half"]),
                          st.sampled_from(["Usage", "Credit", "Tax", "usage-adjust", "Purchase"]),
                          st.sampled_from(TAGS), st.sampled_from([None, "Used", "Unused"]),
                          st.sampled_from(["CNY", "JPY", "KWD"]), st.sampled_from([None, "Support", "ECS"])),
                min_size=1, max_size=25))
def test_random_workspaces_give_the_python_engines_lines(rich_config, jobs, rows):
    js = [job(str(i), start=at(s), end=at(s + d), gpus=g, nodes=",".join(n), wckey=w, row=i + 1)
          for i, (s, d, (n, g), w) in enumerate(jobs)]  # overlapping jobs: oversubscribed nodes too
    bills = []
    for r, (node, h, hours, amount, eff, cat, tags, status, cur, service) in enumerate(rows, start=1):
        if cur == "JPY":
            amount = amount.split(".")[0]
        effective = {None: None, "same": amount, "half": str(Decimal(amount) / 2)}[eff]
        bills.append(bill(at(60 * h), hours=hours, amount=amount, resource=node, tags=tags, row=r, status=status)
                     | {"charge_category": cat, "currency": cur, "effective_cost": effective, "service_name": service,
                        "commitment_discount_id": "cd-1" if cat == "Purchase" else None})
    facts = Facts(jobs=tuple(js), bill_lines=tuple(bills))
    py, frame = both(facts, rich_config, T0.date())
    same(py, frame)
    assert _sums(bucket_lines(frame.lines)) == _bill_totals(bills)


def test_ties_break_as_the_python_engine_does(config):
    """One cent over three equal holders and the rest: the left-over unit goes by the fixed order."""
    js = [job(str(i), start=at(0), end=at(60), gpus=1, nodes="n1", wckey=w, row=i + 1)
          for i, w in enumerate(["b1", "", "b1"])]
    facts = Facts(jobs=tuple(js), bill_lines=(bill(at(0), amount="0.02", resource="n1"),
                                              bill(at(0), amount="-0.01", resource="n1", row=2)))
    py, frame = both(facts, config, T0.date())
    same(py, frame)
    assert sum(ln.amount.expected for ln in frame.lines) == Decimal("0.01")
    # 2 cents over weights 1, 1, 1 and the rest 5: floors 0, 0, 0, 1; the four remainders tie (2/8),
    # so the left-over cent goes to the first run in (run, state) order
    assert [str(ln.amount.expected) for ln in frame.lines[:4]] == ["0.01", "0.00", "0.00", "0.01"]


def test_uneven_split_and_oversubscription_match(config):
    """8 GPUs on 3 nodes (exact over the lcm of node counts), a pod's 0.25 of a GPU, a share with 16
    decimals (more than the frame weighs: the rows it touches are split by node_split itself), a
    node held beyond its 8 GPUs (a problem, the same on both), a sub-second period."""
    js = [job("1", start=at(0), end=at(60), gpus=8, nodes="n1,n2,n3", row=1),
          job("2", start=at(0), end=at(90), gpus=8, nodes="n2", row=2),
          job("3", start=at(0), end=at(90), gpus=4, nodes="n2", wckey="", row=3),
          job("4", start=at(0.01), end=at(90), gpus=16, nodes="n4", row=4),
          job("5", start=at(5), end=at(50), gpus=1, nodes="n1", row=5) | {"gpu_share": "0.25"},
          job("6", start=at(5), end=at(50), gpus=1, nodes="n5", row=6) | {"gpu_share": "0.3333333333333333"}]
    rows = (bill(at(0), amount="100.00", resource="n1"), bill(at(0), amount="100.00", resource="n2", row=2),
            bill(at(0), amount="9.99", resource="n3", row=3)
            | {"charge_period_end": at(0) + timedelta(seconds=1.5)},
            bill(at(0), amount="50.00", resource="n4", row=4), bill(at(0), amount="33.33", resource="n5", row=5))
    facts = Facts(jobs=tuple(js), bill_lines=rows)
    ctx = context(facts, config, price_lookup, T0.date())
    holdings = frame_stage.holdings_table(ctx.runs)
    assert holdings.table.column("exact").to_pylist().count(False) >= 1  # job 6: the fallback path ran
    py, frame = both(facts, config, T0.date())
    same(py, frame)
    assert [p.detail["node"] for p in frame.problems if p.kind == "oversubscribed_node"] == ["n2", "n4"]
    assert any(ln.run_id == "6" and ln.quantity for ln in frame.lines)


def test_money_text_the_frame_cannot_read_is_refused(config):
    from trainledger.errors import ConfigError

    facts = Facts(jobs=(job("1", start=at(0), end=at(60)),), bill_lines=(bill(at(0), amount="1E+2"),))
    ctx = context(facts, config, price_lookup, T0.date())
    with pytest.raises(ConfigError, match="--engine python"):
        frame_stage.bill_stage(facts, ctx, connect("duckdb"))
