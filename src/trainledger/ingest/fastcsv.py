"""The vectorised CSV reader: a UTF-8 delimited file as Arrow string columns, in bounded chunks.

``chunks(path, delimiter)`` reads the file in blocks of about ``CHUNK_BYTES`` cut at line ends
(in a thread of its own, one block ahead of the caller),
hashes every byte it reads (``ContentWatch``), and parses each block with ``pyarrow.csv`` —
every field as text, nothing inferred. Each ``Chunk`` keeps, beside the columns, each row's
number (data rows from 1, as ``delimited.read_delimited`` counts them), the physical line it
starts on and its raw text, so a row quarantined later is reported exactly as the per-row reader
reports it.

It reads only what it reads *exactly as* ``read_delimited`` would: a file it cannot promise that
for raises ``NotFast`` (the caller then imports the file with the per-row reader, from the
start), never a different result. That is any file not in UTF-8 (GB18030, UTF-16: the per-row
reader decodes them), a byte that is not UTF-8, a quoted field running over a line end, a quote
closing before its field ends, a row of the wrong width, a whitespace-only line, a lone carriage
return, a NUL, a header ending in the delimiter, or a field beyond the per-row reader's limit.
"""

from __future__ import annotations

import codecs
import csv
import queue
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from trainledger.ingest.delimited import FIELD_LIMIT
from trainledger.ingest.text import ContentWatch, check_encoding

CHUNK_BYTES = 8 << 20
AHEAD = 1  # chunks read ahead by the reading thread (memory: about (AHEAD + 2) chunks)
BOM = codecs.BOM_UTF8


class NotFast(Exception):
    """This input needs the per-row reader: the vectorised one would not read it the same."""


@dataclass(frozen=True, slots=True)
class Chunk:
    columns: list[pa.Array]  # one string array per header column, no nulls (text as written)
    rows: np.ndarray  # int64: each row's data-row number (from 1)
    lines: np.ndarray  # int64: the physical line each row is on (from 1)
    raw: pa.Array  # string: each row's line, with its line end
    done: int  # bytes of the file read so far


def line_pattern(delimiter: str) -> str:
    """RE2 pattern of one physical line that Python's strict ``csv`` reader and Arrow's reader
    split alike: fields unquoted (no quote first), or quoted from first to last character with
    inner quotes doubled; an optional CR LF or LF at the end."""
    d = re.escape(delimiter)
    field = f'(?:"(?:[^"]|"")*"|[^"{d}\\r\\n][^{d}\\r\\n]*|)'
    return f"^{field}(?:{d}{field})*\\r?\\n?$"


def fast_encoding(path: Path, options: Mapping[str, Any]) -> bool:
    """Whether the file is read as UTF-8 (the only text the vectorised reader reads)."""
    given = check_encoding(options.get("encoding"))
    if given is not None and codecs.lookup(given).name not in ("utf-8", "utf-8-sig"):
        return False
    with open(path, "rb") as f:
        return f.read(2) not in (b"\xff\xfe", b"\xfe\xff")


def header_of(line: str, spec_delimiter: str) -> tuple[str, list[str]]:
    """(delimiter, header names) of the header line, as ``read_delimited`` reads them."""
    delimiter = spec_delimiter
    if spec_delimiter == ",":
        first = line.strip()
        names = first.split(";")
        if "," not in first and len(names) > 1 and all(n.strip() for n in names):
            delimiter = ";"
    if not re.fullmatch(line_pattern(delimiter), line):
        raise NotFast("the header is not one plain line")
    try:
        fields = next(csv.reader([line], delimiter=delimiter, strict=True))
    except (csv.Error, StopIteration):
        raise NotFast("unreadable header") from None
    if not any(h.strip() for h in fields):
        raise NotFast("the first line is blank fields")
    header = [h.strip() for h in fields]
    if len(header) < 2:  # a whitespace-only line would read as a row of one field
        raise NotFast("a header of one column")
    if header[-1] == "":
        raise NotFast("the header ends with the delimiter")
    return delimiter, header


def chunks(
    path: Path,
    spec_delimiter: str,
    watch: ContentWatch,
    on_header: Callable[[list[str]], None],
    chunk_bytes: int | None = None,
) -> Iterator[Chunk]:
    """The file's rows in chunks (see the module docstring); ``on_header`` is called with the
    header names before the first chunk (it may raise). Raises NotFast.

    The file is read, hashed and parsed by a thread of its own, ``AHEAD`` chunk(s) ahead of
    the caller (Arrow and hashlib let go of the GIL while they work); the caller sees the
    chunks, and any exception, in file order, exactly as if it read them itself."""
    box: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=AHEAD)
    stop = threading.Event()

    def put(item: tuple[str, Any]) -> bool:
        while not stop.is_set():
            try:
                box.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for chunk in _read(path, spec_delimiter, watch, on_header, chunk_bytes or CHUNK_BYTES):
                if not put(("chunk", chunk)):
                    return
        except BaseException as e:  # handed to the caller, raised there
            put(("error", e))
            return
        put(("end", None))

    reader = threading.Thread(target=produce, name="fastcsv-reader", daemon=True)
    reader.start()
    try:
        while True:
            what, item = box.get()
            if what == "end":
                return
            if what == "error":
                raise item
            yield item
    finally:
        stop.set()
        reader.join()


