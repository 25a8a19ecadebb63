"""The progress importer: JSONL events with offsets, per-event fields, unknown events."""

from __future__ import annotations

from datetime import UTC, datetime

from ingest_helpers import check_golden, run, snapshot

EVENTS = (
    "\n".join(
        [
            '{"ts": "2026-11-02T08:00:00+08:00", "run": "1001", "event": "start"}',
            '{"ts": "2026-11-02T08:10:00+08:00", "run": "1001", "event": "step", "step": 100, '
            '"tokens": 409600000, "samples": 100000, "loss": 2.31}',
            '{"ts": "2026-11-02T00:20:00Z", "run": 1001, "event": "data_wait", "duration_s": 42.5}',
            "",
            '{"ts": "2026-11-02T09:00:00", "run": "1001", "event": "step", "step": 200}',
            '{"ts": "2026-11-02T09:05:00+08:00", "run": "1001", "event": "checkpoint_saved", '
            '"duration_s": 120}',
            '{"ts": "2026-11-02T09:06:00+08:00", "run": "1001", "event": "gpu_util", '
            '"value": 0.93}',
            "not json",
            "[1, 2]",
            '{"ts": "2026-11-02T09:30:00+08:00", "run": "1001", "event": "resume", "step": 200}',
            '{"ts": "2026-11-02T09:40:00+08:00", "run": "1001", "event": "end"}',
            '{"ts": "2026-11-02T08:00:00+08:00", "run": "1001", "event": "start"}',
        ]
    )
    + "\n"
)


def test_progress_golden(lake, write):
    result = run("progress", write("progress.jsonl", EVENTS), lake)
    assert (result.rows_read, result.accepted, result.duplicates, result.quarantined) == (
        11,
        7,
        0,
        4,
    )
    flags = {r["row"]: r["flags"] for r in lake.read("progress_events").to_pylist()}
    assert flags[1] == flags[12] == '["repeated_row_in_file"]'
    check_golden("progress_events", snapshot(lake, "progress", [result]))


def test_naive_ts_is_quarantined_with_a_remedy(lake, write):
    result = run("progress", write("progress.jsonl", EVENTS), lake)
    (q,) = [q for q in lake.quarantine("progress", result.sha256) if q["line"] == 5]
    assert "no UTC offset" in q["reason"] and "+08:00" in q["remedy"]
    ts = lake.read("progress_events").column("ts").to_pylist()
    assert ts[0] == datetime(2026, 11, 2, 0, 0, tzinfo=UTC)
