"""The estimator: a training budget as an honest range, in the seed's fixed order.

    spec  ->  task type  ->  data  ->  memory (setup and GPU count)  ->  throughput (FLOPs / (peak x MFU))
          ->  x overhead (sourced prior, or the workspace's own finished batches)
          ->  x dated prices (units normalised, FX)  ->  x rounds (and the people per round)
          ->  inference (beside, never added)  ->  totals: known vs placeholder money
          ->  Monte Carlo P10 / P50 / P90 + tornado  ->  JSON / Markdown / HTML with the drawer
    each arrow is a stage of stages.py with one signature (ctx, figures) -> StageOutput.

Modules (one line each):

    spec.py          EstimateSpec and the TOML spec file (--from)
    quantities.py    7B / 2T / 1..3 parsing; Uncertain (low/mode/high + evidence, source, owner)
    tasks.py         task profiles; guided classification (the seed's three questions)
    catalog.py       accelerator catalog (data/accelerators.toml), custom accelerators
    priors.py        sourced priors (data/priors.toml) and MFU ranges (data/mfu.toml)
    memory.py        bytes/parameter: DDP, ZeRO 0-3 (DeepSpeed's estimators), FSDP, TP/PP, offload and
                     its host memory, LoRA/QLoRA, activations, min GPUs
    layout.py        the least-GPU plan (min_gpus, strategy) and the costed run's setup and GPU count
    throughput.py    training FLOPs (recomputation), MFU model, effective GPU-hours
    interconnect.py  MoE all-to-all cost (top-k, ep, layers, link / NIC bandwidth, overlap) and the
                     interconnect factors of multi-GPU plans (PCIe-only, reduced NVLink, RoCE / Ethernet)
    calibrate.py     overhead factor from finished batches' actual/effective ratios
    pricing.py       price-book entries as uncertain inputs in one currency (FX, staleness); missing
                     items collected so an estimate lists them all at once
    workspace_book.py inside a workspace: its price book, currency and [[labor_rates]]
    data_costs.py    licensing, cleaning, labelling, validation, evaluation set; placeholders sized
                     from the task type and the request's tokens
    labor.py         roles x person-months, build vs run per round
    inference.py     serving cost, separately
    montecarlo.py    sampler (one stream per input), percentiles, tornado
    accelerator.py   the accelerator a request names, its GPU-hour price, the setup's default rows
    stages.py        the stages in the seed's order, one signature; failures become Problem records
    engine.py        run(spec): context -> stages -> every problem at once, or an Estimate
    result.py        Estimate and its JSON shape; Split: known vs placeholder money, component means
    procurement.py   on-demand vs reserved vs own vs platform over N years (trainledger compare)
    messages.py      the estimator's message catalogue (the ``estimate`` namespace of i18n/registry.py):
                     its sentences in English and Chinese side by side (Msg = English str + id/params;
                     JSON adds warnings_zh, notes_zh, name_zh …); the texts in texts_report.py and
                     texts_inputs.py. The report itself — view model, headings, json / md / html in
                     en and zh-CN — is report/'s: report/estimate_view.py, report/estimate_render.py
    data/            accelerators.toml, mfu.toml, priors.toml, sample_pricebook.toml — all sourced
"""

from trainledger.estimate.calibrate import overhead_from_history
from trainledger.estimate.engine import run
from trainledger.estimate.procurement import compare
from trainledger.estimate.result import Estimate
from trainledger.estimate.spec import EstimateSpec, build_spec, load_spec_file
from trainledger.estimate.tasks import classify

__all__ = [
    "Estimate",
    "EstimateSpec",
    "build_spec",
    "classify",
    "compare",
    "load_spec_file",
    "overhead_from_history",
    "run",
]
