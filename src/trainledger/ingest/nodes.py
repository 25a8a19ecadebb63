"""``nodes``: what capacity existed — node lists, GPUs per virtual cluster → table ``capacity``.

A mapping (``--preset openb-nodes|helios-gpus|philly-vc`` or ``--mapping FILE``) names the columns
of ``cluster``, ``vc``, ``node``, ``nodes``, ``gpus``, ``gpus_per_node``, ``gpu_model``,
``valid_from``, ``valid_to`` and ``resource_id`` (the instance id a bill names the node by: a node
with one is a node-map entry, engine/node_map.py, and may leave ``cluster`` empty). Without a
mapping the file is ``kubectl get nodes -o json``, read by ``kube_nodes.py``. Each row is one
*capacity fact*: a node (``node``; it counts one node) or a count of a cluster's / virtual
cluster's GPUs or nodes. ``cluster`` is needed: from a column, the mapping's ``[constants]`` or
``--set cluster=…`` (a Helios file names no cluster). ``gpus`` is the count, or
``nodes × gpus_per_node`` when only those are known (a Philly VC list counts nodes:
``--set gpus_per_node=8`` if you know it, else ``gpus`` stays null). A fact holds from
``valid_from`` to ``valid_to``; the mapping's ``interval_s`` gives ``valid_to`` (a daily series:
86400); a list without dates holds always (both null).

A **wide** table (``[wide] field = "vc"  value = "gpus"  total = "total"``: Helios'
``cluster_gpu_number.csv``, one row a day and one column per VC) is unpivoted: every header the
mapping does not map (and not ``total``) gives one fact per row — so *rows read* counts cells.
The facts of a source row keep its row number, raw text and row hash parts; an empty or
negative cell is quarantined alone; a row whose cells do not sum to its ``total`` is flagged.
Unmapped columns (cpu_milli, memory_mib of the openb list) go to ``extra``. ``engine/capacity.py``
uses the facts for the GPUs of a ``[[capacity]]`` pool that gives no ``gpus``.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

from trainledger.errors import BadInput
from trainledger.ingest import kube_nodes
from trainledger.ingest.base import Context, Record, Rejected, Verdict, col, dumps
from trainledger.ingest.convert import nonneg_integer, stripped
from trainledger.ingest.keys import canon_number, canon_time_local, content_key
from trainledger.ingest.mapping import Settings, mapped_time, overrides, settings
from trainledger.ingest.tabular import MappedImporter, constants
from trainledger.ingest.text import decoded_lines, open_text, text_encoding

COUNTS = ("nodes", "gpus", "gpus_per_node")
FIELDS = frozenset({"cluster", "vc", "node", "gpu_model", "valid_from", "valid_to", "resource_id", *COUNTS})
COUNT_REMEDY = "write a whole number >= 0 (0 when there is none)"


class NodesImporter(MappedImporter):
    kind = "nodes"
    table = "capacity"
    description = ("a node / capacity list (kubectl get nodes -o json, or a table read through --preset"
                   " / --mapping)")
    keep_extra = True
    mapping_table = "capacity"
    fields = FIELDS
    needed = ("cluster",)
    converters = {"valid_from": mapped_time, "valid_to": mapped_time, "cluster": stripped, "vc": stripped,
                  "node": stripped, "gpu_model": stripped, "resource_id": stripped,
                  **{c: nonneg_integer for c in COUNTS}}
    remedies = {c: COUNT_REMEDY for c in COUNTS}
    time_fields = ("valid_from", "valid_to")

    def configure(self, options: Any) -> Settings | kube_nodes.KubeNodes:
        if not (options.get("preset") or options.get("mapping")):  # a kubectl node list (kube_nodes.py)
            return kube_nodes.configure(overrides(options.get("set")))
        cfg = super().configure(options)
        for name, value in constants(cfg).items():
            if name in COUNTS:
                try:
                    nonneg_integer(value)
                except ValueError as e:
                    raise BadInput(f"{name} = {value!r}: {e}", path=cfg.mapping.source,
                                   remedy=f"--set {name}=N, {COUNT_REMEDY}") from None
        return cfg

    def identity(self, path: Path, options: Any, cfg: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        if isinstance(cfg, kube_nodes.KubeNodes):
            return kube_nodes.identity(options, cfg)
        return super().identity(path, options, cfg)

    def identify(self, path: Path) -> bool | str:
        if path.is_file() and (seen := kube_nodes.looks_like(path)) is not None:
            if seen == "Node":
                return True
            if seen == "Pod":
                return Verdict("it is a list of Kubernetes pods, not nodes",
                               remedy=f"import it with `trainledger import k8s {path}`")
            return Verdict("it is JSON without Kubernetes Node objects (no \"kind\": \"Node\")",
                           remedy="export the nodes with `kubectl get nodes -o json > nodes.json` and import"
                                  " that file; a CSV node list is read with --preset/--mapping")
        return super().identify(path)

    def validate(self, record: Record, ctx: Context) -> dict[str, Any]:
        if isinstance(ctx.cfg, kube_nodes.KubeNodes):
            return kube_nodes.validate(record, ctx)
        return super().validate(record, ctx)

    def layout(self, cfg: Settings):
        cols = super().layout(cfg)
        wide = cfg.mapping.wide
        if wide is None or any(c.name == wide[0] for c in cols):
            return cols
        # the cells' fields: filled by parse, the value read (and refused) in normalise
        out = (*cols, col(wide[0], f"[wide] {wide[0]}", convert=stripped), col(wide[1], f"[wide] {wide[1]}"))
        self._layout = (cfg.mapping, out)
        return out

    def parse(self, path: Path, ctx: Context) -> Iterator[Record]:
        if isinstance(ctx.cfg, kube_nodes.KubeNodes):
            if kube_nodes.looks_like(path) != "Node":  # a CSV without --preset / --mapping
                settings(ctx.options, self.mapping_table)  # raises: the mapped reader's own error (which mapping)
            yield from kube_nodes.parse(path, ctx)
            return
        if kube_nodes.looks_like(path) == "Node":
            raise BadInput("a kubectl node list is read as it is, not through a mapping", path=str(path),
                           remedy=f"import it without --preset / --mapping: `trainledger import nodes {path}`")
        cfg: Settings = ctx.cfg
        wide = cfg.mapping.wide
        if wide is None:
            yield from super().parse(path, ctx)
            return
        key_field, value_field, total = wide
        mapped = {s.casefold() for sources in cfg.mapping.columns.values() for s in sources}
        cells = [h for h in _header(path, ctx) if h and h.casefold() not in mapped and h.casefold() != total.casefold()]
        fixed = constants(cfg)
        salt = [x for k in sorted(fixed) for x in (k, fixed[k])]
        canon = canon_number if cfg.mapping.time_format == "number" else canon_time_local
        for rec in super().parse(path, ctx):
            if rec.problem:
                yield rec  # a broken row is one record: its cells cannot be told apart
                continue
            extra = dict(rec.extra or {})
            given = {h: extra.pop(h, None) for h in cells}
            notes = list(rec.notes or [])
            sums = [v for v in given.values() if v is not None and canon_number(v).isdigit()]
            stated = next((v for k, v in extra.items() if total and k.casefold() == total.casefold()), None)
            if stated is not None and len(sums) == len(cells) and canon_number(stated) != str(sum(int(canon_number(v))
                                                                                                  for v in sums)):
                n, got = len(cells), sum(int(canon_number(v)) for v in sums)
                notes.append(f"the row's {n} cells sum to {got}, its {total} column says {stated}")
            base = sorted((k, canon(v) if k in self.time_fields else v) for k, v in rec.values.items()
                          if v is not None)
            for h in cells:
                v = given[h]
                items = sorted([*base, (key_field, h), *([(value_field, canon_number(v))] if v is not None else [])])
                key = content_key([*[x for kv in items for x in kv], *salt])
                yield Record(rec.row, rec.line, rec.raw, key, {**rec.values, key_field: h, value_field: v},
                             extra, notes=list(notes) or None)

    def normalise(self, values: dict[str, Any], record: Record, ctx: Context) -> dict[str, Any]:
        if isinstance(ctx.cfg, kube_nodes.KubeNodes):
            return kube_nodes.normalise(values, record, ctx)
        cfg: Settings = ctx.cfg
        m = cfg.mapping
        fixed = constants(cfg)
        flags: list[str] = values["flags"]
        if m.wide is not None:
            header, field = values.get(m.wide[0]), m.wide[1]
            raw = values.get(field)
            if raw is None:
                raise Rejected(f"{header} is empty", f"fill in {header}'s count ({COUNT_REMEDY})")
            try:
                values[field] = nonneg_integer(raw)
            except ValueError as e:
                raise Rejected(f"{header}: {e}", COUNT_REMEDY) from None
        counts = {c: values.get(c) if values.get(c) is not None else _count(fixed.get(c), c) for c in COUNTS}
        node = values.get("node") or fixed.get("node") or ""
        nodes, gpus, per = counts["nodes"], counts["gpus"], counts["gpus_per_node"]
        if nodes is None and node:
            nodes = 1
        if per is not None and nodes is not None:
            if gpus is None:
                gpus = nodes * per
            elif gpus != nodes * per:
                flags.append(f"gpus {gpus} is not nodes {nodes} × gpus_per_node {per}")
        if gpus is None and nodes is None:
            raise Rejected("the row gives no GPU or node count",
                           "map gpus (or nodes, with gpus_per_node) to a column, or --set one")
        start, end = values.get("valid_from"), values.get("valid_to")
        if end is None and start is not None and m.interval_s:
            end = start + timedelta(seconds=m.interval_s)
        if start is not None and end is not None and end <= start:
            raise Rejected(f"valid_to {end.isoformat()} is not after valid_from {start.isoformat()}",
                           "check the row's dates")
        cluster = values.get("cluster") or fixed.get("cluster") or ""
        resource = values.get("resource_id") or fixed.get("resource_id") or None
        if not cluster and not (resource and node):  # a node with its instance id is a node-map entry (node_map.py)
            raise Rejected("cluster is empty", "fill in the cluster, or --set cluster=NAME")
        return {
            "cluster": cluster,
            "vc": values.get("vc") or fixed.get("vc", ""),
            "node": node,
            "nodes": nodes,
            "gpus": gpus,
            "gpu_model": values.get("gpu_model") or fixed.get("gpu_model") or None,
            "valid_from": start,
            "valid_to": end,
            "resource_id": resource,
            "extra": dumps(record.extra or {}),
            "flags": flags,
        }


def _count(value: Any, name: str) -> int | None:
    return None if value is None else nonneg_integer(value)  # checked by configure


def _header(path: Path, ctx: Context) -> list[str]:
    """The file's header names (the first non-blank row), read as the importer reads the file."""
    enc, given = text_encoding(path, ctx.options)
    with open_text(path, enc) as f:
        for line in decoded_lines(path, f, enc, given):
            if not line.strip():
                continue
            names = line.strip().split(";")  # `;` CSV (Excel, a European locale), as delimited.py reads it
            sep = ";" if "," not in line and len(names) > 1 and all(n.strip() for n in names) else ","
            return [h.strip() for h in next(csv.reader([line], delimiter=sep), [])]
    return []
