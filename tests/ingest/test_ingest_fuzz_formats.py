"""Fuzzing the new readers: whatever a file of a new kind holds, the import either stops with
one BadInput (naming the file) or reads it with every row counted once and every accepted row
carrying its table's required values."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.ingest.test_ingest_cn_bills import ALIYUN, HUAWEI, VOLC
from tests.ingest.test_ingest_worklog import WORKLOG

from trainledger.errors import BadInput
from trainledger.ingest import KIND_TABLES, import_files
from trainledger.lake import Lake
from trainledger.lake.schemas import TABLES

WANDB = '{"_step": 1, "_timestamp": 1793606412.5, "loss": 3.1}\n{"_step": 2, "_timestamp": 1793606470, "tokens": 9}\n'
CASES = {"aliyun": ALIYUN, "huawei": HUAWEI, "volcengine": VOLC, "worklog": WORKLOG, "wandb": WANDB}
OPTIONS = {"worklog": {"worklog_phase": "run", "worklog_roles": {"bob": "vendor", "dave": "vendor"}}}
counter = itertools.count()

edits = st.lists(
    st.tuples(st.floats(0, 1), st.sampled_from(['"', ",", "\n", "\r\n", "|", "{", ";", "-", "NULL", "数据",
                                                "GMT+08:00", "1e400", "\x00", "", "  ", "9" * 30]),
              st.integers(0, 3)),
    max_size=6,
)


def mutate(text: str, ops) -> str:
    for where, piece, drop in ops:
        i = int(where * len(text))
        text = text[:i] + piece + text[i + drop:]
    return text


@pytest.mark.parametrize("kind", sorted(CASES))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=edits)
def test_any_content_is_counted_or_refused(kind, ops, tmp_path):
    n = next(counter)
    path = tmp_path / f"f{n}" / ("run-20261102_080000-ab12/h.jsonl" if kind == "wandb" else "f.csv")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(mutate(CASES[kind], ops), encoding="utf-8", newline="")
    lake = Lake(tmp_path / f"lake{n}")
    try:
        (res,) = import_files(kind, [path], lake, options={"import_date": "2026-11-20", **OPTIONS.get(kind, {})})
    except BadInput as e:
        assert str(path) in str(e) or e.remedy
        return
    assert res.accepted + res.duplicates + res.quarantined == res.rows_read
    table = KIND_TABLES[kind]
    rows = lake.read(table).to_pylist()
    assert len(rows) == res.accepted
    required = [f.name for f in TABLES[table] if not f.nullable]
    for r in rows:
        assert all(r[name] is not None for name in required)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.one_of(
    st.tuples(st.integers(0, 2 ** 42),
              st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(["inf", "nan", "1e999"])),
              st.integers(-5, 10 ** 6))
    .map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
    st.text(max_size=20)), max_size=12))
def test_mlflow_metric_files_are_counted_or_refused(lines, tmp_path):
    n = next(counter)
    run_dir = tmp_path / f"r{n}" / "mlruns" / "0" / "abc"
    (run_dir / "metrics").mkdir(parents=True)
    (run_dir / "meta.yaml").write_text("run_id: abc\nstart_time: 1793606400000\nstatus: 3\nend_time: 1793606500000\n")
    (run_dir / "metrics" / "loss").write_text("\n".join(lines), encoding="utf-8")
    lake = Lake(tmp_path / f"lake{n}")
    try:
        (res,) = import_files("mlflow", [run_dir / "meta.yaml"], lake)
    except BadInput:
        return
    assert res.accepted + res.duplicates + res.quarantined == res.rows_read
    assert lake.read("progress_events").num_rows == res.accepted


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=edits)
def test_inventory_data_lines_are_counted_or_refused(ops, tmp_path):
    n = next(counter)
    root = tmp_path / f"i{n}" / "cfg"
    (root / "data").mkdir(parents=True)
    (root / "2026").mkdir()
    text = '"b","ckpt/a%20b","10","2026-11-01T00:00:00.000Z","STANDARD"\n"b","x","7","","GLACIER"\n'
    (root / "data" / "a.csv").write_text(mutate(text, ops), encoding="utf-8", newline="")
    (root / "2026" / "manifest.json").write_text(json.dumps({
        "creationTimestamp": "1793577600000", "fileFormat": "CSV", "sourceBucket": "b",
        "fileSchema": "Bucket, Key, Size, LastModifiedDate, StorageClass",
        "files": [{"key": "cfg/data/a.csv", "size": 1}]}))
    lake = Lake(tmp_path / f"lake{n}")
    try:
        (res,) = import_files("inventory", [root / "2026" / "manifest.json"], lake,
                              options={"storage_prefixes": [("b/", "cache")]})
    except BadInput:
        return
    assert res.accepted + res.duplicates + res.quarantined == res.rows_read
    assert lake.read("storage_objects").num_rows == res.accepted
