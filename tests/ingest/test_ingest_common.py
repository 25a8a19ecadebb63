"""What every importer promises: the registry, wrong files, idempotent re-import, counts."""

from __future__ import annotations

import gzip
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ingest_helpers import run

import trainledger.ingest as ingest
from trainledger.errors import BadInput, WrongFileType
from trainledger.ingest import IMPORTERS, KIND_TABLES, KINDS, Importer, ImportResult, import_files
from trainledger.lake import Lake

FIXTURES = {
    "slurm": (
        "sacct.txt",
        "JobID|Submit|Start|End|State|AllocTRES\n"
        "1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|COMPLETED|gres/gpu=1\n"
        "2|2026-01-01T00:00:00|Unknown|Unknown|PENDING|\n",
    ),
    "focus": (
        "bill.csv",
        "BilledCost,ChargePeriodStart,ChargePeriodEnd,BillingCurrency\n"
        "1.50,2026-01-01,2026-01-02,USD\n2.25,2026-01-02,2026-01-03,USD\n",
    ),
    "storage": (
        "inv.csv",
        "path,size_bytes,storage_class,owner,purpose,review_at\na/b,10,cache,me,x,2026-02-01\n",
    ),
    "timesheet": ("hours.csv", "date,person,role,phase,hours\n2026-01-01,me,vendor,run,2\n"),
    "progress": ("p.jsonl", '{"ts":"2026-01-01T00:00:00Z","run":"1","event":"start"}\n'),
    "invoice": (
        "inv.csv",
        "invoice_id,vendor,date,amount,currency,stage\nI1,V,2026-01-01,5.00,CNY,ongoing\n",
    ),
    "jobs": (
        "pods.csv",
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
        "deletion_time,scheduled_time\np1,1000,1024,1,500,,LS,Running,0,3600,60\n",
    ),
    "occupancy": ("seq.csv", "time,active,total\n2017-10-03 00:00:00,312,420\n"),
    "steps": ("job.csv", ",worker,gpu,time,batch_time_norm\n0,0,25,1,476\n"),
    "nodes": ("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn-1,32000,262144,8,G2\n"),
    "k8s": (
        "pods.json",
        '{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":'
        '{"name":"p","namespace":"ns","creationTimestamp":"2026-01-01T00:00:00Z"},"status":'
        '{"phase":"Pending"}}]}\n',
    ),
    "aliyun": ("split.csv", "账单日期,分拆项ID,应付金额\n2026-01-01,i-1,1.50\n"),
    "huawei": (
        "res.csv",
        "资源ID,使用开始时间,使用结束时间,应付金额\n"
        "vm-1,2026-01-01 00:00:00 GMT+08:00,2026-01-01 01:00:00 GMT+08:00,0.12345678\n",
    ),
    "volcengine": (
        "volc.csv",
        "InstanceNo,ExpenseDate,PayableAmount\ni-1,2026-01-01,2\n",
    ),
    "inventory": (
        "cfg/2026-01-01/manifest.json",
        '{"sourceBucket": "b", "fileFormat": "CSV", "fileSchema": "Bucket, Key, Size, StorageClass",'
        ' "creationTimestamp": "1767225600000", "files": [{"key": "data/a.csv", "size": 1}]}',
    ),
    "worklog": (
        "worklog.csv",
        "Issue Key,Author,Started,Time Spent (s),Labels\n"
        "LLM-1,me,2026-01-01T09:00:00.000+0800,3600,role:vendor phase:run\n",
    ),
    "mlflow": ("mlruns/0/r1/meta.yaml", "run_id: r1\nstart_time: 1767225600000\nstatus: 1\n"),
    "wandb": ("h.jsonl", '{"_step": 1, "_timestamp": 1767225600, "run": "r1"}\n'),
    "mapped_bills": ("b.csv", "cost,day\n1.50,2026-01-01\n"),
    "mapped_storage": ("s.csv", "object,bytes\na/b,10\n"),
    "mapped_labor": ("l.csv", "who,day,h\nme,2026-01-01,2\n"),
    "mapped_progress": ("p.csv", "t,job\n2026-01-01T00:00:00Z,1\n"),
}
OPTIONS = {"slurm": {"tz": "Asia/Shanghai"}, "jobs": {"preset": "alibaba-openb-2023"},
           "occupancy": {"preset": "philly", "tz": "UTC"}, "steps": {"preset": "alibaba-pai-2020"},
           "nodes": {"preset": "openb-nodes"},
           "inventory": {"storage_prefixes": [("b/", "cache")]}}  # fmt: skip
