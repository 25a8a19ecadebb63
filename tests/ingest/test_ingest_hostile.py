"""Values no importer may crash on (issue #6, items 2 and 3): each is quarantined alone with a
reason, or the file is refused with a BadInput naming it; the good rows stay; and
accepted + duplicates + quarantined = rows read. Each case was a traceback before."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow as pa
import pytest

from trainledger.errors import BadInput
from trainledger.ingest import import_files
from trainledger.ingest.convert import decimal_text, integer, money_text
from trainledger.lake import Lake
from trainledger.lake.schemas import JOBS, row_problem

SACCT = (
    "JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|"
    "AllocTRES|NodeList|Restarts\n"
)
JOB = (
    "{id}|sft|ml|b1||u|{submit}|2026-11-03T10:02:11|2026-11-03T10:02:13|2026-11-03T10:09:44|"
    "COMPLETED|0:0|billing=64,cpu=64,gres/gpu:h800={gpus},node=1|gpu-node-01|{restarts}\n"
)
INVOICES = "invoice_id,vendor,date,amount,currency,stage\n"
STORAGE = "path,size_bytes,storage_class,snapshot_date\n"
TIMESHEET = "date,person,role,activity,phase,hours\n"
HUGE = "9" * 30


def job(i: int, submit: str = "2026-11-03T10:02:11", gpus: str = "8", restarts: str = "0") -> str:
    return JOB.format(id=48100 + i, submit=submit, gpus=gpus, restarts=restarts)


def imp(kind: str, path: Path, lake: Lake, **options: object):
    (r,) = import_files(kind, [path], lake, options=options)
    assert r.accepted + r.duplicates + r.quarantined == r.rows_read
    return r


def reasons(lake: Lake, kind: str, r) -> dict[int, str]:
    return {q["row"]: q["reason"] for q in lake.quarantine(kind, r.sha256)}


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        (job(2, restarts=HUGE), "Restarts: implausible magnitude"),
        (job(2, gpus=HUGE), "is not a GPU count"),
        (job(2, gpus="٨"), "is not a GPU count"),  # an Arabic-Indic eight
        (job(2, submit="0001-01-01T00:00:00"), "Submit: 0001-01-01T00:00:00"),
        (job(2, submit="0001-01-01T00:00:00+08:00"), "outside years 1-9999"),
    ],
)
def test_slurm_quarantines_the_one_row(lake, write, bad, why):
    path = write("sacct.txt", SACCT + job(1) + bad + job(3))
    r = imp("slurm", path, lake, tz="Asia/Shanghai")
    assert (r.rows_read, r.accepted, r.quarantined) == (3, 2, 1)
    assert why in reasons(lake, "slurm", r)[2]


@pytest.mark.parametrize(
    ("amount", "why"),
    [
        ("1E5", "written with an exponent (write 100000)"),
        ("4.8e4", "written with an exponent (write 48000)"),
        ("1E999999999", "written with an exponent"),
        ("1E-999999999", "written with an exponent"),
        ("1" * 16 + ".00", "has 16 integer digits (the most trainledger reads is 15)"),
        ("9" * 1_000_000, "more than 64 characters"),
        ("0." + "0" * 100 + "1", "more than 64 characters"),
        ("٢٨٨.٠٠", "digits that are not ASCII 0-9"),
        ("２８８", "digits that are not ASCII 0-9"),  # full-width
    ],
)
def test_implausible_amounts_are_quarantined(lake, write, amount, why):
    rows = [f"I{i},V,2026-11-06,{a},CNY,delivery\n" for i, a in enumerate(["1.00", amount, "2"])]
    r = imp("invoice", write("inv.csv", INVOICES + "".join(rows)), lake)
    assert (r.rows_read, r.accepted, r.quarantined) == (3, 2, 1)
    assert why in reasons(lake, "invoice", r)[2]
    assert sorted(lake.read("external_services").column("amount").to_pylist()) == ["1.00", "2"]


def test_quarantined_values_say_what_to_do(lake, write):
    rows = ["I1,V,2026-11-06,4.8E4,CNY,delivery\n", "I2,V,2026-11-06,١٢,CNY,delivery\n",
            f"I3,V,2026-11-06,{'9' * 17},CNY,delivery\n"]
    r = imp("invoice", write("inv.csv", INVOICES + "".join(rows)), lake)
    remedies = [q["remedy"] for q in lake.quarantine("invoice", r.sha256)]
    assert remedies == ["write it as 48000", "write the digits as ASCII 0-9",
                        "check the value in the source system; a number this large is an export fault"]


def test_the_largest_plausible_amount_is_read_exactly():
    assert money_text("999999999999999.999999") == "999999999999999.999999"
    assert money_text("-0.00") == "0.00"
    with pytest.raises(ValueError, match="16 integer digits"):
        money_text("-1000000000000000")
    # a quantity may use an exponent (1E-7 of a request), within bounds
    assert decimal_text("1E+3") == "1000"
    with pytest.raises(ValueError, match="integer digits"):
        decimal_text("1E+40")


def test_integers_fit_64_bits():
    assert integer(str((1 << 63) - 1)) == (1 << 63) - 1
    for bad in (str(1 << 63), 1 << 64, 1e300, "٣"):
        with pytest.raises(ValueError):
            integer(bad)


def test_storage_size_beyond_64_bits(lake, write):
    body = f"s3://b/a,10,checkpoint,2026-11-22\ns3://b/c,{HUGE},checkpoint,2026-11-22\n"
    r = imp("storage", write("inv.csv", STORAGE + body), lake)
    assert (r.rows_read, r.accepted, r.quarantined) == (2, 1, 1)
    assert "size_bytes: implausible magnitude" in reasons(lake, "storage", r)[2]


def test_progress_counters_beyond_64_bits(lake, write):
    lines = [
        {"ts": "2026-11-03T10:00:00+08:00", "run": "r", "event": "step", "step": 1, "tokens": 5},
        {"ts": "2026-11-03T10:01:00+08:00", "run": "r", "event": "step", "step": 2, "tokens": 10**30},
        {"ts": "2026-11-03T10:02:00+08:00", "run": "r", "event": "step", "step": 10**19},
        {"ts": "0001-01-01T00:00:00+08:00", "run": "r", "event": "start"},
    ]
    text = "".join(json.dumps(x) + "\n" for x in lines) + "   \n\t\n"
    r = imp("progress", write("p.jsonl", text), lake)
    assert (r.rows_read, r.accepted, r.quarantined) == (4, 1, 3)
    why = reasons(lake, "progress", r)
    assert "tokens: implausible magnitude" in why[2] and "step:" in why[3]
    assert "outside years 1-9999" in why[4]


def test_whitespace_only_lines_are_not_rows(lake, write):
    text = INVOICES + "   \nI1,V,2026-11-06,1.00,CNY,delivery\n \t \n\nI2,V,2026-11-06,2,CNY,ongoing\n  "
    r = imp("invoice", write("inv.csv", text), lake)
    assert (r.rows_read, r.accepted, r.quarantined) == (2, 2, 0)


@pytest.mark.parametrize("cut", [1, 3, 101])
def test_truncated_utf16_file_is_refused_by_name(lake, write, cut):
    text = TIMESHEET + "2026-11-02,chen.hao,platform_support,env,build,7.5\n" * 3
    data = text.encode("utf-16")
    data = data[: len(data) - cut] if cut != 101 else data[:101]
    path = write("ts.csv", data)
    with pytest.raises(BadInput, match="looks truncated") as e:
        imp("timesheet", path, lake)
    assert str(path) in str(e.value) and "export or copy the file again" in str(e.value)


def test_a_value_the_lake_types_refuse_is_quarantined_not_a_crash():
    """The driver's last line of defence: a normalised row that does not fit the table."""
    row = {f.name: None for f in JOBS}
    assert row_problem({**row, "gpus": 8}, JOBS) is None
    problem = row_problem({**row, "gpus": 1 << 70}, JOBS)
    assert problem is not None and problem.startswith("gpus: ") and "int64" in problem
    with pytest.raises((OverflowError, pa.ArrowException)):
        pa.RecordBatch.from_pylist([{**row, "gpus": 1 << 70}], schema=JOBS)


