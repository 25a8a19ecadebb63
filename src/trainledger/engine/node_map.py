"""The node map: a cloud bill names a GPU node by its resource id, the scheduler by its host name.

sacct's NodeList and a pod's ``spec.nodeName`` give host names (``gpu-node-01``); a cloud bill's
ResourceId is the instance (``i-bp1…`` on Alibaba Cloud, ``i-0…`` on AWS, a UUID on Huawei Cloud).
Unless they happen to be equal (or the bill's ResourceName is the host name), no bill row joins
the jobs that ran on the node (review K12). ``[[nodes]]`` in trainledger.toml (workspace.py
``NodeEntry``: ``node``, ``resource_id`` — one or a list —, optional ``cluster``) says which is
which, and every engine reads it here, so a bill row whose id maps to a node joins that node's jobs
(``compute._node_of`` in Python, the ``(name, node)`` table ``frame/split.py`` joins on DuckDB and
Spark):

    names(nodes, config)   what a bill row may call each node jobs ran on: its own name and the
                           resource ids the map gives it (name → node)
    declared(config)       every resource id of the map (and an unambiguous host name) → its node,
                           held or not: a declared node no job ran on is capacity no job held
                           (``capacity_nodes.idle_nodes``, reason ``node_without_jobs``) whatever
                           its bill row says of its SKU
    run_nodes(config)      a run's node names: ``cluster/host`` for a host an entry ties to the
                           run's cluster (two clusters may both have a ``gpu-node-01``), else the host

A resource id written as a Kubernetes ``spec.providerID`` (``aws:///us-east-2a/i-0483d5028b4c1da6e``)
also names the node by its last part (the instance id the bill prints). A name is matched whole or
as its short host name (``h800-n01.h800sh.internal`` → ``h800-n01``), as bill names always were;
a host name is itself first (a resource id spelled as another node's host name does not take that
node's rows).

**Imported nodes** (``trainledger import nodes`` of ``kubectl get nodes -o json``: capacity facts with
a ``resource_id``, ingest/kube_nodes.py) are entries too, beside ``[[nodes]]`` — ``with_imported``, which
``engine.attribute`` applies before any stage (and the plan's ``billed_offered``). The workspace wins:
an imported id that ``[[nodes]]`` gives another node, or another id for a host ``[[nodes]]`` maps, is
left out and said (problem ``node_map_conflict``, naming both); two imports giving one id to two
nodes: the later imported is used, and said. A node without GPUs (a CPU node of the list) is no
entry: its rows are not capacity no job held. An entry's ``gpus`` (the imported capacity, or
``[[nodes]] gpus``) is what the node's bill rows count (``gpus``): a node without jobs, and the rows of a
node jobs ran on, split by GPU-seconds over its own GPUs × the period (compute.py ``node_slots``; the
frame engine hands such rows to that exact split); an entry that differs from ``cluster.gpus_per_node``
is said (``node_gpus_differ``), so a typo in either shows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

from trainledger.engine.context import Problem
from trainledger.workspace import NodeEntry


def entries(config) -> tuple[NodeEntry, ...]:
    return tuple(getattr(config, "nodes", ()) or ())


def key(entry: NodeEntry) -> str:
    """The node an entry names, as runs name it (``run_nodes``)."""
    return f"{entry.cluster}/{entry.node}" if entry.cluster else entry.node


def declared(config) -> dict[str, str]:
    """Every name the map gives a node → the node: its resource ids, and its host name when no other
    cluster's entry has the same host (a bill's ResourceName may be the host name)."""
    found = entries(config)
    hosts = Counter(e.node for e in {(e.node, e.cluster): e for e in found}.values())
    out = {e.node: key(e) for e in found if hosts[e.node] == 1}
    for e in found:
        for rid in e.resource_ids:
            out[rid] = key(e)
            if "://" in rid and (tail := rid.rsplit("/", 1)[-1]):  # a providerID: aws:///us-east-2a/i-0483…
                out.setdefault(tail, key(e))
    return out


def names(nodes: Iterable[str], config) -> dict[str, str]:
    """What a bill row may call each of ``nodes`` (those jobs ran on): name → node."""
    held = set(nodes)
    out = {name: node for name, node in declared(config).items() if node in held}
    out.update({n: n for n in held})  # a host name is itself, whatever the map says
    return out


def run_nodes(config) -> Callable[[str, tuple[str, ...]], tuple[str, ...]]:
    """A function of (a run's cluster, its host names) → its node names (``cluster/host`` where an
    entry ties that host to that cluster): the identity when no entry names a cluster."""
    tied = {(e.cluster, e.node) for e in entries(config) if e.cluster}
    if not tied:
        return lambda _cluster, hosts: hosts
    return lambda cluster, hosts: tuple(f"{cluster}/{h}" if (cluster, h) in tied else h for h in hosts)


def restricted(names_: Mapping[str, str], nodes: set[str]) -> dict[str, str]:
    """``names_`` of only the nodes in ``nodes``."""
    return {name: node for name, node in names_.items() if node in nodes}


def gpus(config) -> dict[str, int]:
    """The node (as ``key`` names it) → its GPUs, for the entries that say them."""
    return {key(e): e.gpus for e in entries(config) if e.gpus}


def imported(capacity: Iterable[Mapping], imports: Sequence[Mapping] = ()) -> list[NodeEntry]:
    """The node-map entries of imported capacity facts: a node with a resource id and GPUs, in import
    order (``imports``: the lake's log, for the file each came from)."""
    files = {str(r.get("sha256")): str(r.get("path") or "").rsplit("/", 1)[-1] for r in imports if r.get("sha256")}
    out = []
    for r in capacity:
        rid, node = str(r.get("resource_id") or "").strip(), str(r.get("node") or "").strip()
        if rid and node and (r.get("gpus") or 0) > 0:
            sha = str(r.get("source_sha256") or "")
            where = f"{files.get(sha) or sha[:12]} item {r.get('row')}"
            out.append(NodeEntry(node=node, resource_ids=(rid,), cluster=str(r.get("cluster") or ""),
                                 gpus=int(r["gpus"]), origin=where))
    return out


def with_imported(config, capacity: Iterable[Mapping], imports: Sequence[Mapping] = ()):
    """(``config`` with the imported nodes merged into its node map, the problems of merging them):
    the workspace's ``[[nodes]]`` first and winning (see the module)."""
    found = imported(capacity, imports)
    if not found:
        return config, []
    own = list(entries(config))
    by_id = {rid: e for e in own for rid in e.resource_ids}
    by_host = {key(e): e for e in own}
    problems: list[Problem] = []
    merged: dict[str, NodeEntry] = {}  # node key → the imported entry, its ids grown
    owner: dict[str, NodeEntry] = {}  # resource id → the imported entry that gives it
    filled: dict[str, int | None] = {}  # a [[nodes]] entry's GPUs, from the import of the same node
    for e in found:
        rid = e.resource_ids[0]
        mine = by_id.get(rid) or by_host.get(key(e))
        if mine is not None:
            if key(mine) != key(e) or rid not in mine.resource_ids:
                problems.append(_conflict(e, rid, mine))
            elif mine.gpus is None:  # the same node and id: the import says its GPUs, [[nodes]] did not
                filled[key(mine)] = e.gpus
            continue
        if (prev := owner.get(rid)) is not None and key(prev) != key(e):
            problems.append(_conflict(e, rid, prev, later=True))
            merged[key(prev)] = replace(merged[key(prev)], resource_ids=tuple(
                i for i in merged[key(prev)].resource_ids if i != rid))
        had = merged.get(key(e))
        merged[key(e)] = e if had is None else replace(had, resource_ids=tuple(dict.fromkeys(
            (*had.resource_ids, rid))), gpus=e.gpus, origin=e.origin)
        owner[rid] = merged[key(e)]
    added = tuple(e for e in merged.values() if e.resource_ids)
    own = [replace(e, gpus=filled[key(e)]) if key(e) in filled else e for e in own]
    out = replace(config, nodes=(*own, *added))
    problems.extend(_gpus_differ(out))
    return out, problems


def _conflict(e: NodeEntry, rid: str, other: NodeEntry, *, later: bool = False) -> Problem:
    theirs = other.origin or "trainledger.toml [[nodes]]"
    used = e.origin if later else theirs
    ids = ", ".join(other.resource_ids)
    return Problem("node_map_conflict", f"{e.origin} maps node {key(e)} to resource id {rid}; {theirs} maps {ids} to"
                   f" node {key(other)}: the node map uses {used} — correct the one that is wrong",
                   {"node": key(e), "resource_id": rid, "imported": e.origin, "other": theirs, "other_ids": ids,
                    "other_node": key(other), "used": used})


def _gpus_differ(config) -> list[Problem]:
    per = config.get("cluster.gpus_per_node") if hasattr(config, "get") else None
    try:
        per = int(per)
    except (TypeError, ValueError):
        return []
    differ = sorted((key(e), e.gpus) for e in entries(config) if e.gpus and e.gpus != per)
    if not differ:
        return []
    shown = ", ".join(f"{n} {g}" for n, g in differ[:5]) + (", …" if len(differ) > 5 else "")
    return [Problem("node_gpus_differ", f"{len(differ)} node(s) of the node map have another number of GPUs than"
                    f" cluster.gpus_per_node = {per} ({shown}): their bill rows are split over their own GPUs"
                    f" (capacity no job held = their GPUs × the period − what jobs held) — check the count if it is"
                    f" a typo",
                    {"count": len(differ), "gpus_per_node": per, "nodes": shown})]
