"""Mutations of the demo's trainledger.toml never crash ``workspace.load``: it returns a config or
raises one of the project's errors, naming the file (issue #6, item 9)."""

from __future__ import annotations

import os
import tempfile
from functools import cache
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from trainledger import workspace
from trainledger.demo import generate
from trainledger.errors import TrainledgerError

VALUES = ('0', '-1', '""', '" "', '"../x"', '"a/b"', '"客服-批次-a"', "[]", "{}", "true", "1.5", "1e400",
          '"XYZ"', '"zh"', '"asia/shanghai"', '"Mars/Olympus"', "9" * 30, '"\\u0000"', "[[1]]", '{a = 1}')


@cache
def demo_config() -> str:
    return generate(Path(tempfile.mkdtemp(prefix="tl-cfg-"))).config.read_text(encoding="utf-8")


@st.composite
def mutated_config(draw: st.DrawFn) -> str:
    lines = demo_config().splitlines()
    for _ in range(draw(st.integers(1, 3))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        what = draw(st.sampled_from(["value", "drop", "repeat", "rename", "truncate"]))
        key, sep, _ = lines[i].partition(" = ")
        if what == "value" and sep:
            lines[i] = f"{key} = {draw(st.sampled_from(VALUES))}"
        elif what == "drop":
            del lines[i]
        elif what == "repeat":
            lines.insert(i, lines[i])
        elif what == "rename" and sep:
            lines[i] = f"{key[:-1] or 'x'}{draw(st.sampled_from('sx_'))} = {lines[i].partition(' = ')[2]}"
        elif what == "truncate":
            lines = lines[:i]
    return "\n".join(lines) + "\n"


@settings(max_examples=int(os.environ.get("TRAINLEDGER_FUZZ_EXAMPLES", "150")), deadline=None)
@given(mutated_config())
def test_a_mutated_config_loads_or_fails_cleanly(text):
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "trainledger.toml").write_text(text, encoding="utf-8")
        try:
            cfg = workspace.load(tmp)
        except TrainledgerError as e:
            assert "trainledger.toml" in str(e) or "workspace" in str(e)
            return
        assert cfg.get("cluster.gpus_per_node") > 0
        for b in cfg.batches:
            assert "/" not in b.id and ".." not in b.id
