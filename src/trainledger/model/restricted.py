"""Restricted fields: a sensitive value in a view model, and which role may see it.

A view model (the batch sheet, a dashboard page) holds a sensitive figure as ``Restricted(value,
kind)``, never as the bare value. Before anything is printed the model goes through ``resolve(model,
role)``: a field the role may see becomes its value again, any other becomes a ``Withheld`` marker —
a ``str`` subclass that reads "restricted" / "受限", so every renderer (JSON, Markdown, HTML, XLSX,
CSV, the dashboard) prints the word and nothing else. A ``Restricted`` that reaches a renderer
unresolved fails closed: ``str``, ``repr`` and ``format`` give the word, ``json`` cannot encode it.

Kinds (``KINDS``) and who sees them (``SEES``):

    labor_rate         an hourly labor rate (the rate card): finance, admin
    labor_cost_person  the cost of one role or one timesheet row (hours × one rate, so the rate
                       is the cost over the hours): finance, admin
    labor_cost_phase   labor cost summed over the several roles of a phase: engineer too
    unit_price         a unit price from a contract, rate card, bill or price book (per GPU-hour,
                       per GB-month, a bill row's ContractedUnitPrice): finance, admin
    vendor_amount      an external service's invoice amount: engineer too

A text that quotes sensitive figures can keep its words: ``Restricted(text, kind, shown)`` gives a
role that may not see them ``shown`` (the text with each figure replaced by the word). A field a
role reads in its own rendered copy (the dashboard's cross report) is ``ByRole``.

``viewer`` sees none of them (hours, GPU-hours and the totals per basis only). This module knows
nothing else of trainledger: roles are checked here, errors are ``ValueError``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

ADMIN, FINANCE, ENGINEER, VIEWER = "admin", "finance", "engineer", "viewer"
ROLES = (ADMIN, FINANCE, ENGINEER, VIEWER)

KINDS: dict[str, tuple[str, str]] = {
    "labor_rate": ("labor rates", "人力费率"),
    "labor_cost_person": ("labor cost per role or person", "按角色或个人的人力成本"),
    "labor_cost_phase": ("labor cost per phase", "按阶段的人力成本"),
    "unit_price": ("contract and price-book unit prices", "合同与价格簿单价"),
    "vendor_amount": ("external service amounts", "外部服务金额"),
}

SEES: dict[str, frozenset[str]] = {
    ADMIN: frozenset(KINDS),
    FINANCE: frozenset(KINDS),
    ENGINEER: frozenset({"labor_cost_phase", "vendor_amount"}),
    VIEWER: frozenset(),
}

WORD = ("restricted", "受限")


def word(lang: str = "en") -> str:
    return WORD[1] if lang.lower().startswith("zh") else WORD[0]


def check_role(role: str) -> str:
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; choose one of {', '.join(ROLES)}")
    return role


def allows(role: str, kind: str) -> bool:
    return kind in SEES[check_role(role)]


@dataclass(frozen=True, repr=False)
class Restricted:
    """A sensitive value and its kind. Printing it never shows the value (fail closed)."""

    value: Any
    kind: str
    shown: str | None = None  # what a role that may not see it reads: a text with its figures masked

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown restricted kind {self.kind!r}; one of {', '.join(KINDS)}")

    def __str__(self) -> str:
        return WORD[0]

    def __repr__(self) -> str:
        return f"Restricted(<{self.kind}>)"

    def __format__(self, spec: str) -> str:
        return WORD[0]


class Withheld(str):
    """What a role that may not see a field gets in its place: the word (or, for a text whose
    figures were masked, ``Restricted.shown``: the text with the word in place of each figure), and
    the field's kind."""

    kind: str

    def __new__(cls, kind: str, lang: str = "en", text: str | None = None) -> Withheld:
        s = super().__new__(cls, word(lang) if text is None else text)
        s.kind = kind
        return s


@dataclass(frozen=True, repr=False)
class ByRole:
    """A field each role reads in its own copy (a page rendered per role: the cross-batch report,
    report/cross_access.py ``cross_by_role``), and what each copy withheld. Unresolved it prints the word
    and cannot be encoded, as ``Restricted``."""

    values: dict[str, Any]
    seen: dict[str, Disclosure]

    def __str__(self) -> str:
        return WORD[0]

    def __repr__(self) -> str:
        return "ByRole(<per role>)"

    def __format__(self, spec: str) -> str:
        return WORD[0]


def is_withheld(value: Any) -> bool:
    return isinstance(value, Withheld | Restricted)


@dataclass
class Disclosure:
    """What one resolution showed and withheld, counted per kind (for the audit log and the note)."""

    role: str
    revealed: Counter[str] = field(default_factory=Counter)
    withheld: Counter[str] = field(default_factory=Counter)

    def merge(self, other: Disclosure) -> Disclosure:
        self.revealed.update(other.revealed)
        self.withheld.update(other.withheld)
        return self

    def as_dict(self) -> dict[str, Any]:
        return {"role": self.role, "revealed": dict(sorted(self.revealed.items())),
                "withheld": dict(sorted(self.withheld.items()))}


def resolve(model: Any, role: str, lang: str = "en") -> tuple[Any, Disclosure]:
    """``model`` (dicts, lists, tuples; a copy) with every ``Restricted`` replaced by its value when
    ``role`` may see its kind, else by ``Withheld(kind)``; and what was revealed and withheld."""
    seen = SEES[check_role(role)]
    d = Disclosure(role)

    def walk(x: Any) -> Any:
        if isinstance(x, ByRole):  # this role's own copy, and what it withheld
            d.merge(x.seen[role])
            return walk(x.values[role])
        if isinstance(x, Restricted):
            if x.kind in seen:
                d.revealed[x.kind] += 1
                return walk(x.value)
            d.withheld[x.kind] += 1
            return Withheld(x.kind, lang, x.shown)
        if isinstance(x, dict):
            return {k: walk(v) for k, v in x.items()}
        if isinstance(x, list | tuple):
            return type(x)(walk(v) for v in x)
        return x

    return walk(model), d


def restrict(value: Any, kind: str) -> Any:
    """``Restricted(value, kind)``, except for nothing to hide (None, empty) and a value already
    marked or withheld: kept as is (so marking twice changes nothing)."""
    if value is None or value == "" or value == [] or isinstance(value, Restricted | Withheld):
        return value
    return Restricted(value, kind)


def note(d: Disclosure, lang: str = "en") -> str:
    """One line naming what this role's copy leaves out, or "" when nothing was withheld."""
    if not d.withheld:
        return ""
    zh = lang.lower().startswith("zh")
    kinds = ("、" if zh else ", ").join(KINDS[k][1 if zh else 0] for k in KINDS if k in d.withheld)
    if zh:
        return f"角色 {d.role} 的副本隐去了受限字段（显示为“受限”）：{kinds}"
    return f"Restricted fields withheld for role {d.role} (shown as “restricted”): {kinds}"
