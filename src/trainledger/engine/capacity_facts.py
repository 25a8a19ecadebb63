"""What the imported capacity facts (``trainledger import nodes`` → lake table ``capacity``) say
about the workspace's ``[[capacity]]`` entries.

``stated(rows, start, end, order)`` sweeps the facts of one cluster over a period: at each instant
the GPUs are the sum the facts in force state, taken from the file imported last among those that
state that instant, node by node and VC by VC (``order``: position in the import log); the result
is a list of ``Span``s.
``resolve`` gives a pool without ``gpus`` its schedule from them, and reports, never raises:

    capacity_not_stated       time of a stated pool no fact covers (not costed)
    capacity_gpus_unknown     facts that count nodes only (Philly's VC list): not costed
    capacity_sources_overlap  two imported files state one node / VC at once: the last one is used
    capacity_conflict         the workspace says N GPUs, the facts say otherwise: the workspace wins
    capacity_facts_unpriced   facts of a cluster no [[capacity]] entry prices (but a node's with a
                              resource id: a cloud instance, its bill prices it — engine/node_map.py)
    capacity_vcs_unpriced     facts of VCs without a pool, of a cluster priced by VC pools only

A VC pool (``cluster`` and ``vc``) is stated by its VC's facts; a cluster's pool beside VC pools of
the same cluster by the rest of its facts (``_facts_of``), so no GPU is costed twice.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from trainledger.engine.context import Problem

NONE = "—"  # an open end, in a problem's detail


@dataclass(frozen=True, slots=True)
class Span:
    start: datetime
    end: datetime
    gpus: int | None  # None: no fact covers it (``used`` empty) or a fact counts nodes only
    used: tuple[str, ...] = ()  # the source_sha256 of the files whose facts give it
    others: tuple[str, ...] = ()  # files whose facts of the same node / VC the last imported overrode

    @property
    def hours(self) -> Decimal:
        return Decimal((self.end - self.start) // timedelta(seconds=1)) / 3600


def stated(rows: Iterable[Mapping[str, Any]], start: datetime, end: datetime,
           order: Mapping[str, int]) -> list[Span]:
    """The GPUs ``rows`` (facts of one cluster) state over [start, end), as merged spans. A fact
    is of a node, or of a VC's (or the cluster's) count: of each, at each instant, the facts of
    the file imported last that states it count (a node in two lists is one node)."""
    events: dict[datetime, list[tuple[int, Mapping[str, Any]]]] = defaultdict(list)
    for r in rows:
        f, t = r["valid_from"], r["valid_to"]
        if (t is not None and t <= start) or (f is not None and f >= end):
            continue
        events[start if f is None or f < start else f].append((1, r))
        if t is not None and t < end:
            events[t].append((-1, r))
    times = sorted({start, end, *events})
    live: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(dict)  # (vc, node) → sha → [n, gpus, unknown]
    out: list[Span] = []
    for a, b in zip(times, times[1:], strict=False):
        for sign, r in events.get(a, ()):
            key = (str(r.get("vc") or ""), str(r.get("node") or ""))
            acc = live[key].setdefault(r["source_sha256"], [0, 0, 0])
            acc[0] += sign
            acc[1 if r["gpus"] is not None else 2] += sign * (r["gpus"] if r["gpus"] is not None else 1)
            if acc[0] == 0:
                del live[key][r["source_sha256"]]
        gpus, unknown, used, others = 0, False, set(), set()
        for by_sha in live.values():
            if not by_sha:
                continue
            last = max(by_sha, key=lambda sha: (order.get(sha, -1), sha))
            used.add(last)
            others.update(sha for sha in by_sha if sha != last)
            gpus += by_sha[last][1]
            unknown = unknown or by_sha[last][2] > 0
        span = Span(a, b, None if unknown or not used else gpus, tuple(sorted(used)), tuple(sorted(others)))
        prev = out[-1] if out else None
        if prev is not None and (prev.gpus, prev.used, prev.others) == (span.gpus, span.used, span.others):
            out[-1] = replace(prev, end=b)
        else:
            out.append(span)
    return out


def _when(t: datetime | None) -> str:
    return NONE if t is None else t.isoformat()


def resolve(caps: Sequence[Any], rows: Sequence[Mapping[str, Any]], imports: Sequence[Mapping[str, Any]],
            cutoff: datetime | None, problems: list[Problem]) -> tuple[Any, ...]:
    """``caps`` with every stated pool's schedule; what the facts say against them → ``problems``."""
    order: dict[str, int] = {}
    names: dict[str, str] = {}
    for i, rec in enumerate(imports):
        if rec.get("kind") == "nodes" and rec.get("sha256"):
            order[str(rec["sha256"])] = i
            names[str(rec["sha256"])] = str(rec.get("path") or "").rsplit("/", 1)[-1]
    by_cluster: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    by_node: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        by_cluster[str(r["cluster"])].append(r)
        if r["node"]:
            by_node[str(r["node"])].append(r)
    vc_pools: dict[str, set[str]] = defaultdict(set)  # cluster → the VCs with a pool of their own
    for cap in caps:
        if cap.pool and cap.vc:
            vc_pools[cap.pool].add(cap.vc)
    out = []
    for cap in caps:
        end = cap.end if cutoff is None else max(cap.start, min(cap.end, cutoff))
        mine = _facts_of(cap, by_cluster.get(cap.pool, ()), vc_pools.get(cap.pool, set())) if cap.pool else []
        if mine:
            spans = stated(mine, cap.start, end, order)
            _overlaps(cap.pool_name, spans, names, problems)
            if cap.stated:
                cap = replace(cap, schedule=tuple((s.start, s.end, s.gpus) for s in spans if s.gpus is not None))
                _uncovered(cap, spans, problems)
            else:
                _conflict(cap, cap.pool_name, [s for s in spans if s.gpus is not None and s.gpus != cap.gpus_per_node],
                          problems)
        elif cap.stated:
            _uncovered(cap, [stated((), cap.start, end, order)[0]] if end > cap.start else [], problems)
        for node in cap.nodes:
            differ = [r for r in by_node.get(node, ()) if r["gpus"] is not None and r["gpus"] != cap.gpus_per_node
                      and (r["valid_to"] is None or r["valid_to"] > cap.start)
                      and (r["valid_from"] is None or r["valid_from"] < end)]
            if differ:
                r = differ[0]
                problems.append(Problem(
                    "capacity_conflict", f"capacity {cap.id}: the workspace says {cap.gpus_per_node} GPUs for {node},"
                    f" imported capacity facts say {r['gpus']}; the workspace's figure is used",
                    {"capacity": cap.id, "subject": node, "config": cap.gpus_per_node, "stated": r["gpus"],
                     "since": _when(r["valid_from"]), "until": _when(r["valid_to"]), "spans": len(differ)}))
        out.append(cap)
    whole = {c.pool for c in caps if c.pool and not c.vc}
    priced = whole | {str(r["cluster"]) for c in caps for n in c.nodes for r in by_node.get(n, ())}
    for cluster in sorted(set(vc_pools) - priced):  # VC pools only: the facts of the other VCs are unpriced
        _vcs_unpriced(cluster, [r for r in by_cluster.get(cluster, ()) if str(r.get("vc") or "")
                                not in vc_pools[cluster]], problems)
    for cluster in sorted(set(by_cluster) - priced - set(vc_pools)):
        # a node with a resource id (kubectl's providerID) is a cloud instance: its bill costs its idle time
        facts = [r for r in by_cluster[cluster] if not r.get("resource_id")]
        if not facts:
            continue
        files = len({r["source_sha256"] for r in facts})
        problems.append(Problem(
            "capacity_facts_unpriced", f"cluster {cluster}: {len(facts)} imported capacity fact(s) ({files} file(s))"
            f" that no [[capacity]] entry prices: the GPU time no job held there is not costed",
            {"cluster": cluster, "facts": len(facts), "files": files}))
    return tuple(out)


