"""The column-at-a-time progress JSONL and sacct readers (``progress_fast``, ``slurm_fast``) against
the per-row path: on the repo's real files (tests/data, the demo's), on inline edge cases and on the
fuzz harness's mutations, both write the same lake rows (row hashes included), the same quarantine
file and the same counts — or stop with the same error. A file the fast path cannot promise to
read alike goes to the per-row path, from the start."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.ingest.fuzz_helpers import DATA, EXAMPLES, demo_dir, mutated, seed

from trainledger.errors import TrainledgerError
from trainledger.ingest import fastcsv, fastlines, import_files, progress_fast, slurm_fast
from trainledger.ingest.progress import ProgressImporter
from trainledger.ingest.slurm import SlurmImporter
from trainledger.lake import Lake

IMPORTERS = {"progress": (ProgressImporter, progress_fast, "progress_events"),
             "slurm": (SlurmImporter, slurm_fast, "jobs")}
TZ = {"tz": "Asia/Shanghai"}


class Spy:
    """Counts the fast path's outcomes: files it read to the end, files it gave back."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
        self.finished = self.gave_back = 0
        module = IMPORTERS[kind][1]
        real = module.batches

        def batches(*a: Any) -> Any:
            try:
                yield from real(*a)
            except fastcsv.NotFast:
                self.gave_back += 1
                raise
            self.finished += 1

        monkeypatch.setattr(module, "batches", batches)


def outcome(kind: str, path: Path, root: Path, fast: bool, **options: Any) -> Any:
    """What importing ``path`` into a fresh lake gives: counts, lake rows, quarantine text."""
    cls, _, table = IMPORTERS[kind]
    lake = Lake(root / ("fast" if fast else "slow"))
    saved = cls.fast_batches
    if not fast:
        cls.fast_batches = lambda self, p, c: None  # type: ignore[method-assign]
    try:
        (r,) = import_files(kind, [path], lake, options=options)
    except TrainledgerError as e:
        return ("error", type(e).__name__, str(e).replace(str(root / "fast"), "").replace(str(root / "slow"), ""))
    finally:
        cls.fast_batches = saved  # type: ignore[method-assign]
    q = Path(r.quarantine_file).read_text(encoding="utf-8") if r.quarantine_file else None
    counts = (r.rows_read, r.accepted, r.duplicates, r.quarantined, r.flagged)
    assert r.accepted + r.duplicates + r.quarantined == r.rows_read
    return counts, lake.read(table).to_pylist(), q


def assert_same(kind: str, path: Path, root: Path, **options: Any) -> Any:
    fast, slow = outcome(kind, path, root, True, **options), outcome(kind, path, root, False, **options)
    assert fast == slow
    return fast


# -- progress JSONL --------------------------------------------------------------------------------


def test_the_demo_progress_file_imports_alike(tmp_path, monkeypatch):
    spy = Spy(monkeypatch, "progress")
    counts, rows, _ = assert_same("progress", demo_dir() / "progress.jsonl", tmp_path)
    assert spy.finished == 1 and spy.gave_back == 0
    assert counts[1] == len(rows) > 10


