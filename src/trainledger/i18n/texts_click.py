"""click's own fixed words in Chinese (``gettext`` msgids of click 8 → zh-CN): the help page's
headings and the usage errors click raises. Keys are click's English msgids exactly."""

from __future__ import annotations

CLICK: dict[str, tuple[str, str]] = {}
