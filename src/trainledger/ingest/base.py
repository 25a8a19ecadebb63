"""The importer protocol, its records, and the declarative CSV machinery every table source shares.

An importer (after beangulp's protocol) is four steps, plus one for import-wide settings:

    configure(options)            -> settings checked once (time zone, currency, ...); BadInput
    identify(path)                -> True, or the reason the file is not this kind
    parse(path, ctx)              -> one Record per data row: row number, raw text, named values
    validate(record, ctx)         -> typed values and flags; raises Rejected (→ quarantine)
    normalise(values, record, ctx) -> one lake row {column: value}, with a "flags" list

A CSV-like source is a ``DelimitedImporter`` subclass that lists ``Column``s — the lake column,
the header names that feed it, a converter, and what a bad value costs (quarantine the row or
flag it) — and derives computed columns, if any, in ``normalise``. ``run.py`` drives the steps.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal, NamedTuple, Protocol, runtime_checkable

from trainledger.errors import BadInput

HEAD_BYTES = 64 * 1024
UTF8_REMEDY = "save the file as UTF-8"
ENCODING_REMEDY = "pass --encoding gb18030 (or the file's encoding)"
DECODE_CHUNK = 1 << 20
QUARANTINE: Literal["quarantine"] = "quarantine"
FLAG: Literal["flag"] = "flag"


class Rejected(Exception):
    """A row cannot enter the lake; it is quarantined with this reason and remedy."""

    def __init__(self, reason: str, remedy: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.remedy = remedy


class Flagged(NamedTuple):
    """A converter's result that is usable but worth a note on the row."""

    value: Any
    note: str


@dataclass(frozen=True, slots=True)
class Context:
    path: Path
    sha256: str
    kind: str
    options: Mapping[str, Any]
    cfg: Any = None  # what the importer's configure() returned


@dataclass(slots=True)
class Record:
    """One data row as read: ``values`` are raw (text, or Python values from Parquet/JSON)."""

    row: int
    line: int | None
    raw: str
    key: str  # the row_hash: blake2b-128 of the row's content (``content_key``), never of its
    # row number or file, so the same row in another file has the same key
    values: dict[str, Any]
    extra: dict[str, Any] | None = None
    problem: str | None = None  # a structural fault found while reading (wrong field count...)
    remedy: str | None = None


@dataclass(frozen=True, slots=True)
class ImportResult:
    kind: str
    path: str
    sha256: str
    rows_read: int
    accepted: int
    duplicates: int
    quarantined: int
    quarantine_file: str | None
    flagged: int

    def as_json(self) -> dict[str, Any]:
        return {
            "accepted": self.accepted,
            "duplicates": self.duplicates,
            "quarantined": self.quarantined,
            "quarantine_file": self.quarantine_file,
        }


@runtime_checkable
class Importer(Protocol):
    kind: str
    table: str
    description: str

    def configure(self, options: Mapping[str, Any]) -> Any: ...

    def identify(self, path: Path) -> bool | str: ...

    def parse(self, path: Path, ctx: Context) -> Iterator[Record]: ...

    def validate(self, record: Record, ctx: Context) -> dict[str, Any]: ...

    def normalise(self, values: dict[str, Any], record: Record, ctx: Context) -> dict[str, Any]: ...


# -- reading files ------------------------------------------------------------------------------


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def row_key(raw: str) -> tuple[str, str | None]:
    """The key of a row known only by its raw text (one that cannot be read into named values)
    and, when the text holds undecodable bytes, a problem to report."""
    text = raw.rstrip("\r\n")
    try:
        data, problem = text.encode("utf-8"), None
    except UnicodeEncodeError as e:
        data = text.encode("utf-8", "surrogateescape")
        problem = f"not valid UTF-8 text (bad byte at character {e.start + 1})"
    return hashlib.blake2b(data, digest_size=16).hexdigest(), problem


_KEY_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str).encode


