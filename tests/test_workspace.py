import re
from pathlib import Path

import pytest

from trainledger import workspace
from trainledger.errors import ConfigError, NotFound

from .configs import ONE_BATCH

DOCS = Path(__file__).resolve().parents[1] / "docs" / "workspace.md"

BASE = ONE_BATCH


def write(tmp_path, text):
    (tmp_path / "trainledger.toml").write_text(text, encoding="utf-8")
    return tmp_path


def test_every_setting_is_documented():
    docs = DOCS.read_text(encoding="utf-8")
    for s in workspace.SETTINGS:
        section, _, key = s.name.rpartition(".")
        assert f"[{section}]" in docs, f"docs/workspace.md lacks section [{section}]"
        assert re.search(rf"^{re.escape(key)} = ", docs, re.M), f"docs/workspace.md lacks {s.name}"


def test_defaults_and_types(tmp_path):
    cfg = workspace.load(write(tmp_path, BASE))
    assert cfg.get("cluster.gpus_per_node") == 8 and cfg.get("workspace.currency") == "USD"
    assert cfg.batch("b1").key.model_version == "m"
    with pytest.raises(NotFound, match="batch list"):
        cfg.batch("nope")
    with pytest.raises(ConfigError, match="gpus_per_node must be int"):
        workspace.load(write(tmp_path, '[cluster]\ngpus_per_node = "eight"\n' + BASE))


def test_errors_name_the_file_and_entry(tmp_path):
    bad = BASE.replace('team = "t"\n', "")
    with pytest.raises(ConfigError, match=r"trainledger.toml: \[\[batches\]\] entry 1 \(b1\): missing key 'team'"):
        workspace.load(write(tmp_path, bad))
    with pytest.raises(ConfigError, match="unknown batch 'b9'"):
        workspace.load(write(tmp_path, BASE + '[[rules]]\nid="r"\nsource="slurm"\nfield="wckey"\nmatch="exact"\n'
                                              'pattern="x"\nbatch="b9"\n'))
    with pytest.raises(ConfigError, match="needs an owner"):
        workspace.load(write(tmp_path, BASE + '[[labor_rates]]\nrole="data_prep"\ncurrency="CNY"\nlow="1"\n'
                                              'high="2"\nsource="s"\nevidence="assumed"\n'))
    with pytest.raises(NotFound, match="trainledger init"):
        workspace.load(tmp_path / "missing")


def test_a_broken_regex_is_a_config_error(tmp_path):
    rule = '[[rules]]\nid="r"\nsource="slurm"\nfield="wckey"\nmatch="regex"\npattern="a-(b"\nbatch="b1"\n'
    with pytest.raises(ConfigError, match="not a regular expression"):
        workspace.load(write(tmp_path, BASE + rule))
