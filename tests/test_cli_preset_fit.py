"""Wrong files for mapped kinds and the zone of a trace's times (review 5 J9).

A file given to a mapped kind under a preset it does not fit is tried against every built-in preset
of every mapped kind, and the remedy is the command that reads it. A mapped import without --tz does
not take ``[sources.slurm] timezone`` (sacct's zone says nothing of a Philly trace): the mapping's own
``[time] source_zone``, else UTC said to be assumed — and the hint never suggests the zone it used.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.service import Workspace

DATA = Path(__file__).parent / "data"
OPENB = DATA / "alibaba-openb-gpu-v2023" / "openb_pod_list_default.csv"
PHILLY = DATA / "philly" / "philly_node_sequence.csv"
SEQ = "time,active,total\n2017-10-03 00:00:00,312,420\n2017-10-03 00:01:00,309,420\n"


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def ws(tmp_path):
    """A workspace whose sacct zone is Beijing's (the reviewer's)."""
    root = tmp_path / "ws"
    Workspace.init(root).close()
    toml = root / "trainledger.toml"
    toml.write_text(toml.read_text().replace('timezone = "UTC"', 'timezone = "Asia/Shanghai"', 1))
    assert 'timezone = "Asia/Shanghai"' in toml.read_text()
    return root


@pytest.mark.parametrize(("kind", "path", "preset", "fits", "command"), [
    ("occupancy", OPENB, "helios", "alibaba-openb-2023", "trainledger import jobs"),
    ("steps", PHILLY, "alibaba-pai-2020", "philly", "trainledger import occupancy"),
    ("jobs", PHILLY, "slurm-trace", "philly", "trainledger import occupancy"),
    ("mapped_bills", PHILLY, "huawei-resource-bill", "philly", "trainledger import occupancy"),
])
def test_a_wrong_file_names_the_preset_that_fits(ws, kind, path, preset, fits, command, tmp_path):
    small = tmp_path / path.name  # the file's header and a few rows: what the check reads
    small.write_text("".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[:4]), encoding="utf-8")
    for lang, word in (("en", "remedy"), ("zh-CN", "解决办法")):
        vc = ("--set", "vc=x") if kind == "occupancy" else ()
        got = invoke("--workspace", ws, "--lang", lang, "import", kind, small, "--preset", preset, *vc)
        assert got.exit_code != 0, got.output
        remedy = next(ln for ln in got.output.splitlines() if word in ln)
        runnable = command.replace("trainledger", f"trainledger --workspace {ws}")  # as it pastes (review 8 L7)
        assert f"{runnable} {small} --preset {fits}" in remedy, got.output
        assert "--mapping" not in remedy
    assert not json.loads(invoke("--workspace", ws, "imports", "list", "--json").output)  # nothing imported


def _first_ts(root: Path, kind_table: str = "occupancy") -> str:
    with Workspace.open(root) as wsp:
        return wsp.lake.read(kind_table).column("ts")[0].as_py().isoformat()


def test_philly_without_tz_is_assumed_utc_not_the_sacct_zone(ws, tmp_path):
    src = tmp_path / "philly.csv"
    src.write_text(SEQ, encoding="utf-8")
    out = invoke("--workspace", ws, "--lang", "en", "import", "occupancy", src, "--preset", "philly").output
    note = next(ln for ln in out.splitlines() if ln.startswith("(times without an offset"))
    assert "read as UTC, assumed" in note and "e.g. --tz Asia/Shanghai" in note, note
    assert _first_ts(ws) == "2017-10-03T00:00:00+00:00"  # not 2017-10-02T16:00Z (Beijing)
    (rec,) = json.loads(invoke("--workspace", ws, "imports", "list", "--json").output)
    assert rec["options"]["tz"] == "UTC"
    zh = invoke("--workspace", ws, "--lang", "zh-CN", "import", "occupancy", src, "--preset", "philly").output
    assert "按 UTC 读取，这是假定" in zh and "例如 --tz Asia/Shanghai" in zh


def test_the_hint_never_suggests_the_zone_used(ws, tmp_path):
    from trainledger.cli.ledger_cmds import _zone_note

    class Ctx:  # what the note's catalogue lookup reads of click's context
        obj = {"lang": "en"}

    mapping = tmp_path / "beijing.toml"
    mapping.write_text('name = "bj"\ntable = "occupancy"\nunit = "node"\ninterval_s = 60\n'
                       'signature = ["time", "active", "total"]\n'
                       '[columns]\nts = "time"\nrunning = "active"\ntotal = "total"\n', encoding="utf-8")
    note = _zone_note(Ctx(), "occupancy", {"mapping": str(mapping), "tz": None}, None)
    assert "read as UTC" in note and "--tz UTC" not in note
    import trainledger.ingest.preset_fit as fit

    assert fit.mapped_zone("occupancy", {"mapping": str(mapping)}) == ("UTC", "assumed")


def test_a_mapping_may_carry_its_sources_zone_and_tz_overrides_it(ws, tmp_path):
    src = tmp_path / "seq.csv"
    src.write_text(SEQ, encoding="utf-8")
    mapping = tmp_path / "tokyo.toml"
    mapping.write_text('name = "tokyo-seq"\ntable = "occupancy"\nunit = "node"\ninterval_s = 60\n'
                       'signature = ["time", "active", "total"]\n[time]\nformat = "iso"\n'
                       'source_zone = "Asia/Tokyo"\n[columns]\nts = "time"\nrunning = "active"\ntotal = "total"\n',
                       encoding="utf-8")
    out = invoke("--workspace", ws, "--lang", "en", "import", "occupancy", src, "--mapping", mapping).output
    assert "read as Asia/Tokyo, the zone" in out and "--tz Asia/Tokyo" not in out, out
    assert _first_ts(ws) == "2017-10-02T15:00:00+00:00"  # 00:00 in Tokyo
    other = tmp_path / "seq2.csv"
    other.write_text(SEQ.replace("2017-10-03", "2017-10-04"), encoding="utf-8")
    out = invoke("--workspace", ws, "import", "occupancy", other, "--mapping", mapping, "--tz", "UTC").output
    assert "the zone --tz gave" in out
    with Workspace.open(ws) as wsp:
        stamps = {t.isoformat() for t in wsp.lake.read("occupancy").column("ts").to_pylist()}
    assert "2017-10-04T00:00:00+00:00" in stamps
