"""Jira-style worklog exports (issue key, author, started, time spent, labels) into labor
entries; role / phase / activity / batch from labels or the import's settings."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

import pytest
from tests.ingest.ingest_helpers import check_golden, run, snapshot

from trainledger.errors import BadInput, WrongFileType
from trainledger.ingest import import_files

WORKLOG = (
    "Issue Key,Summary,Author,Started,Time Spent (s),Labels,Comment\n"
    "LLM-101,clean corpus v3,alice,2026-11-02T09:00:00.000+0800,12600,"
    "role:data_prep phase:build batch:b7,dedup\n"
    "LLM-102,launch sft,bob,2026-11-02T23:30:00.000+0800,1000,phase:run activity:launch,\n"
    "OPS-7,fix nccl,carol,2026-11-03T10:00:00.000+0800,5400,phase:rework role:platform_support,\n"
    "LLM-103,eval,dave,2026-11-03T10:00:00.000+0800,3600,,no role anywhere\n"
    "LLM-104,eval,erin,2026-11-03T10:00:00.000+0800,soon,role:business_eval phase:run,\n"
)


def test_golden(lake, write):
    res = run("worklog", write("worklog.csv", WORKLOG), lake, worklog_roles={"bob": "training_engineering"})
    check_golden("jira_worklog", snapshot(lake, "worklog", [res]))


def test_rows(lake, write):
    res = run("worklog", write("w.csv", WORKLOG), lake, worklog_roles={"bob": "training_engineering"})
    assert (res.rows_read, res.accepted, res.quarantined) == (5, 3, 2)
    rows = lake.read("labor_entries").to_pylist()
    a, b, c = rows
    assert (a["role"], a["phase"], a["hours"], a["batch"], a["recurrence"]) == (
        "data_prep", "build", "3.5", "b7", "one_time")
    assert a["activity"] == "LLM: LLM-101" and a["date"] == date(2026, 11, 2)
    assert (b["role"], b["activity"], b["hours"]) == ("training_engineering", "launch: LLM-102", "0.277778")
    assert any("rounded" in f for f in json.loads(b["flags"]))
    assert b["date"] == date(2026, 11, 2)  # the day in the logger's own offset, not UTC's
    assert c["role"] == "platform_support" and c["phase"] == "rework"
    assert sum(Decimal(r["hours"]) for r in rows) == Decimal("5.277778")


def test_jira_durations_and_default_phase(lake, write):
    text = ("issueKey,author,started,Time Spent,labels\n"
            "LLM-1,alice,2026-11-02,1d 2h 30m,role:data_prep\n"
            "LLM-2,alice,2026-11-02,45m,role:data_prep\n")
    res = run("worklog", write("w.csv", text), lake, worklog_phase="run")
    rows = lake.read("labor_entries").to_pylist()
    assert res.accepted == 2 and [r["hours"] for r in rows] == ["10.5", "0.75"]
    assert any("1d = 8 h" in f for f in json.loads(rows[0]["flags"]))


def test_bad_settings_and_wrong_file(lake, write):
    with pytest.raises(BadInput):
        import_files("worklog", [write("w.csv", WORKLOG)], lake, options={"worklog_roles": {"x": "chef"}})
    with pytest.raises(WrongFileType) as e:
        import_files("worklog", [write("t.csv", "date,person,role,phase,hours\n2026-11-02,a,data_prep,run,1\n")],
                     lake)
    assert "import timesheet" in str(e.value).replace("`", "")


# -- [import.worklog] in the workspace config, the command's options over it ----------------------

NO_LABELS = ("Issue Key,Author,Started,Time Spent (s),Labels\n"
             "LLM-1,alice,2026-11-02T09:00:00+08:00,3600,\n"
             "LLM-2,bob,2026-11-02T10:00:00+08:00,7200,phase:build\n"
             "LLM-3,carol,2026-11-02T11:00:00+08:00,1800,role:vendor\n")
SECTION = '\n[import.worklog]\nroles = { alice = "data_prep", bob = "platform_support" }\nphase = "run"\n'


def _workspace(tmp_path, extra: str):
    from trainledger.service import Workspace

    root = tmp_path / "ws"
    Workspace.init(root).close()
    with open(root / "trainledger.toml", "a", encoding="utf-8") as f:
        f.write(extra)
    return root


def test_the_workspace_section_gives_roles_and_phase(tmp_path, write):
    from trainledger.service import Workspace

    root = _workspace(tmp_path, SECTION)
    with Workspace.open(root) as wsp:
        (r,) = wsp.import_files("worklog", [write("w.csv", NO_LABELS)])
        rows = {x["person"]: (x["role"], x["phase"]) for x in wsp.lake.read("labor_entries").to_pylist()}
    assert (r.accepted, r.quarantined) == (3, 0)
    # the issue's own labels win; the section fills in what they leave open
    assert rows == {"alice": ("data_prep", "run"), "bob": ("platform_support", "build"), "carol": ("vendor", "run")}


def test_the_command_line_goes_over_the_section(tmp_path, write):
    from click.testing import CliRunner

    from trainledger.cli import cli
    from trainledger.service import Workspace

    root = _workspace(tmp_path, SECTION)
    path = write("w.csv", NO_LABELS)
    out = CliRunner().invoke(cli, ["--workspace", str(root), "import", "worklog", str(path), "--json",
                                   "--worklog-role", "alice=business_eval", "--worklog-phase", "rework"])
    assert out.exit_code == 0, out.output
    with Workspace.open(root) as wsp:
        rows = {x["person"]: (x["role"], x["phase"]) for x in wsp.lake.read("labor_entries").to_pylist()}
    assert rows == {"alice": ("business_eval", "rework"), "bob": ("platform_support", "build"),
                    "carol": ("vendor", "rework")}  # bob keeps the section's role: roles merge per author
    bad = CliRunner().invoke(cli, ["--workspace", str(root), "import", "worklog", str(path), "--worklog-role", "x"])
    assert bad.exit_code == 2 and "AUTHOR=ROLE" in bad.output
    other = CliRunner().invoke(cli, ["--workspace", str(root), "import", "timesheet", str(path),
                                     "--worklog-phase", "run"])
    assert other.exit_code == 2 and "--worklog-phase does not apply to `import timesheet`" in other.output


@pytest.mark.parametrize(("extra", "message"), [
    ('\n[import.worklog]\nrole = { a = "vendor" }\n',
     "unknown key import.worklog.role — did you mean import.worklog.roles?"),
    ('\n[import.worklgo]\nphase = "run"\n', "unknown section [import.worklgo] — did you mean [import.worklog]?"),
    ('\n[import.worklog]\nroles = { a = "data-prep" }\n',
     "import.worklog.roles.a: 'data-prep' is not a labor role — did you mean data_prep?"),
    ('\n[import.worklog]\nphase = "runs"\n', "import.worklog.phase: 'runs' is not a labor phase — did you mean run?"),
    ('\n[import.worklog]\nroles = "alice"\n', "import.worklog.roles must be dict"),
])  # fmt: skip
def test_a_bad_section_is_refused_on_load(tmp_path, extra, message):
    from trainledger import workspace
    from trainledger.errors import ConfigError

    root = _workspace(tmp_path, extra)
    with pytest.raises(ConfigError) as e:
        workspace.load(root)
    assert message in str(e.value) and "trainledger.toml" in str(e.value)
