"""serve: the read-only web dashboard (trainledger/web) over one workspace."""

from __future__ import annotations

import click

from trainledger.cli.ledger_cmds import open_ws


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind: loopback only for now.")
@click.option("--port", default=8321, show_default=True, type=click.IntRange(0, 65535),
              help="TCP port (0: any free one).")
@click.option("--allow-remote", is_flag=True, help="Bind a non-loopback address (needs tokens: not available yet).")
@click.pass_context
def serve(ctx: click.Context, host: str, port: int, allow_remote: bool) -> None:
    """Serve the read-only dashboard on loopback. / 在本机提供只读看板。"""
    from trainledger.web.app import check_host

    check_host(host, allow_remote=allow_remote)  # BadInput names the remedy (exit 2)
    try:
        import uvicorn

        from trainledger.web.app import create_app
    except ImportError as e:
        raise click.UsageError(f"the dashboard needs the `web` extra ({e.name} is missing):"
                               " pip install 'trainledger[web]'") from e
    with open_ws(ctx) as wsp:  # a missing workspace fails here, before the server starts
        root, lang = wsp.config.root, ctx.obj.get("lang") or wsp.config.get("workspace.language")
    if port == 0:  # choose the free port here so the address printed is the one served
        import socket

        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
            s.bind((host, 0))
            port = s.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"trainledger dashboard: http://{shown}:{port}/batches (read-only; Ctrl-C stops)")
    uvicorn.run(create_app(root, default_lang=lang), host=host, port=port, log_level="warning")


COMMANDS = (serve,)
