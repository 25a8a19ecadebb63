"""``slurm``: ``sacct --parsable2`` output → table ``jobs``.

Columns are matched by header name. Times are local to the cluster (``options["tz"]``) and
stored as UTC; ``Unknown``/``None`` become null; a Start or End in the hour DST repeats is read
as the occurrence that ``Elapsed`` (or End not before Start) says. AllocTRES gives the accelerator
card count and type (``gres/gpu``, and Ascend NPUs ``gres/npu``), NodeList is expanded, and
``key=value`` pairs in Comment become the row's tags.
``Cluster`` and ``JobIDRaw`` are kept (``sacct -M a,b`` reuses job ids across clusters);
every other sacct column (Planned, Reason, Elapsed, ...) is kept in ``extra``, with the
job's ``attempt`` (``sacct --duplicates``: one row per allocation of a requeued job), a step's
name (``step``: batch, extern, 0, ...) and who cancelled it (``CANCELLED by UID``). Steps are
kept with ``is_step``: the engine counts GPU time on the allocation row only.
"""

from __future__ import annotations

import csv
import itertools
import re
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from trainledger.errors import BadInput
from trainledger.ingest.base import Context, Flagged, Record, Rejected, col, dumps
from trainledger.ingest.convert import (
    as_utc,
    localize,
    nonneg_integer,
    parse_datetime,
    repeated_local_time,
    stripped,
)
from trainledger.ingest.delimited import DelimitedImporter
from trainledger.ingest.keys import canon_time_local
from trainledger.model.vocab import FailureCause, RunReason
from trainledger.names import time_zone

SACCT_FORMAT = (
    "Cluster,JobID,JobIDRaw,JobName,Account,WCKey,Comment,User,Submit,Eligible,Start,End,"
    "Elapsed,State,ExitCode,AllocTRES,NodeList,Restarts"
)
# sacct's job states; a State word outside them is kept and flagged.
# fmt: off
STATES = frozenset({
    "BOOT_FAIL", "CANCELLED", "COMPLETED", "COMPLETING", "CONFIGURING", "DEADLINE", "FAILED",
    "NODE_FAIL", "OUT_OF_MEMORY", "PENDING", "PREEMPTED", "REQUEUED", "REQUEUE_FED",
    "REQUEUE_HOLD", "RESIZING", "REVOKED", "RUNNING", "SIGNALING", "SPECIAL_EXIT", "STAGE_OUT",
    "STOPPED", "SUSPENDED", "TIMEOUT",
})
# fmt: on
NO_TIME = frozenset({"Unknown", "None", "N/A", "(null)"})
NO_NODES = frozenset({"None assigned", "None", "(null)"})
MAX_HOSTS = 100_000


# -- hostlists ----------------------------------------------------------------------------------


def expand_hostlist(text: str) -> list[str]:
    """``gpu[01-03,07],login1`` → ``[gpu01, gpu02, gpu03, gpu07, login1]`` (Slurm hostlist).

    Several bracket groups in one name expand as a product (``r[1-2]n[1-2]`` → 4 hosts); a
    range keeps the zero padding of its lower bound.
    """
    text = text.strip()
    if not text or text in NO_NODES:
        return []
    hosts: list[str] = []
    for item in _split_top(text):
        parts = re.split(r"(\[[^\]]*\])", item)
        choices = [_expand_ranges(p[1:-1]) if p.startswith("[") else [p] for p in parts]
        size = 1
        for c in choices:
            size *= len(c)
        if len(hosts) + size > MAX_HOSTS:
            raise ValueError(f"hostlist expands to more than {MAX_HOSTS} hosts")
        hosts.extend("".join(p) for p in itertools.product(*choices))
    return hosts


def _split_top(text: str) -> list[str]:
    items, cur, depth = [], [], 0
    for ch in text:
        if ch == "[":
            depth += 1
            if depth > 1:
                raise ValueError(f"nested '[' in hostlist {text!r}")
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced ']' in hostlist {text!r}")
        if ch == "," and depth == 0:
            items.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if depth:
        raise ValueError(f"unbalanced '[' in hostlist {text!r}")
    items.append("".join(cur))
    if any(not i.strip() for i in items):
        raise ValueError(f"empty host name in hostlist {text!r}")
    return [i.strip() for i in items]


