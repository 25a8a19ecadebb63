"""``trainledger import nodes`` of ``kubectl get nodes -o json`` (tests/data/kubectl-nodes, hand-written after
the documented format): each Node a capacity fact and a node-map entry beside ``[[nodes]]``.

The engine test is the node map's own (tests/engine/test_node_map.py): the first-hour bill with its
node rows named by instance id (``i-bp1node01aaaa``, ``i-bp1node02bbbb``). Imported from the ACK node
list, whose providerIDs are ``cn-shanghai.<instance id>``, the figures are those of ``[[nodes]]``, by
hand: sft-a 272.90 (16 GPU-h), job 8003 57.60, gpu-node-01 576.00 (16 GPU-h) no job held, gpu-node-02
(no job) 864.00 (24 GPU-h) capacity no job held.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from tests.engine.test_node_map import ENGINES, FIRST_HOUR, MAP, _by_reason, _stage, _workspace

from trainledger.errors import BadInput, WrongFileType
from trainledger.service import Workspace

DATA = Path(__file__).resolve().parents[1] / "data" / "kubectl-nodes"
ACK, MIXED = DATA / "nodes-ack.json", DATA / "nodes-mixed.json"


def _import(root: Path, *paths: Path, **options):
    with Workspace.open(root) as w:
        return w.import_files("nodes", list(paths), options=options or None)


def _capacity(root: Path) -> list[dict]:
    with Workspace.open(root) as w:
        return w.lake.read("capacity").to_pylist()


def test_a_node_list_becomes_one_capacity_fact_a_node_with_its_instance_id(tmp_path):
    root = _workspace(tmp_path)
    (r,) = _import(root, ACK)
    assert (r.rows_read, r.accepted, r.quarantined) == (3, 3, 0)
    rows = {x["node"]: x for x in _capacity(root)}
    assert rows["gpu-node-01"]["resource_id"] == "i-bp1node01aaaa"  # cn-shanghai.i-bp1node01aaaa: ACK's providerID
    assert (rows["gpu-node-01"]["gpus"], rows["gpu-node-01"]["nodes"], rows["gpu-node-01"]["gpu_model"]) == (
        8, 1, "NVIDIA-H800")
    assert rows["gpu-node-01"]["valid_from"].isoformat() == "2026-10-01T02:14:37+00:00"
    assert rows["cpu-node-01"]["gpus"] == 0
    extra = json.loads(rows["gpu-node-02"]["extra"])
    assert extra["instance_type"] == "ecs.ebmgn8v.48xlarge" and extra["zone"] == "cn-shanghai-l"
    assert extra["cluster_label"] == "c5e1f0a3b9d2c4e6f8a1b3c5d7e9f0a12"
    assert {x["cluster"] for x in rows.values()} == {""}  # a label's cluster id does not tie the node
    (again,) = _import(root, ACK)  # idempotent
    assert again.accepted == 0 and len(_capacity(root)) == 3


def test_an_export_that_changed_only_its_heartbeats_is_a_duplicate(tmp_path):
    root = _workspace(tmp_path)
    _import(root, ACK)
    later = tmp_path / "later.json"
    later.write_text(ACK.read_text(encoding="utf-8").replace("2026-11-03T01:58:12Z", "2026-11-04T09:00:00Z"),
                     encoding="utf-8")
    (r,) = _import(root, later)
    assert (r.accepted, r.duplicates) == (0, 3)


def test_the_mixed_list_reads_eks_ascend_and_cgpu_nodes(tmp_path):
    root = _workspace(tmp_path)
    (r,) = _import(root, MIXED, set=["cluster=train"])
    assert (r.accepted, r.flagged) == (3, 1)
    rows = {x["node"]: x for x in _capacity(root)}
    eks = rows["ip-10-0-12-34.ec2.internal"]
    assert (eks["resource_id"], eks["gpus"], eks["cluster"]) == ("i-0abc1234def567890", 8, "train")
    assert "7 of the node's 8 GPUs are allocatable" in eks["flags"]
    assert json.loads(eks["extra"])["cluster_label"] == "train-east"
    ascend = rows["192.168.0.27"]
    assert (ascend["resource_id"], ascend["gpus"], ascend["gpu_model"]) == (
        "5b6f2d3e-8a1c-4e2b-9d7f-0c1a2b3c4d5e", 8, "Ascend910")
    cgpu = rows["cn-beijing.10.2.0.8"]
    assert (cgpu["resource_id"], cgpu["gpus"]) == ("i-2zeabc123gpushare", 2)
    assert json.loads(cgpu["extra"])["gpu_mem"] == "48"


@pytest.mark.parametrize("engine", ENGINES)
def test_imported_nodes_attribute_as_the_workspace_map_does(tmp_path, engine):
    if engine != "python":
        pytest.importorskip("ibis")
    mapped = _stage(_workspace(tmp_path / "map", MAP), engine)
    root = _workspace(tmp_path / "imported")
    bare = _by_reason(_stage(root, engine).lines)
    assert "no_rule_matched: Elastic Compute Service i-bp1node01aaaa" in bare  # before the import: no node
    _import(root, ACK)
    got = _stage(root, engine)
    assert [repr(x) for x in got.lines] == [repr(x) for x in mapped.lines]
    by = _by_reason(got.lines)
    for key, figures in FIRST_HOUR.items():
        assert by[key] == figures, key
    assert sum(ln.amount.expected for ln in got.lines) == Decimal("1787.80")
    assert "cpu-node-01" not in repr(got.lines)  # a node without GPUs is no entry


def test_attribute_says_no_unpriced_capacity_for_billed_instances_and_drop_undoes_the_map(tmp_path):
    root = _workspace(tmp_path)
    (r,) = _import(root, ACK)
    with Workspace.open(root) as w:
        result = w.attribute()
        kinds = {p.kind for p in result.problems}
        assert "capacity_facts_unpriced" not in kinds and "no_node_on_bill" not in kinds
        assert any(ln.reason == "node_without_jobs: node gpu-node-02" for ln in result.lines)
        w.drop_import(r.import_id, "wrong cluster")
        kinds = {p.kind for p in w.attribute().problems}
    assert "no_node_on_bill" in kinds  # the import's rows left the map with it


def test_the_workspace_map_wins_over_an_import_and_the_conflict_names_both(tmp_path):
    """[[nodes]] says gpu-node-01 is i-other: the import's i-bp1node01aaaa for it is left out and said;
    gpu-node-01's rows then name no node (no rule matched), gpu-node-02 still maps through the import."""
    root = _workspace(tmp_path, '\n[[nodes]]\nnode = "gpu-node-01"\nresource_id = "i-other"\n')
    _import(root, ACK)
    with Workspace.open(root) as w:
        result = w.attribute()
    (p,) = [p for p in result.problems if p.kind == "node_map_conflict"]
    assert p.detail["other"] == "trainledger.toml [[nodes]]" and p.detail["imported"] == "nodes-ack.json item 1"
    assert "i-bp1node01aaaa" in p.message and "i-other" in p.message
    got = _by_reason(result.lines)
    assert got["no_rule_matched: Elastic Compute Service i-bp1node01aaaa"][0] == Decimal("864.00")
    assert got["node_without_jobs: node gpu-node-02"] == (Decimal("864.00"), Decimal(24))
    from trainledger.report import problems_i18n

    assert problems_i18n.message(p.as_dict(), "en") == p.message
    assert "节点对照表采用" in problems_i18n.message(p.as_dict(), "zh-CN")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_node_without_jobs_counts_its_own_gpus(tmp_path, engine):
    """gpu-node-02 declares 4 GPUs: its 3 idle hours are 12 GPU-h (not 3 × 8), the same 864.00 — and the
    difference from cluster.gpus_per_node is said."""
    if engine != "python":
        pytest.importorskip("ibis")
    four = tmp_path / "four.json"
    doc = json.loads(ACK.read_text(encoding="utf-8"))
    for res in ("capacity", "allocatable"):
        doc["items"][1]["status"][res]["nvidia.com/gpu"] = "4"
    four.write_text(json.dumps(doc), encoding="utf-8")
    root = _workspace(tmp_path)
    _import(root, four)
    assert _by_reason(_stage(root, engine).lines)["node_without_jobs: node gpu-node-02"] == (
        Decimal("864.00"), Decimal(12))
    with Workspace.open(root) as w:
        result = w.attribute(engine=engine)
    assert _by_reason(result.lines)["node_without_jobs: node gpu-node-02"] == (Decimal("864.00"), Decimal(12))
    (p,) = [p for p in result.problems if p.kind == "node_gpus_differ"]
    assert p.detail["nodes"] == "gpu-node-02 4"


