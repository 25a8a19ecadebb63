"""``import nodes``: node / capacity lists (openb node list, Helios GPUs per VC, Philly VCs) → capacity.

The figures were counted by hand from the raw files (awk / csv module, see the comments) and
are asserted here against what the lake holds."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ingest_helpers import DATA, run, snapshot

from trainledger.errors import BadInput, WrongFileType
from trainledger.ingest import import_files
from trainledger.lake import Lake
from trainledger.lake.schemas import TABLES

OPENB_ALL = DATA / "alibaba-openb-gpu-v2023" / "openb_node_list_all_node.csv"
OPENB_GPU = DATA / "alibaba-openb-gpu-v2023" / "openb_node_list_gpu_node.csv"
VENUS = DATA / "helios" / "cluster_gpu_number.csv"  # HeliosData data/Venus/
EARTH = DATA / "helios" / "Earth_gpu_number.csv"
PHILLY = DATA / "philly" / "philly_vc.csv"
HELIOS = {"preset": "helios-gpus", "tz": "Asia/Shanghai"}

# awk -F, 'NR>1{g[$5]+=$4; n[$5]++}' openb_node_list_all_node.csv: model → (nodes, GPUs)
OPENB_MODELS = {"G2": (549, 4392), "T4": (404, 842), "P100": (134, 265), "V100M16": (55, 195),
                "V100M32": (30, 204), "G3": (39, 312), "A10": (2, 2), None: (310, 0)}  # fmt: skip

WIDE = (
    "date,vcA,vcB,total\n"
    "2020-04-01,8,16,24\n"
    "2020-04-02,8,,24\n"  # an empty cell: that cell is quarantined, vcA's is accepted
    "2020-04-03,-8,16,8\n"  # a negative count: quarantined alone
    "2020-04-04,8,24,24\n"  # 8 + 24 is not 24: both cells flagged
    "2020-04-05,\"8,16\n"  # a broken row: one record, quarantined
)


def _facts(lake):
    return lake.read("capacity").to_pylist()


def test_openb_node_list_reproduces_the_raw_file(lake):
    r = run("nodes", OPENB_ALL, lake, preset="openb-nodes")
    assert (r.rows_read, r.accepted, r.duplicates, r.quarantined, r.flagged) == (1523, 1523, 0, 0, 0)
    facts = _facts(lake)
    assert sum(f["gpus"] for f in facts) == 6212
    assert {f["cluster"] for f in facts} == {"openb"}  # the pod list's preset names the same cluster
    by_model: Counter = Counter()
    gpus: Counter = Counter()
    for f in facts:
        by_model[f["gpu_model"]] += 1
        gpus[f["gpu_model"]] += f["gpus"]
        assert f["nodes"] == 1 and f["valid_from"] is None and f["valid_to"] is None and f["vc"] == ""
    assert {m: (by_model[m], gpus[m]) for m in by_model} == OPENB_MODELS
    first = facts[0]
    assert (first["node"], first["row"], json.loads(first["extra"])) == (
        "openb-node-0000", 1, {"cpu_milli": "32000", "memory_mib": "262144"})


def test_the_gpu_node_list_is_the_same_cluster_and_its_equal_rows_are_duplicates(lake):
    gpu_only = run("nodes", OPENB_GPU, lake, preset="openb-nodes")
    assert (gpu_only.rows_read, gpu_only.accepted) == (1213, 1213)
    assert sum(f["gpus"] for f in _facts(lake)) == 6212  # the same GPUs as the full list, no CPU nodes
    both = run("nodes", OPENB_ALL, lake, preset="openb-nodes")
    # comm -12 on the sorted data rows (header dropped) of both files: 278 rows are the same text
    assert (both.accepted, both.duplicates, both.quarantined) == (1523 - 278, 278, 0)


@pytest.mark.parametrize(("path", "cluster", "first", "last", "gpu_days"),
                         [(VENUS, "Venus", 968, 1080, 185120), (EARTH, "Earth", 784, 1208, 180576)])
def test_helios_gpus_per_vc_per_day(lake, path, cluster, first, last, gpu_days):
    r = run("nodes", path, lake, **HELIOS, set=[f"cluster={cluster}"])
    assert (r.rows_read, r.accepted, r.quarantined, r.flagged) == (181 * 25, 181 * 25, 0, 0)  # 181 days × 25 VCs
    facts = _facts(lake)
    per_day: Counter = Counter()
    for f in facts:
        assert f["cluster"] == cluster and f["node"] == "" and f["nodes"] is None
        assert (f["valid_to"] - f["valid_from"]).total_seconds() == 86400
        per_day[f["valid_from"]] += f["gpus"]
    days = sorted(per_day)
    assert days[0] == datetime(2020, 3, 31, 16, tzinfo=UTC)  # 2020-04-01 in Shanghai
    assert (per_day[days[0]], per_day[days[-1]], sum(per_day.values())) == (first, last, gpu_days)
    assert len(days) == 181


def test_the_same_numbers_of_two_clusters_are_not_duplicates(lake, write):
    a = run("nodes", write("a.csv", WIDE), lake, **HELIOS, set=["cluster=A"])
    b = run("nodes", write("b.csv", WIDE), lake, **HELIOS, set=["cluster=B"])
    again = run("nodes", write("c.csv", WIDE), lake, **HELIOS, set=["cluster=A"])
    assert (a.accepted, b.accepted, again.accepted, again.duplicates) == (6, 6, 0, 6)
    assert again.quarantined == a.quarantined == 3


def test_wide_cells_quarantined_and_flagged_alone(lake, write):
    r = run("nodes", write("w.csv", WIDE), lake, **HELIOS, set=["cluster=X"])
    # 4 whole rows × 2 cells + 1 broken row (one record) = 9 read
    assert (r.rows_read, r.accepted, r.duplicates, r.quarantined, r.flagged) == (9, 6, 0, 3, 2)
    snap = snapshot(lake, "nodes", [r])
    q = {(e["row"], e["reason"]) for e in snap["quarantine"]}
    assert (2, "vcB is empty") in q
    assert any(row == 3 and "vcA" in reason and ">= 0" in reason for row, reason in q)
    assert any(row == 5 and "unbalanced quote" in reason for row, reason in q)
    for e in snap["quarantine"]:
        assert e["file"] == "w.csv" and e["raw"] and e["remedy"]
    flagged = [f for f in snap["rows"] if f["flags"]]
    assert {f["vc"] for f in flagged} == {"vcA", "vcB"}
    assert flagged[0]["flags"] == ["the row's 2 cells sum to 32, its total column says 24"]
    assert {(f["vc"], f["gpus"]) for f in snap["rows"] if f["row"] == 2} == {("vcA", 8)}


def test_philly_vc_list_counts_nodes(lake):
    r = run("nodes", PHILLY, lake, preset="philly-vc")
    assert (r.rows_read, r.accepted) == (11, 11)
    facts = _facts(lake)
    assert sum(f["nodes"] for f in facts) == 352  # 64+32+16+64+64+16+32+16+8+8+32
    assert all(f["gpus"] is None and f["cluster"] == "philly" for f in facts)
    assert {f["vc"]: f["nodes"] for f in facts}["6214e9"] == 64


def test_philly_gpus_per_node_when_known(lake):
    run("nodes", PHILLY, lake, preset="philly-vc", set=["gpus_per_node=8"])
    assert sum(f["gpus"] for f in _facts(lake)) == 352 * 8
    with pytest.raises(BadInput, match="gpus_per_node = 'eight'"):
        import_files("nodes", [PHILLY], lake, options={"preset": "philly-vc", "set": ["gpus_per_node=eight"]})


def test_a_mapping_file_with_dates_and_counts(lake, write):
    mapping = write("m.toml", 'table = "capacity"\n[time]\nzone = "UTC"\n[columns]\ncluster = "pool"\n'
                    'nodes = "n"\ngpus_per_node = "per"\ngpus = "g"\nvalid_from = "since"\nvalid_to = "until"\n')
    text = ("pool,n,per,g,since,until\n"
            "p1,2,8,,2026-01-01,2026-02-01\n"  # gpus = 2 × 8
            "p1,2,8,12,2026-02-01,\n"  # 12 is not 2 × 8: flagged, the stated 12 kept
            "p2,,,,2026-01-01,\n"  # no count at all: quarantined
            "p3,1,4,,2026-02-01,2026-01-01\n")  # ends before it starts: quarantined
    r = run("nodes", write("n.csv", text), lake, mapping=str(mapping))
    assert (r.accepted, r.quarantined, r.flagged) == (2, 2, 1)
    facts = _facts(lake)
    assert [(f["cluster"], f["gpus"]) for f in facts] == [("p1", 16), ("p1", 12)]
    assert facts[1]["flags"] == '["gpus 12 is not nodes 2 × gpus_per_node 8"]' and facts[1]["valid_to"] is None


def test_wrong_files_and_options(lake):
    with pytest.raises(WrongFileType, match="this looks like a FOCUS bill"):
        import_files("nodes", [DATA / "focus-sample-data" / "focus_sample.csv"], lake,
                     options={"preset": "openb-nodes"})
    with pytest.raises(BadInput, match="use --preset philly-vc"):
        import_files("nodes", [PHILLY], lake, options={"preset": "openb-nodes"})
    with pytest.raises(BadInput, match="gives no cluster") as e:
        import_files("nodes", [VENUS], lake, options=HELIOS)
    assert "--set cluster=" in e.value.remedy
    with pytest.raises(BadInput, match="needs their time zone"):
        import_files("nodes", [VENUS], lake, options={"preset": "helios-gpus", "set": ["cluster=Venus"]})
    with pytest.raises(BadInput, match="fills table occupancy"):
        import_files("nodes", [VENUS], lake, options={"preset": "helios", "tz": "UTC"})


# -- fuzzing: whatever a node list holds, it is counted or refused -----------------------------

counter = itertools.count()
edits = st.lists(
    st.tuples(st.floats(0, 1), st.sampled_from(['"', ",", "\n", "\r\n", "-", "数据", "1e400", "\x00", "", "  ",
                                                "9" * 30, "0.5", "total"]), st.integers(0, 3)),
    max_size=6,
)
CASES = {"openb": ("sn,cpu_milli,memory_mib,gpu,model\nn-1,32000,262144,8,G2\nn-2,32000,262144,0,\n",
                   {"preset": "openb-nodes"}),
         "helios": (WIDE, {**HELIOS, "set": ["cluster=X"]})}


def mutate(text: str, ops) -> str:
    for where, piece, drop in ops:
        i = int(where * len(text))
        text = text[:i] + piece + text[i + drop:]
    return text


@pytest.mark.parametrize("case", sorted(CASES))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=edits)
def test_any_node_list_is_counted_or_refused(case, ops, tmp_path):
    n = next(counter)
    text, options = CASES[case]
    path = tmp_path / f"f{n}.csv"
    path.write_text(mutate(text, ops), encoding="utf-8", newline="")
    lake = Lake(tmp_path / f"lake{n}")
    try:
        (res,) = import_files("nodes", [path], lake, options=options)
    except BadInput as e:
        assert str(path) in str(e) or e.remedy
        return
    assert res.accepted + res.duplicates + res.quarantined == res.rows_read
    rows = lake.read("capacity").to_pylist()
    assert len(rows) == res.accepted
    required = [f.name for f in TABLES["capacity"] if not f.nullable]
    for r in rows:
        assert all(r[name] is not None for name in required)
        assert r["gpus"] is not None or r["nodes"] is not None
        assert r["gpus"] is None or r["gpus"] >= 0


def test_a_semicolon_wide_table(lake, write):
    r = run("nodes", write("w.csv", "date;vcA;vcB;total\n2020-04-01;8;16;24\n"), lake, **HELIOS, set=["cluster=X"])
    assert (r.rows_read, r.accepted) == (2, 2)
    assert {(f["vc"], f["gpus"]) for f in _facts(lake)} == {("vcA", 8), ("vcB", 16)}
