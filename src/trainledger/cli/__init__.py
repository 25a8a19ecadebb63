"""The ``trainledger`` command line: a thin edge over the core.

    __init__.py     the command table, the root group, global options, the error edge, ``main``
    lazy.py         LazyGroup: commands imported only when they run; global options on every command
    output.py       what a command prints besides its result: notes, grouped warnings (--quiet)
    ledger_cmds.py  init, import, attribute, batch list, audit
    report_cmds.py  sheet, report
    demo_cmd.py     demo
    estimate.py     estimate, compare
    serve_cmd.py    serve (the dashboard, trainledger/web: pages read, two forms write)
    storage_cmd.py  storage (storage bills beside the inventory estimate, workspace or one batch)
    token_cmd.py    token create / list / revoke (API tokens of serve, ledger/tokens.py)

**Adding a command** is one row in ``COMMANDS``: ``(name, "module:attribute", short help)``. The
module is imported only when the command runs (``trainledger --help`` lists the names and the
short help from this table, importing nothing), so keep the short help equal to the first line of
the command's docstring (a test checks it).

**Global options** ``--workspace``, ``--lang``, ``--quiet`` and ``--verbose`` are accepted before
or after the subcommand (``trainledger --workspace W sheet B`` = ``trainledger sheet B --workspace
W``); the value given last wins. A command reads them from ``ctx.obj`` (``workspace``, ``lang``,
``quiet``, ``verbose``). An option given with an empty value (``--tz ""``) is a usage error.

**Exit codes** (docs/cli.md):

    0  done
    1  problems found: ``audit`` saw a broken chain, an import with ``--strict`` quarantined rows
    2  usage or input error: a bad option, a missing file or workspace, an unknown batch — the
       message names the remedy (``TrainledgerError``, ``OSError`` and click usage errors)
    3  internal error: a bug in trainledger; one line on stderr, ``--verbose`` shows the traceback
  141  the reader closed the output early (``| head``): nothing printed

Nothing below this package knows about click.
"""

from __future__ import annotations

import click

from trainledger.cli.lazy import GLOBAL_LANGS, LazyGroup

COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("init", "trainledger.cli.ledger_cmds:init", "Create a workspace: config, ledger and lake. / 创建工作区。"),
    ("import", "trainledger.cli.ledger_cmds:import_",
     "Import source files into the lake (idempotent). / 导入源数据（可重复执行）。"),
    ("attribute", "trainledger.cli.ledger_cmds:attribute",
     "Recompute every cost line from the lake and check conservation. / 重新归属并做守恒校验。"),
    ("batch", "trainledger.cli.ledger_cmds:batch", "Training batches (训练批次)."),
    ("audit", "trainledger.cli.ledger_cmds:audit",
     "Verify the audit log and the figures it recorded. / 校验审计日志哈希链与账本数字。"),
    ("imports", "trainledger.cli.imports_cmds:imports",
     "Imported files: list, inspect, drop. / 已导入的文件：列出、查看、撤销。"),
    ("quarantine", "trainledger.cli.imports_cmds:quarantine",
     "Quarantined and flagged rows of the live imports, with reasons and remedies. / 隔离与带标记的行。"),
    ("sheet", "trainledger.cli.report_cmds:sheet", "Render one batch's cost sheet. / 输出训练批次成本底稿。"),
    ("report", "trainledger.cli.report_cmds:report",
     "Spend, shares, unattributed and plan vs actual across batches. / 跨批次成本报告。"),
    ("demo", "trainledger.cli.demo_cmd:demo",
     "Build a demo workspace end to end and print a summary. / 生成演示工作区并输出成本底稿。"),
    ("estimate", "trainledger.cli.estimate:estimate",
     "Estimate a training batch before it runs: P10 / P50 / P90 with every assumption."),
    ("compare", "trainledger.cli.estimate:compare",
     "Rent on demand vs reserved vs own hardware vs a platform or external service, N years."),
    ("presets", "trainledger.cli.presets_cmd:presets",
     "Built-in mappings for --preset; `presets NAME` prints one (a start for your own). / 内置映射预设。"),
    ("jobs", "trainledger.cli.scheduler_cmds:jobs", "Summary of imported scheduler jobs. / 已导入调度作业的汇总。"),
    ("occupancy", "trainledger.cli.scheduler_cmds:occupancy",
     "Idle capacity and waiting demand from occupancy series. / 占用序列：空闲容量与排队需求。"),
    ("steps", "trainledger.cli.scheduler_cmds:steps",
     "Waiting at the iteration barrier, from per-worker step times. / 同步屏障等待（慢节点）。"),
    ("plan", "trainledger.cli.plan_cmds:plan",
     "Make, show or list plan baselines (`plan list`). / 制定、查看或列出计划基线。"),
    ("status", "trainledger.cli.plan_cmds:status",
     "AC, EV and EAC against the plan; rounds, gates and open alerts. / 执行状态：实际、挣值、完工估算。"),
    ("alerts", "trainledger.cli.plan_cmds:alerts", "Crossed bounds awaiting a decision. / 越界预警（等待决策）。"),
    ("review", "trainledger.cli.plan_cmds:review",
     "Plan against actual: price, volume, efficiency and rework, exactly. / 计划与实际差异分解。"),
    ("decide", "trainledger.cli.plan_cmds:decide",
     "Record a continue / shrink / stop / retarget decision. / 记录继续、缩小、停止或重定目标决策。"),
    ("runs", "trainledger.cli.runs_cmd:runs", "Runs and their failure causes; confirm a cause. / 运行与失败归因。"),
    ("export", "trainledger.cli.export_cmd:export",
     "Export the attribution, e.g. as FOCUS 1.3 allocation rows. / 导出归属结果（如 FOCUS 分摊行）。"),
    ("serve", "trainledger.cli.serve_cmd:serve",
     "Serve the dashboard on loopback (two forms write). / 在本机提供看板（两个表单会写入）。"),
    ("storage", "trainledger.cli.storage_cmd:storage",
     "Storage bills against the inventory estimate, per month and bucket. / 存储账单与存储清单估算对账。"),
    ("token", "trainledger.cli.token_cmd:token",
     "API tokens for serve: create, list, revoke. / 看板访问令牌：创建、列出、吊销。"),
)
"""name → "module:attribute" → short help. One row per command; the registry is this tuple."""

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


@click.group(cls=LazyGroup, commands_table=COMMANDS)
@click.option(
    "--workspace",
    envvar="TRAINLEDGER_WORKSPACE",
    default=".",
    show_default=True,
    type=click.Path(file_okay=False),
    help="Workspace directory (also TRAINLEDGER_WORKSPACE).",
)
@click.option("--lang", type=click.Choice(GLOBAL_LANGS), default=None,
              help="Language of reports and messages (default: the workspace's, else en).")
@click.option("-q", "--quiet", is_flag=True, help="Print only results and errors, no notes or warnings.")
@click.option("-v", "--verbose", is_flag=True, help="Print every warning, and the traceback of an internal error.")
@click.version_option(package_name="trainledger")
@click.pass_context
def cli(ctx: click.Context, workspace: str, lang: str | None, quiet: bool, verbose: bool) -> None:
    """trainledger — where did this model's money go? / 模型训练成本归属、估算与复盘。

    Exit codes: 0 done; 1 problems found (audit, --strict); 2 usage or input error; 3 internal error.
    """
    ctx.obj = {"workspace": workspace, "lang": lang, "quiet": quiet, "verbose": verbose}


def main() -> None:
    cli(prog_name="trainledger")
