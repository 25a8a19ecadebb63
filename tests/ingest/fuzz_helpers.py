"""Mutation fuzzing of the importers from real files (issue #6, item 3).

A seed is a real file — one the demo generates, or ``tests/data/focus-sample-data`` — cut to its
first few rows so an example stays fast. ``mutated(seed)`` is a Hypothesis strategy of hostile
variants of it: truncation, bit flips, a dropped or duplicated column, a field replaced by a
hostile value (integers beyond 64 bits, huge exponents, non-ASCII digits, year 1, control
characters, a value of 100,000 digits), odd encodings (UTF-16 with a BOM, cut or not, GB18030,
Latin-1), blank and whitespace-only lines, repeated or swapped lines. ``check_import`` runs
the real importer on it and asserts what every import must keep: no exception but the
project's own (``errors.py``), and accepted + duplicates + quarantined = rows read, with the
lake and the quarantine holding exactly what the counts say.

The fuzz files keep ``max_examples`` modest (the whole suite stays fast); CI derandomizes them
with the ``ci`` profile (tests/conftest.py). ``RUNS`` counts how the examples run in this process ended
(``TRAINLEDGER_FUZZ_STATS=1`` prints it on exit).
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import tempfile
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from trainledger.demo import generate
from trainledger.errors import TrainledgerError
from trainledger.ingest import KIND_TABLES, ImportResult, import_files
from trainledger.lake import Lake

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
RUNS: Counter[tuple[str, str]] = Counter()  # (kind, outcome): imported, or the error's class


def _report() -> None:  # TRAINLEDGER_FUZZ_STATS=1: how the examples ended, on exit
    for (kind, outcome), n in sorted(RUNS.items()):
        print(f"fuzz {kind:<10} {outcome:<14} {n}", file=sys.stderr)


if os.environ.get("TRAINLEDGER_FUZZ_STATS") == "1":
    atexit.register(_report)

# modest by default (the suite stays fast); TRAINLEDGER_FUZZ_EXAMPLES=5000 for a long campaign
EXAMPLES = int(os.environ.get("TRAINLEDGER_FUZZ_EXAMPLES", "150"))
HOSTILE: tuple[str, ...] = (
    "9" * 30,  # beyond 64 bits
    str(1 << 63),  # one past int64
    "-" + "9" * 20,
    "1E999999999",
    "1E-999999999",
    "-1e5",
    "9" * 100_000,  # a value of 100,000 digits
    "0." + "0" * 5000 + "1",
    "NaN",
    "-Infinity",
    "٢٨٨.٠٠",  # Arabic-Indic digits
    "２０２６-１１-０３",  # full-width digits
    "0001-01-01T00:00:00",
    "0001-01-01T00:00:00+08:00",
    "9999-12-31T23:59:59-05:00",
    "2026-02-30T00:00:00Z",
    "2026-03-29T02:30:00",  # a skipped local hour somewhere
    "",
    "   ",
    '"',
    '"unclosed',
    "\x00",
    "\u2028line\u2029",
    "\ud800",  # a lone surrogate (written with surrogatepass)
    "{",
    '{"a": {"b": [1, 2, {"c": null}]}}',
    "null",
    "NULL",
    "Unknown",
    "gres/gpu=99999999999999999999,node=1",
    "gpu-node-[01-99999999999999999999]",
    "gpu-node-[9-1]",
    "a" * 10_000,
)
JSON_HOSTILE: tuple[Any, ...] = (
    1 << 64,
    -(1 << 70),
    10**30,
    1e308,
    -0.0,
    float("1e-320"),
    True,
    None,
    [],
    {},
    [1, [2, [3]]],
    {"nested": {"deep": 1}},
    "9" * 30,
    "0001-01-01T00:00:00+08:00",
    "2026-11-03T10:00:00",
    "٢",
    "",
    "\u0000",
)
# the --encoding a user may pass, right or wrong for the file: mostly none (detect)
ENCODING_OPTION = st.sampled_from([{}] * 4 + [{"encoding": e} for e in ("utf-16", "utf-16-le", "gb18030", "latin-1")])
# whole lines no JSON library reads: nesting beyond the recursion limit, a 5,000-digit integer
RAW_LINES = (
    "[" * 50_000 + "]" * 50_000,
    '{"ts": "2026-11-03T10:00:00+08:00", "run": "r", "event": "step", "step": ' + "9" * 5000 + "}",
    '{"ts": "2026-11-03T10:00:00+08:00", "run": "r", "event": "start", "x": ' + "[" * 50_000 + "]" * 50_000 + "}",
    '{"ts": "2026-11-03T10:00:00+08:00", "run": "r", "event": "start", "tokens": 1e999999}',
    '{"Tags": ' + '{"a":' * 50_000 + "1" + "}" * 50_001,
)
ENCODINGS = ("utf-16", "utf-16-le", "utf-16-be", "gb18030", "latin-1", "utf-8-sig", "cp1252")


@cache
def demo_dir() -> Path:
    """The demo's generated files, written once per process (seeded: always the same)."""
    out = Path(tempfile.mkdtemp(prefix="tl-fuzz-demo-"))
    generate(out)
    return out / "data"


