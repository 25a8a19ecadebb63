"""A UTF-8 text file in bounded blocks of whole lines, read exactly as the per-row readers read it.

The per-row readers (``text.open_text`` + ``decoded_lines``) split a file at ``\\n``, ``\\r\\n`` and
a lone ``\\r``, skip a UTF-8 byte-order mark, and stop the file at the first byte that is not UTF-8.
``blocks(path, watch)`` gives the same lines a block at a time — each block cut after a ``\\n``,
decoded once, its first line's number known — and hashes every byte it reads (``ContentWatch``).

What it cannot promise to read alike it gives back (``fastcsv.NotFast``; the caller then imports
the file with the per-row reader, from the start): an encoding option other than UTF-8, a UTF-16
byte-order mark, a byte that is not UTF-8 (the per-row reader reports it), a lone carriage return.
Used by the column-at-a-time readers of progress JSONL (``progress_fast``) and sacct output
(``slurm_fast``).
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trainledger.ingest.fastcsv import NotFast, fast_encoding
from trainledger.ingest.text import ContentWatch

CHUNK_BYTES = 8 << 20
BOM = codecs.BOM_UTF8


@dataclass(frozen=True, slots=True)
class Block:
    text: str  # whole lines, each with its line end (the last one may have none: the file's end)
    data: bytes  # the same, as UTF-8 bytes
    line: int  # the physical line number of its first line (from 1)
    done: int  # bytes of the file read so far


def usable(path: Path, options: Mapping[str, Any]) -> bool:
    """Whether ``blocks`` may read the file (UTF-8 text; see the module docstring)."""
    return fast_encoding(path, options)


def lines_of(block: Block) -> list[str]:
    """The block's lines, each with its ``\\n`` (``\\r\\n``), as the per-row reader yields them."""
    parts = block.text.split("\n")
    last = parts.pop()
    out = [p + "\n" for p in parts]
    if last:
        out.append(last)
    return out


def blocks(path: Path, watch: ContentWatch, chunk_bytes: int | None = None) -> Iterator[Block]:
    """The file's lines in blocks of about ``chunk_bytes``. Raises NotFast."""
    size = chunk_bytes or CHUNK_BYTES
    line, done, data = 1, 0, b""
    with open(path, "rb") as f:
        first = True
        while True:
            more = f.read(size)
            if more:
                watch.update(more)
                data += more
                if first and len(data) < len(BOM) and data == BOM[: len(data)]:
                    continue  # the byte-order mark itself cut by the block size
                if first and data.startswith(BOM):
                    data, done = data[len(BOM) :], len(BOM)
                first = False
                cut = data.rfind(b"\n") + 1
                if cut == 0:
                    continue  # a line longer than a block: read on
                block, data = data[:cut], data[cut:]
            else:
                watch.complete = True
                block, data = data, b""
            if block:
                done += len(block)
                if b"\r" in block and block.count(b"\r") != block.count(b"\r\n"):
                    raise NotFast("a carriage return that ends no line")
                try:
                    text = block.decode("utf-8")
                except UnicodeDecodeError:
                    raise NotFast("not UTF-8") from None
                yield Block(text, block, line, done)
                line += text.count("\n")
            if not more:
                return
