"""``nodes`` from ``kubectl get nodes -o json``: each Node → one capacity fact and a node-map entry.

``trainledger import nodes PATH`` without ``--preset`` / ``--mapping`` reads a Kubernetes ``List``
(or ``NodeList``) of Node objects, or one Node (``kubectl get node NAME -o json``). Each Node is
one row of table ``capacity``: ``node`` its ``metadata.name`` (the host pods' ``spec.nodeName``
and the scheduler name), ``nodes`` 1, ``gpus`` its accelerator devices from ``status.capacity``
(``nvidia.com/gpu``; else Alibaba cGPU's ``aliyun.com/gpu-count``; Ascend cards
``huawei.com/Ascend910`` / ``Ascend910B`` / ``Ascend310P`` / ``npu``: kube.py's ``ASCEND``),
``gpu_model`` the ``nvidia.com/gpu.product`` label or the accelerator's name, ``valid_from`` its
``creationTimestamp``, ``valid_to`` its ``deletionTimestamp`` (a node being removed), and
``resource_id`` the instance id: the last part of ``spec.providerID`` (``aws:///us-east-1a/i-0abc``
→ ``i-0abc``; Alibaba ACK's ``cn-beijing.i-2ze…`` → ``i-2ze…``), the id a cloud bill prints. The
engine reads the rows with a resource id as node-map entries beside ``[[nodes]]`` (engine/node_map.py
``with_imported``: the workspace wins). ``extra`` keeps the providerID, instance type
(``node.kubernetes.io/instance-type``, legacy ``beta.kubernetes.io/instance-type``), zone and region
(``topology.kubernetes.io/*``, legacy ``failure-domain.beta.kubernetes.io/*``), a cluster a label
names (``CLUSTER_LABELS``), the allocatable GPUs and Alibaba's ``aliyun.com/gpu-mem``.

``cluster`` is ``--set cluster=NAME`` (the name the jobs were imported with: sacct's Cluster, or
``import k8s --set cluster=``), else empty — a label's cluster id is kept in ``extra`` only, since a
node tied to a cluster no job names would look idle. A GPU quantity that is not a whole number of
devices (``8k`` is a Kubernetes quantity of 8000) quarantines the node; so does a node without
``metadata.name`` or an item that is not a Node. The row hash covers what is read (name, ids, labels
read, GPU counts, times), not the heartbeats every export changes: the same node exported again is a
duplicate.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from trainledger.errors import BadInput
from trainledger.ingest.base import Context, Record, Rejected, dumps
from trainledger.ingest.convert import timestamp_with_offset
from trainledger.ingest.delimited import reading_options
from trainledger.ingest.keys import content_key
from trainledger.ingest.kube import ASCEND, GPU
from trainledger.ingest.text import HEAD_BYTES, json_loads, open_text, text_encoding

ALIYUN_COUNT = "aliyun.com/gpu-count"  # Alibaba cGPU: the node's physical GPUs when shared by memory
ALIYUN_MEM = "aliyun.com/gpu-mem"  # … and their memory in GiB (kept, not a device count)
INSTANCE_TYPE = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")
ZONE = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")
REGION = ("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region")
# labels that name the node's cluster on managed Kubernetes (kept in extra: see the module)
CLUSTER_LABELS = ("alpha.eksctl.io/cluster-name", "ack.aliyun.com")  # eksctl's name, ACK's cluster id
PRODUCT = "nvidia.com/gpu.product"  # NVIDIA GPU feature discovery's label
KIND = re.compile(rb'"kind"\s*:\s*"(Node|NodeList|List|Pod|PodList)"')
QUANTITY = re.compile(r"(\d+(?:\.\d+)?)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?")
SUFFIX = {"m": "1/1000", "k": "1000", "M": "10^6", "G": "10^9", "T": "10^12", "P": "10^15", "E": "10^18",
          "Ki": "1024", "Mi": "1024^2", "Gi": "1024^3", "Ti": "1024^4", "Pi": "1024^5", "Ei": "1024^6"}
SETTINGS = ("cluster",)
WHOLE_REMEDY = ('device plugins advertise whole devices (e.g. "8"): export the node as kubectl writes it,'
                " or fix the value")
EXPORT_REMEDY = "export the nodes with `kubectl get nodes -o json > nodes.json` and import that file"


@dataclass(frozen=True, slots=True)
class KubeNodes:
    """What ``configure`` returns for a kubectl node list: the ``--set`` values (``cluster``)."""

    overrides: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))


def looks_like(path: Path) -> str | None:
    """``Node`` when the file's start is a Kubernetes JSON document naming Nodes, ``Pod`` when it
    names pods, None when it is no Kubernetes JSON (a CSV node list: the mapped reader)."""
    with open(path, "rb") as f:
        head = f.read(HEAD_BYTES)
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if not text.startswith((b"{", b"[")):
        return None
    kinds = {m.group(1).decode() for m in KIND.finditer(head)}
    if kinds & {"Node", "NodeList"}:
        return "Node"
    if kinds & {"Pod", "PodList"}:
        return "Pod"
    return "JSON"


def configure(overrides: Mapping[str, str]) -> KubeNodes:
    unknown = sorted(set(overrides) - set(SETTINGS))
    if unknown:
        raise BadInput(f"--set {', '.join(unknown)}: not a setting of a kubectl node list",
                       remedy="set cluster only (--set cluster=NAME), or read a CSV node list with --preset/--mapping")
    return KubeNodes(MappingProxyType(dict(overrides)))


def identity(options: Mapping[str, Any], cfg: KubeNodes) -> tuple[dict[str, Any], dict[str, Any]]:
    reading = reading_options(options, ())
    reading["reader"] = "kubectl-nodes"
    if not cfg.overrides:
        return reading, {}
    fixed = dict(sorted(cfg.overrides.items()))
    reading["set"] = fixed
    return reading, {"set": fixed}


def _items(doc: Any, path: Path) -> list[Any]:
    if isinstance(doc, dict) and doc.get("kind") == "Node":
        return [doc]  # kubectl get node NAME -o json
    if not isinstance(doc, dict):
        raise BadInput(f"the file is a JSON {type(doc).__name__}, not a Kubernetes List of Nodes",
                       path=str(path), remedy=EXPORT_REMEDY)
    kind = str(doc.get("kind") or "")
    if kind in ("Pod", "PodList"):
        raise BadInput("the file holds pods, not nodes", path=str(path),
                       remedy=f"import it with `trainledger import k8s {path}`")
    if not kind.endswith("List") or not isinstance(doc.get("items"), list):
        shown = f"kind {kind!r}" if kind else "no kind"
        raise BadInput(f"the file is a JSON object with {shown} and no items list, not a Kubernetes List of Nodes",
                       path=str(path), remedy=EXPORT_REMEDY)
    return doc["items"]


def parse(path: Path, ctx: Context) -> Iterator[Record]:
    """One Record per item, ``row`` its 1-based place in ``items`` (the reasons say ``items[i]``)."""
    enc, _given = text_encoding(path, ctx.options)
    with open_text(path, enc, ctx.watch) as f:
        text = f.read()
    try:
        doc = json_loads(text)
    except ValueError as e:
        raise BadInput(f"the file is not JSON ({e})", path=str(path),
                       remedy="fix the JSON (an export cut short?) or " + EXPORT_REMEDY) from None
    salt = [x for k in sorted(ctx.cfg.overrides) for x in (k, ctx.cfg.overrides[k])]
    for i, item in enumerate(_items(doc, path)):
        raw = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
        read = json.dumps(_read_part(item), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        yield Record(i + 1, None, raw, content_key([read, *salt]), {"node": item, "index": i})


def _read_part(item: Any) -> Any:
    """What of a Node becomes the row (its row hash): not its heartbeats, images or conditions."""
    if not isinstance(item, dict):
        return item
    meta, spec, status = (_dict(item.get(k)) for k in ("metadata", "spec", "status"))
    return {"kind": item.get("kind"), "name": meta.get("name"), "created": meta.get("creationTimestamp"),
            "deleted": meta.get("deletionTimestamp"), "labels": meta.get("labels"),
            "provider_id": spec.get("providerID"), "capacity": status.get("capacity"),
            "allocatable": status.get("allocatable")}


def validate(record: Record, ctx: Context) -> dict[str, Any]:
    item, at = record.values["node"], f"items[{record.values['index']}]"
    kind = item.get("kind") if isinstance(item, dict) else None
    if not isinstance(item, dict) or kind not in (None, "Node"):
        what = f"a {kind}" if kind else f"a JSON {type(item).__name__}"
        raise Rejected(f"{at} is {what}, not a Node", EXPORT_REMEDY)
    meta = item.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    if not isinstance(name, str) or not name.strip():
        raise Rejected(f"{at}: the node has no metadata.name", "export whole Node objects: " + EXPORT_REMEDY)
    return {"node": item, "at": f"{at} ({name.strip()})", "flags": []}


def normalise(values: dict[str, Any], record: Record, ctx: Context) -> dict[str, Any]:
    item, at, flags = values["node"], values["at"], values["flags"]
    meta, spec, status = (_dict(item.get(k)) for k in ("metadata", "spec", "status"))
    labels = _strings(meta.get("labels"))
    capacity, allocatable = _strings(status.get("capacity")), _strings(status.get("allocatable"))
    gpus, model = _devices(capacity, at, "status.capacity")
    free, _ = _devices(allocatable, at, "status.allocatable") if allocatable else (None, None)
    if gpus is not None and free is not None and free < gpus:
        flags.append(f"{free} of the node's {gpus} GPUs are allocatable (a device unhealthy or reserved):"
                     " its whole capacity is counted, as the bill charges it")
    provider = str(spec.get("providerID") or "").strip()
    instance = instance_id(provider)
    if not instance:
        flags.append("the node has no spec.providerID: no bill row can name it by its instance id"
                     " (map it in [[nodes]] if its bill names it otherwise)")
    start = _time(meta.get("creationTimestamp"), at, "metadata.creationTimestamp")
    end = _time(meta.get("deletionTimestamp"), at, "metadata.deletionTimestamp")
    extra = {k: v for k, v in {
        "reader": "kubectl-nodes", "provider_id": provider, "instance_type": _first(labels, INSTANCE_TYPE),
        "zone": _first(labels, ZONE), "region": _first(labels, REGION), "cluster_label": _first(labels, CLUSTER_LABELS),
        "allocatable_gpus": free, "gpu_mem": capacity.get(ALIYUN_MEM),
    }.items() if v not in (None, "")}  # fmt: skip
    return {
        "cluster": ctx.cfg.overrides.get("cluster", ""),
        "vc": "",
        "node": str(meta["name"]).strip(),
        "nodes": 1,
        "gpus": gpus if gpus is not None else 0,
        "gpu_model": labels.get(PRODUCT) or model,
        "valid_from": start,
        "valid_to": end,
        "resource_id": instance or None,
        "extra": dumps(extra),
        "flags": flags,
    }


def instance_id(provider_id: str) -> str:
    """The instance id a bill prints, from a ``spec.providerID``: its last ``/`` part, and of
    ``<region>.<instance>`` (Alibaba ACK) the instance."""
    tail = provider_id.rsplit("/", 1)[-1].strip()
    region, dot, rest = tail.partition(".")
    if dot and rest and re.fullmatch(r"[a-z]{2,}-[a-z0-9-]+", region):
        return rest
    return tail


def _devices(resources: Mapping[str, str], at: str, where: str) -> tuple[int | None, str | None]:
    """(the accelerator devices ``resources`` name, the kind of the first): NVIDIA GPUs, Ascend cards,
    else Alibaba cGPU's count; None when it names none."""
    total, model = None, None
    for key in sorted(resources):
        card = ASCEND.fullmatch(key)
        if key != GPU and card is None:
            continue
        total = (total or 0) + _whole(resources[key], key, at, where)
        model = model or (card.group(1) if card else None)
    if total is None and ALIYUN_COUNT in resources:
        total = _whole(resources[ALIYUN_COUNT], ALIYUN_COUNT, at, where)
    return total, model