# files a fixture needs beside it (an inventory's data file), and the mapped kinds' mappings
EXTRA_FILES = {"inventory": ("cfg/data/a.csv", '"b","k","10","STANDARD"\n')}
MAPPINGS = {
    "mapped_bills": 'table = "bill_lines"\n[columns]\nbilled_cost = ["cost"]\n[constants]\n'
    'currency = "CNY"\n[period]\nday = ["day"]\n',
    "mapped_storage": 'table = "storage_objects"\n[columns]\npath = ["object"]\nsize_bytes = ["bytes"]\n'
    '[constants]\nstorage_class = "cache"\nowner = "me"\npurpose = "x"\n',
    "mapped_labor": 'table = "labor_entries"\n[columns]\nperson = ["who"]\ndate = ["day"]\nhours = ["h"]\n'
    '[constants]\nrole = "vendor"\nphase = "run"\n',
    "mapped_progress": 'table = "progress_events"\n[columns]\nts = ["t"]\nrun = ["job"]\n[constants]\n'
    'event = "start"\n',
}


def test_registry():
    assert KINDS[:6] == ("slurm", "focus", "storage", "timesheet", "progress", "invoice")
    assert set(KINDS) == set(KIND_TABLES) == set(FIXTURES)
    for imp in IMPORTERS:
        assert isinstance(imp, Importer)
        assert imp.table == KIND_TABLES[imp.kind]


def test_public_names_are_sorted_and_exist():
    # isort order, as ruff's RUF022 keeps it: CONSTANTS, then Classes, then functions
    key = lambda n: (0 if n.isupper() else 1 if n[0].isupper() else 2, n)  # noqa: E731
    assert ingest.__all__ == sorted(ingest.__all__, key=key)
    for name in ingest.__all__:
        assert hasattr(ingest, name)


def test_unknown_kind(lake, write):
    with pytest.raises(BadInput, match="unknown import kind"):
        import_files("excel", [write("x.csv", "a\n")], lake)


@pytest.mark.parametrize("kind", sorted(FIXTURES))
def test_reimport_adds_nothing(kind, lake, write):
    name, text = FIXTURES[kind]
    path = write(name, text)
    if kind in EXTRA_FILES:
        write(*EXTRA_FILES[kind])
    options = dict(OPTIONS.get(kind, {}))
    if kind in MAPPINGS:
        options["mapping"] = str(write(f"{kind}.toml", MAPPINGS[kind]))
    OPTIONS[kind] = options  # the second import below uses the same options
    first = run(kind, path, lake, **OPTIONS.get(kind, {}))
    assert first.accepted == first.rows_read > 0 and first.quarantined == 0
    part = lake.partition_path(KIND_TABLES[kind], first.sha256)
    before = part.read_bytes()
    files_before = sorted(p for p in lake.root.rglob("*") if p.name != "imports.jsonl")
    second = run(kind, path, lake, **OPTIONS.get(kind, {}))
    assert (second.accepted, second.duplicates, second.quarantined) == (0, first.rows_read, 0)
    assert second.as_json() == {
        "accepted": 0,
        "duplicates": first.rows_read,
        "quarantined": 0,
        "quarantine_file": None,
    }
    assert part.read_bytes() == before
    assert sorted(p for p in lake.root.rglob("*") if p.name != "imports.jsonl") == files_before
    assert lake.read(KIND_TABLES[kind]).num_rows == first.accepted
    log = lake.imports()
    assert [r["accepted"] for r in log] == [first.accepted, 0]
    assert log[0]["partition"] == str(part) and log[1]["partition"] is None


def test_reimport_without_a_log_line_still_counts(lake, write):
    name, text = FIXTURES["focus"]
    path = write(name, text)
    run("focus", path, lake)
    (lake.root / "imports.jsonl").unlink()  # a crash after the partition, before the log
    again = run("focus", path, lake)
    assert (again.rows_read, again.duplicates) == (2, 2)


def test_as_json_has_exactly_the_cli_keys():
    r = ImportResult("focus", "f.csv", "a" * 64, 3, 1, 1, 1, "/q.jsonl", 0)
    assert r.as_json() == {
        "accepted": 1,
        "duplicates": 1,
        "quarantined": 1,
        "quarantine_file": "/q.jsonl",
    }


@pytest.mark.parametrize(
    ("kind", "name", "content", "says"),
    [
        ("slurm", "bill.csv", FIXTURES["focus"][1], "FOCUS"),
        ("focus", "p.jsonl", FIXTURES["progress"][1], "training progress JSONL"),
        ("focus", "sacct.txt", FIXTURES["slurm"][1], "sacct"),
        ("progress", "bill.csv", FIXTURES["focus"][1], "FOCUS"),
        ("timesheet", "inv.csv", FIXTURES["invoice"][1], "invoice"),
        ("invoice", "hours.csv", FIXTURES["timesheet"][1], "timesheet"),
        ("storage", "sacct.txt", FIXTURES["slurm"][1], "sacct"),
        ("focus", "bill.csv.gz", gzip.compress(FIXTURES["focus"][1].encode()), "gzip"),
        ("timesheet", "odd.csv", "a,b,c\n1,2,3\n", "comma-separated text with header a, b, c"),
    ],
)
def test_wrong_file_type_names_what_it_looks_like(kind, name, content, says, lake, write):
    path = write(name, content)
    with pytest.raises(WrongFileType) as e:
        import_files(kind, [path], lake, options=OPTIONS.get(kind, {}))
    assert says in str(e.value)
    assert e.value.path == str(path)
    assert not lake.root.exists() or not list(lake.root.rglob("*.parquet"))


