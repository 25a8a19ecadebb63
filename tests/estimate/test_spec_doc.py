"""docs/estimate-spec.md covers every key the spec file accepts, with the code's defaults."""

from __future__ import annotations

import re
from dataclasses import MISSING, fields
from pathlib import Path

import pytest

from trainledger.estimate.data_costs import FIELDS as DATA_FIELDS
from trainledger.estimate.inference import KEYS as INFERENCE_KEYS
from trainledger.estimate.spec import EstimateSpec, build_spec
from trainledger.model.vocab import LaborRole

DOC = Path(__file__).resolve().parents[2] / "docs" / "estimate-spec.md"


def sections() -> dict[str, dict[str, list[str]]]:
    """heading -> {key: [unit, default, meaning]} from the doc's tables."""
    out: dict[str, dict[str, list[str]]] = {}
    current = ""
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            out[current] = {}
        m = re.match(r"^\| `([a-z_]+)` \|(.*)\|\s*$", line)
        if m and current:
            out[current][m.group(1)] = [c.strip() for c in m.group(2).split("|")]
    return out


def test_top_level_keys_are_documented():
    documented = set(sections()["Top level"])
    # plan_ignored is no key (it records that the file had `plan`, which the estimator skips)
    assert documented == {f.name for f in fields(EstimateSpec)} - {"plan_ignored"} | {"plan"}


def test_data_keys_are_documented():
    assert set(sections()["`[data]`"]) == {*DATA_FIELDS, "extra"}


def test_labor_roles_are_documented():
    assert set(sections()["`[labor.build]` and `[labor.run]`"]) == {r.value for r in LaborRole}


def test_inference_keys_are_documented():
    assert set(sections()["`[inference]`"]) == set(INFERENCE_KEYS)


def literal(cell: str):
    m = re.fullmatch(r"`(.*)`", cell)
    if not m:
        return None
    text = m.group(1)
    if text in ("true", "false"):
        return text == "true"
    if text.startswith('"'):
        return text.strip('"')
    try:
        return int(text)
    except ValueError:
        return text


WITH_DEFAULT = [f for f in fields(EstimateSpec) if f.default not in (MISSING, None) and f.name != "plan_ignored"]


@pytest.mark.parametrize("f", WITH_DEFAULT, ids=lambda f: f.name)
def test_documented_literal_defaults_are_the_codes(f):
    """A key with a fixed default in code shows it, as a literal, in the doc."""
    cell = sections()["Top level"][f.name][1]
    assert literal(cell) == f.default, f"{f.name}: doc {cell!r} vs code {f.default!r}"


def test_the_example_in_the_doc_builds(tmp_path):
    block = DOC.read_text(encoding="utf-8").split("```toml\n", 1)[1].split("```", 1)[0]
    import tomllib

    spec = build_spec(tomllib.loads(block))
    assert spec.task.value == "lora" and spec.gpus == 8 and spec.data["labelled_items"] == [4000, 5000, 6000]
