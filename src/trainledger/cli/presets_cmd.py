"""presets: the built-in mappings (``--preset NAME``), or one preset's TOML to start a mapping from."""

from __future__ import annotations

import json

import click

from trainledger.errors import BadInput
from trainledger.names import did_you_mean

HEAD = ("preset", "table", "import kinds", "description")
HEAD_ZH = ("预设", "目标表", "导入种类", "说明")


def _kinds(name: str, table: str) -> list[str]:
    """The import kinds that read preset ``name``: the kind it is fixed to, and the generic one."""
    from trainledger.ingest import IMPORTERS, MAPPED_KIND

    fixed = [imp.kind for imp in IMPORTERS if getattr(imp, "preset", None) == name]
    return [*fixed, MAPPED_KIND[table]]


@click.command("presets")
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@click.pass_context
def presets(ctx: click.Context, name: str | None, as_json: bool) -> None:
    """Built-in mappings for --preset; `presets NAME` prints one (a start for your own). / 内置映射预设。"""
    from trainledger.ingest.mapfile import preset_texts
    from trainledger.ingest.mapfile import presets as known

    found = known()
    if name is not None:
        if name not in found:
            raise BadInput(f"no preset {name!r}{did_you_mean(name, found)} / 没有这个预设",
                           remedy=f"see `trainledger presets`: {', '.join(found)}")
        click.echo(preset_texts()[name], nl=False)
        return
    rows = [{"preset": n, "table": m.table, "kinds": _kinds(n, m.table), "description": m.description,
             "source": m.source.strip(), "unverified": list(m.unverified)} for n, m in found.items()]
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False))
        return
    from trainledger.cli.output import lang
    from trainledger.i18n import is_zh
    from trainledger.ingest.presets import DESCRIPTIONS

    zh = is_zh(lang(ctx))
    click.echo("  ".join(HEAD_ZH if zh else HEAD))
    for r in rows:
        said = DESCRIPTIONS.get(r["preset"], (r["description"],) * 2)[1] if zh else r["description"]
        click.echo(f"{r['preset']:<22} {r['table']:<16} {', '.join(r['kinds']):<26} {said}")
    click.echo("（格式见 docs/formats.md「映射」一节；`trainledger presets 名称` 打印其中一个）" if zh else
               "(the format: docs/formats.md § Mappings; `trainledger presets NAME` prints one)")