PROGRESS_EDGE = [
    '{"ts": "2026-11-03T10:00:00+08:00", "run": "r1", "event": "start"}',
    '{"ts": "2026-11-03T10:01:00Z", "run": " r1 ", "event": "step", "step": 1, "tokens": 4096, "loss": 1.5}',
    '{"event": "step", "step": 2, "run": "r1", "ts": "2026-11-03T10:02:00.25+00:00", "x": {"b": [1, null]}}',
    '{"ts": "2026-11-03 10:03:00-05:30", "run": "r1", "event": "checkpoint_saved", "step": 3, "duration_s": 12}',
    '{"ts": "2026-11-03T10:04:00+08:00", "run": "r1", "event": "checkpoint_saved", "step": 4}',  # needs duration
    '{"ts": "2026-11-03T10:05:00", "run": "r1", "event": "step", "step": 5}',  # no offset
    '{"ts": "2026-11-03T10:06:00+08:00", "run": "r1", "event": "mystery", "step": 6}',  # unknown event
    '{"ts": "2026-11-03T10:07:00+08:00", "run": 7, "event": "step", "step": 7.0}',  # int run, float step
    '{"ts": "2026-11-03T10:08:00+08:00", "run": "r1", "event": "step", "step": -1}',
    '{"ts": "2026-11-03T10:09:00+08:00", "run": "r1", "event": "step", "step": true}',
    '{"ts": "2026-11-03T10:10:00+08:00", "run": "r1", "event": "data_wait", "duration_s": NaN}',
    '{"ts": "2026-11-03T10:11:00+08:00", "run": "r1", "event": "data_wait", "duration_s": "2.5"}',
    '{"ts": "2026-11-03T10:12:00+08:00", "run": "r1", "event": "step", "step": 99999999999999999999}',
    '{"ts": "2026-11-03T10:12:30+08:00", "run": "r1", "event": "step", "step": -99999999999999999999}',
    '{"ts": "2026-11-03T10:12:40+08:00", "run": "r1", "event": "data_wait", "duration_s": 99999999999999999999}',
    '{"ts": " 2026-11-03T10:13:00+08:00", "run": "r1", "event": "step", "step": 13}',
    '{"ts": "2026-02-30T10:14:00+08:00", "run": "r1", "event": "step", "step": 14}',
    '{"ts": "0001-01-01T00:00:00+08:00", "run": "r1", "event": "step", "step": 15}',
    '{"ts": 1700000000, "run": "r1", "event": "step", "step": 16}',
    '{"ts": "2026-11-03T10:17:00+08:00", "run": "", "event": "step", "step": 17}',
    '{"ts": "2026-11-03T10:18:00+08:00", "run": "r1", "event": "step", "step": 18, "step": 19}',
    '{"ts": "2026-11-03T10:19:00+08:00", "run": "r1", "event": "end", "note": "完了", "n": null}',
    "[1, 2]",
    "not json",
    '{"ts": "2026-11-03T10:20:00+08:00", "run": "r1", "event": "step", "step": 20',
    "",
    "   ",
    '{"ts": "2026-11-03T10:01:00Z", "run": " r1 ", "event": "step", "step": 1, "tokens": 4096, "loss": 1.5}',
]


def test_progress_edge_cases_import_alike(tmp_path, monkeypatch):
    spy = Spy(monkeypatch, "progress")
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(PROGRESS_EDGE) + "\r\n", encoding="utf-8")
    counts, rows, q = assert_same("progress", path, tmp_path)
    assert spy.finished == 1
    assert counts[0] == len(PROGRESS_EDGE) - 2 and counts[3] >= 10 and q is not None
    reasons = [json.loads(line)["reason"] for line in q.splitlines()]
    assert any("no UTC offset" in r for r in reasons) and any("needs duration_s" in r for r in reasons)
    assert sum("repeated_row_in_file" in r["flags"] for r in rows) == 2


@pytest.mark.parametrize("how", ["bom", "lone-cr", "utf16", "bad-utf8", "small-blocks"])
def test_progress_inputs_given_back_or_read_alike(how, tmp_path, monkeypatch):
    spy = Spy(monkeypatch, "progress")
    text = "\n".join(PROGRESS_EDGE[:8]) + "\n"
    enc = {"bom": "utf-8-sig", "utf16": "utf-16"}.get(how, "utf-8")
    if how == "lone-cr":
        text = text.replace("\n", "\r", 1)
    if how == "small-blocks":
        monkeypatch.setattr(fastlines, "CHUNK_BYTES", 100)
    data = text.encode(enc) + (b'{"ts": "\xff"}\n' if how == "bad-utf8" else b"")
    path = tmp_path / "p.jsonl"
    path.write_bytes(data)
    got = assert_same("progress", path, tmp_path)
    assert (got[0] == "error") == (how == "bad-utf8")
    assert spy.finished == (1 if how in ("bom", "small-blocks") else 0)


PROGRESS_SEEDS = (seed("progress.jsonl"),)


