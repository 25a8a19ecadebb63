"""Labor (seed 004, part three): roles x person-months, build (one-time) vs run (per round).

Rates are per person-month from the price book (``labor:<role>``), ranges by role. The spec's
``[labor.build]`` / ``[labor.run]`` tables give person-months by role; roles it leaves out use the
task type's placeholder in ``data/priors.toml`` and the estimate says so.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from trainledger.errors import BadInput
from trainledger.estimate.data_costs import read_input
from trainledger.estimate.messages import Msg, Term
from trainledger.estimate.montecarlo import Sampler
from trainledger.estimate.pricing import Pricing
from trainledger.estimate.priors import placeholder_meta, priors
from trainledger.model.vocab import LaborRole

PHASES = ("build", "run")


class LaborCost(NamedTuple):
    build: np.ndarray  # one-time
    run: np.ndarray  # per round
    lines: dict[str, np.ndarray]  # "phase:role" -> samples
    placeholders: list[str]  # the phases that came from the task type's placeholder


def labor_cost(sampler: Sampler, spec_labor: dict, task: str, pricing: Pricing) -> LaborCost:
    """Build and per-round run labor by role, and which phases are placeholders."""
    defaults = priors()["defaults"][task if task in priors()["defaults"] else "lora"]["labor"]
    meta = placeholder_meta("project lead")
    unknown = sorted(set(spec_labor) - set(PHASES))
    if unknown:
        raise BadInput(f"[labor]: unknown tables {unknown}", remedy="use [labor.build] and [labor.run]")
    totals = {p: np.zeros(sampler.n) for p in PHASES}
    lines: dict[str, np.ndarray] = {}
    placeholders = []
    for phase in PHASES:
        given = spec_labor.get(phase)
        if given is None:
            given, src = defaults.get(phase, {}), meta
            placeholders.append(phase)
        else:
            src = {
                "evidence": "assumed",
                "source": Msg("src.spec_table", table=f"[labor.{phase}]"),
                "owner": "project lead",
            }
        for role, raw in given.items():
            try:
                LaborRole(role)
            except ValueError:
                raise BadInput(
                    f"[labor.{phase}]: unknown role {role!r}",
                    remedy="roles: " + ", ".join(r.value for r in LaborRole),
                ) from None
            u = read_input(Msg(f"name.labor.{phase}", role=Term(role)), raw, "person_month", src, "[labor]")
            if u.high == 0:
                continue
            rate = sampler.draw(pricing.rate(f"labor:{role}", "person_month"))
            arr = sampler.draw(u) * rate
            lines[f"{phase}:{role}"] = arr
            totals[phase] = totals[phase] + arr
    return LaborCost(totals["build"], totals["run"], lines, placeholders)