def _expand_ranges(spec: str) -> list[str]:
    out: list[str] = []
    for piece in spec.split(","):
        m = re.fullmatch(r"\s*([0-9]+)\s*(?:-\s*([0-9]+)\s*)?", piece)
        if not m:
            raise ValueError(f"bad hostlist range {piece!r}")
        lo_s, hi_s = m.group(1), m.group(2) or m.group(1)
        lo, hi = int(lo_s), int(hi_s)
        if hi < lo:
            raise ValueError(f"hostlist range {piece!r} runs backwards")
        if len(out) + hi - lo >= MAX_HOSTS:  # across pieces too: [1-9999,1-9999,...]
            raise ValueError(f"hostlist range {piece!r} is too large")
        out.extend(str(n).zfill(len(lo_s)) for n in range(lo, hi + 1))
    return out


def compress_hostlist(hosts: list[str]) -> str:
    """The inverse of ``expand_hostlist``: order is kept, runs become ``prefix[a-b,c]``."""
    groups: list[tuple[str, list[tuple[str, str]]]] = []  # (prefix, [(lo, hi) digit texts])
    for h in hosts:
        if not h or any(c in h for c in "[],") or h != h.strip():
            raise ValueError(f"cannot write {h!r} in a hostlist")
        m = re.fullmatch(r"(.*?)(\d+)", h)
        if not m:
            groups.append((h, []))
            continue
        prefix, digits = m.groups()
        if groups and groups[-1][0] == prefix and groups[-1][1]:
            lo, hi = groups[-1][1][-1]
            if int(digits) == int(hi) + 1 and digits == str(int(digits)).zfill(len(lo)):
                groups[-1][1][-1] = (lo, digits)
                continue
            groups[-1][1].append((digits, digits))
            continue
        groups.append((prefix, [(digits, digits)]))
    out = []
    for prefix, ranges in groups:
        if not ranges:
            out.append(prefix)
        elif len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
            out.append(prefix + ranges[0][0])
        else:
            bracket = prefix + "[" + ",".join(a if a == b else f"{a}-{b}" for a, b in ranges) + "]"
            plain = ",".join(prefix + d for a, b in ranges
                             for d in (str(n).zfill(len(a)) for n in range(int(a), int(b) + 1)))
            out.append(bracket if len(bracket) < len(plain) else plain)  # never longer than the names
    return ",".join(out)


# -- fields -------------------------------------------------------------------------------------


def parse_tres(text: str) -> dict[str, str]:
    """``cpu=8,gres/gpu:h800=8,mem=64G`` → ``{"cpu": "8", "gres/gpu:h800": "8", ...}``."""
    out: dict[str, str] = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        k, sep, v = item.partition("=")
        if not sep or not k:
            raise ValueError(f"bad AllocTRES item {item!r} (expected name=value)")
        out[k.strip()] = v.strip()
    return out


ACCELERATORS = ("gpu", "npu")  # gres counted as accelerator cards: GPUs, and Ascend NPUs (Huawei's Slurm plugin)


def gpus_of(tres: Mapping[str, str]) -> tuple[int, str | None, list[str]]:
    """(cards, type, notes) from ``gres/gpu[:TYPE]=N`` and ``gres/npu[:TYPE]=N`` (Ascend NPUs
    count as accelerator cards like GPUs; an untyped ``gres/npu`` has type ``npu``). Any other
    ``gres/NAME=N`` (N > 0) on a row that names no card is noted: counted 0, never silently."""
    cards, types, flags, other = 0, set(), [], []
    for family in ACCELERATORS:
        generic: int | None = None
        typed: dict[str, int] = {}
        for k, v in tres.items():
            if k == f"gres/{family}" or k.startswith(f"gres/{family}:"):
                if not re.fullmatch(r"[0-9]{1,18}", v):  # ASCII digits; fits the lake's int64
                    raise ValueError(f"AllocTRES {k}={v!r} is not a GPU count")
                if k == f"gres/{family}":
                    generic = int(v)
                else:
                    typed[k.split(":", 1)[1]] = int(v)
        if generic is not None and typed and generic != sum(typed.values()):
            flags.append(f"gres/{family}={generic} differs from the typed counts {typed}; used {generic}")
        cards += generic if generic is not None else sum(typed.values())
        types |= set(typed) or ({family} if family != "gpu" and generic else set())
    for k, v in tres.items():
        name = k.split(":", 1)[0]
        if k.startswith("gres/") and name[5:] not in ACCELERATORS and v not in ("", "0"):
            other.append(f"{k}={v}")
    if not cards and other:
        named = ", ".join(other)
        flags.append(f"AllocTRES names {named} and no gres/gpu or gres/npu: counted 0 GPUs "
                     "(if these are accelerator cards, their cost lands in capacity no job held)")
    return cards, ",".join(sorted(types)) or None, flags


