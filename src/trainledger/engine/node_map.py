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
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping

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
