"""The bill stage's hot core as portable Ibis expressions (DuckDB in-process, or pyspark).

A start of the port of issue 7 item 1: the Python engine (``engine.compute.bill_stage``) stays
the default and is this package's test oracle (``tests/engine/test_frame_duckdb.py``).

    holdings.py  the Python engine's derived runs → one row per (run, compute-state segment, node):
                 the GPU-seconds each run holds on each node, as integers (the timeline is not
                 ported yet: this table is the frame path's input beside the lake's bill_lines)
    split.py     bill_lines × holdings → each bill row's money split over (batch, state) and the
                 unattributed reasons, in integer minor units, largest remainder by row_number()
                 with a total ordering; aggregated per (batch, state, currency) and per reason
    oracle.py    the Python engine's bill stage bucketed the same way (conformance tests, bench)
    exact.py     integer helpers that are exact on every backend: decimal text → units and
                 scale, floor division of decimal(38,0) without trusting backend division

Money never meets a backend decimal division or a float: amounts are parsed from the lake's
decimal text into ``decimal(38,0)`` units; floor division uses a float only as a first guess that
exact integer arithmetic then corrects. Results leave the backend as integers with their scale
and become ``Decimal`` in Python, where the per-bucket sums are tiny.

Covered: the billed view (BilledCost); routing by unused commitment, by ``focus`` rules (template,
exact, prefix on a column or ``tags.<key>`` holding a JSON string), by node (ResourceId /
ResourceName, also as a short host name), commitment purchases, and no rule. Not yet: regex rules
(refused with a clear error), the amortized (EffectiveCost) view, problem records (oversubscribed
node, no node on the bill), per-line provenance, ``attribute --engine``. On Spark local mode the
same expressions give the same buckets (``tests/engine/test_frame_spark.py``, opt-in: 20-50 s).
"""

from trainledger.engine.frame.holdings import holdings_table
from trainledger.engine.frame.split import FrameResult, bill_split, bill_table, run_bill_split

__all__ = ["FrameResult", "bill_split", "bill_table", "holdings_table", "run_bill_split"]
