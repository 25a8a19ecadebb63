"""The one mapping format (ingest/mapfile.py): every preset in it, one loader for every mapped
kind, errors that name the file, the key, the closest name and the remedy, and old-format files
read translated with a note saying how to rewrite them."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from tests.ingest.ingest_helpers import DATA, run

from trainledger.cli import cli
from trainledger.errors import BadInput
from trainledger.ingest import IMPORTERS, import_files, importer_for
from trainledger.ingest.mapfile import TABLES, load, mapped_kind, parse, preset_texts, presets

PRESETS = {
    "alibaba-openb-2023": "jobs", "slurm-trace": "jobs", "helios": "occupancy", "philly": "occupancy",
    "alibaba-pai-2020": "worker_steps", "aliyun-split-bill": "bill_lines",
    "huawei-resource-bill": "bill_lines", "volcengine-bill": "bill_lines", "wandb-history": "progress_events",
    "openb-nodes": "capacity", "helios-gpus": "capacity", "philly-vc": "capacity",
}  # fmt: skip


def test_every_preset_is_one_file_of_the_one_format():
    got = {n: m.table for n, m in presets().items()}
    assert got == PRESETS
    for name, m in presets().items():
        assert m.name == name and not m.legacy, name  # no preset relies on an old spelling
    # the kinds with a fixed preset name one that exists
    fixed = {imp.kind: imp.preset for imp in IMPORTERS if getattr(imp, "preset", None)}
    assert set(fixed.values()) <= set(PRESETS)
    # every mapping table has the kind that reads it through a mapping, and that kind fills it
    assert {t: importer_for(mapped_kind(t)).table for t in TABLES} == {t: t for t in TABLES}


def test_the_cn_bill_presets_say_where_their_columns_come_from():
    for name in ("aliyun-split-bill", "huawei-resource-bill", "volcengine-bill"):
        m = presets()[name]
        assert "https://" in m.source and "20" in m.source, name  # a URL and the date it was read
        mapped = {s for c in m.columns for s in c.sources + c.fallback}
        assert set(m.unverified) <= mapped | {s for g in m.period.values() for s in g}, name


def _err(text: str, table: str | None = None) -> BadInput:
    with pytest.raises(BadInput) as e:
        parse(text, "my.toml", table)
    return e.value


@pytest.mark.parametrize(("text", "key", "hint"), [
    ('table = "jobs"\ncolums = {}\n', "colums", "did you mean columns?"),
    ('table = "bill_lines"\n[columns]\nbilled_cots = ["x"]\n', "columns.billed_cots", "did you mean billed_cost?"),
    ('table = "jobs"\n[time]\nzoen = "UTC"\n[columns]\njob_id = "id"\n', "time.zoen", "did you mean zone?"),
    ('table = "jobs"\n[time]\nunit = "mins"\n[columns]\njob_id = "id"\n', "time.unit", "did you mean min?"),
    ('table = "job"\n[columns]\njob_id = "id"\n', "table", "did you mean jobs?"),
    ('table = "bill_lines"\n[columns]\nbilled_cost = { from = "x", type = "decimall" }\n', "columns.billed_cost.type",
     "did you mean decimal?"),
    ('table = "bill_lines"\n[columns]\nbilled_cost = { form = "x" }\n', "columns.billed_cost.form",
     "did you mean from?"),
    ('table = "jobs"\nzone = "UTC"\n[columns]\njob_id = "id"\n', "zone", "[time] zone"),
])  # fmt: skip
def test_a_bad_key_names_the_file_the_key_and_the_closest_name(text, key, hint):
    e = _err(text)
    assert e.path == "my.toml" and f"my.toml: {key}: " in str(e)
    assert hint in str(e) and e.remedy


@pytest.mark.parametrize(("text", "what"), [
    ('table = "jobs"\n[period]\nday = ["d"]\n[columns]\njob_id = "id"\n', "period: does not apply to table jobs"),
    ('table = "jobs"\n[columns]\ngpus = { from = "g", scale = "2" }\n', "does not apply to the job tables"),
    ('table = "jobs"\n[columns]\nuser = { from = "u", map = { a = "b" } }\n', "only the state column"),
    ('table = "bill_lines"\n[columns]\nbilled_cost = { from = "t", type = "time", unit = "s" }\n',
     "needs an origin"),
    ('table = "bill_lines"\n[time]\nzone = "Mars/Olympus"\n', "unknown time zone"),
    ('table = "bill_lines"\n[time]\norigin = "2020-01-01T00:00:00"\n', "has no UTC offset"),
    ('table = "bill_lines"\n[finalised]\nday = 40\n', "day is 1-28"),
    ('table = "bill_lines"\n[[notes]]\ntext = "x"\nwhen = "sometimes"\n', "when = always, decimals_over or missing"),
    ('table = "jobs"\n[columns]\n', "columns: is empty"),
    ("table = [", "not TOML"),
])  # fmt: skip
def test_other_mistakes_are_bad_input_naming_the_key(text, what):
    assert what in str(_err(text))


def test_a_wrong_preset_name_suggests_and_lists_the_presets(lake, write):
    path = write("log.csv", "job_id,gpu_num\n1,1\n")
    with pytest.raises(BadInput, match="did you mean slurm-trace") as e:
        import_files("jobs", [path], lake, options={"preset": "slurm-trac"})
    assert "slurm-trace (jobs)" in e.value.remedy and "alibaba-openb-2023 (jobs)" in e.value.remedy
    assert "helios" not in e.value.remedy  # only the presets this kind can read
    with pytest.raises(BadInput, match="preset helios fills table occupancy") as e:
        import_files("jobs", [path], lake, options={"preset": "helios"})
    assert "trainledger import occupancy --preset helios" in e.value.remedy
    with pytest.raises(BadInput, match="needs a mapping") as e:
        import_files("mapped_bills", [path], lake, options={})
    assert "aliyun-split-bill (bill_lines)" in e.value.remedy


def test_every_mapped_kind_takes_preset_and_mapping():
    for imp in IMPORTERS:
        takes = set(getattr(imp, "options_used", ()))
        if getattr(imp, "mapping_table", None) or getattr(imp, "generic", False):
            assert {"preset", "mapping"} <= takes, imp.kind


AMOUNT = ("Node,From,To,Amount (fen)\n"
          "n1,2026/11/02 08:00,2026/11/02 09:00,8000\nn2,2026/11/02 09:00,2026/11/02 10:00,150\n")
OLD_BILL = """
name = "fen-bill"
table = "bill_lines"
timezone = "Asia/Shanghai"
[columns]
resource_id = ["Node"]
billed_cost = { from = ["Amount (fen)"], type = "decimal", scale = "0.01" }
charge_period_start = { from = ["From"], type = "time" }
charge_period_end = { from = ["To"], type = "time" }
[constants]
currency = "CNY"
"""
NEW_BILL = OLD_BILL.replace('timezone = "Asia/Shanghai"\n', "").replace(
    "[columns]", '[time]\nzone = "Asia/Shanghai"\n[columns]')


def _rows(lake, table):
    return [{k: v for k, v in r.items() if k != "source_sha256"} for r in lake.read(table).to_pylist()]


def test_an_old_bill_mapping_reads_as_its_rewrite(tmp_path, write):
    from trainledger.lake import Lake

    old = load({"mapping": str(write("old.toml", OLD_BILL))}, ("bill_lines",), "mapped_bills")
    assert old.legacy == ('timezone = "Asia/Shanghai" is the old spelling: write [time] zone = "Asia/Shanghai"',)
    assert not parse(NEW_BILL, "new.toml").legacy
    lakes = []
    for name, text in (("old.toml", OLD_BILL), ("new.toml", NEW_BILL)):
        lake = Lake(tmp_path / name)
        r = run("mapped_bills", write("b.csv", AMOUNT), lake, mapping=str(write(name, text)))
        assert r.accepted == 2
        lakes.append(_rows(lake, "bill_lines"))
    assert lakes[0] == lakes[1]
    assert [str(r["charge_period_start"]) for r in lakes[0]][0] == "2026-11-02 00:00:00+00:00"  # Beijing 08:00


OLD_JOBS = """
name = "attempts"
table = "jobs"
notes = "what the columns mean"
[time]
format = "iso"
tz = "Asia/Shanghai"
[columns]
job_id = "id"
start = "started"
end = "ended"
state = "status"
[states]
ok = "COMPLETED"
"""
NEW_JOBS = """
name = "attempts"
table = "jobs"
caveats = "what the columns mean"
[time]
format = "iso"
zone = "Asia/Shanghai"
[columns]
job_id = ["id", "JobID"]
start = "started"
end = "ended"
state = { from = "status", map = { OK = "COMPLETED" } }
"""
JOBS = "id,started,ended,status\n7,2026-01-01 08:00:00,2026-01-01 09:00:00,Ok\n8,2026-01-01 08:00:00,,Running\n"


def test_an_old_job_mapping_reads_as_its_rewrite(tmp_path, write):
    from trainledger.lake import Lake

    old = parse(OLD_JOBS, "old.toml")
    assert [n.split(" is the old")[0] for n in old.legacy] == [
        '[time] tz = "Asia/Shanghai"', "[states]", 'notes = "…" (text)']
    assert old.caveats == "what the columns mean" and old.column("state").values == {"ok": "COMPLETED"}
    got = []
    for name, text in (("old.toml", OLD_JOBS), ("new.toml", NEW_JOBS)):
        lake = Lake(tmp_path / name)
        run("jobs", write("j.csv", JOBS), lake, mapping=str(write(name, text)))
        got.append([(r["job_id"], r["state"], str(r["start"]), r["flags"]) for r in lake.read("jobs").to_pylist()])
    assert got[0] == got[1] == [
        ("7", "COMPLETED", "2026-01-01 00:00:00+00:00", "[]"),
        ("8", "RUNNING", "2026-01-01 00:00:00+00:00",
         json.dumps(["state 'Running' is not in the mapping's state vocabulary (columns.state.map)"])),
    ]


def test_the_cli_says_how_to_rewrite_an_old_mapping(tmp_path):
    ws = tmp_path / "ws"
    runner = CliRunner()
    assert runner.invoke(cli, ["init", str(ws)]).exit_code == 0
    (tmp_path / "old.toml").write_text(OLD_BILL, encoding="utf-8")
    (tmp_path / "b.csv").write_text(AMOUNT, encoding="utf-8")
    out = runner.invoke(cli, ["--workspace", str(ws), "import", "mapped_bills", str(tmp_path / "b.csv"),
                              "--mapping", str(tmp_path / "old.toml"), "--json"], catch_exceptions=False)
    assert out.exit_code == 0 and json.loads(out.stdout)["accepted"] == 2
    assert "old mapping format" in out.stderr and '[time] zone = "Asia/Shanghai"' in out.stderr
    out = runner.invoke(cli, ["--workspace", str(ws), "import", "jobs", str(tmp_path / "b.csv"),
                              "--preset", "openb"])
    assert out.exit_code == 2 and "alibaba-openb-2023 (jobs)" in out.output


def test_a_generic_kind_reads_a_preset_as_the_vendor_kind_does(tmp_path, write):
    from tests.ingest.test_ingest_cn_bills import ALIYUN

    from trainledger.lake import Lake

    rows = []
    for kind, opts in (("aliyun", {}), ("mapped_bills", {"preset": "aliyun-split-bill"}),
                       ("mapped_bills", {"mapping": "aliyun-split-bill"})):
        lake = Lake(tmp_path / f"{kind}{len(rows)}")
        run(kind, write("a.csv", ALIYUN), lake, import_date="2026-12-01", **opts)
        rows.append([{k: v for k, v in r.items() if k != "source"} for r in _rows(lake, "bill_lines")])
    assert rows[0] and rows[0] == rows[1] == rows[2]


def test_the_real_traces_read_through_their_presets(lake):
    r = run("jobs", DATA / "alibaba-openb-gpu-v2023" / "openb_pod_list_default.csv", lake,
            preset="alibaba-openb-2023")
    assert r.accepted == r.rows_read and r.quarantined == 0
    assert preset_texts().keys() == PRESETS.keys()


def test_the_lake_s_own_columns_are_no_mapping_targets():
    e = _err('table = "bill_lines"\n[columns]\nrow_hash = ["h"]\n')
    assert "bill_lines has no field 'row_hash'" in str(e) and "row_hash" not in e.remedy
    assert "billed_cost" in e.remedy


def test_trainledger_presets_lists_what_the_loader_reads():
    runner = CliRunner()
    out = runner.invoke(cli, ["presets", "--json"])
    rows = {r["preset"]: r for r in json.loads(out.stdout)}
    assert {n: r["table"] for n, r in rows.items()} == PRESETS
    assert rows["huawei-resource-bill"]["kinds"] == ["huawei", "mapped_bills"]
    assert rows["helios"]["kinds"] == ["occupancy"]
    assert rows["aliyun-split-bill"]["unverified"] == ["官网单价", "账单日期", "BillingCycle"]
    text = runner.invoke(cli, ["presets", "helios"]).stdout
    assert parse(text, "copy.toml").columns == presets()["helios"].columns  # a start for your own
    bad = runner.invoke(cli, ["presets", "helio"])
    assert bad.exit_code == 2 and "did you mean helios?" in bad.output
