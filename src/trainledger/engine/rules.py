"""Attribution rules: which batch a source row belongs to, and which rule said so.

A rule reads one field of a lake row (``tags.<key>`` reads a key of the row's JSON tags) and
matches it exactly, by prefix, by regular expression, or as a *template* — the value itself is a
batch id when a batch with that id exists. Rules are tried in order; the first match wins.
A storage row's ``path`` is compared by its identity (``model.objpath``: without the scheme), so
a rule written ``oss://b/ckpt/`` matches an inventory's ``b/ckpt/x`` and the other way round.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property

from trainledger.model.objpath import identity
from trainledger.workspace import Rule

NO_RULE = "no_rule_matched"


def tags_of(row: Mapping) -> dict:
    """A row's tags as a dict, whether the lake holds them as JSON text or a mapping; {} if unreadable."""
    tags = row.get("tags")
    if isinstance(tags, dict):
        return tags
    if not tags:
        return {}
    try:
        value = json.loads(tags)
    except (TypeError, json.JSONDecodeError):
        return {}
    return value if isinstance(value, dict) else {}


def field_value(row: Mapping, name: str, tags: dict | None = None) -> str:
    if name.startswith("tags."):
        value = (tags if tags is not None else tags_of(row)).get(name[5:], "")
    else:
        value = row.get(name, "")
    text = "" if value is None else str(value).strip()
    if name == "wckey":
        text = text.lstrip("*")  # Slurm marks a job's *default* WCKey with a leading '*'
    return text


@dataclass(frozen=True)
class Matcher:
    rules: tuple[Rule, ...]
    batch_ids: frozenset[str]

    @cached_property
    def _object_patterns(self) -> dict[str, str]:
        """Storage path rules' patterns as object identities (``oss://b/`` → ``b/``)."""
        return {r.id: identity(r.pattern) for r in self.rules if r.source == "storage" and r.field == "path"}

    @cached_property
    def _regex(self) -> dict[str, re.Pattern]:
        return {r.id: re.compile(r.pattern) for r in self.rules if r.match == "regex"}

    def match(self, source: str, row: Mapping) -> tuple[str | None, str]:
        """Return (batch id or None, rule id or ``no_rule_matched``)."""
        tags = None
        for rule in self.rules:
            if rule.source != source:
                continue
            if tags is None and rule.field.startswith("tags."):
                tags = tags_of(row)  # parsed once per row, not once per rule
            value = field_value(row, rule.field, tags)
            if not value:
                continue
            pattern = rule.pattern
            if source == "storage" and rule.field == "path" and rule.match in ("exact", "prefix"):
                value, pattern = identity(value), self._object_patterns[rule.id]
            if rule.match == "template":
                if value in self.batch_ids:
                    return value, rule.id
            elif rule.match == "exact":
                if value == pattern:
                    return rule.batch, rule.id
            elif rule.match == "prefix":
                if value.startswith(pattern):
                    return rule.batch, rule.id
            elif self._regex[rule.id].search(value):
                return rule.batch, rule.id
        return None, NO_RULE


def matcher(rules: Iterable[Rule], batch_ids: Iterable[str]) -> Matcher:
    return Matcher(tuple(rules), frozenset(batch_ids))