def test_a_wrong_file_stops_the_batch_before_any_import(lake, write):
    good = write("bill.csv", FIXTURES["focus"][1])
    bad = write("p.jsonl", FIXTURES["progress"][1])
    with pytest.raises(WrongFileType):
        import_files("focus", [good, bad], lake)
    assert lake.read("bill_lines").num_rows == 0


def test_missing_file(lake, tmp_path):
    with pytest.raises(BadInput, match="no such file"):
        import_files("focus", [tmp_path / "nope.csv"], lake)


def test_header_only_file_reads_no_rows(lake, write):
    r = run("focus", write("bill.csv", "BilledCost,ChargePeriodStart,ChargePeriodEnd\n"), lake)
    assert (r.rows_read, r.accepted, r.quarantine_file) == (0, 0, None)
    assert not lake.has_source(r.sha256, "bill_lines")


def test_utf16_and_bom_files_are_read(lake, tmp_path, write):
    text = FIXTURES["invoice"][1].replace("V,", "供应商,")
    other = Lake(tmp_path / "other")
    a = run("invoice", write("a.csv", "\ufeff" + text), lake)
    b = run("invoice", write("b.csv", text.encode("utf-16")), other)
    assert a.accepted == b.accepted == 1
    for lk in (lake, other):
        assert lk.read("external_services").column("vendor").to_pylist() == ["供应商"]
    # the same rows in another encoding are the same rows: duplicates across files
    again = run("invoice", write("b.csv", text.encode("utf-16")), lake)
    assert (again.accepted, again.duplicates) == (0, 1)


def test_undecodable_bytes_stop_the_file_with_their_offset(lake, write):
    good = FIXTURES["invoice"][1].encode()
    data = good + b"I2,V\xff\xfe,2026-01-02,1.00,CNY,ongoing\n"
    path = write("bad.csv", data)
    with pytest.raises(BadInput) as e:
        import_files("invoice", [path], lake)
    offset = len(good) + len(b"I2,V")
    assert e.value.path == str(path)
    assert f"byte offset {offset} (0xff)" in str(e.value)
    assert e.value.remedy == "pass --encoding gb18030 (or the file's encoding)"
    # nothing was written: no partition, no quarantine, no leftovers, no log line
    assert not list(lake.root.rglob("*.parquet")) and not list(lake.root.rglob("*.jsonl"))
    assert not (lake.root / ".tmp").exists() or not list((lake.root / ".tmp").iterdir())


def test_undecodable_progress_line_stops_the_file(lake, write):
    line = FIXTURES["progress"][1].encode()
    path = write("p.jsonl", line + line.replace(b'"1"', b'"\xc3("'))
    offset = len(line) + line.index(b'"1"') + 1
    with pytest.raises(BadInput, match=f"byte offset {offset} "):
        import_files("progress", [path], lake)


def test_unknown_encoding_stops_before_any_import(lake, write):
    path = write(*FIXTURES["invoice"])
    for bad in ("klingon", "base64"):
        with pytest.raises(BadInput, match="encoding"):
            import_files("invoice", [path], lake, options={"encoding": bad})
    assert not lake.root.exists() or not list(lake.root.rglob("*"))


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 7, 64])
@pytest.mark.parametrize(
    ("encoding", "data", "bad"),
    [
        ("utf-8", "日期,活动\n数据清洗,😀\n".encode(), None),
        ("utf-8", "日期,活动\n".encode() + b"\xe6\x97" + b",x\n", 14),
        ("utf-8", b"\xef\xbb\xbf" + "a,é\n".encode() + b"\x80", 8),
        ("gb18030", "日期,活动\n数据清洗,😀\n".encode("gb18030"), None),
        ("utf-16", "a,数据\n".encode("utf-16") + b"\x00", 12),
        ("utf-16", "a,数据\n".encode("utf-16-be") + b"\x00", 10),
    ],
)
def test_first_bad_byte_across_chunk_boundaries(
    monkeypatch, tmp_path, chunk, encoding, data, bad
):
    from trainledger.ingest import text as base

    monkeypatch.setattr(base, "DECODE_CHUNK", chunk)
    path = tmp_path / "x.csv"
    path.write_bytes(data)
    assert base.first_bad_byte(path, encoding) == bad


