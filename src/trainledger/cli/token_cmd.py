"""token: API tokens for ``trainledger serve`` — create (printed once), list, revoke (ledger/tokens.py)."""

from __future__ import annotations

import json

import click

from trainledger.cli.ledger_cmds import open_ws
from trainledger.model.restricted import ROLES

TEXT: dict[str, tuple[str, str]] = {
    "created": ("token {id} created: role {role}, batch {batch}, expires {expires}",
                "已创建令牌 {id}：角色 {role}，批次 {batch}，到期 {expires}"),
    "once": ("This is the only time the token is shown; it is stored hashed. Send it as"
             " `Authorization: Bearer TOKEN`.",
             "令牌只显示这一次（仅保存其哈希值），请立即妥善保存；请求时以 `Authorization: Bearer TOKEN` 发送。"),
    "any": ("any", "全部"), "never": ("never", "永不"),
    "revoked": ("token {id} revoked at {at}", "令牌 {id} 已于 {at} 吊销"),
    "none": ("no tokens yet: `trainledger token create --role R`", "尚无令牌：`trainledger token create --role R`"),
    "state_active": ("active", "有效"), "state_expired": ("expired", "已过期"), "state_revoked": ("revoked", "已吊销"),
}


def _t(ctx: click.Context, key: str, wsp=None, **kw) -> str:
    lang = ctx.obj.get("lang") or (wsp.config.get("workspace.language") if wsp else None) or "en"
    en, zh = TEXT[key]
    return (zh if str(lang).startswith("zh") else en).format(**kw)


@click.group("token")
def token() -> None:
    """API tokens for serve: create, list, revoke. / 看板访问令牌：创建、列出、吊销。"""


@token.command("create")
@click.option("--role", required=True, type=click.Choice(ROLES), help="What the token may see (docs/web.md).")
@click.option("--batch", "batch_id", default=None, help="Limit the token to this batch (default: every batch).")
@click.option("--expires", "days", type=int, default=None, help="Days until it expires (default: never).")
@click.pass_context
def create(ctx: click.Context, role: str, batch_id: str | None, days: int | None) -> None:
    """Create a token and print it once. / 创建令牌（只显示一次）。"""
    from trainledger.ledger import tokens

    with open_ws(ctx) as wsp:
        if batch_id is not None:
            wsp.config.batch(batch_id)  # NotFound with a remedy for an unknown batch
            wsp.sync_config()  # the batch row the scope refers to
        rec, text = tokens.create(wsp.ledger, role, batch=batch_id, expires_days=days)
        click.echo(_t(ctx, "created", wsp, id=rec.id, role=rec.role, batch=rec.batch_id or _t(ctx, "any", wsp),
                      expires=rec.expires_at.isoformat() if rec.expires_at else _t(ctx, "never", wsp)), err=True)
        click.echo(_t(ctx, "once", wsp), err=True)
    click.echo(text)


@token.command("list")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def list_(ctx: click.Context, as_json: bool) -> None:
    """Tokens with their role, scope, expiry and state (never the secret). / 列出令牌。"""
    from trainledger.ledger import tokens

    with open_ws(ctx) as wsp:
        rows = [t.as_dict() for t in tokens.tokens(wsp.ledger)]
        if as_json:
            click.echo(json.dumps(rows, ensure_ascii=False))
            return
        if not rows:
            click.echo(_t(ctx, "none", wsp))
        for r in rows:
            click.echo(f"{r['id']}\t{r['role']}\t{r['batch'] or _t(ctx, 'any', wsp)}\t"
                       f"{_t(ctx, 'state_' + r['state'], wsp)}\t{r['expires_at'] or _t(ctx, 'never', wsp)}\t"
                       f"{r['created_by']}\t{r['created_at']}")


@token.command("revoke")
@click.argument("token_id")
@click.pass_context
def revoke(ctx: click.Context, token_id: str) -> None:
    """Revoke a token; recorded in the audit chain. / 吊销令牌（记入审计日志）。"""
    from trainledger.ledger import tokens

    with open_ws(ctx) as wsp:
        rec = tokens.revoke(wsp.ledger, token_id)
        click.echo(_t(ctx, "revoked", wsp, id=rec.id, at=rec.revoked_at.isoformat()))


COMMANDS = (token,)