def comment_tags(comment: str) -> tuple[dict[str, str], list[str]]:
    """``batch=b7;run=r2`` (or comma-separated) → tags; free text without ``=`` is no tag."""
    tags: dict[str, str] = {}
    notes: list[str] = []
    if "=" not in comment:
        return tags, notes
    for part in re.split(r"[;,]", comment):
        part = part.strip()
        if not part:
            continue
        k, sep, v = part.partition("=")
        if not sep or not k.strip():
            notes.append(f"Comment: ignored {part!r} (not key=value)")
            continue
        k = k.strip()
        if k in tags and tags[k] != v.strip():
            notes.append(f"Comment: tag {k!r} given twice; kept the last")
        tags[k] = v.strip()
    for key, vocab in (("reason", RunReason), ("cause", FailureCause)):
        if key in tags and tags[key] not in {m.value for m in vocab}:
            notes.append(f"tag {key}={tags[key]!r} is not a {vocab.__name__}")
    return tags, notes


def slurm_time(value: Any, ctx: Context) -> datetime | Flagged | None:
    if isinstance(value, str) and value.strip() in NO_TIME:
        return None
    dt = parse_datetime(value)
    if dt.tzinfo is not None:
        return as_utc(dt)
    return localize(dt, ctx.cfg)


def elapsed(text: Any) -> timedelta | None:
    """sacct's Elapsed, ``[DD-][HH:]MM:SS``, or None when it is not one."""
    m = re.fullmatch(r"\s*(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+)(?:\.\d+)?\s*", str(text or ""))
    if not m:
        return None
    d, h, mi, sec = (int(g or 0) for g in m.groups())
    return timedelta(days=d, hours=h, minutes=mi, seconds=sec)


def _occurrences(raw: Any, tz: ZoneInfo) -> list[datetime] | None:
    """Both UTC readings of a local time DST repeats (first, second); None for any other."""
    if not isinstance(raw, str) or raw.strip() in NO_TIME:
        return None
    dt = parse_datetime(raw)
    if dt.tzinfo is not None or not repeated_local_time(dt, tz):
        return None
    return [dt.replace(tzinfo=tz, fold=f).astimezone(UTC) for f in (0, 1)]


def settle_repeated_hour(values: dict[str, Any], record: Record, tz: ZoneInfo) -> None:
    """Start and End in the hour DST repeats: choose the readings that agree with Elapsed, or
    else (no Elapsed) the first readings that do not end before they start. The notes the
    converter wrote about those times are replaced by what was chosen and why."""
    start, end = values["start"], values["end"]
    if start is None or end is None:
        return
    s_opts = _occurrences(record.values.get("start"), tz)
    e_opts = _occurrences(record.values.get("end"), tz)
    if not (s_opts or e_opts):
        return
    pairs = [(s, e) for s in (s_opts or [start]) for e in (e_opts or [end])]
    said = (record.extra or {}).get("Elapsed")
    took = elapsed(said)
    if took is not None and any(e - s == took for s, e in pairs):
        chosen = next((s, e) for s, e in pairs if e - s == took)
        why = f"Elapsed {said} says so"
    elif end < start and any(e >= s for s, e in pairs):
        chosen = next((s, e) for s, e in pairs if e >= s)
        why = "End is not before Start"
    else:
        return
    flags: list[str] = values["flags"]
    for label, opts, value in (("Start", s_opts, chosen[0]), ("End", e_opts, chosen[1])):
        if not opts:
            continue
        flags[:] = [f for f in flags if not f.startswith(f"{label}: local time")]
        which = "first" if value == opts[0] else "second"
        local = record.values["start" if label == "Start" else "end"].strip()
        flags.append(
            f"{label}: local time {local} is ambiguous (DST ends) in {tz}; read as the {which} "
            f"occurrence, {value.isoformat().replace('+00:00', 'Z')}: {why}"
        )
    values["start"], values["end"] = chosen


