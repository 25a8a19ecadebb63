"""The priors against their own sources: MFU rows set from their cited figures, the overhead's
troubled-run tail, the offload slowdown, and the width of the band they give together."""

from __future__ import annotations

import math
import re
import statistics

import numpy as np
import pytest

from trainledger.estimate.montecarlo import Sampler, triangular
from trainledger.estimate.priors import mfu_table, overhead_prior, priors
from trainledger.estimate.quantities import Uncertain

MEASURED_ROWS = [(fam, cls) for fam, t in mfu_table().items() for cls, row in t.items() if "figures" in row]


def test_rows_with_five_or_more_figures_list_them():
    assert {f"{f}.{c}" for f, c in MEASURED_ROWS} == {"ampere.large", "ampere.medium", "hopper.large", "hopper.medium"}


@pytest.mark.parametrize(("fam", "cls"), MEASURED_ROWS, ids=[f"{f}.{c}" for f, c in MEASURED_ROWS])
def test_measured_mfu_rows_put_their_cited_extremes_at_the_quantiles_n_figures_estimate(fam, cls):
    row = mfu_table()[fam][cls]
    figs = row["figures"]
    n = len(figs)
    assert n >= 5 and row["evidence"] == "measured"
    assert f"of {n} " in row["source"]  # the text cites as many figures as the row lists
    lo, hi = triangular(np.array([1 / (n + 1), n / (n + 1)]), row["low"], row["mode"], row["high"])
    assert lo == pytest.approx(min(figs), abs=0.01) and hi == pytest.approx(max(figs), abs=0.01)
    assert row["mode"] == pytest.approx(statistics.median(figs), abs=0.01)
    cited = [float(x) for x in re.findall(r"(\d+(?:\.\d+)?)%", row["source"])]
    for fig in figs:  # every figure is written in the source text as a percentage
        assert any(abs(fig * 100 - c) <= 0.6 for c in cited), fig


def test_all_in_figures_are_kept_out_of_the_mfu_prior():
    """All-in figures (published GPU-hours, restarts included) would count the overhead twice:
    they are listed apart and never among the figures the triangle is set from."""
    for fam, t in mfu_table().items():
        for cls, row in t.items():
            assert row.get("source_date"), f"{fam}.{cls} has no source date"
            if row.get("all_in"):
                # the steady-state figures are cited before "Kept apart", the all-in ones after it
                steady, apart = row["source"].split("Kept apart", 1)
                assert f"of {len(row['figures'])} steady-state" in steady
                assert "all-in" in apart and "all-in" not in steady
    assert mfu_table()["ampere"]["large"]["all_in"] == [0.46]  # LLaMA-2 70B (Touvron et al. 2023 Table 2)


def test_overhead_has_the_troubled_run_tail_its_source_describes():
    u = overhead_prior("pretrain")
    assert getattr(u, "has_tail", False) and u.tail_high >= 3.9 and u.tail_low >= u.high  # OPT-175B: 2-4x
    assert u.mode == pytest.approx(1 / 0.9, abs=0.01)  # Llama 3 / MegaScale: >90% effective time
    assert "2205.01068" in u.source and "2407.21783" in u.source and u.owner
    x = Sampler(100_000, seed=11).draw(u)
    assert 0.02 < (x >= 2.0).mean() < u.tail_p  # a low-probability mass far above the body
    assert np.percentile(x, 50) < 1.25


def test_offload_priors_never_speed_a_run_up():
    for key in ("optimizer", "optimizer_params"):
        row = priors()["offload"][key]
        assert 0 < row["low"] <= row["mode"] <= row["high"] <= 1.0 and row["owner"]
    assert priors()["offload"]["optimizer_params"]["mode"] < priors()["offload"]["optimizer"]["mode"]


def test_gpu_hours_bands_are_as_wide_as_the_published_spread(book):
    """An honest 80% band is about exp(2 x 1.28 x s) wide, s the log-sd of published / P50 over the
    published runs the estimator contains (tests/estimate/test_published_runs.py): the median band
    over those runs is at least that wide (a well-measured class may be narrower, another wider)."""
    from tests.estimate.test_published_runs import INSIDE, _pcts

    logs, bands = [], []
    for run, figure in INSIDE:
        p10, p50, p90 = _pcts(book, run, figure)
        logs.append(math.log(run[1] / p50))
        bands.append(p90 / p10)
    implied = math.exp(2 * 1.2816 * statistics.stdev(logs))
    assert statistics.median(bands) >= implied


def test_quantiles_without_a_tail_are_the_triangle():
    from trainledger.estimate.montecarlo import quantiles

    u = np.linspace(0, 1, 11)
    assert np.allclose(quantiles(u, Uncertain("t", 1, 2, 4)), triangular(u, 1, 2, 4))


def test_every_sourced_prior_keeps_its_date():
    def walk(t, path=""):
        for k, v in t.items():
            if isinstance(v, dict):
                if "source" in v:
                    assert v.get("source_date"), f"{path}{k} has a source but no source_date"
                walk(v, f"{path}{k}.")

    walk(priors())
    walk(mfu_table())


ALL_CELLS = [(fam, cls) for fam, t in mfu_table().items() for cls in t]


@pytest.mark.parametrize(("fam", "cls"), ALL_CELLS, ids=[f"{f}.{c}" for f, c in ALL_CELLS])
def test_a_measured_mfu_range_beyond_its_cited_figures_says_which_part_is_extrapolated(fam, cls):
    """Every MFU cell (review 4, H8): a "measured" row lists the figures it cites; the drawer's
    range is within them, or its note names the measured span and calls the rest extrapolated
    (five or more figures) or assumed (fewer) — in both languages."""
    from trainledger.estimate.priors import mfu_prior

    row = mfu_table()[fam][cls]
    active = {"small": 1e9, "medium": 7e9, "large": 70e9}[cls]
    a = mfu_prior(fam, active).as_assumption().as_dict()
    if row["evidence"] != "measured":
        assert "measured only" not in str(a.get("note", ""))
        return
    figs = row.get("figures") or row.get("cited")
    assert figs, f"{fam}.{cls} is labelled measured but lists no cited figures"
    cited = [float(x) for x in re.findall(r"(\d+(?:\.\d+)?)%", row["source"])]
    for fig in figs:  # each listed figure is written in the source text
        assert any(abs(fig * 100 - c) <= 0.6 for c in cited), (fam, cls, fig)
    lo, hi = min(figs), max(figs)
    note = str(a["note"])
    if row["low"] >= lo and row["high"] <= hi:
        assert "measured only" not in note
        return
    assert f"measured only {lo:.1%} – {hi:.1%}" in note, note
    assert ("extrapolated" if "figures" in row else "assumed") in note, note
    zh = a["note"].text("zh-CN")
    assert f"实测的只有 {lo:.1%} – {hi:.1%}" in zh and ("外推" in zh or "假设" in zh)


def test_the_hopper_medium_drawer_no_longer_calls_7_to_70_percent_measured():
    from trainledger.estimate.priors import mfu_prior

    a = mfu_prior("hopper", 7e9).as_assumption()
    assert (a.low, a.high) == ("0.071", "0.703")
    assert "measured only 26.9% – 53.8% (the 5 cited figures)" in str(a.note)