def _whole(value: str, key: str, at: str, where: str) -> int:
    text = value.strip()
    if re.fullmatch(r"\d+", text):
        return int(text)
    m = QUANTITY.fullmatch(text)
    if m and m.group(2):
        n, factor = m.group(1), SUFFIX[m.group(2)]
        raise Rejected(f"{at}: {where} {key} = {value!r} is not a whole number of devices (a Kubernetes quantity"
                       f" of {n} × {factor})", WHOLE_REMEDY)
    raise Rejected(f"{at}: {where} {key} = {value!r} is not a whole number of devices", WHOLE_REMEDY)


def _time(value: Any, at: str, what: str) -> Any:
    if value in (None, ""):
        return None
    try:
        return timestamp_with_offset(value)
    except ValueError as e:
        raise Rejected(f"{at}: {what}: {e}", "write Kubernetes times as RFC 3339, e.g. 2026-01-01T08:00:00Z") from None


def _first(labels: Mapping[str, str], keys: tuple[str, ...]) -> str | None:
    return next((labels[k] for k in keys if labels.get(k)), None)


def _dict(v: Any) -> dict:
    return v if isinstance(v, dict) else {}


def _strings(v: Any) -> dict[str, str]:
    return {str(k): str(x) for k, x in v.items()} if isinstance(v, dict) else {}
