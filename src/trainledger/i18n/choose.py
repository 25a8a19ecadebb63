"""Which language a command speaks.

``--lang`` (before or after the subcommand), else ``TRAINLEDGER_LANG``, else the workspace's
``language`` in trainledger.toml when the file sets one, else the locale (``LC_ALL``, then
``LC_MESSAGES``, then ``LANG``, the first one set: ``zh…`` → zh-CN), else ``en``. docs/cli.md.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from trainledger.i18n.core import EN, ZH, is_zh, normal

ENV = "TRAINLEDGER_LANG"
LOCALE_VARS = ("LC_ALL", "LC_MESSAGES", "LANG")
CONFIG_NAME = "trainledger.toml"


def workspace_language(workspace: str | os.PathLike | None) -> str | None:
    """``[workspace] language`` of the workspace's config, when the file sets it (cheap: no
    validation; a broken file is the command's error to report, not this one's)."""
    if workspace is None:
        return None
    path = Path(workspace) / CONFIG_NAME
    try:
        import tomllib

        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    lang = (data.get("workspace") or {}).get("language") if isinstance(data.get("workspace"), dict) else None
    return normal(lang) if isinstance(lang, str) and lang.strip() else None


def choose(flag: str | None = None, workspace: str | os.PathLike | None = None,
           environ: Mapping[str, str] | None = None) -> str:
    """The language: ``en`` or ``zh-CN``."""
    env = os.environ if environ is None else environ
    if flag:
        return normal(flag)
    if env.get(ENV, "").strip():
        return normal(env[ENV])
    ws = workspace_language(workspace if workspace is not None else env.get("TRAINLEDGER_WORKSPACE", "."))
    if ws:
        return ws
    for var in LOCALE_VARS:
        value = env.get(var, "")
        if value:
            return ZH if is_zh(value) else EN
    return EN


def scan(args: Sequence[str]) -> tuple[str | None, str | None]:
    """``(--lang, --workspace)`` as given anywhere on a command line (the last one wins), read before
    click parses it, so ``--help`` and usage errors already speak the language."""
    lang = workspace = None
    it = list(args)
    for i, a in enumerate(it):
        if a == "--":
            break
        for name in ("--lang", "--workspace"):
            value = None
            if a == name and i + 1 < len(it):
                value = it[i + 1]
            elif a.startswith(name + "="):
                value = a[len(name) + 1:]
            if value is not None:
                if name == "--lang":
                    lang = value
                else:
                    workspace = value
    return lang, workspace


def of(ctx) -> str:
    """The language of a running command, from its click context (``ctx.obj``)."""
    obj = (getattr(ctx, "obj", None) if ctx is not None else None) or {}
    return choose(obj.get("lang"), obj.get("workspace"))
