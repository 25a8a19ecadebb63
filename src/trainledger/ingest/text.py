"""Reading text files: encodings, what the start of a file looks like, and watched reads.

A file is read as UTF-8 (with or without a BOM), UTF-16 when it starts with its BOM, or in the
``encoding`` option. A byte that does not decode stops the file (``undecodable``). ``open_text``
hashes the bytes as they are read (``ContentWatch``), so the driver can tell whether what was
parsed is what was hashed before the import.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import io
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trainledger.errors import BadInput

HEAD_BYTES = 64 * 1024
UTF8_REMEDY = "save the file as UTF-8"
ENCODING_REMEDY = "pass --encoding gb18030 (or the file's encoding)"
DECODE_CHUNK = 1 << 20
READ_BUFFER = 1 << 20


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


# -- watched reads ------------------------------------------------------------------------------


class ContentWatch:
    """The sha256 of the bytes a parser read, and whether it read to the end of the file."""

    def __init__(self) -> None:
        self._h = hashlib.sha256()
        self.complete = False
        self.read = 0  # bytes so far

    def update(self, data: bytes | memoryview) -> None:
        self._h.update(data)
        self.read += len(data)

    def digest(self) -> str | None:
        """The hash of everything read, or None when the file was not read to its end."""
        return self._h.hexdigest() if self.complete else None


class _HashingRaw(io.RawIOBase):
    def __init__(self, path: Path, watch: ContentWatch) -> None:
        self._f = open(path, "rb", buffering=0)  # noqa: SIM115 - closed with the wrapper
        self._watch = watch

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        n = self._f.readinto(b)
        if n:
            self._watch.update(memoryview(b)[:n])
        elif n == 0:
            self._watch.complete = True
        return n or 0

    def close(self) -> None:
        self._f.close()
        super().close()


def open_text(path: Path, encoding: str, watch: ContentWatch | None = None) -> io.TextIOWrapper:
    """``path`` as text for reading (``errors="surrogateescape"``, newlines kept as written);
    with ``watch``, every byte read is hashed into it."""
    if watch is None:
        return open(path, encoding=encoding, errors="surrogateescape", newline="")  # noqa: SIM115
    raw = io.BufferedReader(_HashingRaw(path, watch), buffer_size=READ_BUFFER)
    return io.TextIOWrapper(raw, encoding=encoding, errors="surrogateescape", newline="")


# -- encodings ----------------------------------------------------------------------------------


def encoding_of(prefix: bytes) -> str:
    """The encoding trainledger assumes without ``--encoding``: UTF-16 when the file starts
    with its byte-order mark, else UTF-8 (with or without a BOM)."""
    if prefix.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    return "utf-8-sig"  # also reads plain UTF-8


def check_encoding(name: Any) -> str | None:
    """The ``encoding`` option checked: None (detect), or a codec name Python knows."""
    if name is None or name == "":
        return None
    try:
        codec = codecs.lookup(str(name))
    except LookupError:
        raise BadInput(
            f"unknown encoding {name!r}",
            remedy="pass a Python codec name, e.g. --encoding gb18030 (or utf-8, utf-16, big5)",
        ) from None
    if not codec._is_text_encoding:  # e.g. base64: bytes to bytes
        raise BadInput(f"{name!r} is not a text encoding", remedy="pass e.g. --encoding gb18030")
    return str(name)


def text_encoding(path: Path, options: Mapping[str, Any]) -> tuple[str, bool]:
    """How to decode ``path``: (codec, given) — the ``encoding`` option when there is one
    (a UTF-8 BOM is still skipped when it says UTF-8), else ``encoding_of`` the file."""
    given = check_encoding(options.get("encoding"))
    if given is None:
        with open(path, "rb") as f:
            return encoding_of(f.read(4)), False
    return ("utf-8-sig" if codecs.lookup(given).name == "utf-8" else given), True


def first_bad_byte(path: Path, encoding: str) -> int | None:
    """The 0-based offset of the first byte of ``path`` that ``encoding`` cannot decode, or
    None. Reads the file in chunks (a multi-byte character split between chunks is joined)."""
    with open(path, "rb") as f:
        head = f.read(4)
        codec, skip = _concrete(encoding, head)
        f.seek(skip)
        offset, data = skip, b""  # offset: the file position of data[0]
        while True:
            chunk = f.read(DECODE_CHUNK)
            data += chunk
            if not data:
                return None
            try:
                data.decode(codec)
            except UnicodeDecodeError as e:
                if chunk and e.start >= len(data) - 4:  # maybe a character cut by the chunk
                    offset, data = offset + e.start, data[e.start :]
                    continue
                return offset + e.start
            if not chunk:
                return None
            offset, data = offset + len(data), b""


def _concrete(encoding: str, head: bytes) -> tuple[str, int]:
    """A codec that decodes any chunk of the file alike (no BOM sniffing), and the BOM size."""
    name = codecs.lookup(encoding).name
    if name in ("utf-8", "utf-8-sig"):
        return "utf-8", 3 if head.startswith(codecs.BOM_UTF8) else 0
    if name in ("utf-16", "utf-32"):
        width = 2 if name == "utf-16" else 4
        le = codecs.BOM_UTF16_LE if width == 2 else codecs.BOM_UTF32_LE
        be = codecs.BOM_UTF16_BE if width == 2 else codecs.BOM_UTF32_BE
        if head.startswith(le):
            return f"{name}-le", width
        if head.startswith(be):
            return f"{name}-be", width
        return f"{name}-le", 0
    return name, 0


def undecodable(path: Path, encoding: str, given: bool) -> BadInput:
    """The error for a file that is not text in ``encoding``: where, and what to do."""
    offset = first_bad_byte(path, encoding)
    with open(path, "rb") as f:
        f.seek(offset or 0)
        byte = f.read(1)
    name = codecs.lookup(encoding).name
    what = "UTF-8" if name in ("utf-8", "utf-8-sig") else name.upper()
    where = (
        f"byte offset {offset} (0x{byte.hex()}) cannot be decoded"
        if offset is not None
        else "a byte cannot be decoded"
    )
    truncated = offset is not None and offset >= path.stat().st_size - 3
    if truncated and not given and name.startswith(("utf-16", "utf-32")):
        where = f"it ends inside a character at byte offset {offset} (the file looks truncated)"
        return BadInput(
            f"the file is not whole {name.upper()} text: {where}",
            path=str(path),
            remedy="export or copy the file again in full",
        )
    return BadInput(
        f"the file is not {what} text: {where}",
        path=str(path),
        remedy=(
            f"check --encoding: the file is not {what}; pass the encoding it was saved in"
            if given
            else ENCODING_REMEDY
        ),
    )


def decoded_lines(path: Path, f: Any, encoding: str, given: bool) -> Iterator[str]:
    """The lines of text file ``f`` (opened with ``errors="surrogateescape"``); the first line
    holding an undecodable byte stops the file with ``undecodable`` — never one row per line;
    so does a file that ends inside a character (a truncated UTF-16 file)."""
    try:
        for ln in f:
            if not ln.isascii():
                try:
                    ln.encode("utf-8")
                except UnicodeEncodeError:
                    raise undecodable(path, encoding, given) from None
            yield ln
    except UnicodeDecodeError:  # "truncated data": errors="surrogateescape" does not cover it
        raise undecodable(path, encoding, given) from None
    except UnicodeError as e:  # --encoding utf-16 on a file without a byte-order mark
        raise BadInput(
            f"the file cannot be read as {encoding}: {e}",
            path=str(path),
            remedy="pass the byte order with the encoding, e.g. --encoding utf-16-le (or utf-16-be)",
        ) from None


def json_loads(text: str, **kw: Any) -> Any:
    """``json.loads`` that fails only with ValueError: a document nested too deeply (Python's
    RecursionError) or holding an integer of more than 4,300 digits is refused like malformed
    JSON, never a traceback."""
    try:
        return json.loads(text, **kw)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def json_problem(e: ValueError) -> str:
    """What was wrong with a line ``json_loads`` refused."""
    if isinstance(e, json.JSONDecodeError):
        return f"not JSON: {e.msg} at column {e.colno}"
    return f"not JSON trainledger can read: {str(e).split(';')[0]}"


# -- what a file looks like ---------------------------------------------------------------------

SEP = {",": "comma", "|": "pipe", "\t": "tab", ";": "semicolon"}


@dataclass(frozen=True, slots=True)
class Head:
    """What the start of a file looks like, for ``identify``."""

    container: str  # text | parquet | gzip | zip | binary | empty
    delimiter: str | None = None
    header: tuple[str, ...] = ()
    json_keys: tuple[str, ...] | None = None  # keys of the first line when it is a JSON object
    folded: frozenset[str] = field(default=frozenset())
    first_line: str = ""

    def has(self, *names: str) -> bool:
        return all(n.casefold() in self.folded for n in names)

    @property
    def semicolon_csv(self) -> bool:
        """A header that splits cleanly on ``;`` (European Excel's CSV): no comma in it, and
        no empty name."""
        return (
            self.delimiter == ";"
            and "," not in self.first_line
            and len(self.header) > 1
            and all(self.header)
        )

    def describe(self) -> str:
        if self.container == "parquet":
            return f"a Parquet file with columns {few(self.header)}"
        if self.container == "gzip":
            return "gzip-compressed data (decompress it first)"
        if self.container == "zip":
            return "a ZIP archive or an Excel workbook (export it as CSV)"
        if self.container in ("binary", "empty"):
            return "binary data" if self.container == "binary" else "an empty file"
        if self.json_keys is not None:
            return f"JSON lines with keys {few(self.json_keys)}"
        sep = SEP.get(self.delimiter or ",", "comma")
        return f"{sep}-separated text with header {few(self.header)}"


def few(names: tuple[str, ...], n: int = 6) -> str:
    shown = ", ".join(names[:n])
    return shown + (f", … ({len(names)} columns)" if len(names) > n else "")


def sniff(path: Path) -> Head:
    with open(path, "rb") as f:
        data = f.read(HEAD_BYTES)
    if not data.strip():
        return Head("empty")
    if data.startswith(b"PAR1"):
        import pyarrow.parquet as pq

        try:
            names = tuple(pq.read_schema(path).names)
        except Exception:  # noqa: BLE001 - a damaged Parquet file is still "Parquet" to the user
            names = ()
        return Head("parquet", header=names, folded=frozenset(n.casefold() for n in names))
    if data.startswith(b"\x1f\x8b"):
        return Head("gzip")
    if data.startswith(b"PK\x03\x04"):
        return Head("zip")
    enc = encoding_of(data)
    text = data.decode(enc, errors="replace")
    if "\x00" in text:
        return Head("binary")
    if text.count("\ufffd") > len(text) // 10 + 2:
        # Not UTF-8: binary data, or text in a legacy encoding (Excel's GBK/GB18030 exports),
        # which the header can still be read from; the import asks for --encoding.
        if _controls(data) > len(data) // 100 + 2:
            return Head("binary")
        text = data.decode("gb18030", errors="replace")
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    if first.lstrip().startswith("{"):
        try:
            obj = json_loads(first)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            return Head("text", json_keys=tuple(obj), folded=frozenset(k.casefold() for k in obj))
    delim = max((",", "|", "\t", ";"), key=first.count)
    header = tuple(h.strip() for h in next(csv.reader([first], delimiter=delim), []))
    return Head(
        "text", delim, header, folded=frozenset(h.casefold() for h in header), first_line=first
    )


def _controls(data: bytes) -> int:
    """How many bytes of ``data`` are control characters text does not use."""
    return sum(data.count(bytes([c])) for c in range(32) if c not in (9, 10, 12, 13)) + data.count(
        b"\x7f"
    )