def test_driver_quarantines_a_row_the_batch_builder_refuses(lake, write, monkeypatch):
    from trainledger.ingest import slurm

    real = slurm.gpus_of

    def huge_for_one(tres):
        n, t, notes = real(tres)
        return (1 << 70 if n == 4 else n), t, notes

    monkeypatch.setattr(slurm, "gpus_of", huge_for_one)
    path = write("sacct.txt", SACCT + job(1) + job(2, gpus="4") + job(3))
    r = imp("slurm", path, lake, tz="Asia/Shanghai")
    assert (r.rows_read, r.accepted, r.quarantined) == (3, 2, 1)
    assert "does not fit the lake's int64 column" in reasons(lake, "slurm", r)[2]
    assert lake.read("jobs").column("gpus").to_pylist() == [8, 8]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32"])
def test_a_wrong_utf16_encoding_option_is_refused_by_name(lake, write, encoding):
    path = write("inv.csv", INVOICES + "I1,V,2026-11-06,1.00,CNY,delivery\n")  # ASCII, odd length
    with pytest.raises(BadInput, match="encoding") as e:
        imp("invoice", path, lake, encoding=encoding)
    assert str(path) in str(e.value)


def test_slurm_tz_option_is_matched_case_insensitively(lake, write):
    path = write("sacct.txt", SACCT + job(1))
    r = imp("slurm", path, lake, tz="asia/shanghai")
    assert r.accepted == 1
    assert lake.read("jobs").column("submit").to_pylist()[0].isoformat() == "2026-11-03T02:02:11+00:00"
    with pytest.raises(BadInput, match="did you mean Asia/Shanghai"):
        imp("slurm", path, lake, tz="Asia/Shangai")