def _facts_of(cap: Any, rows: Sequence[Mapping[str, Any]], pooled_vcs: set[str]) -> list[Mapping[str, Any]]:
    """The facts that state a pool's GPUs: its VC's (a VC pool), else its cluster's but those of the
    VCs that have a pool of their own (the rest of the cluster)."""
    if cap.vc:
        return [r for r in rows if str(r.get("vc") or "") == cap.vc]
    return [r for r in rows if str(r.get("vc") or "") not in pooled_vcs] if pooled_vcs else list(rows)


def _vcs_unpriced(cluster: str, rows: list[Mapping[str, Any]], problems: list[Problem]) -> None:
    with_gpus = [r for r in rows if r.get("gpus")]  # a VC stated at 0 GPUs costs nothing anyway
    if not with_gpus:
        return
    vcs = sorted({str(r.get("vc") or "") for r in with_gpus})
    shown = ", ".join(v or "(none)" for v in vcs[:3]) + (", …" if len(vcs) > 3 else "")
    problems.append(Problem(
        "capacity_vcs_unpriced", f"cluster {cluster}: {len(with_gpus)} imported capacity fact(s) of {len(vcs)}"
        f" virtual cluster(s) ({shown}) that no [[capacity]] pool prices: the GPU time no job held there is not"
        " costed", {"cluster": cluster, "facts": len(with_gpus), "vcs": len(vcs), "examples": shown}))