def _doc(items) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items})


def _node(name, gpus="8", provider="aws:///us-east-1a/i-0aaa"):
    meta = {"name": name, "creationTimestamp": "2026-10-01T00:00:00Z"} if name is not None else {}
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": {"providerID": provider},
            "status": {"capacity": {"cpu": "96", "nvidia.com/gpu": gpus}}}


def test_bad_items_are_quarantined_naming_the_item_and_the_remedy(tmp_path):
    bad = tmp_path / "bad.json"
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}
    bad.write_text(_doc([_node("ok-1"), _node(None), _node("big", "8k"), pod, _node("ok-2", "4")]), encoding="utf-8")
    root = _workspace(tmp_path)
    (r,) = _import(root, bad)
    assert (r.rows_read, r.accepted, r.quarantined) == (5, 2, 3)  # accepted + quarantined = rows read
    with Workspace.open(root) as w:
        q = {e["row"]: e for e in w.lake.quarantine("nodes", r.sha256)}
    assert q[2]["reason"] == "items[1]: the node has no metadata.name"
    assert q[3]["reason"] == ("items[2] (big): status.capacity nvidia.com/gpu = '8k' is not a whole number of devices"
                              " (a Kubernetes quantity of 8 × 1000)")
    assert "whole devices" in q[3]["remedy"]
    assert q[4]["reason"] == "items[3] is a Pod, not a Node" and "kubectl get nodes -o json" in q[4]["remedy"]
    assert all(e["file"].endswith("bad.json") for e in q.values())
    from trainledger.i18n import localize

    assert "不是整数" in localize(q[3]["reason"], "zh-CN")


