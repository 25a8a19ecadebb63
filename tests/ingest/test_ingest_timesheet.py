"""The timesheet importer: vocabulary, recurrence defaults, the batch column setting."""

from __future__ import annotations

from ingest_helpers import check_golden, run, snapshot

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