def _overlaps(cluster: str, spans: list[Span], names: Mapping[str, str], problems: list[Problem]) -> None:
    hit = [s for s in spans if s.others]
    if not hit:
        return
    used = ", ".join(sorted({names.get(u) or u[:12] for s in hit for u in s.used} - {names.get(o) or o[:12]
                                                                                  for s in hit for o in s.others}))
    others = ", ".join(sorted({names.get(o) or o[:12] for s in hit for o in s.others}))
    problems.append(Problem(
        "capacity_sources_overlap", f"cluster {cluster}: several imported files state the same nodes or VCs for"
        f" the same time ({_when(hit[0].start)} to {_when(hit[-1].end)}); the last imported ({used}) is used, not"
        f" {others}",
        {"cluster": cluster, "used": used, "others": others, "since": _when(hit[0].start),
         "until": _when(hit[-1].end)}))


def _hours(spans: list[Span]) -> str:
    return str(sum((s.hours for s in spans), Decimal(0)).normalize())


def _uncovered(cap: Any, spans: list[Span], problems: list[Problem]) -> None:
    missing = [s for s in spans if not s.used]
    if missing:
        problems.append(Problem(
            "capacity_not_stated", f"capacity {cap.id}: no imported capacity fact states the GPUs of cluster"
            f" {cap.pool_name} for {_hours(missing)} hour(s) between {_when(missing[0].start)} and"
            f" {_when(missing[-1].end)}: that time is not costed",
            {"capacity": cap.id, "cluster": cap.pool_name, "hours": _hours(missing), "since": _when(missing[0].start),
             "until": _when(missing[-1].end)}))
    nodes_only = [s for s in spans if s.used and s.gpus is None]
    if nodes_only:
        problems.append(Problem(
            "capacity_gpus_unknown", f"capacity {cap.id}: the imported capacity facts of cluster {cap.pool_name} count"
            f" nodes, not GPUs, for {_hours(nodes_only)} hour(s) between {_when(nodes_only[0].start)} and"
            f" {_when(nodes_only[-1].end)}: that time is not costed",
            {"capacity": cap.id, "cluster": cap.pool_name, "hours": _hours(nodes_only),
             "since": _when(nodes_only[0].start), "until": _when(nodes_only[-1].end)}))


def _conflict(cap: Any, cluster: str, differ: list[Span], problems: list[Problem]) -> None:
    if not differ:
        return
    problems.append(Problem(
        "capacity_conflict", f"capacity {cap.id}: the workspace says {cap.gpus_per_node} GPUs for {cluster},"
        f" imported capacity facts say {differ[0].gpus}; the workspace's figure is used",
        {"capacity": cap.id, "subject": cluster, "config": cap.gpus_per_node, "stated": differ[0].gpus,
         "since": _when(differ[0].start), "until": _when(differ[-1].end), "spans": len(differ)}))