@pytest.mark.parametrize(("text", "words"), [
    ('[{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}}]', "a JSON list, not a Kubernetes List"),
    ('{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}', "not JSON"),
    ('{"apiVersion": "v1", "kind": "NodeList", "metadata": {}, "items": {"kind": "Node"}}', "no items list"),
])
def test_a_file_that_is_not_a_list_of_nodes_is_refused_naming_it(tmp_path, text, words):
    path = tmp_path / "nodes.json"
    path.write_text(text, encoding="utf-8")
    root = _workspace(tmp_path)
    with pytest.raises(BadInput) as e:
        _import(root, path)
    assert words in str(e.value) and "nodes.json" in str(e.value) and e.value.remedy
    assert _capacity(root) == []  # nothing written


def test_pods_and_nodes_each_point_to_their_importer(tmp_path):
    root = _workspace(tmp_path)
    with Workspace.open(root) as w, pytest.raises(WrongFileType) as e:
        w.import_files("k8s", [ACK])
    assert "trainledger import nodes" in e.value.remedy
    pods = tmp_path / "pods.json"
    pods.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}]}), encoding="utf-8")
    with pytest.raises(WrongFileType) as e:
        _import(root, pods)
    assert "trainledger import k8s" in e.value.remedy


def test_a_csv_node_list_still_needs_its_mapping_and_a_kubectl_list_refuses_one(tmp_path):
    root = _workspace(tmp_path)
    csv = tmp_path / "nodes.csv"
    csv.write_text("node,gpus\ngpu-node-01,8\n", encoding="utf-8")
    with pytest.raises(BadInput) as e:
        _import(root, csv)
    assert "--preset" in str(e.value) + str(e.value.remedy)
    with pytest.raises(BadInput) as e:
        _import(root, ACK, preset="openb-nodes")
    assert "without --preset" in str(e.value.remedy)


def test_a_mapped_node_list_may_map_the_resource_id_too(tmp_path):
    """An instance list CSV (实例ID, 主机名) through a mapping feeds the node map like kubectl's."""
    mapping = tmp_path / "ecs.toml"
    mapping.write_text('table = "capacity"\nname = "ecs-list"\n[columns]\nnode = "主机名"\nresource_id = "实例ID"\n'
                       'gpus = "GPU"\n[constants]\ncluster = ""\n', encoding="utf-8")
    listing = tmp_path / "ecs.csv"
    listing.write_text("实例ID,主机名,GPU\ni-bp1node01aaaa,gpu-node-01,8\ni-bp1node02bbbb,gpu-node-02,8\n",
                       encoding="utf-8")
    root = _workspace(tmp_path)
    _import(root, listing, mapping=str(mapping))
    got = _by_reason(_stage(root).lines)
    for key, figures in FIRST_HOUR.items():
        assert got[key] == figures, key


def test_the_source_page_drills_to_the_node_item(tmp_path):
    """``/sources/{import}/{row}``: the lake's values and the item of the List as it is on disk."""
    from trainledger.web import views

    root = _workspace(tmp_path)
    (r,) = _import(root, ACK)
    with Workspace.open(root) as w:
        page = views.source(w, r.import_id, 2)
    assert page["values"]["node"] == "gpu-node-02" and page["values"]["resource_id"] == "i-bp1node02bbbb"
    assert page["raw"]["kind"] == "Node"
    assert json.loads(page["raw"]["spec"])["providerID"] == "cn-shanghai.i-bp1node02bbbb"