@settings(max_examples=max(EXAMPLES // 3, 20), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                                      HealthCheck.function_scoped_fixture])
@given(data=st.sampled_from(PROGRESS_SEEDS).flatmap(lambda s: mutated(s, None)))
def test_mutated_progress_imports_alike(data, tmp_path_factory):
    root = tmp_path_factory.mktemp("p")
    path = root / "p.jsonl"
    path.write_bytes(data)
    assert_same("progress", path, root)


# -- sacct --parsable2 ---------------------------------------------------------------------------

SACCT_FILES = sorted(DATA.glob("rv2/sacct*.txt"))


@pytest.mark.parametrize("path", SACCT_FILES, ids=lambda p: p.name)
def test_every_sacct_file_in_the_test_data_imports_alike(path, tmp_path, monkeypatch):
    spy = Spy(monkeypatch, "slurm")
    counts, rows, _ = assert_same("slurm", path, tmp_path, **TZ)
    assert spy.finished == 1 and spy.gave_back == 0
    assert counts[1] == len(rows) > 0


def test_the_demo_sacct_file_imports_alike(tmp_path, monkeypatch):
    spy = Spy(monkeypatch, "slurm")
    counts, rows, _ = assert_same("slurm", demo_dir() / "sacct.txt", tmp_path, **TZ)
    assert spy.finished == 1 and counts[1] == len(rows) > 10


SACCT_HEAD = ("Cluster|JobID|JobIDRaw|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|Elapsed|State|"
              "ExitCode|AllocTRES|NodeList|Restarts|Partition")
T = "2026-11-03T10:00:00|2026-11-03T10:00:00|2026-11-03T10:00:30|2026-11-03T11:00:00|01:00:00"
SACCT_EDGE = [
    f"c1|100|100|train|ml|w|batch=b1;run=r1|u|{T}|COMPLETED|0:0|cpu=8,gres/gpu:a100=8|gpu[01-02]|0|p",
    f"c1|100.batch|100.batch|batch|ml||||{T}|COMPLETED|0:0|cpu=8,gres/gpu:a100=8|gpu01|0|",
    f"c1|100.extern|100.extern|extern|ml||||{T}|COMPLETED|0:0|cpu=8|gpu01|0|",
    # a requeued job (sacct -D): two allocations, then a step of the latest
    f"c1|101|101|pt|ml|||u|{T}|REQUEUED|0:0|cpu=8,gres/gpu=4|gpu03|1|p",
    "c1|101|101|pt|ml|||u|2026-11-03T10:00:00|2026-11-03T11:00:00|2026-11-03T11:05:00|Unknown||RUNNING|0:0|"
    "cpu=8,gres/gpu=4|gpu03|1|p",
    "c1|101.0|101.0|step0|ml||||2026-11-03T11:05:00|2026-11-03T11:05:00|2026-11-03T11:05:00|Unknown||RUNNING|0:0|"
    "cpu=8,gres/gpu:h800=4|gpu03|0|",
    # the allocation names no GPU type; its steps do
    f"c2|102|102|x|ml|||u|{T}|CANCELLED by 1234|0:15|cpu=8,gres/gpu=2|None assigned|0|p",
    f"c2|102.0|102.0|s|ml||||{T}|CANCELLED|0:15|gres/gpu:a100=2|n1|0|",
    # refusals and oddities: each the per-row path's own
    f"c1||||ml|||u|{T}|COMPLETED|0:0|cpu=8|n1|0|p",  # no JobID
    f"c1| |||ml|||u|{T}|COMPLETED|0:0|cpu=8|n1|0|p",  # a blank JobID
    f"c1|103|103|x|ml|||u|{T}|WEIRD_STATE+|0:0|gres/gpu=1,gres/gpu:a100=2|n1|0|p",
    f"c1|104|104|x|ml|||u|{T}|   |0:0|cpu=8|n1|0|p",  # a blank State
    f"c1|105|105|x|ml|||u|{T}|FAILED|1:0|cpu=8,gres/gpu=x|n1|0|p",  # a bad GPU count
    f"c1|106|106|x|ml|||u|{T}|FAILED|1:0|cpu8|n1|0|p",  # a bad AllocTRES item
    f"c1|107|107|x|ml|||u|{T}|FAILED|1:0|cpu=8|n[3-1]|0|p",  # a backwards hostlist
    f"c1|108|108|x|ml|||u|{T}|FAILED|1:0|cpu=8|n1|-1|p",  # a negative Restarts
    "c1|109|109|x|ml|||u|2026-11-03T10:00:00|2026-11-03T10:00:00|2026-11-03T12:00:00|2026-11-03T11:00:00|"
    "|COMPLETED|0:0|cpu=8|n1|0|p",  # End before Start
    "c1|110|110|x|ml|||u|2026-11-03T10:00:00|2026-11-03T10:00:00|2026-11-03T09:00:00|2026-11-03T11:00:00|"
    "|COMPLETED|0:0|cpu=8|n1|0|p",  # Start before Submit
    "c1|111|111|x|ml|||u|2026-11-03 10:00:00|None|2026-11-03T10:00:00+08:00| 2026-11-03T11:00:00 |"
    "|COMPLETED|0:0|cpu=8|n1|0|p",  # times in other spellings
    "c1|112|112|x|ml|||u|2026-02-30T10:00:00|2026-11-03T10:00:00|2026-11-03T10:00:00|2026-11-03T11:00:00|"
    "|COMPLETED|0:0|cpu=8|n1|0|p",  # no such day
    f"c1|113|113|x|ml|||u|{T}|COMPLETED|0:0|cpu=8|n1|0|p|extra",  # one field too many
    "c1|114|114|x|ml|||u",  # cut short
    f"c1|115|115|名前|ml||team=视觉;bad;reason=nope|u|{T}|COMPLETED|0:0|cpu=8|n1|0|p",
    f'c1|116|116|"quoted"|ml||a\\b|u|{T}|COMPLETED|0:0|cpu=8|n1|0|p',
    "",
    "  ",
    f"c1|100|100|train|ml|w|batch=b1;run=r1|u|{T}|COMPLETED|0:0|cpu=8,gres/gpu:a100=8|gpu[01-02]|0|p",
]


def test_sacct_edge_cases_import_alike(tmp_path, monkeypatch):
    spy = Spy(monkeypatch, "slurm")
    path = tmp_path / "sacct.txt"
    path.write_text(SACCT_HEAD + "\n" + "\n".join(SACCT_EDGE) + "\r\n", encoding="utf-8")
    counts, rows, q = assert_same("slurm", path, tmp_path, **TZ)
    assert spy.finished == 1
    assert counts[0] == len(SACCT_EDGE) - 2 and counts[3] >= 9 and q is not None
    reasons = [json.loads(line)["reason"] for line in q.splitlines()]
    assert any("is before Start" in r for r in reasons) and any("fields, the header has" in r for r in reasons)
    extra = {r["job_id"]: json.loads(r["extra"]) for r in rows}
    assert extra["101.0"]["attempt"] == 2 and extra["102"]["gpu_type_from_steps"] == "a100"
    assert extra["102"]["cancelled_by"] == "1234"


def test_sacct_across_blocks_and_in_the_dst_hour_alike(tmp_path, monkeypatch):
    """Small blocks: an allocation's steps in the next block; America/New_York's repeated hour."""
    spy = Spy(monkeypatch, "slurm")
    monkeypatch.setattr(fastlines, "CHUNK_BYTES", 300)
    dst = ("c1|200|200|x|ml|||u|2026-11-01T01:10:00|2026-11-01T01:10:00|2026-11-01T01:20:00|2026-11-01T01:10:00|"
           "00:50:00|COMPLETED|0:0|cpu=8|n1|0|p")
    path = tmp_path / "sacct.txt"
    path.write_text(SACCT_HEAD + "\n" + "\n".join(SACCT_EDGE[:8] + [dst] + SACCT_EDGE[:3]) + "\n", encoding="utf-8")
    counts, rows, _ = assert_same("slurm", path, tmp_path, tz="America/New_York")
    assert spy.finished == 1 and counts[0] == 12
    assert any("ambiguous (DST ends)" in r["flags"] for r in rows)


@pytest.mark.parametrize("how", ["bom", "parsable", "blank-start", "utf16", "bad-utf8", "missing-column"])
def test_sacct_inputs_given_back_or_read_alike(how, tmp_path, monkeypatch):
    spy = Spy(monkeypatch, "slurm")
    head, body = SACCT_HEAD, SACCT_EDGE[:3]
    if how == "parsable":
        head, body = head + "|", [b + "|" for b in body]
    if how == "missing-column":
        head = head.replace("|State|", "|Status|")
    text = ("\n" if how == "blank-start" else "") + head + "\n" + "\n".join(body) + "\n"
    enc = {"bom": "utf-8-sig", "utf16": "utf-16"}.get(how, "utf-8")
    path = tmp_path / "sacct.txt"
    path.write_bytes(text.encode(enc) + (b"c1|\xff\n" if how == "bad-utf8" else b""))
    got = assert_same("slurm", path, tmp_path, **TZ)
    assert (got[0] == "error") == (how in ("bad-utf8", "missing-column"))
    assert spy.finished == (1 if how == "bom" else 0)


SACCT_SEEDS = (seed("sacct.txt"), seed("rv2/sacct-requeue.txt"))


@settings(max_examples=max(EXAMPLES // 3, 20), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                                      HealthCheck.function_scoped_fixture])
@given(data=st.sampled_from(SACCT_SEEDS).flatmap(lambda s: mutated(s, "|")))
def test_mutated_sacct_imports_alike(data, tmp_path_factory):
    root = tmp_path_factory.mktemp("s")
    path = root / "sacct.txt"
    path.write_bytes(data)
    assert_same("slurm", path, root, **TZ)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet='{}",:ab1 \\n.e-', max_size=14).map(lambda s: "{" + s + "}\n"), max_size=5))
def test_joined_json_lines_read_as_each_line_alone(lines):
    """``progress_fast`` reads a block's flat objects with one ``json.loads``: whenever it gives an
    answer, it is each line's own, and a line that does not parse alone never gets one."""
    flat = [ln for ln in lines if progress_fast.flat_object(ln)]
    got = progress_fast._loads_joined(flat)
    if got is None:
        return
    assert got == [json.loads(ln) for ln in flat]
