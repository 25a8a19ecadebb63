"""The generic mapped importer: any CSV / Parquet / JSONL through a TOML mapping, with the
native importer's guarantees (quarantine, counts, duplicates, identity)."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.ingest.ingest_helpers import check_golden, run, snapshot

from trainledger.cli import cli
from trainledger.errors import BadInput
from trainledger.ingest import import_files
from trainledger.ingest.vendor_mapping import vendor_range, vendor_tags, vendor_time

BILL_MAP = """
name = "acme-gpu-invoice"
table = "bill_lines"
timezone = "Asia/Shanghai"
[columns]
billed_cost = { from = ["Amount (fen)"], type = "decimal", scale = "0.01" }
charge_period_start = { from = ["From"], type = "time" }
charge_period_end = { from = ["To"], type = "time" }
resource_id = ["Node"]
service_category = { from = ["Kind"], map = { gpu = "Compute", disk = "Storage" } }
tags = { from = ["Labels"], type = "tags" }
[constants]
currency = "CNY"
provider = "Acme GPU Cloud"
"""
BILL = (
    "Node,Kind,From,To,Amount (fen),Labels\n"
    "n1,gpu,2026/11/02 08:00,2026/11/02 09:00,8000,batch=b1\n"
    "n2,gpu,2026/11/02 08:00,2026/11/02 09:00,lots,\n"
    "n3,tape,2026/11/02 08:00,2026/11/02 09:00,150,\n"
)


def test_mapped_bill_golden(lake, write):
    m = write("acme.toml", BILL_MAP)
    res = run("mapped_bills", write("acme.csv", BILL), lake, mapping=str(m))
    check_golden("mapped_bill", snapshot(lake, "mapped_bills", [res]))


def test_mapped_bill_rows(lake, write):
    m = write("acme.toml", BILL_MAP)
    res = run("mapped_bills", write("acme.csv", BILL), lake, mapping=str(m))
    assert (res.rows_read, res.accepted, res.quarantined) == (3, 2, 1)
    rows = lake.read("bill_lines").to_pylist()
    assert [r["billed_cost"] for r in rows] == ["80.00", "1.50"]  # fen × 0.01, exactly
    assert rows[0]["charge_period_start"] == datetime.fromisoformat("2026-11-02T00:00:00+00:00")
    assert json.loads(rows[0]["tags"]) == {"batch": "b1"} and rows[0]["provider"] == "Acme GPU Cloud"
    # an unmapped vocabulary value is kept and flagged; its money is never refused
    assert rows[1]["service_category"] == "tape"
    assert any("ServiceCategory" in f for f in json.loads(rows[1]["flags"]))
    again = run("mapped_bills", write("copy.csv", BILL), lake, mapping=str(m))
    assert (again.accepted, again.duplicates, again.quarantined) == (0, 2, 1)


def test_another_mapping_is_another_identity(lake, write):
    m1 = write("a.toml", BILL_MAP)
    m2 = write("b.toml", BILL_MAP.replace('scale = "0.01"', 'scale = "1"'))
    path = write("acme.csv", BILL)
    run("mapped_bills", path, lake, mapping=str(m1))
    res = run("mapped_bills", path, lake, mapping=str(m2))
    assert res.rows_read == 3  # read again, not the fast path: the mapping changed what rows mean


def test_mapping_mistakes_are_bad_input(lake, write):
    path = write("acme.csv", BILL)
    for text, word in (("table = 'nope'", "table"), ("table = 'bill_lines'\n[columns]\nfoo = 'x'", "foo"),
                       ("table = 'bill_lines'\n[columns]\nbilled_cost = {from='A', type='money'}", "type"),
                       ("table = 'bill_lines'\ntimezone = 'Mars/Base'", "time zone"), ("table = [", "TOML")):
        with pytest.raises(BadInput) as e:
            import_files("mapped_bills", [path], lake, options={"mapping": str(write("m.toml", text))})
        assert word in str(e.value)
    with pytest.raises(BadInput) as e:
        import_files("mapped_bills", [path], lake)
    assert "--mapping" in str(e.value)
    with pytest.raises(BadInput) as e:  # a storage mapping given to the bill kind
        import_files("mapped_bills", [path], lake,
                     options={"mapping": str(write("s.toml", "table = 'storage_objects'"))})
    assert "mapped_storage" in str(e.value) or "storage_objects" in str(e.value)


def test_mapped_storage_labor_and_progress(lake, write, tmp_path):
    sm = write("s.toml", 'table = "storage_objects"\n[columns]\npath = ["Object"]\nsize_bytes = ["Bytes"]\n'
                         'storage_class = ["Kind"]\nowner = ["Owner"]\n')
    res = run("mapped_storage", write("s.csv", "Object,Bytes,Kind,Owner\nckpt/a,10,checkpoint,al\n"
                                                "x/b,5,,\n"), lake, mapping=str(sm), import_date="2026-11-02")
    assert (res.accepted, res.quarantined) == (1, 1)  # no class and no rule: quarantined as native
    assert lake.read("storage_objects").to_pylist()[0]["snapshot_date"] == date(2026, 11, 2)

    lm = write("l.toml", 'table = "labor_entries"\n[columns]\ndate = ["Day"]\nperson = ["Who"]\n'
                         'hours = { from = ["Minutes"], type = "decimal", scale = "0.0166666666666666666666666667" }\n'
                         'role = { from = ["Team"], map = { "数据" = "data_prep" } }\n[constants]\nphase = "run"\n')
    res = run("mapped_labor", write("l.csv", "Day,Who,Team,Minutes\n2026-11-02,王,数据,90\n"), lake,
              mapping=str(lm))
    row = lake.read("labor_entries").to_pylist()[0]
    assert res.accepted == 1 and row["role"] == "data_prep" and Decimal(row["hours"]).quantize(Decimal("0.01")) == 1.5

    pm = write("p.toml", 'table = "progress_events"\n[columns]\nts = { from = ["time"], type = "epoch_ms" }\n'
                         'run = ["job"]\nstep = ["iter"]\n[constants]\nevent = "step"\n')
    res = run("mapped_progress", write("p.csv", "time,job,iter,loss\n1793606400000,7001,10,2.5\n"), lake,
              mapping=str(pm))
    ev = lake.read("progress_events").to_pylist()[0]
    assert res.accepted == 1 and ev["run"] == "7001" and ev["step"] == 10
    assert ev["ts"] == datetime.fromisoformat("2026-11-02T08:00:00+00:00") and json.loads(ev["extra"])["loss"] == "2.5"


def test_parquet_bill_through_a_mapping(lake, write, tmp_path):
    m = write("acme.toml", BILL_MAP)
    pq.write_table(pa.table({"Node": ["n1"], "Kind": ["gpu"], "From": ["2026-11-02 08:00:00"],
                             "To": ["2026-11-02 09:00:00"], "Amount (fen)": ["8000"], "Labels": [None]}),
                   tmp_path / "acme.parquet")
    res = run("mapped_bills", tmp_path / "acme.parquet", lake, mapping=str(m))
    assert res.accepted == 1 and lake.read("bill_lines").to_pylist()[0]["billed_cost"] == "80.00"


def test_cli_mapping_option(tmp_path):
    ws = tmp_path / "ws"
    runner = CliRunner()
    assert runner.invoke(cli, ["init", str(ws)]).exit_code == 0
    (tmp_path / "m.toml").write_text(BILL_MAP, encoding="utf-8")
    (tmp_path / "b.csv").write_text(BILL, encoding="utf-8")
    out = runner.invoke(cli, ["--workspace", str(ws), "import", "mapped_bills", str(tmp_path / "b.csv"),
                              "--mapping", str(tmp_path / "m.toml"), "--json"], catch_exceptions=False)
    assert json.loads(out.stdout)["accepted"] == 2  # (stderr: the old-format note on BILL_MAP)


TZ = ZoneInfo("Asia/Shanghai")


@settings(max_examples=60, deadline=None)
@given(st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2099, 1, 1)),
       st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=40)))
def test_vendor_time_and_range_round_trip(dt, span):
    dt, span = dt.replace(microsecond=0), timedelta(seconds=int(span.total_seconds()))
    local = dt.strftime("%Y-%m-%d %H:%M:%S")
    assert vendor_time(local + " GMT+08:00", TZ) == vendor_time(local, TZ)
    assert vendor_time(dt.strftime("%Y/%m/%d %H:%M:%S"), TZ) == vendor_time(local, TZ)
    end = (dt + span).strftime("%Y-%m-%d %H:%M:%S")
    for sep in ("-", " - ", "~"):
        s, e = vendor_range(f"{local} GMT+08:00{sep}{end} GMT+08:00", TZ)
        assert e - s == span


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(st.characters(blacklist_characters=":;,=，； \n\r\t{}\"\\"), min_size=1, max_size=8),
                       st.text(st.characters(blacklist_characters=":;,=，； \n\r\t{}\"\\"), min_size=1, max_size=8),
                       max_size=4))
def test_vendor_tags_forms_agree(tags):
    assume_ok = all(k.strip() == k and v.strip() == v for k, v in tags.items())
    if not assume_ok:
        return
    assert vendor_tags(json.dumps(tags)) == tags
    assert vendor_tags(";".join(f"{k}={v}" for k, v in tags.items())) == tags
    if tags:
        assert vendor_tags("; ".join(f"key:{k} value:{v}" for k, v in tags.items())) == tags


def test_parquet_storage_and_progress_through_a_mapping(lake, write, tmp_path):
    sm = write("s.toml", 'table = "storage_objects"\n[columns]\npath = ["Object"]\nsize_bytes = ["Bytes"]\n'
                         '[constants]\nstorage_class = "cache"\n')
    pq.write_table(pa.table({"object": ["c/a", "c/b"], "Bytes": [10, 20]}), tmp_path / "s.parquet")
    day1 = run("mapped_storage", tmp_path / "s.parquet", lake, mapping=str(sm), import_date="2026-11-02")
    day2 = run("mapped_storage", tmp_path / "s.parquet", lake, mapping=str(sm), import_date="2026-11-09")
    assert (day1.accepted, day2.accepted) == (2, 2)  # an undated listing on another day: a new snapshot
    assert sorted({r["snapshot_date"] for r in lake.read("storage_objects").to_pylist()}) == [
        date(2026, 11, 2), date(2026, 11, 9)]
    pm = write("p.toml", 'table = "progress_events"\n[columns]\nts = { from = ["time"], type = "epoch_ms" }\n'
                         'run = ["job"]\nstep = ["iter"]\n[constants]\nevent = "step"\n')
    pq.write_table(pa.table({"time": [1793606400000], "job": ["7001"], "iter": [10], "loss": [2.5]}),
                   tmp_path / "p.parquet")
    res = run("mapped_progress", tmp_path / "p.parquet", lake, mapping=str(pm))
    ev = lake.read("progress_events").to_pylist()[0]
    assert res.accepted == 1 and ev["step"] == 10 and json.loads(ev["extra"]) == {"loss": 2.5}


def test_relative_times_from_an_origin(lake, write):
    pm = write("p.toml", 'table = "progress_events"\n[columns]\n'
                         'ts = { from = ["t"], type = "epoch_s", origin = "2026-11-02T08:00:00+08:00" }\n'
                         'run = ["job"]\n[constants]\nevent = "start"\n')
    run("mapped_progress", write("p.csv", "t,job\n90.5,1\n"), lake, mapping=str(pm))
    ev = lake.read("progress_events").to_pylist()[0]
    assert ev["ts"] == datetime.fromisoformat("2026-11-02T00:01:30.500000+00:00")
    bad = write("b.toml", 'table = "progress_events"\n[columns]\nts = { from = ["t"], type = "epoch_s", '
                          'origin = "2026-11-02T08:00:00" }\n')
    with pytest.raises(BadInput, match="offset"):
        import_files("mapped_progress", [write("p2.csv", "t,job\n1,1\n")], lake, options={"mapping": str(bad)})