def _job_of(rec: Record) -> tuple[str, str]:
    return str(rec.values.get("cluster") or "").strip(), str(rec.values["job_id"]).strip()


def _enriched(held: list[Record]) -> Iterator[Record]:
    """``held`` (an allocation, then its steps) with the allocation told its steps' GPU type."""
    if not held:
        return
    try:
        _, own, _ = gpus_of(parse_tres(str(held[0].values.get("alloc_tres") or "")))
    except ValueError:
        own = None
    if own or len(held) == 1:
        yield from held
        return
    types: set[str] = set()
    for step in held[1:]:
        try:
            _, t, _ = gpus_of(parse_tres(str(step.values.get("alloc_tres") or "")))
        except ValueError:
            continue
        if t:
            types.add(t)
    if len(types) == 1 and held[0].extra is not None:
        held[0].extra["gpu_type_from_steps"] = types.pop()
    yield from held


def first_word(value: Any, ctx: Context) -> str:
    words = str(value).split()
    if not words:
        raise ValueError("is blank")
    return words[0].rstrip("+")


def node_names(value: Any, ctx: Context) -> str:
    return ",".join(expand_hostlist(str(value)))


class SlurmImporter(DelimitedImporter):
    kind = "slurm"
    table = "jobs"
    row_hash_versions = (2, 3)  # 3 a column at a time (slurm_fast); 2 for an older lake's (keys.py)
    description = "sacct --parsable2 output"
    delimiter = "|"
    quoting = csv.QUOTE_NONE
    keep_extra = True
    local_times = True
    options_used = ("tz",)
    signature = ("JobID",)
    missing_remedy = f"run sacct with --parsable2 --format={SACCT_FORMAT}"
    width_remedy = "a field (JobName or Comment?) contains '|': fix the row or rename the job"
    short_remedy = ("the line ends before the header's last column (cut short: a truncated sacct dump?):"
                    f" run sacct again (--parsable2 --format={SACCT_FORMAT}), or complete the row")
    columns = (
        col("cluster", "Cluster", convert=stripped, default=""),
        col("job_id", "JobID", convert=stripped, required=True, needed=True),
        col("job_id_raw", "JobIDRaw", convert=stripped, default=""),
        col("job_name", "JobName", default=""),
        col("account", "Account", default=""),
        col("wckey", "WCKey", default=""),
        col("comment", "Comment", default=""),
        col("user", "User", default=""),
        col("submit", "Submit", convert=slurm_time, canon=canon_time_local, required=True),
        col("eligible", "Eligible", convert=slurm_time, canon=canon_time_local),
        col("start", "Start", convert=slurm_time, canon=canon_time_local, required=True),
        col("end", "End", convert=slurm_time, canon=canon_time_local, required=True),
        col("state", "State", convert=first_word, required=True, needed=True),
        col("exit_code", "ExitCode", default=""),
        col("alloc_tres", "AllocTRES", required=True, default=""),
        col("nodes", "NodeList", convert=node_names, default=""),
        col("restarts", "Restarts", convert=nonneg_integer, default=0),
    )

    def configure(self, options: Mapping[str, Any]) -> ZoneInfo:
        name = options.get("tz")
        remedy = "pass --tz ZONE (e.g. Asia/Shanghai) or set sources.slurm.timezone"
        if not name:
            raise BadInput(
                "sacct prints local times without an offset, so the import needs the "
                "cluster's time zone",
                remedy=remedy,
            )
        try:
            return ZoneInfo(time_zone(str(name)))  # asia/shanghai is Asia/Shanghai
        except (ZoneInfoNotFoundError, ValueError) as e:
            raise BadInput(str(e), remedy=remedy) from None

    def fast_batches(self, path: Path, ctx: Context) -> Iterator[Any] | None:
        """The rows a block at a time (``slurm_fast``), or None when only the per-row path reads
        the file (text not in UTF-8)."""
        from trainledger.ingest import fastlines

        steps = ("parse", "validate", "normalise")  # a subclass that reads otherwise: per row
        if any(getattr(type(self), s) is not getattr(SlurmImporter, s) for s in steps):
            return None
        if not fastlines.usable(path, ctx.options):
            return None
        from trainledger.ingest.slurm_fast import batches

        return batches(self, path, ctx)

    def parse(self, path: Path, ctx: Context) -> Iterator[Record]:
        """The rows as read, each job's allocations numbered (``extra.attempt``): ``sacct -D``
        lists a requeued job once per allocation, oldest first, each with its own Start; a row
        repeating an allocation (same Start) is the same attempt. A step (``1001.batch``,
        ``1001.extern``, ``1001.0``) belongs to its job's latest attempt (``extra.step``).
        Steps follow their allocation: an allocation whose AllocTRES names no GPU type takes
        the one type its steps name (``extra.gpu_type_from_steps``); rows keep their order."""
        starts: dict[tuple[str, str], list[Any]] = {}
        held: list[Record] = []  # an allocation and the steps read after it
        for rec in super().parse(path, ctx):
            job = None
            if rec.problem is None and rec.values.get("job_id"):
                cluster = str(rec.values.get("cluster") or "").strip()
                job, dot, step = str(rec.values["job_id"]).strip().partition(".")
                seen = starts.setdefault((cluster, job), [])
                extra = rec.extra if rec.extra is not None else {}
                if dot:
                    extra["step"] = step
                    if seen:
                        extra["attempt"] = len(seen)
                else:
                    start = (rec.values.get("start") or "").strip()
                    if start not in seen:
                        seen.append(start)
                    extra["attempt"] = seen.index(start) + 1
                rec.extra = extra
                if dot and held and _job_of(held[0]) == (cluster, job):
                    held.append(rec)
                    continue
            yield from _enriched(held)
            held = [rec] if job is not None and "step" not in (rec.extra or {}) else []
            if not held:
                yield rec
        yield from _enriched(held)

    def normalise(self, values: dict[str, Any], record: Record, ctx: Context) -> dict[str, Any]:
        flags: list[str] = values["flags"]
        said = str(record.values.get("state") or "").split()
        if len(said) >= 3 and said[1] == "by":  # "CANCELLED by 1234": who cancelled (a uid)
            record.extra = {**(record.extra or {}), "cancelled_by": said[2]}
        try:
            gpus, gpu_type, notes = gpus_of(parse_tres(values["alloc_tres"]))
        except ValueError as e:
            raise Rejected(str(e), "fix AllocTRES: comma-separated name=value items") from None
        flags += notes
        from_steps = (record.extra or {}).get("gpu_type_from_steps")
        if gpu_type is None and gpus and from_steps:
            gpu_type = from_steps
            flags.append(f"GPU type {from_steps} from the job's steps (its AllocTRES names none)")
        settle_repeated_hour(values, record, ctx.cfg)
        start, end, submit = values["start"], values["end"], values["submit"]
        if start is not None and end is not None and end < start:
            raise Rejected(
                f"End {end.isoformat()} is before Start {start.isoformat()} (UTC)",
                "check the row's Start and End in sacct",
            )
        if submit is not None and start is not None and start < submit:
            flags.append("Start is before Submit")
        if values["state"] not in STATES:
            flags.append(f"State {values['state']!r} is not a known Slurm state")
        tags, notes = comment_tags(values["comment"])
        flags += notes
        return {
            **values,
            "gpus": gpus,
            "gpu_type": gpu_type,
            "tags": dumps(tags),
            "is_step": "." in values["job_id"],
            "extra": dumps(record.extra or {}),
            "flags": flags,
            "gpu_share": None,  # whole GPUs: the engine reads ``gpus``
        }
