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
    key: str  # blake2b-128 of the raw text: equal rows have equal keys
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
    """The row's dedup key and, when the text holds undecodable bytes, a problem to report."""
    text = raw.rstrip("\r\n")
    try:
        data, problem = text.encode("utf-8"), None
    except UnicodeEncodeError as e:
        data = text.encode("utf-8", "surrogateescape")
        problem = f"not valid UTF-8 text (bad byte at character {e.start + 1})"
    return hashlib.blake2b(data, digest_size=16).hexdigest(), problem


def encoding_of(prefix: bytes) -> str:
    if prefix.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    return "utf-8-sig"  # also reads plain UTF-8


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
    if "\x00" in text or text.count("\ufffd") > len(text) // 10 + 2:
        return Head("binary")
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
        return read_delimited(path, self, self.layout(ctx.cfg))

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
    path: Path, spec: DelimitedImporter, columns: tuple[Column, ...]
) -> Iterator[Record]:
    """Stream ``path`` as Records: header matched by name, raw text of each row kept.

    Blank lines are not rows. Row numbers count data rows from 1 (the header is row 0);
    ``line`` is the physical line where the row starts.
    """
    with open(path, "rb") as fb:
        enc = encoding_of(fb.read(4))
    with open(path, encoding=enc, errors="surrogateescape", newline="") as f:
        buf: list[str] = []

        def lines() -> Iterator[str]:
            for ln in f:
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
            key, problem = row_key(raw)
            remedy = UTF8_REMEDY
            if trailing and len(fields) == width + 1 and fields[-1] == "":
                fields.pop()
            if problem is None and len(fields) != width:
                problem, remedy = (
                    f"has {len(fields)} fields, the header has {width}",
                    spec.width_remedy,
                )
                if line_no > start:
                    problem += f" (it spans lines {start}-{line_no}: an unbalanced quote?)"
            if problem:
                yield Record(row, start, raw, key, {}, None, problem, remedy)
                continue
            values = {name: (None if fields[i] in nulls else fields[i]) for name, i in plan}
            extra = None
            if keep_extra:
                extra = {h: fields[i] for h, i in extra_idx if fields[i] not in nulls}
            yield Record(row, start, raw, key, values, extra)


def dumps(obj: Any) -> str:
    """Compact JSON for lake text columns (tags, flags, extra); keeps non-ASCII as is."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str)