def test_unbalanced_quote_is_one_quarantined_row_not_a_crash(lake, write):
    """The quote opened on line 3 never closes: that row alone is quarantined, and the line
    after it is read again as the row it is."""
    text = (
        FIXTURES["invoice"][1]
        + 'I2,"V,2026-01-02,1.00,CNY,ongoing\nI3,V,2026-01-03,2,CNY,ongoing\n'
    )
    r = run("invoice", write("q.csv", text), lake)
    assert (r.rows_read, r.accepted, r.quarantined) == (3, 2, 1)
    (q,) = lake.quarantine("invoice", r.sha256)
    assert "unbalanced quote" in q["reason"] and (q["row"], q["line"]) == (2, 3)
    assert q["raw"] == 'I2,"V,2026-01-02,1.00,CNY,ongoing'
    assert lake.read("external_services").column("invoice_id").to_pylist() == ["I1", "I3"]


def test_log_records_options_and_counts(lake, write):
    name, text = FIXTURES["slurm"]
    run("slurm", write(name, text), lake, tz="Asia/Shanghai")
    (entry,) = lake.imports()
    assert entry["options"] == {"tz": "Asia/Shanghai"}
    assert {k: entry[k] for k in ("kind", "table", "rows_read", "accepted", "quarantined")} == {
        "kind": "slurm",
        "table": "jobs",
        "rows_read": 2,
        "accepted": 2,
        "quarantined": 0,
    }
    assert json.dumps(entry)


invoice_rows = st.lists(
    st.tuples(
        st.sampled_from(["I1", "I2", ""]),
        st.sampled_from(["1.00", "-2.5", "x", "", "1e3"]),
        st.sampled_from(["CNY", "usd", "", "EURO"]),
        st.sampled_from(["delivery", "ongoing", "later"]),
    ),
    max_size=25,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(invoice_rows)
def test_counts_always_add_up(tmp_path_factory, rows):
    lake = Lake(tmp_path_factory.mktemp("h") / "lake")
    path = tmp_path_factory.mktemp("in") / "inv.csv"
    path.write_text(
        "invoice_id,vendor,date,amount,currency,stage\n"
        + "".join(f"{i},V,2026-01-01,{a},{c},{s}\n" for i, a, c, s in rows)
    )
    (r,) = import_files("invoice", [path], lake)
    assert r.rows_read == len(rows)
    assert r.accepted + r.duplicates + r.quarantined == r.rows_read
    assert lake.read("external_services").num_rows == r.accepted
    assert len(lake.quarantine("invoice", r.sha256)) == r.quarantined
    # within one file nothing is a duplicate: repeated rows are all accepted, and flagged
    assert r.duplicates == 0
    assert r.accepted == sum(_valid(row) for row in rows)
    assert r.quarantined == sum(not _valid(row) for row in rows)
    flags = [json.loads(f) for f in lake.read("external_services").column("flags").to_pylist()]
    assert flags == [_expected_flags(row, rows) for row in rows if _valid(row)]
    assert r.flagged == sum(bool(f) for f in flags)


def _valid(row: tuple[str, str, str, str]) -> bool:
    i, a, c, s = row
    # an amount written with an exponent (1e3) is quarantined: a bill is written in plain decimals
    return bool(i) and a in ("1.00", "-2.5") and c in ("CNY", "usd") and s != "later"


def _expected_flags(
    row: tuple[str, str, str, str], rows: list[tuple[str, str, str, str]]
) -> list[str]:
    """A valid row that appears twice is a repeat; an invoice id on valid rows of different
    content is reused. Invalid rows are quarantined and count for neither."""
    valid = [r for r in rows if _valid(r)]
    notes = []
    if valid.count(row) > 1:
        notes.append("repeated_row_in_file")
    if any(r[0] == row[0] and r != row for r in valid):
        notes.append("invoice_id_reused")
    return notes


def test_content_key_is_one_to_one_on_awkward_values():
    from trainledger.ingest.keys import content_key, mapping_key

    lists = [
        [],
        ["a", "b"],
        ["a", "b\x00c", "d", "e"],
        ["a", "b", "c", "d"],  # joins like ["a", "b\x00c", ...] would if NUL were not guarded
        ["a\x00b", "c"],
        ["a", "b\x00c"],
        ["a", 1],
        ["a", "1"],
        ["\x01[\"a\",1]"],
    ]
    keys = [content_key(x) for x in lists]
    assert len(set(keys)) == len(keys)
    # a mapping's key ignores order and nulls; fold ignores the case of names
    assert mapping_key({"A": "1", "b": None}, fold=True) == mapping_key({"a": "1"}, fold=True)
    assert mapping_key({"x": 1, "y": 2}) == mapping_key({"y": 2, "x": 1})
    assert mapping_key({"x": "1"}) == content_key(["x", "1"])
