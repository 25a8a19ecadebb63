"""Which built-in preset a file fits, and which zone a mapped import reads offset-less times in.

``fitting``: a file given to a mapped kind whose preset's signature it lacks is tried against every
built-in preset of every mapped kind (``mapfile.presets``), so the error names the one that fits —
an openb pod list given to ``import occupancy --preset helios`` is the ``alibaba-openb-2023`` jobs
preset's layout, and the remedy is the command that reads it (review 5 J9).

``zone_default``: the zone of a mapped import that gives no ``--tz`` (nor ``[import.<kind>] tz``).
``sources.slurm.timezone`` is sacct's zone and says nothing of a Philly or Helios trace: a mapping's
``[time] zone`` is used as written; else its ``[time] source_zone``, the zone the source's own
documentation gives its times (Philly: the trace's utilisation files are stamped PDT / PST, so
America/Los_Angeles); else UTC, said to be assumed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trainledger.ingest.mapfile import load, mapped_kind, presets

ASSUMED = "UTC"  # a mapped import's zone when neither the import nor the mapping gives one


def _fits(signature: tuple[tuple[str, ...], ...], head: Any) -> bool:
    return bool(signature) and all(any(head.has(s) for s in g) for g in signature)


def fitting(head: Any, table: str, tried: str) -> list[tuple[str, str, str]]:
    """(preset, its table, the kind that imports it) of every built-in preset but ``tried`` whose
    signature ``head`` (``text.sniff``) has: those of ``table`` first, then the other tables'."""
    found = [(n, m.table, mapped_kind(m.table)) for n, m in presets().items()
             if n != tried and _fits(m.signature, head)]
    return sorted(found, key=lambda f: (f[1] != table, f[0]))


def zone_default(options: Mapping[str, Any], table: str) -> tuple[str | None, str]:
    """(zone, why) of a mapped import that names no ``tz``: why is "fixed" (the mapping's
    ``[time] zone``, which wins over any --tz), "source" (its ``[time] source_zone``) or "assumed"
    (UTC); (None, "none") when the mapping reads no offset-less time."""
    kind = {"worker_steps": "steps", "capacity": "nodes"}.get(table, table)
    m = load(options, (table,), kind)
    if m.time.format != "iso":
        return None, "none"
    if m.time.zone:
        return m.time.zone, "fixed"
    if m.time.source_zone:
        return m.time.source_zone, "source"
    return ASSUMED, "assumed"


def mapped_zone(kind: str, options: Mapping[str, Any]) -> tuple[str | None, str]:
    """(zone, why) a tabular mapped import of ``kind`` (jobs, occupancy, steps, nodes) reads
    offset-less times in, with ``options`` as the import has them ([import.<kind>] under the
    command's): "given" (a tz option), else ``zone_default``'s; (None, "none") for another kind or
    an import that names no mapping (its own error says so)."""
    from trainledger.ingest import importer_for

    table = getattr(importer_for(kind), "mapping_table", None)
    if table is None or not (options.get("preset") or options.get("mapping")):
        return None, "none"
    if options.get("tz"):
        return str(options["tz"]), "given"
    return zone_default(options, table)
