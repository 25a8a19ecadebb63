"""The workspace config is validated on load (issue #6, item 9): a typo is an error that names the
file and key and suggests the fix; values outside their domain are refused; ids may be Chinese."""

from __future__ import annotations

import json

import pytest

from trainledger import workspace
from trainledger.demo import generate
from trainledger.errors import ConfigError
from trainledger.report.render import to_markdown
from trainledger.service import Workspace

from .configs import ONE_BATCH


def load(tmp_path, text):
    (tmp_path / "trainledger.toml").write_text(text, encoding="utf-8")
    return workspace.load(tmp_path)


@pytest.mark.parametrize(("extra", "said"), [
    ("[cluster]\ngpus_per_nod = 8\n", "unknown key cluster.gpus_per_nod — did you mean cluster.gpus_per_node?"),
    ("[clustr]\ngpus_per_node = 8\n", "unknown section [clustr] — did you mean [cluster]?"),
    ("[sources.slrum]\ntimezone = 'UTC'\n", "unknown section [sources.slrum] — did you mean [sources.slurm]?"),
    ("[workspace]\nlanguge = 'en'\n", "did you mean workspace.language?"),
    ("[telemetry]\non = true\n", "unknown section [telemetry]"),
    ("[[batchs]]\nid = 'x'\n", "did you mean [[batches]]?"),
])
def test_unknown_sections_and_keys_are_errors_with_a_suggestion(tmp_path, extra, said):
    with pytest.raises(ConfigError) as e:
        load(tmp_path, extra + ONE_BATCH)
    msg = str(e.value)
    assert said in msg and "trainledger.toml" in msg and "known:" in msg
    assert "未知" in msg or "应是配置节" in msg  # and in Chinese


def test_a_section_written_as_a_key(tmp_path):
    with pytest.raises(ConfigError, match=r"cluster must be a section, written \[cluster\]"):
        load(tmp_path, "cluster = 8\n" + ONE_BATCH)


def test_unknown_entry_key(tmp_path):
    with pytest.raises(ConfigError, match=r"\[\[batches\]\] entry 1 \(b1\): unknown key taem — did you mean team\?"):
        load(tmp_path, ONE_BATCH.replace('team = "t"', 'team = "t"\ntaem = "x"'))


@pytest.mark.parametrize(("extra", "said"), [
    ("[cluster]\ngpus_per_node = 0\n", "cluster.gpus_per_node must be > 0, got 0"),
    ("[cluster]\ngpus_per_node = -8\n", "cluster.gpus_per_node must be > 0"),
    ("[cluster]\nstale_gap_minutes = 0\n", "cluster.stale_gap_minutes must be > 0"),
    ("[workspace]\ncurrency = 'XYZ'\n", "'XYZ' is not an ISO 4217 currency code"),
    ("[workspace]\ncurrency = 'cny'\n", "(did you mean CNY?"),
    ("[workspace]\ncurrency = 'RMB'\n", "'RMB' is not an ISO 4217"),
    ("[workspace]\nlanguage = 'fr'\n", "'fr' is not a report language"),
    ("[workspace]\nlanguage = 'zh_cn'\n", "(did you mean zh-CN?"),
    ("[sources.slurm]\ntimezone = 'Asia/Shangai'\n", "unknown time zone 'Asia/Shangai' — did you mean Asia/Shanghai?"),
    ("[sources.slurm]\ntimezone = '../../etc/passwd'\n", "unknown time zone"),
])
def test_values_outside_their_domain(tmp_path, extra, said):
    with pytest.raises(ConfigError) as e:
        load(tmp_path, extra + ONE_BATCH)
    assert said in str(e.value) and "remedy:" in str(e.value)


