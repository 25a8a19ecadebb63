"""The bill stage on a dataframe backend: Ibis expressions run on DuckDB in-process or on pyspark.

``attribute --engine duckdb|spark`` (or ``[engine] backend`` in the workspace) runs the bill stage
here; the Python engine (``engine.compute.bill_stage``) is the oracle it is tested against: the
same cost lines (amount, GPU-hours with the same digits, source file / row / rule, reason,
evidence), the same problems, in the same order — so ``attribute --json`` and the ledger's
figures are byte-identical (``tests/engine/test_frame_*.py``, ``tests/test_engine_parity.py``).

    holdings.py  the derived runs → one row per (run, compute-state segment, node): GPUs held as an
                 integer numerator over a power of ten (from ``compute.gpus_on_node``), the
                 exponent Python keeps, and whether the frame can weigh the run exactly
    split.py     bill rows → routes (commitment, ``focus`` rule, node, purchase, none; rules decided
                 by the Python matcher over the distinct rule-field values, so regex and tags mean
                 the same) and each node row's money split per (run, state) and the rest no job
                 held, in integer minor units, largest remainder by ``row_number()`` over a total
                 ordering, runs first then each run over its states; billed and (with
                 commitments) effective views; rows beyond the exact integer range named
    stage.py     the backend's integers → cost lines: direct rows with the Python engine's
                 constructors; per node row (split here) its problems and the GPU-hours no job held;
                 the split result read back a chunk of bill rows at a time (``Pieces``: DuckDB
                 sorts it into a Parquet file in its spill directory), each chunk's lines made
                 and kept as columns before the next is read; ``connect`` (DuckDB with the
                 workspace's memory limit and spill directory, Spark local mode)
    columns.py   every piece of the split → a line as columns (``engine.lines.LineColumns``), by
                 Arrow compute: amount text, GPU-hours (once per distinct weight), batch, rule,
                 reason, in the Python engine's order — no ``CostLine`` object per line
    oracle.py    the Python engine's bill stage bucketed per (batch, state) / reason (tests, bench)
    exact.py     integer helpers that are exact on every backend: decimal text → units and
                 scale, floor division of decimal(38,0) without trusting backend division

Money never meets a backend decimal division or a float: amounts are parsed from the lake's
decimal text into ``decimal(38,0)`` units; floor division uses a float only as a first guess that
exact integer arithmetic then corrects. Results leave the backend as integers with their scale.
A node row touching a run whose per-node GPUs do not terminate in 12 digits (8 GPUs on 3 nodes),
or one whose |units| × total weight could leave the exact integer range (``split._rows``: a
12-decimal ``gpu_share`` on a month-long row of a large amount), is split by the Python engine's
``node_split`` (``split.fallback_rows``), so no line differs.

The bill rows come in as the lake's Arrow table (``context.Facts`` keeps every table as columns
behind a lazy ``Rows`` view): DuckDB scans it in place (``stage._bills``), and the stage walks it a
chunk at a time as value lists (``stage._walk``) — only rows a Python constructor makes a line of
(direct and fallback rows) become dicts. Still Python on every engine: the derived runs and their
timeline (``runs.py``, reading only the job columns it uses), the other stages (capacity, queued,
storage, labor, external) and the allocation pools; conservation sums the columns as integers
(``conservation.line_sums``), and the ledger writes them as they are.
"""

from trainledger.engine.frame.holdings import holdings_table
from trainledger.engine.frame.stage import BACKENDS, bill_stage_on, connect

__all__ = ["BACKENDS", "bill_stage_on", "connect", "holdings_table"]
