"""`trainledger --lang zh-CN CMD --help` is Chinese for every registered command: its help, every
option's help and click's own words; the language also comes from TRAINLEDGER_LANG and the locale."""

from __future__ import annotations

import re

import click
import pytest
from click.testing import CliRunner

from trainledger.cli import COMMANDS, cli

# What may stay Latin in a Chinese help page: option names, metavars and choices, codes, paths,
# units, product and format names (FOCUS, TOML, ZeRO …) — anything but a run of English words.
_CODE = re.compile(r"--?[\w-]+|`[^`]*`|\[[^\]]*\]|\{[^}]*\}|'[^']*'|<[^>]*>|\b[A-Z0-9_=.:/-]{2,}\b"
                   r"|[\w.-]*[/_.][\w./<>-]+")
_SENTENCE = re.compile(r"\b[A-Za-z]{2,}(?:[ ,]+[A-Za-z]{2,}){2,}")


def commands() -> list[tuple[str, ...]]:
    ctx = click.Context(cli)
    out = []
    for name, _target, _short in COMMANDS:
        cmd = cli.get_command(ctx, name)
        out.append((name,))
        if isinstance(cmd, click.Group):
            out += [(name, sub) for sub in cmd.list_commands(ctx)]
    return out


def english_left(text: str) -> list[str]:
    text = re.sub(r"trainledger(?: [a-z][\w-]*)*", " ", text)  # the command's own name in its usage line
    return _SENTENCE.findall(_CODE.sub(" ", text))


@pytest.mark.parametrize("path", [(), *commands()], ids=lambda p: " ".join(p) or "root")
def test_every_help_page_is_chinese(path):
    result = CliRunner().invoke(cli, ["--lang", "zh-CN", *path, "--help"], prog_name="trainledger")
    assert result.exit_code == 0, result.output
    assert "用法" in result.output and "选项" in result.output and "显示本帮助并退出" in result.output
    left = english_left(result.output)
    assert not left, f"English left in `trainledger {' '.join(path)} --help`: {left}"


def test_the_check_sees_english():
    assert english_left("--tz TEXT  Time zone of offset-less times, e.g. Asia/Shanghai.")
    assert not english_left("--tz TEXT  不带时区偏移的时间所在的时区，例如 Asia/Shanghai。")


def test_english_help_is_unchanged_and_click_is_put_back():
    zh = CliRunner().invoke(cli, ["import", "--help", "--lang", "zh-CN"], prog_name="trainledger").output
    en = CliRunner().invoke(cli, ["import", "--help"], prog_name="trainledger").output
    assert "Usage:" in en and "Time zone of offset-less times" in en and "Show this message and exit." in en
    assert "用法" in zh and "Usage:" not in zh


def test_language_from_the_environment_and_the_locale(monkeypatch, tmp_path):
    runner = CliRunner()
    missing = ["--workspace", str(tmp_path / "none"), "batch", "list"]
    assert "error: no workspace at" in runner.invoke(cli, missing).output
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert "错误：" in runner.invoke(cli, missing).output and "解决办法" in runner.invoke(cli, missing).output
    monkeypatch.setenv("TRAINLEDGER_LANG", "en")
    assert "error: no workspace at" in runner.invoke(cli, missing).output
    assert "错误：" in runner.invoke(cli, ["--lang", "zh-CN", *missing]).output
    assert "错误：" in runner.invoke(cli, [*missing, "--lang", "zh-CN"]).output


def test_a_usage_error_is_chinese():
    out = CliRunner().invoke(cli, ["--lang", "zh-CN", "import", "slurm", "--nope"], prog_name="trainledger").output
    assert "错误" in out and "没有选项 '--nope'" in out