def seed(name: str, rows: int = 12) -> bytes:
    """The first ``rows`` lines after the header of a real file (demo name or tests/data path)."""
    path = DATA / name if "/" in name else demo_dir() / name
    lines = path.read_bytes().splitlines(keepends=True)
    return b"".join(lines[: rows + 1])


# -- mutations ----------------------------------------------------------------------------------


def _split(text: str, delim: str) -> list[list[str]]:
    return [ln.split(delim) for ln in text.split("\n")]


def _join(rows: list[list[str]], delim: str) -> str:
    return "\n".join(delim.join(r) for r in rows)


@st.composite
def mutated(draw: st.DrawFn, data: bytes, delim: str | None = ",") -> bytes:
    """One to three mutations of ``data``; ``delim`` None: JSON lines."""
    kinds = ["truncate", "flip", "encoding", "lines", "columns" if delim else "json", "field"]
    for _ in range(draw(st.integers(1, 3))):
        what = draw(st.sampled_from(kinds))
        if what == "truncate":
            data = data[: draw(st.integers(0, max(len(data) - 1, 0)))]
        elif what == "flip":
            bits = draw(st.lists(st.integers(0, max(len(data) * 8 - 1, 0)), min_size=1, max_size=6))
            data = _flip(data, bits)
        elif what == "encoding":
            data = _reencoded(draw, data, draw(st.sampled_from(ENCODINGS)))
        elif what == "lines":
            data = _lines(draw, data)
        elif what == "columns":
            data = _columns(draw, data, delim or ",")
        elif delim is None:
            data = _json_value(draw, data)
        else:
            data = _field(draw, data, delim)
    return data


