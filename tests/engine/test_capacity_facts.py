"""A ``[[capacity]]`` pool without ``gpus`` takes them from the capacity facts of ``import nodes``;
the workspace wins over the facts, and every disagreement is a problem (engine/capacity_facts.py)."""

import textwrap
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from trainledger import workspace
from trainledger.engine import Facts, attribute
from trainledger.engine.capacity_facts import stated
from trainledger.ingest import import_files
from trainledger.lake import Lake
from trainledger.model import Basis

from .factories import CONFIG, price_lookup

DATA = Path(__file__).resolve().parents[1] / "data"
OPENB = DATA / "alibaba-openb-gpu-v2023"
POOL = """
[[rules]]
id = "openb"
source = "slurm"
field = "cluster"
match = "exact"
pattern = "openb"
batch = "b1"
[[capacity]]
id = "openb-pool"
cluster = "openb"
{gpus}from = 1970-01-01T00:00:00Z
until = 1970-01-08T00:00:00Z         # a week: enough to check, fast
currency = "CNY"
rate = "12.50"
unit = "gpu_hour"
effective = 1970-01-01
source = "internal chargeback rate card"
owner = "platform: zhou"
"""


def _config(root: Path, extra: str):
    (root / "trainledger.toml").write_text(textwrap.dedent(CONFIG).replace(
        '[[rules]]\nid = "wckey"', extra.strip() + '\n[[rules]]\nid = "wckey"', 1), encoding="utf-8")
    return workspace.load(root)


def _kinds(result) -> dict[str, list]:
    out: dict[str, list] = {}
    for p in result.problems:
        out.setdefault(p.kind, []).append(p)
    return out


@pytest.fixture(scope="module")
def openb_lake(tmp_path_factory):
    root = tmp_path_factory.mktemp("openb-facts")
    lake = Lake(root / "lake")
    pods = root / "pods.csv"  # the first 300 pods: what held the pool matters less here than its size
    with (OPENB / "openb_pod_list_default.csv").open(encoding="utf-8") as f:
        pods.write_text("".join(line for _, line in zip(range(301), f, strict=False)), encoding="utf-8")
    import_files("jobs", [pods], lake, options={"preset": "alibaba-openb-2023"})
    import_files("nodes", [OPENB / "openb_node_list_gpu_node.csv"], lake, options={"preset": "openb-nodes"})
    return root, lake


def test_a_pool_without_gpus_is_costed_from_the_imported_node_list(openb_lake, tmp_path):
    root, lake = openb_lake
    facts = Facts.from_lake(lake)
    assert sum(r["gpus"] for r in facts.capacity) == 6212
    by_facts = attribute(facts, _config(tmp_path, POOL.format(gpus="")), price_lookup, date(1970, 1, 8))
    (rec,) = by_facts.conservation_capacity
    # 6,212 GPUs (Σ gpu of the node list, by hand) × 7 days × 24 h × 12.50: as the hand-typed pool
    assert Decimal(rec["total"]) == 6212 * 7 * 24 * Decimal("12.50") and rec["difference"] == "0.00"
    typed = tmp_path / "typed"
    typed.mkdir()
    by_hand = attribute(facts, _config(typed, POOL.format(gpus="gpus = 6212\n")), price_lookup, date(1970, 1, 8))
    assert by_hand.conservation_capacity == by_facts.conservation_capacity
    # the week is short on purpose: pods after 01-08 hold the pool outside its period, and say so (G1)
    assert {k for k in _kinds(by_facts) if k.startswith("capacity")} == {"capacity_period_misses_runs"}
    assert Decimal(rec["attributed"]) > 0  # the pods held part of it
    note = next(a.note for a in by_facts.assumptions if a.name.startswith("capacity openb-pool"))
    assert "GPUs from imported capacity facts (import nodes): 6212" in note


def test_the_workspace_wins_and_the_conflict_is_reported(openb_lake, tmp_path):
    _root, lake = openb_lake
    result = attribute(Facts.from_lake(lake), _config(tmp_path, POOL.format(gpus="gpus = 6000\n")), price_lookup,
                       date(1970, 1, 8))
    (rec,) = result.conservation_capacity
    assert Decimal(rec["total"]) == 6000 * 7 * 24 * Decimal("12.50")
    (p,) = _kinds(result)["capacity_conflict"]
    assert (p.detail["config"], p.detail["stated"], p.detail["subject"]) == (6000, 6212, "openb")


