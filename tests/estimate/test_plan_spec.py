"""`estimate --from` reads the spec `plan --from-estimate` reads (review 4, H10): its [plan] table
is skipped with a note, not refused; a one-GPU run's labels are singular in English."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.errors import BadInput
from trainledger.estimate.spec import build_spec


def _run(tmp_path, *args):
    return CliRunner().invoke(cli, ["--workspace", str(tmp_path), "estimate", *args])


SPEC = 'task = "lora"\nparams = "7B"\ntokens = "50M"\ngpu = "h800"\nsamples = 500\n'


def test_a_plan_spec_estimates_with_a_note(tmp_path):
    p = tmp_path / "spec.toml"
    p.write_text(SPEC + "\n[plan]\nmax_rounds = 3\n", encoding="utf-8")
    res = _run(tmp_path, "--from", str(p), "--format", "json")
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert any("[plan] table is for `trainledger plan --from-estimate`" in n for n in d["notes"])
    assert any("[plan] 表供" in n for n in d["notes_zh"])
    p.write_text(SPEC, encoding="utf-8")  # without [plan]: no such note
    d = json.loads(_run(tmp_path, "--from", str(p), "--format", "json").stdout)
    assert not any("[plan]" in n for n in d["notes"])


def test_plan_must_be_a_table_and_other_unknown_keys_are_still_refused():
    base = dict(task="lora", params="7B", tokens="50M", gpu="h800")
    assert build_spec({**base, "plan": {"max_rounds": 3}}).plan_ignored
    with pytest.raises(BadInput, match=r"\[plan\] must be a table"):
        build_spec({**base, "plan": 3})
    with pytest.raises(BadInput, match=r"unknown keys \['plan_ignored'\]"):
        build_spec({**base, "plan_ignored": True})
    with pytest.raises(BadInput, match=r"unknown keys \['plans'\]"):
        build_spec({**base, "plans": {}})


def test_one_gpu_is_singular_in_english(tmp_path):
    p = tmp_path / "spec.toml"
    p.write_text(SPEC, encoding="utf-8")
    md = _run(tmp_path, "--from", str(p), "--format", "md").stdout
    assert "Wall-clock days on 1 GPU |" in md and "@ 1 GPU\n" in md
    assert "1 GPUs" not in md
    md8 = _run(tmp_path, "--from", str(p), "--gpus", "8", "--format", "md").stdout
    assert "Wall-clock days on 8 GPUs" in md8
