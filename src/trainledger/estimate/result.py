"""The estimate as a value: ``Estimate`` and its JSON shape (``to_dict``).

GPU-hours and days are floats rounded to 4 significant digits; money is ``Decimal`` at the
currency's minor unit (quantised from the Monte Carlo's floats, half-even). ``cost.total`` is the
whole programme (all rounds) of compute + data + labor in one currency; ``cost_final_run`` is one
run's compute plus one round of run-phase labor. Inference is a separate block, never in a total.

People's text is in English where it always was; a parallel ``*_zh`` field carries the Chinese
(``warnings_zh``, ``notes_zh``, ``memory.why_zh``, and ``name_zh`` / ``note_zh`` / ``unit_zh`` …
on assumption and sensitivity rows where the Chinese differs) — see ``messages.bilingual``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from trainledger.estimate.inference import InferenceEstimate
from trainledger.estimate.layout import TrainingPlan
from trainledger.estimate.memory import TERMS, MemoryPlan
from trainledger.estimate.messages import bilingual, both
from trainledger.estimate.montecarlo import Pct, Swing
from trainledger.estimate.quantities import money_dec, round_sig
from trainledger.model.prices import Assumption
from trainledger.model.vocab import TaskType

SCHEMA = "trainledger.estimate/1"
PERCENTILES_NOTE = (
    "percentiles are not additive: the P50 of the total is not the sum of the components' P50s; "
    "the means are, and mean.compute + mean.data + mean.labor = mean.total = mean.known + mean.placeholder"
)


@dataclass(frozen=True)
class GpuInfo:
    id: str
    name: str
    memory_bytes: int
    peak_tflops: float
    source: str


@dataclass(frozen=True)
class Split:
    """Known vs placeholder money of the programme, and the components' means.

    ``known`` rests on the requester's inputs, dated prices and sourced priors; ``placeholder`` on
    the task type's placeholders (data lines fed by one, labor phases the spec left out). The two
    add up to the total sample by sample, so their *means* add up to the total's mean, and so do
    the means of compute, data and labor. Percentiles do not add: the P50 of a sum is not the sum
    of the P50s (the components' highs and lows rarely coincide, and right-skewed components pull
    the sum's median above the sum of theirs).
    """

    known: Pct
    placeholder: Pct
    total_p50: float
    mean: dict[str, float]  # compute, data, labor, total, known, placeholder
    placeholder_lines: tuple[str, ...]

    @property
    def placeholder_share_of_p50(self) -> float:
        """How much of the P50 total the placeholders drive: (P50 total - P50 known) / P50 total."""
        if self.total_p50 <= 0:
            return 0.0
        return max(0.0, (self.total_p50 - self.known.p50) / self.total_p50)

    @property
    def placeholder_share_of_mean(self) -> float:
        t = self.mean["total"]
        return self.mean["placeholder"] / t if t > 0 else 0.0

    @classmethod
    def of(cls, f) -> Split:
        total = f["total"]
        parts = {"compute": f["compute_prog"], "data": f["data_total"], "labor": f["labor_total"]}
        mean = {k: float(v.mean()) for k, v in parts.items()}
        mean.update(
            total=float(total.mean()), known=float(f["known"].mean()), placeholder=float(f["placeholder"].mean())
        )
        lines = tuple(f"data:{k}" for k in f["data_ph_lines"]) + tuple(
            f"labor:{k}" for k in f["labor_lines"] if k.split(":", 1)[0] in f["labor_ph"]
        )
        return cls(Pct.of(f["known"]), Pct.of(f["placeholder"]), Pct.of(total).p50, mean, lines)


@dataclass(frozen=True)
class Estimate:
    task: TaskType
    name: str
    currency: str
    priced_on: str
    price_book: str
    samples: int
    seed: int
    gpu: GpuInfo | None
    memory: TrainingPlan | None
    gpus_used: int
    gpus_chosen: bool
    flops_model: float
    flops_hardware: float
    tokens: float
    params: float
    active_params: float
    mfu: Pct
    overhead: Pct
    rounds: Pct
    effective_gpu_hours: Pct
    gpu_hours: Pct
    programme_gpu_hours: Pct
    wallclock_days: Pct | None
    cost: dict[str, Pct]  # compute, data, labor, total (programme)
    cost_final_run: dict[str, Pct]  # compute, labor, total
    data_lines: dict[str, Pct]
    labor_lines: dict[str, Pct]
    inference: InferenceEstimate | None
    assumptions: tuple[Assumption, ...]
    sensitivity: tuple[Swing, ...]
    warnings: tuple[str, ...]
    notes: tuple[str, ...] = field(default=())
    split: Split | None = None  # known vs placeholder money; component means (additive field)

    @property
    def training_strategy(self) -> str:
        return self.memory.costed.strategy if self.memory else "none"

    @property
    def training_per_gpu_bytes(self) -> float:
        return self.memory.costed.breakdown.total if self.memory else 0.0

    def money(self, p: Pct) -> dict[str, Decimal]:
        return {k: money_dec(getattr(p, k), self.currency) for k in ("p10", "p50", "p90")}

    def to_dict(self) -> dict:
        def hrs(p: Pct | None) -> dict | None:
            return None if p is None else {k: round_sig(getattr(p, k), 4) for k in ("p10", "p50", "p90")}

        warnings_en, warnings_zh = both(self.warnings)
        notes_en, notes_zh = both(self.notes)
        d: dict = {
            "schema": SCHEMA,
            "task": self.task.value,
            "name": self.name,
            "gpu": None
            if self.gpu is None
            else bilingual(
                {
                    "id": self.gpu.id,
                    "name": self.gpu.name,
                    "memory_bytes": self.gpu.memory_bytes,
                    "peak_tflops": self.gpu.peak_tflops,
                    "source": self.gpu.source,
                },
                ("name", "source"),
            ),
            "memory": memory_block(self.memory),
            "gpus": {"count": self.gpus_used, "chosen_by_tool": self.gpus_chosen},
            "flops": {
                "model": float(f"{self.flops_model:.4g}"),
                "hardware": float(f"{self.flops_hardware:.4g}"),
                "tokens": self.tokens,
                "params": self.params,
                "active_params": self.active_params,
            },
            "mfu": {k: round(getattr(self.mfu, k), 4) for k in ("p10", "p50", "p90")},
            "overhead_factor": {k: round(getattr(self.overhead, k), 4) for k in ("p10", "p50", "p90")},
            "rounds": {k: round(getattr(self.rounds, k), 3) for k in ("p10", "p50", "p90")},
            "effective_gpu_hours": hrs(self.effective_gpu_hours),
            "gpu_hours": hrs(self.gpu_hours),
            "programme_gpu_hours": hrs(self.programme_gpu_hours),
            "wallclock_days": hrs(self.wallclock_days or Pct.zero()),
            "cost": {
                "currency": self.currency,
                "basis": "estimate",
                "scope": "whole programme: all rounds of compute + data + labor",
                **{k: self.money(v) for k, v in self.cost.items()},
                "data_lines": {k: self.money(v) for k, v in self.data_lines.items()},
                "labor_lines": {k: self.money(v) for k, v in self.labor_lines.items()},
            },
            "cost_final_run": {
                "currency": self.currency,
                "scope": "one final run: compute + one round of run-phase labor",
                **{k: self.money(v) for k, v in self.cost_final_run.items()},
            },
            "inference": None,
            "assumptions": [bilingual(a.as_dict()) for a in self.assumptions],
            "sensitivity": [
                bilingual(
                    {
                        "name": s.name,
                        "input_p10": round_sig(s.input_low, 4),
                        "input_p90": round_sig(s.input_high, 4),
                        "unit": s.unit,
                        "total_at_input_p10": money_dec(s.result_at_low, self.currency),
                        "total_at_input_p90": money_dec(s.result_at_high, self.currency),
                        "swing": money_dec(s.swing, self.currency),
                    }
                )
                for s in self.sensitivity
            ],
            "warnings": warnings_en,
            "warnings_zh": warnings_zh,
            "notes": notes_en,
            "notes_zh": notes_zh,
            "priced_on": self.priced_on,
            "price_book": self.price_book,
            "monte_carlo": {"samples": self.samples, "seed": self.seed},
        }
        if self.split is not None:
            sp = self.split
            d["known_vs_placeholder"] = {
                "currency": self.currency,
                "known": self.money(sp.known),
                "placeholder": self.money(sp.placeholder),
                "placeholder_share_of_p50": round(sp.placeholder_share_of_p50, 4),
                "placeholder_share_of_mean": round(sp.placeholder_share_of_mean, 4),
                "placeholder_lines": list(sp.placeholder_lines),
                "mean": {k: money_dec(v, self.currency) for k, v in sp.mean.items()},
                "why_p50s_do_not_add": PERCENTILES_NOTE,
            }
        inf = self.inference
        if inf is not None:
            d["inference"] = {
                "separate_from_training": True,
                "currency": self.currency,
                "mode": inf.mode,
                "months": inf.months,
                "monthly": self.money(inf.monthly),
                "total": self.money(inf.total),
                "gpu_hours_per_month": hrs(inf.gpu_hours_per_month),
                "retrieval_storage_monthly": None
                if inf.retrieval_storage_monthly is None
                else self.money(inf.retrieval_storage_monthly),
            }
        return d


def plan_figures(p: MemoryPlan) -> dict:
    bd = p.breakdown
    return {
        "per_gpu_bytes": int(bd.total),
        "model_states_per_gpu_bytes": int(bd.model_states),
        "activations_per_gpu_bytes": int(bd.activations),
        "dominant_term": bd.dominant,
        "why": p.why_en,
        "why_zh": p.why_zh,
        "at_gpus": p.gpus,
        "terms_bytes": {t: int(getattr(bd, t)) for t in TERMS},
        "host_bytes_per_node": int(bd.host_per_node),
    }


def memory_block(tp: TrainingPlan | None) -> dict:
    """The ``memory`` block. Its per-GPU figures describe the costed run (``training_strategy`` on
    ``at_gpus`` GPUs); ``min_gpus`` and ``strategy`` name the least-GPU plan (searched over
    ``min_gpus_scope``), whose own figures at ``min_gpus`` are in ``least_gpu_plan``."""
    if tp is None:
        empty = plan_figures_empty()
        return {
            **empty,
            "min_gpus": 0,
            "strategy": "none (rag: no training)",
            "min_gpus_scope": "",
            "least_gpu_plan": None,
            "training_strategy": "none",
            "training_per_gpu_bytes": 0,
        }
    costed = plan_figures(tp.costed)
    least = {"strategy": tp.least.strategy, "min_gpus": tp.least.min_gpus, **plan_figures(tp.least)}
    return bilingual(
        {
            **costed,
            "min_gpus": tp.least.min_gpus,
            "strategy": tp.least.strategy,
            "min_gpus_scope": tp.scope,
            "least_gpu_plan": least,
            "training_strategy": tp.costed.strategy,
            "training_per_gpu_bytes": costed["per_gpu_bytes"],
        },
        ("min_gpus_scope",),
    )


def plan_figures_empty() -> dict:
    return {
        "per_gpu_bytes": 0,
        "model_states_per_gpu_bytes": 0,
        "activations_per_gpu_bytes": 0,
        "dominant_term": "none",
        "why": "",
        "why_zh": "",
        "at_gpus": 0,
        "terms_bytes": {},
        "host_bytes_per_node": 0,
    }