def test_two_lists_of_one_cluster_use_the_last_imported_and_say_so(tmp_path):
    lake = Lake(tmp_path / "lake")
    import_files("nodes", [OPENB / "openb_node_list_all_node.csv"], lake, options={"preset": "openb-nodes"})
    import_files("nodes", [OPENB / "openb_node_list_gpu_node.csv"], lake, options={"preset": "openb-nodes"})
    facts = Facts.from_lake(lake)
    assert len(facts.capacity) == 1523 + 1213 - 278  # 278 equal rows are duplicates, not written twice
    result = attribute(facts, _config(tmp_path, POOL.format(gpus="")), price_lookup, date(1970, 1, 8))
    (rec,) = result.conservation_capacity
    # node by node, the list imported last wins: openb-node-0000..1212 from the GPU-only list (6,212
    # GPUs), 1213..1522 only in the full list (awk: 310 nodes, 1,340 GPUs). The two files number the
    # same cluster's nodes differently, so that union overstates it — which is why it is reported.
    assert Decimal(rec["total"]) == (6212 + 1340) * 7 * 24 * Decimal("12.50")
    (p,) = _kinds(result)["capacity_sources_overlap"]
    assert p.detail["used"] == "openb_node_list_gpu_node.csv" and p.detail["others"] == "openb_node_list_all_node.csv"


WIDE = "date,vcA,vcB,total\n2026-11-02,8,8,16\n2026-11-03,8,16,24\n"
DAILY = """
[[capacity]]
id = "x-pool"
cluster = "X"
from = 2026-11-02T00:00:00Z
until = 2026-11-05T00:00:00Z
currency = "CNY"
rate = "10.00"
unit = "gpu_hour"
effective = 2026-11-01
source = "rate card"
owner = "platform"
"""


def test_a_cluster_that_grows_is_costed_day_by_day_and_unstated_days_are_reported(tmp_path):
    (tmp_path / "gpus.csv").write_text(WIDE, encoding="utf-8")
    lake = Lake(tmp_path / "lake")
    import_files("nodes", [tmp_path / "gpus.csv"], lake,
                 options={"preset": "helios-gpus", "tz": "UTC", "set": ["cluster=X"]})
    import_files("nodes", [DATA / "philly" / "philly_vc.csv"], lake, options={"preset": "philly-vc"})
    result = attribute(Facts.from_lake(lake), _config(tmp_path, DAILY), price_lookup, date(2026, 11, 4))
    (rec,) = result.conservation_capacity
    # 16 GPUs on 11-02, 24 on 11-03, nothing stated on 11-04: (16 + 24) × 24 h × 10.00 = 9,600.00
    assert rec["total"] == "9600.00" and rec["unheld"] == "9600.00"
    hours = {}
    for ln in result.lines:
        if ln.basis is Basis.RATE_CARD:
            hours[ln.provenance.row] = hours.get(ln.provenance.row, 0) + ln.quantity
    assert sorted(hours.values()) == [16 * 24, 24 * 24]
    kinds = _kinds(result)
    (missing,) = kinds["capacity_not_stated"]
    assert (missing.detail["hours"], missing.detail["since"]) == ("24", "2026-11-04T00:00:00+00:00")
    (unpriced,) = kinds["capacity_facts_unpriced"]  # Philly's VCs: imported, but no entry prices them
    assert (unpriced.detail["cluster"], unpriced.detail["facts"]) == ("philly", 11)


def test_node_counts_alone_cannot_be_costed(tmp_path):
    lake = Lake(tmp_path / "lake")
    import_files("nodes", [DATA / "philly" / "philly_vc.csv"], lake, options={"preset": "philly-vc"})
    cfg = _config(tmp_path, DAILY.replace('cluster = "X"', 'cluster = "philly"'))
    result = attribute(Facts.from_lake(lake), cfg, price_lookup, date(2026, 11, 4))
    (rec,) = result.conservation_capacity
    assert rec["total"] == "0.00"
    (p,) = _kinds(result)["capacity_gpus_unknown"]
    assert p.detail["hours"] == "72"