@pytest.mark.parametrize(("written", "read"), [
    ("asia/shanghai", "Asia/Shanghai"), ("utc", "UTC"), ("Europe/Berlin", "Europe/Berlin"),
    ("AMERICA/NEW_YORK", "America/New_York"),
])
def test_time_zones_match_case_insensitively(tmp_path, written, read):
    cfg = load(tmp_path, f"[sources.slurm]\ntimezone = '{written}'\n" + ONE_BATCH)
    assert cfg.get("sources.slurm.timezone") == read


@pytest.mark.parametrize("bad", ["../x", "a/b", "a\\\\b", "a b", "a..b", "-a", "b.", "", " b1", "b1\\n"])
def test_ids_never_hold_path_separators(tmp_path, bad):
    for field in ('id = "b1"', 'id = "p1"'):
        text = ONE_BATCH.replace(field, f'id = "{bad}"').replace('project = "p1"', 'project = "p1"')
        with pytest.raises(ConfigError, match="id"):
            load(tmp_path, text)


@pytest.mark.parametrize("good", ["客服-批次-a", "csa-sft-2026-11-a", "b1", "run_7.2", "git:4f2a9c1", "Ünïcode"])
def test_ids_may_use_letters_of_any_script(tmp_path, good):
    assert load(tmp_path, ONE_BATCH.replace('id = "b1"', f'id = "{good}"')).batch(good).id == good


def test_the_demo_config_and_the_starter_config_pass(tmp_path):
    files = generate(tmp_path / "demo")
    assert workspace.load(files.config.parent).get("workspace.language") == "zh-CN"
    with Workspace.init(tmp_path / "fresh") as w:
        assert w.config.get("cluster.gpus_per_node") == 8


def test_a_chinese_batch_id_works_end_to_end(tmp_path):
    """The demo with batch A renamed 客服-批次-a everywhere (config, sacct WCKey and Comment,
    storage paths and batch column, timesheet): same figures as under its ASCII id."""
    sheets = {}
    for new in ("csa-sft-2026-11-a", "客服-批次-a"):
        root = tmp_path / ("zh" if new != "csa-sft-2026-11-a" else "en")
        files = generate(root)
        for f in vars(files).values():
            f.write_text(f.read_text(encoding="utf-8").replace("csa-sft-2026-11-a", new), encoding="utf-8")
        with Workspace.init(root) as w:
            for kind in ("slurm", "focus", "storage", "timesheet", "progress", "invoice"):
                w.import_files(kind, [getattr(files, kind)])
            w.attribute()
            sheets[new] = w.sheet(new)
    en, zh = sheets["csa-sft-2026-11-a"], sheets["客服-批次-a"]
    assert zh["batch"]["id"] == "客服-批次-a" and zh["key"]["batch_id"] == "客服-批次-a"
    assert zh["totals_by_basis"] == en["totals_by_basis"] and len(zh["runs"]) == len(en["runs"]) == 15
    assert json.dumps(zh["storage_by_class"], ensure_ascii=False).replace("客服-批次-a", "csa-sft-2026-11-a") == \
        json.dumps(en["storage_by_class"], ensure_ascii=False)
    assert to_markdown(zh, "zh-CN").startswith("# ") and "客服-批次-a" in to_markdown(zh, "zh-CN").splitlines()[0]


def test_a_batch_entry_names_every_missing_key_at_once(tmp_path):
    """Review 7 L9: an entry with id and project only took six runs, one key each, before an import ran."""
    from trainledger.i18n import localize

    with pytest.raises(ConfigError) as e:
        load(tmp_path, '[[projects]]\nid = "p1"\ngoal = "g"\n[[batches]]\nid = "b1"\nproject = "p1"\n')
    text = str(e.value)
    assert "entry 1 (b1): missing keys goal, data_snapshot, data_processing_version, model_version, code_version," \
           " config_version, team" in text
    assert "缺少键 goal, data_snapshot" in localize(text, "zh-CN")
    with pytest.raises(ConfigError, match=r"entry 1 \(b1\): missing key 'team'"):  # one key: as before
        load(tmp_path, ONE_BATCH.replace('team = "t"\n', ""))