DEEP = "[" * 100_000 + "]" * 100_000
START = '{"ts": "2026-11-03T10:00:00+08:00", "run": "r", "event": "start"'


@pytest.mark.parametrize(("line", "why"), [
    (DEEP, "nested too deeply"),
    (START + ', "x": ' + DEEP + "}", "nested too deeply"),
    (START + ', "step": ' + "9" * 5000 + "}", "not JSON trainledger can read"),  # Python's 4,300-digit limit
])
def test_json_no_parser_reads_is_quarantined(lake, write, line, why):
    r = imp("progress", write("p.jsonl", START + "}\n" + line + "\n" + START + "}\n"), lake)
    assert (r.rows_read, r.accepted, r.quarantined) == (3, 2, 1)
    assert why in reasons(lake, "progress", r)[2]


def test_focus_tags_nested_too_deeply_are_kept_as_text(lake, write):
    head = "BilledCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,Tags\n"
    deep = '"' + '{""a"":' * 50_000 + "1" + "}" * 50_000 + '"'
    r = imp("focus", write("b.csv", head + f"1.00,USD,2026-11-01,2026-11-02,{deep}\n"), lake)
    assert (r.rows_read, r.accepted) == (1, 1)
    assert "Tags is not JSON" in lake.read("bill_lines").column("flags").to_pylist()[0]


def test_a_hostlist_of_many_large_ranges_is_refused_not_expanded():
    from trainledger.ingest.slurm import expand_hostlist

    with pytest.raises(ValueError, match="too large"):
        expand_hostlist("n[" + ",".join(["1-9000"] * 2000) + "]")  # 18M hosts, 9,000 per range
    assert expand_hostlist("gpu-node-[01-03]") == ["gpu-node-01", "gpu-node-02", "gpu-node-03"]


@pytest.mark.parametrize("amount, zh", [("1E5", "'1E5' 用了指数写法（应写作 100000）；金额应是普通十进制数"),
                                        ("1E999999999", "'1E999999999' 用了指数写法；金额应是普通十进制数")])
def test_the_exponent_reason_reads_in_one_language(lake, write, amount, zh):
    """Review 7 L8: the Chinese reason carried "(write 100000)" in English inside it."""
    from trainledger.i18n import localize

    rows = [f"I{i},V,2026-11-06,{a},CNY,delivery\n" for i, a in enumerate(["1.00", amount])]
    r = imp("invoice", write("inv.csv", INVOICES + "".join(rows)), lake)
    why = reasons(lake, "invoice", r)[2]
    assert zh in localize(why, "zh-CN")
    assert not re.search(r"[a-z]{3,}", localize(why, "zh-CN").replace("amount", "")), localize(why, "zh-CN")
