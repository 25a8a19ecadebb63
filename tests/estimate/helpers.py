"""Helpers for the estimator tests: a fixed pricing date and a small estimate runner."""

from __future__ import annotations

from datetime import date

from trainledger.estimate.engine import run
from trainledger.estimate.spec import build_spec

ON = date(2026, 11, 29)


def estimate(book, samples: int = 20_000, **values):
    values.setdefault("samples", samples)
    return run(build_spec(values), book=book, on=ON)
