"""docs/first-hour.md runs as written: its commands, in order, print the lines it shows.

Every fenced ``sh`` block is a step; the ``text`` block right after it is that step's expected
output, abridged: each of its lines must appear (blanks collapsed) in what the step printed.
Steps run in one temporary directory holding a copy of ``docs/first-hour/``, through the click
CLI in-process (``trainledger ...``) or ``cp``. The zh-CN guide must give the same commands.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli

DOCS = Path(__file__).resolve().parents[1] / "docs"
GUIDE = DOCS / "first-hour.md"
GUIDE_ZH = DOCS / "first-hour.zh-CN.md"
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def _blocks(path: Path) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in _FENCE.finditer(path.read_text(encoding="utf-8"))]


def steps(path: Path) -> list[tuple[list[str], list[str]]]:
    """(command lines, expected lines) per ``sh`` block, in the guide's order."""
    blocks = _blocks(path)
    out: list[tuple[list[str], list[str]]] = []
    for i, (lang, body) in enumerate(blocks):
        if lang != "sh":
            continue
        commands = [ln.split("  #")[0].strip() for ln in body.splitlines()]
        commands = [c for c in commands if c and not c.startswith("#")]
        expected: list[str] = []
        if i + 1 < len(blocks) and blocks[i + 1][0] == "text":
            expected = [ln for ln in blocks[i + 1][1].splitlines() if ln.strip()]
        out.append((commands, expected))
    return out


def _norm(text: str) -> str:
    return re.sub(r"[ \t]+", " ", text)


def run_step(commands: list[str], cwd: Path) -> str:
    """Run one step's commands; return everything they printed. A failing command fails."""
    printed = []
    for line in commands:
        argv = shlex.split(line)
        if argv[0] == "cp":
            assert len(argv) == 3, line
            shutil.copy(cwd / argv[1], cwd / argv[2])
            continue
        assert argv[0] == "trainledger", f"the guide may only use trainledger and cp: {line}"
        result = CliRunner().invoke(cli, argv[1:], prog_name="trainledger")
        assert result.exit_code == 0, f"{line}\n{result.output}\n{result.exception!r}"
        printed.append(result.output)
    return "".join(printed)


def test_the_guide_has_steps_with_expected_output():
    found = steps(GUIDE)
    assert len(found) >= 6
    assert all(expected for _, expected in found), "every step shows its expected output"
    assert any("import focus" in c for cmds, _ in found for c in cmds)
    assert any("--scenario owned" in c for cmds, _ in found for c in cmds)


def test_the_zh_cn_guide_gives_the_same_commands():
    assert [c for c, _ in steps(GUIDE_ZH)] == [c for c, _ in steps(GUIDE)]


def test_the_guide_runs_and_prints_what_it_shows(tmp_path, monkeypatch):
    shutil.copytree(DOCS / "first-hour", tmp_path / "docs" / "first-hour")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRAINLEDGER_WORKSPACE", raising=False)
    missing = []
    for commands, expected in steps(GUIDE):
        printed = _norm(run_step(commands, tmp_path))
        missing += [(commands[-1], ln) for ln in expected if _norm(ln).strip() not in printed]
    assert not missing, "\n".join(f"{cmd}: missing {ln!r}" for cmd, ln in missing)


def test_the_checker_sees_a_wrong_figure(tmp_path, monkeypatch):
    """The comparison is not vacuous: a figure the step does not print is reported."""
    shutil.copytree(DOCS / "first-hour", tmp_path / "docs" / "first-hour")
    monkeypatch.chdir(tmp_path)
    printed = _norm(run_step(["trainledger init x --currency CNY"], tmp_path))
    assert "workspace ready: x" in printed
    assert _norm("workspace ready: y").strip() not in printed


@pytest.mark.parametrize("name", ["sacct.txt", "bill.csv", "trainledger.toml"])
def test_the_guide_links_its_input_files(name):
    assert (DOCS / "first-hour" / "slurm-cloud" / name).is_file()
    assert f"first-hour/slurm-cloud/{name}" in GUIDE.read_text(encoding="utf-8")