def _read(
    path: Path,
    spec_delimiter: str,
    watch: ContentWatch,
    on_header: Callable[[list[str]], None],
    chunk_bytes: int,
) -> Iterator[Chunk]:
    with open(path, "rb") as f:
        data = f.read(chunk_bytes)
        watch.update(data)
        if data.startswith(BOM):
            data = data[len(BOM) :]
        while b"\n" not in data:  # the header line, whole
            more = f.read(chunk_bytes)
            if not more:
                break
            watch.update(more)
            data += more
        end = data.find(b"\n") + 1 or len(data)
        try:
            first = data[:end].decode("utf-8")
        except UnicodeDecodeError:
            raise NotFast("not UTF-8") from None
        if not first.strip():
            raise NotFast("a blank line before the header")
        delimiter, header = header_of(first, spec_delimiter)
        on_header(header)
        pattern = line_pattern(delimiter)
        parse = pcsv.ParseOptions(
            delimiter=delimiter, newlines_in_values=False, ignore_empty_lines=True, double_quote=True
        )
        names = [f"c{i}" for i in range(len(header))]
        convert = pcsv.ConvertOptions(
            column_types={n: pa.string() for n in names},
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
            check_utf8=False,  # the block is checked whole (``_utf8``): every field is then valid
        )
        data, line, row, done = data[end:], 2, 1, end
        while True:
            more = f.read(chunk_bytes)
            if more:
                watch.update(more)
                data += more
                cut = data.rfind(b"\n") + 1
                if cut == 0:  # a line longer than a chunk: read on
                    if len(data) > FIELD_LIMIT:
                        raise NotFast("a line longer than the per-row reader's field limit")
                    continue
                block, data = data[:cut], data[cut:]
            else:
                watch.complete = True
                block, data = data, b""
            if block:
                done += len(block)
                got = _chunk(block, pattern, parse, convert, names, line, row, done)
                line, row = got[1], got[2]
                if got[0] is not None:
                    yield got[0]
            if not more:
                return


def _chunk(
    block: bytes,
    pattern: str,
    parse: pcsv.ParseOptions,
    convert: pcsv.ConvertOptions,
    names: list[str],
    line: int,
    row: int,
    done: int,
) -> tuple[Chunk | None, int, int]:
    if b"\x00" in block:
        raise NotFast("a NUL byte")
    if b"\r" in block and block.count(b"\r") != block.count(b"\r\n"):  # `in` first: memchr
        raise NotFast("a carriage return that ends no line")
    bytes_ = np.frombuffer(block, dtype=np.uint8)
    ends = np.flatnonzero(bytes_ == 10) + 1
    if not len(ends) or ends[-1] != len(block):
        ends = np.append(ends, len(block))
    offsets = np.concatenate(([0], ends)).astype(np.int64)
    width = np.diff(offsets)
    if len(width) and int(width.max()) > FIELD_LIMIT:
        raise NotFast("a line longer than the per-row reader's field limit")
    _utf8(block)
    text = pa.LargeStringArray.from_buffers(
        len(ends), pa.py_buffer(offsets), pa.py_buffer(block)
    )
    # Blank: "", "\n" or "\r\n" (a lone "\r" was refused above)
    starts = offsets[:-1]
    first = bytes_[np.minimum(starts, len(block) - 1)] if len(block) else np.zeros(len(starts), np.uint8)
    blank_np = (width == 0) | ((width <= 2) & ((first == 10) | (first == 13)))
    any_blank = bool(blank_np.any())
    plain = pc.match_substring_regex(text, pattern)
    if any_blank:
        plain = pc.or_(plain, pa.array(blank_np))
    if not pc.all(plain).as_py():
        raise NotFast("a line the per-row reader reads differently")
    numbers = np.flatnonzero(~blank_np)
    n = len(numbers)
    next_line = line + len(ends)
    if n == 0:
        return None, next_line, row
    try:
        # one block, one thread: each column comes back as one array (no copy to combine),
        # and the reader's own threads would only take CPU from the import's other stages
        table = pcsv.read_csv(
            pa.BufferReader(block),
            read_options=pcsv.ReadOptions(column_names=names, use_threads=False, block_size=len(block) + 1),
            parse_options=parse,
            convert_options=convert,
        )
    except pa.ArrowInvalid:
        raise NotFast("a row the per-row reader reads differently (its width)") from None
    if table.num_rows != n:
        raise NotFast("rows and lines disagree")
    raw = pc.cast(text.filter(pa.array(~blank_np)) if any_blank else text, pa.string())
    columns = [_one(table.column(i)) for i in range(len(names))]
    rows = np.arange(row, row + n, dtype=np.int64)
    chunk = Chunk(columns, rows, numbers.astype(np.int64) + line, raw, done)
    return chunk, next_line, row + n


def _utf8(block: bytes) -> None:
    """Refuse a block that is not UTF-8 (``NotFast``: the per-row reader reports the byte).
    Checked once over the whole block rather than by the CSV parser field by field (a quarter
    of its time): delimiters, quotes and line ends are ASCII, which no multi-byte sequence
    holds, so the block is valid exactly when every field and every line of it is."""
    whole = pa.LargeStringArray.from_buffers(
        1, pa.py_buffer(np.array([0, len(block)], dtype=np.int64)), pa.py_buffer(block)
    )
    try:
        whole.validate(full=True)
    except pa.ArrowInvalid:
        raise NotFast("not UTF-8") from None


def _one(column: pa.ChunkedArray) -> pa.Array:
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