def test_a_node_entry_that_the_node_list_contradicts(tmp_path):
    (tmp_path / "n.csv").write_text("sn,cpu_milli,memory_mib,gpu,model\nn1,1,1,4,A100\n", encoding="utf-8")
    lake = Lake(tmp_path / "lake")
    import_files("nodes", [tmp_path / "n.csv"], lake, options={"preset": "openb-nodes"})
    entry = DAILY.replace('cluster = "X"', 'nodes = ["n1"]\ngpus_per_node = 8')
    result = attribute(Facts.from_lake(lake), _config(tmp_path, entry), price_lookup, date(2026, 11, 4))
    (rec,) = result.conservation_capacity
    assert rec["total"] == str(Decimal(8 * 72 * 10) + Decimal("0.00"))  # the workspace's 8 GPUs
    kinds = _kinds(result)
    (p,) = kinds["capacity_conflict"]
    assert (p.detail["subject"], p.detail["config"], p.detail["stated"]) == ("n1", 8, 4)
    assert "capacity_facts_unpriced" not in kinds  # n1's cluster is priced by the node entry


def test_stated_sweeps_facts_by_the_last_imported_file():
    t = [datetime(2026, 1, d, tzinfo=UTC) for d in (1, 2, 3, 4)]
    rows = [{"source_sha256": "a", "valid_from": None, "valid_to": None, "gpus": 8},
            {"source_sha256": "b", "valid_from": t[1], "valid_to": t[2], "gpus": 4},
            {"source_sha256": "b", "valid_from": t[1], "valid_to": t[2], "gpus": 2}]
    spans = stated(rows, t[0], t[3], {"a": 0, "b": 1})
    # the cluster's count (no node, no VC) of file b overrides a's on day 2 (4 + 2, not 8 + 6)
    assert [(s.start.day, s.end.day, s.gpus, s.used, s.others) for s in spans] == [
        (1, 2, 8, ("a",), ()), (2, 3, 6, ("b",), ("a",)), (3, 4, 8, ("a",), ())]
    assert [(s.gpus, s.others) for s in stated(rows, t[0], t[3], {"a": 1, "b": 0})] == [
        (8, ()), (8, ("b",)), (8, ())]
    nodes = [{"source_sha256": "a", "valid_from": None, "valid_to": None, "gpus": 8, "node": "n1"},
             {"source_sha256": "b", "valid_from": None, "valid_to": None, "gpus": 4, "node": "n2"},
             {"source_sha256": "a", "valid_from": None, "valid_to": None, "gpus": None, "vc": "v", "node": ""}]
    (span,) = stated(nodes[:2], t[0], t[3], {})
    assert (span.gpus, span.used, span.others) == (12, ("a", "b"), ())  # different nodes add up
    assert stated(nodes, t[0], t[3], {})[0].gpus is None  # a VC counted in nodes only: GPUs unknown


def test_helios_venus_july_from_its_gpus_per_vc_per_day(tmp_path):
    """HeliosData Venus cluster_gpu_number.csv, July 2020 (Shanghai days): 968 GPUs on 07-01..06, 1,064
    from 07-07 (awk over the total column: 6 × 968 + 25 × 1,064 = 32,408 GPU-days = 777,792 GPU-hours)."""
    lake = Lake(tmp_path / "lake")
    import_files("nodes", [DATA / "helios" / "cluster_gpu_number.csv"], lake,
                 options={"preset": "helios-gpus", "tz": "Asia/Shanghai", "set": ["cluster=Venus"]})
    entry = (DAILY.replace('cluster = "X"', 'cluster = "Venus"')
             .replace("2026-11-02T00:00:00Z", "2020-07-01T00:00:00+08:00")
             .replace("2026-11-05T00:00:00Z", "2020-08-01T00:00:00+08:00").replace('"10.00"', '"1.00"')
             .replace("2026-11-01", "2020-07-01"))
    result = attribute(Facts.from_lake(lake), _config(tmp_path, entry), price_lookup, date(2020, 8, 1))
    (rec,) = result.conservation_capacity
    assert rec["total"] == "777792.00" and rec["difference"] == "0.00"
    assert not {k for k in _kinds(result) if k.startswith("capacity")}
    note = next(a.note for a in result.assumptions if a.name.startswith("capacity x-pool"))
    assert "GPUs from imported capacity facts (import nodes): 968-1064" in note
