"""Review 8 L7: a `trainledger …` command printed for the user to run names the workspace the
command ran on (``--workspace DIR``, as typed, shell-quoted), so it pastes as printed from the
same directory; never twice, and not for ``init`` / ``demo``. Stored texts stay as recorded."""

from __future__ import annotations

import json
import os
import shlex

import pytest
from click.testing import CliRunner

from tests.configs import ONE_BATCH
from tests.test_import_reread import SACCT
from trainledger.cli import cli
from trainledger.cli.output import runnable
from trainledger.service import Workspace


@pytest.fixture
def here(tmp_path):
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(old)


def run(*args, code=0):
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result.output


def backticked(out):
    return [part for i, part in enumerate(out.split("`")) if i % 2 and part.startswith("trainledger ")]


@pytest.mark.parametrize("name", ["rw", "my ws"])
def test_the_restate_remedy_of_an_import_names_the_workspace_as_typed(here, name):
    Workspace.init(here / name).close()
    (here / "real").mkdir()
    (here / "real" / "sacct.txt").write_text(SACCT, encoding="utf-8")
    run("--workspace", name, "import", "slurm", "real/sacct.txt")
    out = run("--workspace", name, "import", "slurm", "real/sacct.txt", "--tz", "Asia/Shanghai")
    ident = json.loads(run("--workspace", name, "imports", "list", "--json"))[0]["id"]
    want = (f"trainledger --workspace {shlex.quote(name)} import slurm real/sacct.txt --tz Asia/Shanghai"
            f" --replace {ident}")
    assert f"`{want}`" in out
    # the global option after the subcommand counts the same; zh-CN too
    zh = run("import", "slurm", "real/sacct.txt", "--tz", "Asia/Shanghai", "--workspace", name, "--lang", "zh-CN")
    assert "已由导入" in zh and f"`{want}`" in zh
    # JSON is a program's input (equal to the dashboard's): the command as computed
    doc = json.loads(run("--workspace", name, "import", "slurm", "real/sacct.txt", "--tz", "Asia/Shanghai", "--json"))
    assert want.replace(f"--workspace {shlex.quote(name)} ", "") in doc["notices"][0]["text"]
    assert "--workspace" not in doc["notices"][0]["text"]
    # the command as printed runs from here (the pasted remedy of the finding)
    argv = shlex.split(want)[1:]
    assert "3 accepted" in run(*argv, "--reason", "cluster zone")
    # the ledger, audit log and lake keep what was recorded (the import's own command), not what was printed
    stored = [p for p in (here / name).rglob("*") if p.is_file()]
    assert stored and not any(b"--workspace" in p.read_bytes() for p in stored)
    assert any(b"trainledger import slurm" in p.read_bytes() or b"cluster zone" in p.read_bytes() for p in stored)


def test_an_error_remedy_names_the_workspace_in_both_languages(here):
    Workspace.init(here / "rw").close()
    err = run("--workspace", "rw", "sheet", "nosuch", code=2)
    assert "remedy: see `trainledger --workspace rw batch list`" in err
    zh = run("--workspace", "rw", "--lang", "zh-CN", "sheet", "nosuch", code=2)
    assert "解决办法：见 `trainledger --workspace rw batch list`" in zh


def test_in_the_current_directory_the_remedy_is_left_as_it_was(here):
    Workspace.init(here).close()
    for args in (("sheet", "nosuch"), ("--workspace", ".", "sheet", "nosuch"),
                 ("--workspace", str(here), "sheet", "x")):
        out = run(*args, code=2)
        assert "`trainledger batch list`" in out and "--workspace" not in out


def test_never_twice_and_not_for_init_demo_or_estimate_outside_a_workspace(here):
    ws = here / "rw"
    ws.mkdir()
    ctx = type("C", (), {"obj": {"workspace": "rw"}})()
    text = ("run `trainledger --workspace rw attribute`, then `trainledger sheet B --workspace rw`,"
            " `trainledger init rw`, `trainledger demo --dir d`, `trainledger estimate --gpus 8`;"
            " Re-import: trainledger import slurm f --replace X (trainledger imports show X)")
    out = runnable(text, ctx)
    assert out.count("--workspace") == 4
    assert "`trainledger init rw`" in out and "`trainledger demo --dir d`" in out
    assert "`trainledger estimate --gpus 8`" in out  # rw has no trainledger.toml: estimate runs without one
    assert "Re-import: trainledger --workspace rw import slurm f --replace X" in out
    assert "(trainledger --workspace rw imports show X)" in out
    prose = "trainledger reads the lake; src/trainledger sheet"
    assert runnable(prose, ctx) == prose
    Workspace.init(ws).close()
    assert "`trainledger --workspace rw estimate --gpus 8`" in runnable(text, ctx)
    assert runnable("`trainledger --lang zh-CN sheet B`", ctx) == "`trainledger --workspace rw --lang zh-CN sheet B`"
    assert backticked(runnable("`trainledger attribute`", ctx)) == ["trainledger --workspace rw attribute"]


def test_a_workspace_path_is_quoted_for_the_shell(here):
    ctx = type("C", (), {"obj": {"workspace": "a b;rm -rf x"}})()
    out = runnable("run `trainledger attribute`", ctx)
    assert out == "run `trainledger --workspace 'a b;rm -rf x' attribute`"
    assert shlex.split(out.split("`")[1])[:3] == ["trainledger", "--workspace", "a b;rm -rf x"]
    assert runnable(json.dumps({"command": "trainledger attribute"}), ctx) == '{"command": "trainledger attribute"}'


def test_a_sheet_is_printed_as_rendered_but_its_error_names_the_workspace(here):
    Workspace.init(here / "rw").close()
    with open(here / "rw" / "trainledger.toml", "a", encoding="utf-8") as f:
        f.write(ONE_BATCH)
    (here / "sacct.txt").write_text(SACCT, encoding="utf-8")
    run("--workspace", "rw", "import", "slurm", "sacct.txt")
    md = run("--workspace", "rw", "--lang", "en", "sheet", "b1")  # the document the dashboard serves too
    assert "run \\`trainledger attribute\\`" in md and "--workspace" not in md
    err = run("--workspace", "rw", "sheet", "nosuch", code=2)
    assert "`trainledger --workspace rw batch list`" in err
