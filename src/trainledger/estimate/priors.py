"""Read the sourced priors (``data/priors.toml``) and MFU ranges (``data/mfu.toml``).

Nothing numeric that the estimator does not compute lives in code: it is read from these files,
each value with its source, evidence and — when assumed — owner. A ``source_zh`` beside a
``source`` (any ``<key>_zh`` beside ``<key>``) is its reviewed Chinese: the loaders fold it into the
English as an ``i18n.core.Twin``, so a zh-CN report shows it and the JSON adds ``source_zh``.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

from trainledger.estimate.messages import Msg, Term
from trainledger.estimate.quantities import Uncertain
from trainledger.i18n.core import twins

DATA = Path(__file__).parent / "data"
FINETUNE_TASKS = ("full_finetune", "lora", "qlora")


@cache
def priors() -> dict:
    with (DATA / "priors.toml").open("rb") as fh:
        return twins(tomllib.load(fh))


@cache
def mfu_table() -> dict:
    with (DATA / "mfu.toml").open("rb") as fh:
        return twins(tomllib.load(fh))


def prior(name: str, key: str, **kw) -> Uncertain:
    """An Uncertain from a low/mode/high table, e.g. ``prior('overhead', 'overhead.pretrain')``."""
    row = priors()
    for part in key.split("."):
        row = row[part]
    return Uncertain.from_table(name, row, **kw)


def triple(name: str, values: list, meta: dict, unit: str = "") -> Uncertain:
    lo, mo, hi = (float(v) for v in values)
    return Uncertain(
        name,
        lo,
        mo,
        hi,
        unit=unit,
        evidence=meta.get("evidence", "assumed"),
        source=meta.get("source", ""),
        owner=meta.get("owner", ""),
    )


def placeholder_meta(owner: str) -> dict:
    """Evidence and source of the task-type placeholders (``[defaults.meta]``), with ``owner``;
    the source is the catalogue's ``src.placeholder`` (so it reads in Chinese too) while the data
    file still says the same words."""
    meta = dict(priors()["defaults"]["meta"], owner=owner)
    if meta.get("source") == Msg("src.placeholder"):
        meta["source"] = Msg("src.placeholder")
    return meta


def size_class(active_params: float) -> str:
    if active_params < 3e9:
        return "small"
    if active_params < 30e9:
        return "medium"
    return "large"


def mfu_prior(family: str, active_params: float) -> Uncertain:
    table = mfu_table()
    fam = family if family in table else "other"
    cls = size_class(active_params)
    row = table[fam][cls]
    return Uncertain.from_table(
        Msg("name.mfu", family=fam, size=Msg(f"size.{cls}")),
        row,
        unit="fraction of dense BF16 peak",
        **({"note": note} if (note := beyond_figures(row)) else {}),
    )


def beyond_figures(row: dict) -> Msg | None:
    """What of a "measured" MFU range its cited figures do not cover: only the span between the
    lowest and the highest figure is measured; beyond it, the range is extrapolated (rows of five
    or more ``figures``: their extremes at the 1/(n+1) and n/(n+1) quantiles) or assumed (rows
    with fewer, ``cited``). None when the range stays within the figures, or the row is assumed."""
    figs = row.get("figures") or row.get("cited")
    if row.get("evidence") != "measured" or not figs:
        return None
    lo, hi = min(figs), max(figs)
    if row["low"] >= lo and row["high"] <= hi:
        return None
    key = "note.mfu_beyond_extrapolated" if "figures" in row else "note.mfu_beyond_assumed"
    return Msg(key, lo=f"{lo:.1%}", hi=f"{hi:.1%}", n=len(figs))


def overhead_prior(task: str) -> Uncertain:
    key = "overhead.finetune" if task in FINETUNE_TASKS else "overhead.pretrain"
    return prior(Msg("name.overhead"), key, unit="x")


def rounds_prior(task: str) -> Uncertain:
    key = {"pretrain": "pretrain", "continued_pretrain": "continued_pretrain", "rag": "rag"}.get(task, "finetune")
    return prior(Msg("name.rounds"), f"rounds.{key}", unit="x")


def guided_rounds_prior(task: str, several_rounds: bool) -> Uncertain:
    """The task's rounds prior, as the guided mode's answer scales it: the rounds beyond the final
    run are multiplied by ``[rounds.guided]`` (1 for "several rounds: yes", less for "no")."""
    base = rounds_prior(task)
    g = priors()["rounds"]["guided"]
    k = float(g["several_scale" if several_rounds else "one_scale"])
    lo, mo, hi = (1.0 + (x - 1.0) * k for x in (base.low, base.mode, base.high))
    answer = Msg("answer.yes" if several_rounds else "answer.no")
    return Uncertain(
        base.name,
        lo,
        mo,
        hi,
        unit=base.unit,
        evidence="assumed",
        source=Msg("src.guided_rounds", answer=answer, scale=k, task=Term(task), prior=base.source, why=g["source"]),
        owner=g.get("owner", "requester"),
    )