def _flip(data: bytes, bits: list[int]) -> bytes:
    if not data:
        return data
    buf = bytearray(data)
    for b in bits:
        buf[(b // 8) % len(buf)] ^= 1 << (b % 8)
    return bytes(buf)


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _reencoded(draw: st.DrawFn, data: bytes, enc: str) -> bytes:
    try:
        out = _text(data).encode(enc, "replace" if enc in ("latin-1", "cp1252") else "strict")
    except UnicodeError:
        out = data
    return draw(st.sampled_from([out, out[: max(len(out) - 1, 0)], out[: len(out) // 2]]))


def _lines(draw: st.DrawFn, data: bytes) -> bytes:
    lines = _text(data).split("\n")
    i = draw(st.integers(0, max(len(lines) - 1, 0)))
    what = draw(st.sampled_from(["blank", "space", "repeat", "swap", "drop", "crlf", "raw"]))
    if what == "raw":
        lines.insert(i, draw(st.sampled_from(RAW_LINES)))
    elif what == "blank":
        lines.insert(i, "")
    elif what == "space":
        lines.insert(i, draw(st.sampled_from([" ", "\t", " \t ", "\u3000", "\r"])))
    elif what == "repeat" and lines:
        lines.insert(i, lines[i])
    elif what == "swap" and len(lines) > 1:
        j = draw(st.integers(0, len(lines) - 1))
        lines[i], lines[j] = lines[j], lines[i]
    elif what == "drop" and lines:
        del lines[i]
    elif what == "crlf":
        return _bytes("\r\n".join(lines))
    return _bytes("\n".join(lines))


def _columns(draw: st.DrawFn, data: bytes, delim: str) -> bytes:
    rows = _split(_text(data), delim)
    width = max((len(r) for r in rows), default=0)
    if not width:
        return data
    c = draw(st.integers(0, width - 1))
    what = draw(st.sampled_from(["drop", "duplicate", "drop-in-one-row", "extra"]))
    for n, r in enumerate(rows):
        if c >= len(r):
            continue
        if what == "drop":
            del r[c]
        elif what == "duplicate":
            r.insert(c, r[c])
        elif what == "drop-in-one-row" and n == 1:
            del r[c]
        elif what == "extra":
            r.append("x" if n else "Extra")
    return _bytes(_join(rows, delim))


def _field(draw: st.DrawFn, data: bytes, delim: str) -> bytes:
    rows = _split(_text(data), delim)
    if len(rows) < 2:
        return data
    n = draw(st.integers(1, len(rows) - 1))
    if not rows[n] or rows[n] == [""]:
        return data
    c = draw(st.integers(0, len(rows[n]) - 1))
    rows[n][c] = draw(st.sampled_from(HOSTILE))
    return _bytes(_join(rows, delim))


def _json_value(draw: st.DrawFn, data: bytes) -> bytes:
    lines = _text(data).split("\n")
    n = draw(st.integers(0, max(len(lines) - 1, 0)))
    try:
        obj = json.loads(lines[n])
    except (ValueError, IndexError, RecursionError):  # a RAW_LINES line is left as it is
        return data
    if not isinstance(obj, dict) or not obj:
        return data
    key = draw(st.sampled_from(sorted(obj) + ["step", "tokens", "samples", "duration_s"]))
    obj[key] = draw(st.sampled_from(JSON_HOSTILE))
    lines[n] = json.dumps(obj, ensure_ascii=draw(st.booleans()))
    return _bytes("\n".join(lines))


# -- the check ----------------------------------------------------------------------------------


def check_import(kind: str, data: bytes, name: str, **options: Any) -> ImportResult | None:
    """Import ``data`` as ``kind``: only the project's own errors may escape, and the books
    balance — in the result, in the lake and in the quarantine file. The result, or None when
    the file was refused (with one of the project's errors)."""
    with tempfile.TemporaryDirectory(prefix="tl-fuzz-") as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        lake = Lake(Path(tmp) / "lake")
        try:
            (r,) = import_files(kind, [path], lake, options=options)
        except TrainledgerError as e:
            assert str(e).strip()  # a message the user can read
            RUNS[kind, type(e).__name__] += 1
            return None
        RUNS[kind, "imported"] += 1
        assert r.accepted + r.duplicates + r.quarantined == r.rows_read
        assert r.duplicates == 0  # one file into an empty lake: nothing is a duplicate
        table = lake.read(KIND_TABLES[kind])
        assert (table.num_rows if table is not None else 0) == r.accepted
        quarantined = lake.quarantine(kind, r.sha256)
        assert len(quarantined) == r.quarantined
        for q in quarantined:
            assert q["reason"] and isinstance(q["row"], int)
        return r


# -- typed values, for Parquet --------------------------------------------------------------------

_INT64 = (0, 1, -1, (1 << 63) - 1, -(1 << 63))
_TYPED: tuple[tuple[Any, tuple[Any, ...]], ...] = (
    ("uint64", (0, (1 << 64) - 1, 1 << 63)),
    ("int64", _INT64),
    ("float64", (float("nan"), float("inf"), -0.0, 1e300, 5e-324, 288.0)),
    ("decimal128(38,30)", ("0." + "1" * 30, "-9." + "9" * 30, "0")),
    ("decimal128(38,0)", ("9" * 38, "-1", "0")),
    ("decimal256(76,10)", ("9" * 66 + ".5", "1")),
    ("timestamp_ns", _INT64),
    ("timestamp_ms_utc", (1 << 62, -(1 << 62), 0)),
    ("timestamp_us_shanghai", (-62135596800 * 10**6, 253402300799 * 10**6, 0)),
    ("date32", (-719162, 2932896, 0)),
    ("string", HOSTILE[:30]),
    ("binary", (b"\xff\xfe", b"\x00", b"")),
    ("bool", (True, False)),
    ("null", (None,)),
    ("list_int", ([1 << 62], [], [0, None])),
    ("struct", ({"a": 1, "b": "x"}, {"a": None, "b": "\x00"})),
    ("map", ([("k", "v")], [("", "\ud7ff")])),
    ("duration_s", (10**18, -1, 0)),
)


def _arrow_type(name: str) -> Any:
    import pyarrow as pa

    return {
        "uint64": pa.uint64(), "int64": pa.int64(), "float64": pa.float64(),
        "decimal128(38,30)": pa.decimal128(38, 30), "decimal128(38,0)": pa.decimal128(38, 0),
        "decimal256(76,10)": pa.decimal256(76, 10), "timestamp_ns": pa.timestamp("ns"),
        "timestamp_ms_utc": pa.timestamp("ms", tz="UTC"),
        "timestamp_us_shanghai": pa.timestamp("us", tz="Asia/Shanghai"), "date32": pa.date32(),
        "string": pa.string(), "binary": pa.binary(), "bool": pa.bool_(), "null": pa.null(),
        "list_int": pa.list_(pa.int64()), "struct": pa.struct([("a", pa.int64()), ("b", pa.string())]),
        "map": pa.map_(pa.string(), pa.string()), "duration_s": pa.duration("s"),
    }[name]


@st.composite
def parquet_of(draw: st.DrawFn, csv_data: bytes) -> bytes:
    """``csv_data`` (a FOCUS CSV) as Parquet, with one to three columns replaced by typed
    hostile values (or dropped, or one added)."""
    from decimal import Decimal

    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    table = pacsv.read_csv(pa.py_buffer(csv_data))
    n = table.num_rows
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(table.column_names + ["x_Hostile"]))
        if draw(st.integers(0, 9)) == 0 and name in table.column_names:
            table = table.drop_columns([name])
            continue
        kind, values = draw(st.sampled_from(_TYPED))
        typ = _arrow_type(kind)
        picked = [draw(st.sampled_from((*values, None))) for _ in range(n)]
        if kind.startswith("decimal"):
            picked = [Decimal(v) if v is not None else None for v in picked]
        if kind == "string":
            picked = [v.encode("utf-8", "surrogatepass").decode("utf-8", "replace") if v else v for v in picked]
        try:
            arr = pa.array(picked, type=typ)
        except (pa.ArrowException, OverflowError, ValueError, TypeError):
            continue
        if name in table.column_names:
            table = table.set_column(table.column_names.index(name), name, arr)
        else:
            table = table.append_column(name, arr)
    sink = pa.BufferOutputStream()
    try:
        pq.write_table(table, sink)
    except (pa.ArrowException, OverflowError, ValueError):  # not writable: write the original
        sink = pa.BufferOutputStream()
        pq.write_table(pacsv.read_csv(pa.py_buffer(csv_data)), sink)
    return sink.getvalue().to_pybytes()
