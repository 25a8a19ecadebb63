"""serve: the web dashboard (trainledger/web; pages read, the decision and cause forms write) over one
workspace: loopback without tokens
(the local user is admin), or ``--allow-remote`` / ``--require-token`` with bearer tokens."""

from __future__ import annotations

import click

from trainledger.cli.ledger_cmds import open_ws
from trainledger.cli.output import t


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind; a non-loopback one needs --allow-remote.")
@click.option("--port", default=8321, show_default=True, type=click.IntRange(0, 65535),
              help="TCP port (0: any free one).")
@click.option("--allow-remote", is_flag=True,
              help="Bind a non-loopback address; every request then needs a token (`trainledger token create`).")
@click.option("--require-token", is_flag=True,
              help="Require a token on loopback too (e.g. behind a reverse proxy on this machine).")
@click.pass_context
def serve(ctx: click.Context, host: str, port: int, allow_remote: bool, require_token: bool) -> None:
    """Serve the dashboard on loopback (two forms write). / 在本机提供看板（两个表单会写入）。"""
    from trainledger.web.app import check_host

    require_token = check_host(host, allow_remote=allow_remote) or require_token  # BadInput: exit 2
    try:
        import uvicorn

        from trainledger.web.app import create_app
    except ImportError as e:
        raise click.UsageError(f"the dashboard needs the `web` extra ({e.name} is missing):"
                               " pip install 'trainledger[web]'") from e
    with open_ws(ctx) as wsp:  # a missing workspace fails here, before the server starts
        root, lang = wsp.config.root, ctx.obj.get("lang") or wsp.config.get("workspace.language")
        if require_token:
            from trainledger.ledger import tokens

            if not tokens.any_active(wsp.ledger):
                click.echo("note: no active token yet: every request will get 401; create one with"
                           " `trainledger token create --role R` / 尚无有效令牌，所有请求都将返回 401", err=True)
    if port == 0:  # choose the free port here so the address printed is the one served
        import socket

        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
            s.bind((host, 0))
            port = s.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    who = t("cli.serve.who_tokens" if require_token else "cli.serve.who_local", ctx)
    click.echo(t("cli.serve.banner", ctx, url=f"http://{shown}:{port}/batches", who=who))
    uvicorn.run(create_app(root, default_lang=lang, require_token=require_token), host=host, port=port,
                log_level="warning")


COMMANDS = (serve,)
