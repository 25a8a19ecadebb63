"""every command's and option's help, in English and Chinese."""

from __future__ import annotations

HELP: dict[str, tuple[str, str]] = {}
