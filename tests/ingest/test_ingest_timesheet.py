"""The timesheet importer: vocabulary, recurrence defaults, the batch column setting."""

from __future__ import annotations

import pytest
from ingest_helpers import check_golden, run, snapshot

from trainledger.errors import BadInput
from trainledger.ingest import import_files

SHEET = (
    "date,person,role,activity,phase,hours,recurrence,project_batch\n"
    "2026-11-02,alice,data_prep,clean corpus v3,build,6.5,,b-2026-07\n"
    "2026-11-02,bob,Training Engineering,launch and watch,run,8,,b-2026-07\n"
    "2026-11-03,bob,training-engineering,rerun after NCCL hang,rework,3.25,one_time,b-2026-07\n"
    # more than a day: flagged; no batch: null
    "2026-11-03,carol,platform_support,on-call,run,30,,\n"
    # not a LaborRole: quarantined
    "2026-11-03,dave,marketing,posters,build,2,,b-2026-07\n"
    # negative hours: quarantined
    "2026-11-04,erin,business_eval,eval,run,-1,,b-2026-07\n"
    # no such day: quarantined
    "2026-11-31,erin,business_eval,eval,run,1,,b-2026-07\n"
)


def test_timesheet_golden(lake, write):
    result = run(
        "timesheet", write("hours.csv", SHEET), lake, timesheet_batch_column="project_batch"
    )
    assert (result.rows_read, result.accepted, result.quarantined, result.flagged) == (7, 4, 3, 1)
    check_golden("timesheet_hours", snapshot(lake, "timesheet", [result]))


def test_default_batch_column(lake, write):
    text = "date,person,role,phase,hours,batch\n2026-11-02,alice,data_prep,build,1.5,b-1\n"
    run("timesheet", write("h.csv", text), lake)
    (row,) = lake.read("labor_entries").to_pylist()
    assert (row["batch"], row["hours"], row["activity"], row["recurrence"]) == (
        "b-1",
        "1.5",
        "",
        "one_time",
    )


def test_a_blank_person_is_empty_not_a_name(lake, write):
    text = "date,person,role,phase,hours\n2026-11-02,   ,data_prep,build,1\n"
    result = run("timesheet", write("h.csv", text), lake)
    (q,) = lake.quarantine("timesheet", result.sha256)
    assert (result.quarantined, q["reason"]) == (1, "person is empty")


# -- encodings: Excel on Chinese Windows saves CSV as GBK/GB18030 ---------------------------------

GBK_SHEET = (
    "date,person,role,activity,phase,hours,备注\r\n"
    "2026-11-02,张伟,data_prep,清洗语料第三版,build,6.5,数据组\r\n"
    "2026-11-02,李娜,training_engineering,启动训练并值守,run,8,夜班\r\n"
    "2026-11-03,王芳,training_engineering,NCCL 挂起后重跑,rework,3.25,\r\n"
)


def test_gb18030_timesheet_needs_the_encoding_option(lake, write):
    data = GBK_SHEET.encode("gb18030")
    path = write("工时.csv", data)
    with pytest.raises(BadInput) as e:
        import_files("timesheet", [path], lake)
    first_bad = next(i for i, b in enumerate(data) if b >= 0x80)  # 备 is the first non-ASCII
    assert e.value.path == str(path)
    assert f"not UTF-8 text: byte offset {first_bad} (0x{data[first_bad]:02x})" in str(e.value)
    assert e.value.remedy == "pass --encoding gb18030 (or the file's encoding)"
    assert not list(lake.root.rglob("*.parquet")) and not lake.imports()

    result = run("timesheet", path, lake, encoding="gb18030")
    assert (result.rows_read, result.accepted, result.quarantined) == (3, 3, 0)
    rows = lake.read("labor_entries").to_pylist()
    assert [(r["person"], r["activity"], r["hours"]) for r in rows] == [
        ("张伟", "清洗语料第三版", "6.5"),
        ("李娜", "启动训练并值守", "8"),
        ("王芳", "NCCL 挂起后重跑", "3.25"),
    ]
    assert lake.imports()[-1]["options"] == {"encoding": "gb18030"}
    # the same sheet saved as UTF-8 is the same rows: duplicates across files, whatever encoding
    again = run("timesheet", write("工时-utf8.csv", GBK_SHEET), lake)
    assert (again.accepted, again.duplicates) == (0, 3)


def test_wrong_encoding_option_says_to_check_it(lake, write):
    path = write("h.csv", GBK_SHEET.encode("gb18030"))
    with pytest.raises(BadInput) as e:
        import_files("timesheet", [path], lake, options={"encoding": "utf-8"})
    assert "check --encoding" in (e.value.remedy or "")


@pytest.mark.parametrize(
    ("hours", "reason", "remedy"),
    [
        ('"7,5"', "decimal comma", "7.5"),
        ("1:30", "clock duration", "1.5"),
        ("0:45", "clock duration", "0.75"),
        ("seven", "not a number", "7.5"),
    ],
)
def test_hours_in_another_notation_are_quarantined_with_how_to_write_them(
    lake, write, hours, reason, remedy
):
    text = f"date,person,role,phase,hours\n2026-01-01,me,vendor,run,{hours}\n"
    r = run("timesheet", write("h.csv", text), lake)
    (q,) = lake.quarantine("timesheet", r.sha256)
    assert reason in q["reason"] and remedy in q["remedy"]


def test_semicolon_timesheet_from_european_excel(lake, write):
    text = "date;person;role;phase;hours\r\n2026-01-01;me;vendor;run;7,5\r\n"
    text += "2026-01-02;me;vendor;run;2\r\n"
    r = run("timesheet", write("h.csv", text), lake)
    assert (r.rows_read, r.accepted, r.quarantined) == (2, 1, 1)
    (q,) = lake.quarantine("timesheet", r.sha256)
    assert q["remedy"] == "write it with a point: 7.5"