def content_key(items: list[Any]) -> str:
    """The row_hash of a row read into named values: blake2b-128 (hex) of ``items``, a flat
    ``[name, value, name, value, ...]`` list of the row's *non-null* values sorted by name.

    So the hash depends on what the row says, not on how the file wrote it: column order,
    quoting, line endings, a trailing delimiter, an empty column the export added, the row's
    number and the file itself do not change it. The same row in two files has one hash.

    Text items are joined with NUL (fast); a list with a NUL inside an item, or with non-text
    items, is written as JSON after a \x01 mark instead (JSON escapes control characters, so
    the two forms never meet and the encoding stays one-to-one).
    """
    try:
        data = "\x00".join(items)
    except TypeError:
        data = None
    if data is None or len(items) == 1 or data.count("\x00") != len(items) - 1:
        data = "\x01" + _KEY_JSON(items)
    return hashlib.blake2b(data.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def mapping_key(values: Mapping[str, Any], *, fold: bool = False) -> str:
    """``content_key`` of a mapping (a Parquet row, a JSON object); ``fold`` case-folds names."""
    items = sorted(
        (((k.casefold() if fold else k), v) for k, v in values.items() if v is not None),
        key=lambda kv: kv[0],
    )
    return content_key([x for pair in items for x in pair])


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
    holding an undecodable byte stops the file with ``undecodable`` — never one row per line."""
    for ln in f:
        if not ln.isascii():
            try:
                ln.encode("utf-8")
            except UnicodeEncodeError:
                raise undecodable(path, encoding, given) from None
        yield ln


_SEP = {",": "comma", "|": "pipe", "\t": "tab", ";": "semicolon"}


@dataclass(frozen=True, slots=True)
class Head:
    """What the start of a file looks like, for ``identify``."""

    container: str  # text | parquet | gzip | zip | binary | empty
    delimiter: str | None = None
    header: tuple[str, ...] = ()
    json_keys: tuple[str, ...] | None = None  # keys of the first line when it is a JSON object
    folded: frozenset[str] = field(default=frozenset())

    def has(self, *names: str) -> bool:
        return all(n.casefold() in self.folded for n in names)

    def describe(self) -> str:
        if self.container == "parquet":
            return f"a Parquet file with columns {_few(self.header)}"
        if self.container == "gzip":
            return "gzip-compressed data (decompress it first)"
        if self.container == "zip":
            return "a ZIP archive or an Excel workbook (export it as CSV)"
        if self.container in ("binary", "empty"):
            return "binary data" if self.container == "binary" else "an empty file"
        if self.json_keys is not None:
            return f"JSON lines with keys {_few(self.json_keys)}"
        sep = _SEP.get(self.delimiter or ",", "comma")
        return f"{sep}-separated text with header {_few(self.header)}"


def _few(names: tuple[str, ...], n: int = 6) -> str:
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
            obj = json.loads(first)
        except json.JSONDecodeError:
            obj = None
        if isinstance(obj, dict):
            return Head("text", json_keys=tuple(obj), folded=frozenset(k.casefold() for k in obj))
    delim = max((",", "|", "\t", ";"), key=first.count)
    header = tuple(h.strip() for h in next(csv.reader([first], delimiter=delim), []))
    return Head("text", delim, header, folded=frozenset(h.casefold() for h in header))


def _controls(data: bytes) -> int:
    """How many bytes of ``data`` are control characters text does not use."""
    return sum(data.count(bytes([c])) for c in range(32) if c not in (9, 10, 12, 13)) + data.count(
        b"\x7f"
    )


# -- declarative columns --------------------------------------------------------------------------

Converter = Callable[[Any, Context], Any]


def as_text(value: Any, ctx: Context) -> str:
    return value if isinstance(value, str) else str(value)


@dataclass(frozen=True, slots=True)
class Column:
    """One lake column fed from the first of ``sources`` (header names, case-insensitive) that
    the file has. ``required``: the header must have one of them (else BadInput for the file).
    ``needed``: a null value rejects the row. ``on_error``: what a value the converter refuses
    costs — ``quarantine`` the row, or ``flag`` it and store ``default``."""

    name: str
    sources: tuple[str, ...]
    convert: Converter = as_text
    required: bool = False
    needed: bool = False
    on_error: Literal["quarantine", "flag"] = QUARANTINE
    default: Any = None
    remedy: str | None = None  # told with a quarantined row, e.g. "write a plain decimal"

    @property
    def label(self) -> str:
        return self.sources[0]


def col(name: str, *sources: str, **kw: Any) -> Column:
    return Column(name, sources or (name,), **kw)


class DelimitedImporter:
    """A CSV-like source described by data: subclasses set the class attributes below."""

    kind: ClassVar[str]
    table: ClassVar[str]
    description: ClassVar[str]
    columns: ClassVar[tuple[Column, ...]] = ()
    require_any: ClassVar[tuple[tuple[str, ...], ...]] = ()  # header alternatives, one needed
    signature: ClassVar[tuple[str, ...]] = ()  # header names that identify the format
    delimiter: ClassVar[str] = ","
    quoting: ClassVar[int] = csv.QUOTE_MINIMAL
    nulls: ClassVar[frozenset[str]] = frozenset({""})
    keep_extra: ClassVar[bool] = False  # collect unmapped non-null columns into Record.extra
    missing_remedy: ClassVar[str] = "add the column to the file's header"
    width_remedy: ClassVar[str] = (
        "quote a field that contains the delimiter, or fix the number of fields"
    )

    def configure(self, options: Mapping[str, Any]) -> Any:
        return None

    def layout(self, cfg: Any) -> tuple[Column, ...]:
        """The columns for one import; override when a setting renames a source column."""
        return self.columns

    def identify(self, path: Path) -> bool | str:
        return self.identify_head(sniff(path))

    def identify_head(self, head: Head) -> bool | str:
        if head.container != "text":
            return f"it is {head.describe()}"
        if head.json_keys is not None:
            return "it is JSON lines, not a delimited text file with a header"
        missing = [s for s in self.signature if not head.has(s)]
        if missing:
            return f"its header has no {', '.join(missing)} column"
        if head.delimiter != self.delimiter:
            return (
                f"it is {_SEP[head.delimiter or ',']}-separated, not {self._sep_name()}-separated"
            )
        return True

    def _sep_name(self) -> str:
        return _SEP[self.delimiter]

    def parse(self, path: Path, ctx: Context) -> Iterator[Record]:
        return read_delimited(path, self, self.layout(ctx.cfg), ctx.options)

    def validate(self, record: Record, ctx: Context) -> dict[str, Any]:
        if record.problem:
            raise Rejected(record.problem, record.remedy)
        return convert_columns(self.layout(ctx.cfg), record.values, ctx)

    def normalise(self, values: dict[str, Any], record: Record, ctx: Context) -> dict[str, Any]:
        return values


def convert_columns(
    columns: tuple[Column, ...], raw: Mapping[str, Any], ctx: Context
) -> dict[str, Any]:
    """Run each column's converter; the result has a ``flags`` list. Raises Rejected."""
    out: dict[str, Any] = {}
    flags: list[str] = []
    for name, convert, needed, flag_errors, default, label, remedy in _compiled(columns):
        v = raw.get(name)
        if v is None:
            if needed:
                raise Rejected(f"{label} is empty", f"fill in {label}")
            out[name] = default
            continue
        if convert is as_text and type(v) is str:  # the common case, without a call
            out[name] = v
            continue
        try:
            v = convert(v, ctx)
        except (ValueError, TypeError) as e:
            if flag_errors:
                flags.append(f"{label}: {e}")
                out[name] = default
                continue
            raise Rejected(f"{label}: {e}", remedy) from None
        if type(v) is Flagged:
            flags.append(f"{label}: {v.note}")
            v = v.value
        if v is None:
            if needed:
                raise Rejected(f"{label} is empty", f"fill in {label}")
            v = default
        out[name] = v
    out["flags"] = flags
    return out


_PLANS: dict[int, tuple[tuple[Column, ...], tuple[tuple[Any, ...], ...]]] = {}


def _compiled(columns: tuple[Column, ...]) -> tuple[tuple[Any, ...], ...]:
    """The columns as plain tuples, cached by identity (hashing Columns per row is slow)."""
    hit = _PLANS.get(id(columns))
    if hit is not None and hit[0] is columns:
        return hit[1]
    plan = tuple(
        (c.name, c.convert, c.needed, c.on_error == FLAG, c.default, c.label, c.remedy)
        for c in columns
    )
    if len(_PLANS) > 256:
        _PLANS.clear()
    _PLANS[id(columns)] = (columns, plan)
    return plan


def resolve_header(
    header: list[str], columns: tuple[Column, ...], require_any: tuple[tuple[str, ...], ...]
) -> tuple[list[tuple[str, int]], list[str]]:
    index: dict[str, int] = {}
    for i, h in enumerate(header):
        k = h.casefold()
        if k in index:
            raise ValueError(f"the header names {h!r} twice")
        index[k] = i
    plan: list[tuple[str, int]] = []
    missing: list[str] = []
    for c in columns:
        found = next((index[s.casefold()] for s in c.sources if s.casefold() in index), None)
        if found is not None:
            plan.append((c.name, found))
        elif c.required:
            missing.append(" or ".join(c.sources))
    for group in require_any:
        if not any(s.casefold() in index for s in group):
            missing.append(" or ".join(group))
    return plan, missing


def read_delimited(
    path: Path,
    spec: DelimitedImporter,
    columns: tuple[Column, ...],
    options: Mapping[str, Any] | None = None,
) -> Iterator[Record]:
    """Stream ``path`` as Records: header matched by name, raw text of each row kept.

    Blank lines are not rows. Row numbers count data rows from 1 (the header is row 0);
    ``line`` is the physical line where the row starts. The text is decoded as
    ``options["encoding"]``, else as UTF-8 (or UTF-16 with a BOM); a byte that does not decode
    stops the file with BadInput. A row's key is ``content_key`` of its non-null fields by
    (case-folded) header name.
    """
    enc, given = text_encoding(path, options or {})
    with open(path, encoding=enc, errors="surrogateescape", newline="") as f:
        buf: list[str] = []

        def lines() -> Iterator[str]:
            for ln in decoded_lines(path, f, enc, given):
                buf.append(ln)
                yield ln

        reader = csv.reader(lines(), delimiter=spec.delimiter, quoting=spec.quoting, strict=False)
        try:
            header = [h.strip() for h in next(reader)]
        except StopIteration:
            return
        except csv.Error as e:
            raise BadInput(f"unreadable header: {e}", path=str(path)) from None
        trailing = bool(header) and header[-1] == ""  # `sacct --parsable` ends lines with '|'
        if trailing:
            header.pop()
        try:
            plan, missing = resolve_header(header, columns, spec.require_any)
        except ValueError as e:
            raise BadInput(str(e), path=str(path), remedy="rename or drop one of them") from None
        if missing:
            raise BadInput(
                f"the header has no {', '.join(missing)} column",
                path=str(path),
                remedy=spec.missing_remedy,
            )
        used = {i for _, i in plan}
        extra_idx = [(header[i], i) for i in range(len(header)) if i not in used]
        nulls, width, keep_extra = spec.nulls, len(header), spec.keep_extra
        keyed = sorted((h.casefold(), i) for i, h in enumerate(header))
        line_no = len(buf)
        buf.clear()
        row = 0
        while True:
            try:
                fields = next(reader)
            except StopIteration:
                return
            except csv.Error as e:
                raise BadInput(
                    f"CSV cannot be read near line {line_no + 1}: {e}",
                    path=str(path),
                    remedy="look for an unbalanced quote before that line",
                ) from None
            raw = "".join(buf)
            start, line_no = line_no + 1, line_no + len(buf)
            buf.clear()
            if not fields:
                continue
            row += 1
            if trailing and len(fields) == width + 1 and fields[-1] == "":
                fields.pop()
            if len(fields) != width:
                problem = f"has {len(fields)} fields, the header has {width}"
                if line_no > start:
                    problem += f" (it spans lines {start}-{line_no}: an unbalanced quote?)"
                key = row_key(raw)[0]
                yield Record(row, start, raw, key, {}, None, problem, spec.width_remedy)
                continue
            key = content_key([x for h, i in keyed if (v := fields[i]) not in nulls for x in (h, v)])
            values = {name: (None if fields[i] in nulls else fields[i]) for name, i in plan}
            extra = None
            if keep_extra:
                extra = {h: fields[i] for h, i in extra_idx if fields[i] not in nulls}
            yield Record(row, start, raw, key, values, extra)


def dumps(obj: Any) -> str:
    """Compact JSON for lake text columns (tags, flags, extra); keeps non-ASCII as is."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str)
