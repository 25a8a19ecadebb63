"""CSV-like sources: ``DelimitedImporter`` (a source described by its ``Column``s) and the reader.

The reader is strict about quotes, because a quote that is never closed would otherwise swallow
the rest of the file into one field: a row whose quoted field never closes (or closes in the
middle of a field) is quarantined alone and the lines after its first are read again as rows,
so ``rows_read`` counts what the file really holds. Blank and whitespace-only lines are not rows.
"""

from __future__ import annotations

import codecs
import csv
from collections import deque
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

from trainledger.errors import BadInput
from trainledger.ingest.base import Column, Context, Record, Rejected, convert_columns
from trainledger.ingest.keys import (
    canon_for,
    canon_loose,
    canon_loose_local,
    content_key,
    row_key,
)
from trainledger.ingest.text import (
    SEP,
    ContentWatch,
    Head,
    decoded_lines,
    open_text,
    sniff,
    text_encoding,
)

FIELD_LIMIT = 64 << 20  # 64 MiB: a FOCUS Tags or a Comment is never near it
csv.field_size_limit(max(csv.field_size_limit(), FIELD_LIMIT))
QUOTE_REMEDY = 'close the quoted field, or write a quote inside a quoted field twice ("")'


def reading_options(options: Mapping[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """The given options among ``names`` (and ``encoding``), spelled canonically: the part of a
    file's import identity that says how its rows were read."""
    out: dict[str, Any] = {}
    for k in ("encoding", *names):
        v = options.get(k)
        if v is None or v == "" or v == () or v == []:
            continue
        out[k] = codecs.lookup(str(v)).name if k == "encoding" else v
    return out


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
    local_times: ClassVar[bool] = False  # times without an offset are local (sacct), not UTC
    options_used: ClassVar[tuple[str, ...]] = ()  # options (besides encoding) that shape rows
    missing_remedy: ClassVar[str] = "add the column to the file's header"
    width_remedy: ClassVar[str] = (  # more fields than the header
        "quote a field that contains the delimiter, or fix the number of fields"
    )
    short_remedy: ClassVar[str] = (  # fewer fields than the header: a line cut short
        "the line ends before the header's last column (cut short: a truncated export?):"
        " export the file again, or complete the row"
    )

    def configure(self, options: Mapping[str, Any]) -> Any:
        return None

    def layout(self, cfg: Any) -> tuple[Column, ...]:
        """The columns for one import; override when a setting renames a source column."""
        return self.columns

    def identity(
        self, path: Path, options: Mapping[str, Any], cfg: Any
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """(the options that change how this file's rows are read, the options that make its
        rows a new statement — e.g. the snapshot date of an undated inventory)."""
        return reading_options(options, self.options_used), {}

    def identify(self, path: Path) -> bool | str:
        return self.identify_head(sniff(path))

    def identify_head(self, head: Head) -> bool | str:
        if head.container == "empty":
            return True  # nothing in it: a valid, empty import (`sacct --noheader` on a quiet day)
        if head.container != "text":
            return f"it is {head.describe()}"
        if head.json_keys is not None:
            return "it is JSON lines, not a delimited text file with a header"
        missing = [s for s in self.signature if not head.has(s)]
        if missing:
            return f"its header has no {', '.join(missing)} column"
        if head.delimiter != self.delimiter and not (
            self.delimiter == "," and head.semicolon_csv
        ):
            return f"it is {SEP[head.delimiter or ',']}-separated, not {self._sep_name()}-separated"
        return True

    def _sep_name(self) -> str:
        return SEP[self.delimiter]

    def parse(self, path: Path, ctx: Context) -> Iterator[Record]:
        return read_delimited(path, self, self.layout(ctx.cfg), ctx.options, ctx.watch)

    def validate(self, record: Record, ctx: Context) -> dict[str, Any]:
        if record.problem:
            raise Rejected(record.problem, record.remedy)
        values = convert_columns(self.layout(ctx.cfg), record.values, ctx)
        if record.notes:
            values["flags"][:0] = record.notes
        return values

    def normalise(self, values: dict[str, Any], record: Record, ctx: Context) -> dict[str, Any]:
        return values


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


class _Lines:
    """The physical lines of a file for ``csv.reader``, remembering those of the current record;
    lines given back are read again (after a record found broken)."""

    def __init__(self, lines: Iterator[str]) -> None:
        self._it = lines
        self._back: deque[str] = deque()
        self.taken: list[str] = []
        self.count = 0  # physical lines handed out so far

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        ln = self._back.popleft() if self._back else next(self._it)
        self.taken.append(ln)
        self.count += 1
        return ln

    def take(self) -> list[str]:
        taken, self.taken = self.taken, []
        return taken

    def give_back(self, lines: list[str]) -> None:
        self._back.extendleft(reversed(lines))
        self.count -= len(lines)


def _delimiter(src: _Lines, spec: DelimitedImporter) -> str:
    """The spec's delimiter — or ``;`` for a comma source whose header splits cleanly on it
    (CSV saved by Excel with a European locale)."""
    if spec.delimiter != ",":
        return spec.delimiter
    peeked: list[str] = []
    for ln in src:
        peeked.append(ln)
        if ln.strip():
            break
    src.take()
    src.give_back(peeked)
    first = peeked[-1].strip() if peeked else ""
    names = first.split(";")
    if "," not in first and len(names) > 1 and all(n.strip() for n in names):
        return ";"
    return ","


def read_delimited(
    path: Path,
    spec: DelimitedImporter,
    columns: tuple[Column, ...],
    options: Mapping[str, Any] | None = None,
    watch: ContentWatch | None = None,
) -> Iterator[Record]:
    """Stream ``path`` as Records: header matched by name, raw text of each row kept.

    Blank lines are not rows; a file with no header (empty) has no rows. Row numbers count
    data rows from 1 (the header is row 0); ``line`` is the physical line where the row starts.
    The text is decoded as ``options["encoding"]``, else as UTF-8 (or UTF-16 with a BOM); a
    byte that does not decode stops the file with BadInput. A row's key is ``content_key`` of
    its non-null fields by (case-folded) header name, each in its column's canonical spelling.
    """
    enc, given = text_encoding(path, options or {})
    with open_text(path, enc, watch) as f:
        src = _Lines(decoded_lines(path, f, enc, given))
        delimiter = _delimiter(src, spec)
        reader = csv.reader(src, delimiter=delimiter, quoting=spec.quoting, strict=True)
        header: list[str] | None = None
        while header is None:
            try:
                fields = next(reader)
            except StopIteration:
                return
            except csv.Error as e:
                raise BadInput(
                    f"unreadable header: {e}", path=str(path), remedy=QUOTE_REMEDY
                ) from None
            if any(h.strip() for h in fields):
                header = [h.strip() for h in fields]
        src.take()
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
        by_name = {c.name: c for c in columns}
        loose = canon_loose_local if spec.local_times else canon_loose
        canon_at: dict[int, Any] = {i: loose for i in range(width) if i not in used}
        canon_at.update({i: canon_for(by_name[name]) for name, i in plan})
        keyed = sorted((h.casefold(), i, canon_at[i]) for i, h in enumerate(header))
        row = 0
        while True:
            start = src.count + 1
            notes: list[str] | None = None
            try:
                fields = next(reader)
            except StopIteration:
                return
            except csv.Error as e:
                row += 1
                broken = _broken(row, start, src, str(e), spec, delimiter, width, trailing)
                if isinstance(broken, Record):
                    yield broken
                    continue
                fields, lines, notes = broken
            else:
                lines = src.take()
                if not fields or (len(lines) == 1 and not lines[0].strip()):
                    continue  # a blank or whitespace-only line is not a row
                row += 1
                if trailing and len(fields) == width + 1 and fields[-1] == "":
                    fields.pop()
            if len(fields) != width:
                problem = f"has {len(fields)} fields, the header has {width}"
                remedy = spec.width_remedy if len(fields) > width else spec.short_remedy
                if len(lines) > 1:  # a quote opened on its first line took in the next lines
                    problem += (
                        f" (a quoted field opened on line {start} runs over the next "
                        f"{len(lines) - 1} line(s): an unbalanced quote?)"
                    )
                    remedy = QUOTE_REMEDY
                    src.give_back(lines[1:])
                raw = lines[0]
                yield Record(row, start, raw, row_key(raw)[0], {}, None, problem, remedy)
                continue
            items: list[str] = []
            for h, i, canon in keyed:
                v = fields[i]
                if v not in nulls:
                    items.append(h)
                    items.append(v if canon is None else canon(v))
            values = {name: (None if fields[i] in nulls else fields[i]) for name, i in plan}
            extra = None
            if keep_extra:
                extra = {h: fields[i] for h, i in extra_idx if fields[i] not in nulls}
            raw = "".join(lines)
            yield Record(row, start, raw, content_key(items), values, extra, notes=notes)


def _broken(
    row: int,
    start: int,
    src: _Lines,
    error: str,
    spec: DelimitedImporter,
    delimiter: str,
    width: int,
    trailing: bool,
) -> Record | tuple[list[str], list[str], list[str]]:
    """A record the CSV reader refused: quarantined alone; when its quote took in the lines
    after its first, those are given back to be read again as rows. A one-line row whose
    quote merely closes before the end of its field (``"15" monitor``) is read leniently
    when that gives the header's number of fields: (fields, lines, notes) to flag it."""
    lines = src.take()
    if "field larger than field limit" in error:
        raw = "".join(lines)
        problem = f"a field is larger than {FIELD_LIMIT >> 20} MiB, the most trainledger reads"
        return Record(row, start, raw, row_key(raw)[0], {}, None, problem, "shorten the field")
    if "unexpected end of data" in error:
        problem = f"unbalanced quote: the quoted field opened on line {start} is never closed"
        if len(lines) > 1:
            problem += f" (it would take in the {len(lines) - 1} line(s) after it)"
    else:
        problem = f"unbalanced quote: a quote ends a field before its end on line {start} ({error})"
        if len(lines) == 1:
            lenient = next(csv.reader(lines, delimiter=delimiter, quoting=spec.quoting), [])
            if trailing and len(lenient) == width + 1 and lenient[-1] == "":
                lenient.pop()
            if len(lenient) == width:
                note = f"line {start}: a field goes on after its closing quote; read as one field"
                return lenient, lines, [note]
    src.give_back(lines[1:])
    raw = lines[0] if lines else ""
    return Record(row, start, raw, row_key(raw)[0], {}, None, problem, QUOTE_REMEDY)
