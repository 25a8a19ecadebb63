"""CLI conventions every command shares: exit codes, no traceback for a user mistake, global options
before or after the subcommand, empty values refused, grouped warnings, --quiet / --verbose, lazy
command loading. The command list comes from the registry, so a new command is covered (or this
suite says which case it lacks)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import trainledger
from tests.configs import ONE_BATCH
from trainledger.cli import COMMANDS, cli
from trainledger.cli import output as out
from trainledger.cli.lazy import load

SRC = Path(trainledger.__file__).resolve().parents[1]
JOB = ("{id}|sft|ml|b1||li|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T08:10:00|2026-11-02T10:10:00"
       "|COMPLETED|0:0|gres/gpu=8,node=1|gpu-node-01|0\n")
HEADER = ("JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|NodeList"
          "|Restarts\n")


def run(*args, **kw):
    return CliRunner().invoke(cli, [str(a) for a in args], prog_name="trainledger", **kw)


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    assert run("init", root).exit_code == 0
    cfg = root / "trainledger.toml"
    cfg.write_text(cfg.read_text(encoding="utf-8") + ONE_BATCH, encoding="utf-8")
    return root


def leaves(cmd: click.Command, path: tuple[str, ...]):
    """(argv prefix, command) for every runnable command under ``cmd``."""
    if isinstance(cmd, click.Group):
        for name, sub in cmd.commands.items():
            yield from leaves(sub, (*path, name))
    else:
        yield path, cmd


def every_command():
    for name, target, _ in COMMANDS:
        yield from leaves(cli.get_command(click.Context(cli), name) or load(target), (name,))


# --- one bad-argument case per registered command: exit 2 and the remedy, never a traceback --------

def bad_cases(ws: Path, tmp: Path) -> dict[str, tuple[list, str]]:
    a_file = tmp / "a-file"
    a_file.write_text("x", encoding="utf-8")
    full = tmp / "full"
    full.mkdir(exist_ok=True)
    (full / "other").write_text("x", encoding="utf-8")
    return {
        "init": (["init", a_file / "sub"], "a part of the path is a file"),
        "import": (["--workspace", ws, "import", "focus", a_file, "--tz", "UTC"], "--tz does not apply"),
        "attribute": (["attribute", "--workspace", tmp / "nowhere"], "run `trainledger init` there"),
        "batch": (["batch", "list", "--workspace", tmp / "nowhere"], "run `trainledger init` there"),
        "audit": (["--workspace", tmp / "nowhere", "audit"], "run `trainledger init` there"),
        "sheet": (["--workspace", ws, "sheet", "no-such-batch"], f"see `trainledger --workspace {ws} batch list`"),
        "demo": (["demo", "--dir", full], "choose a new directory with --dir"),
        "estimate": (["estimate", "--task", "lora", "--params", "7B", "--tokens", "1B", "--gpu", "a100-80gb",
                      "--samples", "1"], "pass --samples 100 or more"),
        "compare": (["compare", "--gpu", "a100-80gb", "--gpus", "8", "--utilisation", "0.5",
                     "--gpu-hours-per-year", "1e6"], "give --utilisation or --gpu-hours-per-year, not both"),
        "presets": (["presets", "slurm-trac"], "see `trainledger presets`"),
        "jobs": (["jobs", "--workspace", tmp / "nowhere"], "run `trainledger init` there"),
        "occupancy": (["occupancy", "--workspace", tmp / "nowhere"], "run `trainledger init` there"),
        "steps": (["--workspace", tmp / "nowhere", "steps"], "run `trainledger init` there"),
        "imports": (["--workspace", ws, "imports", "show", "0123456789ab"],
                    f"trainledger --workspace {ws} imports list"),
        "quarantine": (["quarantine", "--workspace", tmp / "nowhere"], "run `trainledger init` there"),
        "plan": (["--workspace", ws, "plan", "no-such-batch", "--show"], f"trainledger --workspace {ws} batch list"),
        "status": (["--workspace", ws, "status", "no-such-batch"], f"trainledger --workspace {ws} batch list"),
        "alerts": (["alerts", "--workspace", tmp / "nowhere"], "run `trainledger init` there"),
        "review": (["--workspace", ws, "review", "no-such-batch"], f"trainledger --workspace {ws} batch list"),
        "decide": (["--workspace", ws, "decide", "b1", "--action", "stop", "--reason", "x", "--by", "y",
                    "--answers", "9999"], f"make one: trainledger --workspace {ws} plan b1"),
        "runs": (["--workspace", ws, "runs", "confirm", "r1", "--cause", "infra_fault", "--by", "x"],
                 f"run `trainledger --workspace {ws} attribute` first"),
        "export": (["--workspace", ws, "export", "focus-allocation"],
                   f"run `trainledger --workspace {ws} attribute` first"),
        "serve": (["--workspace", ws, "serve", "--host", "0.0.0.0"], "serve on 127.0.0.1"),
        "storage": (["--workspace", ws, "storage"], f"run `trainledger --workspace {ws} attribute` first"),
        "report": (["--workspace", ws, "report", "--from", "2026-13-01"], "write YYYY-MM-DD or YYYY-MM"),
        "token": (["--workspace", ws, "token", "revoke", "00000000"], f"trainledger --workspace {ws} token list"),
    }


def test_every_registered_command_has_a_bad_argument_case(ws, tmp_path):
    cases = bad_cases(ws, tmp_path)
    missing = [name for name, _, _ in COMMANDS if name not in cases]
    assert not missing, f"add a bad-argument case for {missing} to bad_cases() in this file"


@pytest.mark.parametrize("name", [name for name, _, _ in COMMANDS])
def test_a_user_mistake_exits_2_with_the_remedy_and_no_traceback(ws, tmp_path, name):
    cases = bad_cases(ws, tmp_path)
    if name not in cases:
        pytest.fail(f"no bad-argument case for {name!r}")
    argv, remedy = cases[name]
    result = run(*argv)
    assert result.exit_code == 2, result.output
    assert remedy in result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize("argv", [p for p, _ in every_command()], ids=" ".join)
def test_an_unknown_option_is_a_usage_error_on_every_command(argv):
    result = run(*argv, "--no-such-option")
    assert result.exit_code == 2
    assert "No such option" in result.output and f"trainledger {' '.join(argv)} --help" in result.output


def _string_options(cmd: click.Command):
    for p in cmd.params:
        if isinstance(p, click.Option) and not p.is_flag and p.expose_value and \
                isinstance(p.type, click.types.StringParamType | click.Path):
            yield p.opts[-1]


@pytest.mark.parametrize("argv,opt", [(p, o) for p, c in every_command() for o in _string_options(c)],
                         ids=lambda x: " ".join(x) if isinstance(x, tuple) else x)
def test_an_empty_value_is_refused_on_every_string_option(argv, opt):
    result = run(*argv, f"{opt}=")
    assert result.exit_code == 2, result.output
    assert "must not be empty" in result.output


def test_empty_global_workspace_is_refused_too(ws):
    assert "must not be empty" in run("batch", "list", "--workspace", "").output
    assert "must not be empty" in run("--workspace", "", "batch", "list").output


# --- internal errors: one line, exit 3, --verbose for the traceback --------------------------------

def test_an_internal_error_is_one_line_exit_3_and_verbose_shows_the_traceback(ws, monkeypatch):
    from trainledger.cli import ledger_cmds

    def boom(_root):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(ledger_cmds.Workspace, "open", staticmethod(boom))
    quiet = run("--workspace", ws, "batch", "list")
    assert quiet.exit_code == 3
    assert "internal error: RuntimeError: boom" in quiet.output and "--verbose" in quiet.output
    assert "Traceback" not in quiet.output and "second line" not in quiet.output
    loud = run("--workspace", ws, "batch", "list", "--verbose")
    assert loud.exit_code == 3 and "Traceback" in loud.output and "RuntimeError: boom" in loud.output


# --- global options before or after the subcommand ---------------------------------------------------

def test_global_options_are_accepted_before_or_after_the_subcommand(ws, tmp_path):
    before = run("--workspace", ws, "batch", "list")
    after = run("batch", "list", "--workspace", ws)
    assert before.exit_code == after.exit_code == 0
    assert before.output == after.output and "b1" in before.output
    # the value given last wins
    assert run("--workspace", tmp_path / "nowhere", "batch", "list", "--workspace", ws).exit_code == 0
    zh_before = run("--lang", "zh-CN", "--workspace", ws, "sheet", "b1")
    zh_after = run("sheet", "b1", "--workspace", ws, "--lang", "zh-CN")
    assert zh_before.exit_code == zh_after.exit_code == 0
    assert zh_before.output == zh_after.output and "训练批次成本底稿" in zh_before.output
    assert "训练批次成本底稿" not in run("--workspace", ws, "sheet", "b1").output


def test_options_that_do_not_apply_to_an_import_kind_are_errors(ws, tmp_path):
    src = tmp_path / "sacct.txt"
    src.write_text(HEADER + JOB.format(id=1), encoding="utf-8")
    refused = run("--workspace", ws, "import", "slurm", src, "--currency", "CNY")
    assert refused.exit_code == 2 and "--currency does not apply to `import slurm`" in refused.output
    assert "focus" in refused.output  # names the kinds that do read it


# --- grouped warnings, --quiet, --verbose -------------------------------------------------------------

def test_warnings_of_one_kind_are_grouped_with_a_count_and_how_to_list_all(tmp_path):
    root = tmp_path / "ws"
    run("init", root)
    (root / "trainledger.toml").write_text((root / "trainledger.toml").read_text(encoding="utf-8") + ONE_BATCH,
                                           encoding="utf-8")
    src = tmp_path / "sacct.txt"
    src.write_text(HEADER + "".join(JOB.format(id=7000 + i) for i in range(8)), encoding="utf-8")
    assert run("--workspace", root, "import", "slurm", src, "--tz", "UTC").exit_code == 0
    grouped = run("--workspace", root, "attribute").output
    lines = [ln for ln in grouped.splitlines() if "matched no slurm rule" in ln and "!" not in ln]
    assert "job without a batch: 8 warnings" in grouped
    assert sum("- job 70" in ln for ln in lines) == out.FIRST
    assert f"… and {8 - out.FIRST} more" in grouped and "--verbose" in grouped
    every = run("--workspace", root, "attribute", "--verbose").output
    assert sum("- job 70" in ln for ln in every.splitlines()) == 8 and "more (" not in every
    quiet = run("--workspace", root, "attribute", "-q").output
    assert "job without a batch" not in quiet and "cost lines" in quiet  # the result stays
    noted = run("--workspace", root, "import", "slurm", src, "--tz", "UTC").output
    assert "sacct times read as UTC" in noted
    assert "sacct times read as" not in run("--workspace", root, "-q", "import", "slurm", src, "--tz", "UTC").output


def test_grouped_prints_a_single_warning_as_itself():
    with click.Context(click.Command("x"), obj={}):
        lines = out.grouped([("a", "one"), ("b", "x1"), ("b", "x2")])
    assert lines == ["  ! a: one", "  ! b: 2 warnings, e.g.:", "      - x1", "      - x2"]


# --- lazy loading -------------------------------------------------------------------------------------

HEAVY = ("sqlalchemy", "pyarrow", "numpy", "jinja2", "alembic", "trainledger.ingest", "trainledger.engine",
         "trainledger.lake", "trainledger.estimate")


def _loaded_after(argv: list[str], cwd: Path) -> set[str]:
    code = ("import sys\nfrom trainledger.cli import cli\n"
            f"try:\n    cli({argv!r}, prog_name='trainledger')\nexcept SystemExit:\n    pass\n"
            "print('\\n'.join(sorted(sys.modules)), file=sys.stderr)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=60, check=True)
    return set(proc.stderr.split())


def test_help_imports_no_command_module(tmp_path):
    loaded = _loaded_after(["--help"], tmp_path)
    commands = {t.partition(":")[0] for _, t, _ in COMMANDS}
    assert not commands & loaded
    assert not {m for m in loaded if m.split(".")[0] in HEAVY or m in HEAVY}


def test_batch_list_imports_the_ledger_but_not_the_lake_engine_or_reports(ws):
    loaded = _loaded_after(["--workspace", str(ws), "batch", "list"], ws)
    assert "sqlalchemy" in loaded and "trainledger.ledger" in loaded
    heavy = {h for h in HEAVY if h != "sqlalchemy"}
    assert not {m for m in loaded if any(m == h or m.startswith(h + ".") for h in heavy)}


@pytest.mark.parametrize("name,target,short", COMMANDS)
def test_the_table_short_help_is_the_commands_own(name, target, short):
    cmd = load(target)
    assert cmd.name == name
    assert (cmd.help or "").strip().splitlines()[0].strip() == short


def test_init_where_one_may_not_write_names_the_path_and_the_remedy(tmp_path, monkeypatch):
    import errno

    def refuse(self, *a, **kw):
        raise PermissionError(errno.EACCES, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", refuse)  # as root, chmod would not stop the write
    result = run("init", tmp_path / "locked")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"{tmp_path / 'locked'}: Permission denied" in result.output
    assert "choose a path you may write to" in result.output


def test_a_misspelled_command_gets_a_suggestion():
    result = run("atribute")
    assert result.exit_code == 2 and "Did you mean 'attribute'?" in result.output
    assert "trainledger --help" in run("zzz").output


def test_a_reader_that_closes_the_pipe_early_gets_no_error(ws, monkeypatch):
    from trainledger.cli import ledger_cmds

    def closed(*a, **kw):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(ledger_cmds.click, "echo", closed)
    result = run("--workspace", ws, "batch", "list")
    assert result.exit_code == 141 and "error" not in result.output


# --- a command's own --lang and the global one mean the same ---------------------------------------

def _own_lang_commands():
    for argv, cmd in every_command():
        if any(p.name == "lang" and p.expose_value for p in cmd.params):
            yield argv, cmd


@pytest.mark.parametrize("argv", [a for a, _ in _own_lang_commands()], ids=" ".join)
def test_a_command_with_its_own_lang_takes_the_global_one(argv, monkeypatch, tmp_path):
    """``trainledger --lang zh-CN jobs`` must not fall back to the workspace's language; with no
    --lang at all, the command speaks what every command speaks (trainledger/i18n/choose.py)."""
    seen = {}
    cmd = dict(_own_lang_commands())[argv]
    param = next(p for p in cmd.params if p.name == "lang")
    ctx = click.Context(cmd, obj={"lang": "zh-CN", "workspace": str(tmp_path)})
    seen["global"] = param.callback(ctx, param, None)
    ctx = click.Context(cmd, obj={"workspace": str(tmp_path)})
    seen["none"] = param.callback(ctx, param, None)
    monkeypatch.setenv("TRAINLEDGER_LANG", "zh-CN")
    seen["env"] = param.callback(ctx, param, None)
    assert seen == {"global": "zh-CN", "none": "en", "env": "zh-CN"}


def test_global_lang_reaches_jobs_output(ws):
    assert "作业数" in run("--lang", "zh-CN", "--workspace", ws, "jobs").output
    assert "作业数" in run("--workspace", ws, "jobs", "--lang", "zh-CN").output
    assert "jobs:" in run("--lang", "en", "--workspace", ws, "jobs").output
