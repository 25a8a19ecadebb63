"""The dashboard's view models: plain dicts (strings, numbers, lists) that HTML and JSON both render.

Money stays decimal text with its currency, as in report/sheet.py; nothing here sums across bases.
Each function takes an open ``Workspace`` and raises ``NotFound`` with a remedy for an unknown id.
Sensitive fields stay ``Restricted`` (report/access.py: the sheet's; report/field_kinds.py: a labor or
external line's amounts, a source row's unit prices); web/app.py resolves them for the requester's role.
``scope_model`` cuts a page down to a batch-scoped token's batch.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from trainledger import fmt
from trainledger.errors import NotFound
from trainledger.imports import resolve, short_id, state_parts, states
from trainledger.ingest import KIND_TABLES
from trainledger.lake import partition_key
from trainledger.model.cost import CostLine
from trainledger.model.money import valuation
from trainledger.model.restricted import Restricted, restrict
from trainledger.report import (
    cross_access,
    field_kinds,
    freshness,
    labor_kinds,
    plan_access,
    rate_guard,
    vendor_kinds,
)
from trainledger.report.vendor_kinds import UNPLANNED_EXTERNAL


def no_plan(e: NotFound) -> dict[str, str | None]:
    """A batch without a plan, as the status and decisions pages say it: the message and remedy in
    English and zh-CN (review 7 L16: the Chinese page printed the English sentence)."""
    from trainledger.i18n import localize

    return {"message": e.message, "remedy": e.remedy, "message_zh": localize(e.message, "zh-CN"),
            "remedy_zh": localize(e.remedy, "zh-CN") if e.remedy else None}


def _q(path: str) -> str:
    from urllib.parse import quote

    return quote(path, safe="")


def line_ids(lines: list[CostLine]) -> list[str]:
    """Stable ids in ledger order: ``{import}-{row}-{n}``, n counting the lines one source row made."""
    seen: Counter[tuple[str, int]] = Counter()
    out = []
    for ln in lines:
        key = (short_id(ln.provenance.source_sha256), ln.provenance.row)
        out.append(f"{key[0]}-{key[1]}-{seen[key]}")
        seen[key] += 1
    return out


def _is_import(ln: CostLine) -> bool:
    return ln.provenance.source_kind != "config" and len(ln.provenance.source_sha256) == 64


def line_dict(ln: CostLine, ident: str) -> dict[str, Any]:
    """A line as the pages and JSON give it; ``provenance.import`` is the id of the import its source
    row came through (None: unknown — a line stored before lines recorded it; its link then goes by
    the content, to that content's first import)."""
    p, a = ln.provenance, ln.amount
    imp = short_id(p.import_key) if p.import_key else None
    return field_kinds.line_fields({
        "id": ident, "href": f"/lines/{ident}", "category": ln.category, "basis": str(ln.basis),
        "evidence": str(ln.evidence), "low": str(a.low), "expected": str(a.expected), "high": str(a.high),
        "currency": a.currency, "batch": ln.batch_id, "run": ln.run_id, "detail": ln.detail,
        "quantity": None if ln.quantity is None else str(ln.quantity), "unit": ln.unit, "reason": ln.reason,
        "provenance": {"source_sha256": p.source_sha256, "import": imp, "row": p.row, "rule": p.rule,
                       "source_kind": p.source_kind,
                       "href": f"/sources/{imp or short_id(p.source_sha256)}/{p.row}" if _is_import(ln) else None},
    }, ln)


FIGS = ("low", "expected", "high")
VALUED = {"queued", "estimate"}  # figures made by ``model.money.valuation``


def _figure(value, basis: str, currency: str) -> str:
    """JSON money text: exact (``fmt.plain``); a sum of valuations at their documented scale
    (``28.5394725``, not ``28.53947250`` nor 28 artefact digits)."""
    return fmt.plain(valuation(value, currency) if basis in VALUED else value)


def _share(value, basis: str, currency: str) -> str:
    """An allocated total as the sheet's allocation table prints it: a cash basis exact, any other
    (internal labor, an estimate) to the currency's minor unit."""
    from decimal import ROUND_HALF_EVEN

    from trainledger.model import CASH_BASES
    from trainledger.model.money import minor_quantum

    if basis in {str(b) for b in CASH_BASES}:
        return fmt.plain(value)
    return format(value.quantize(minor_quantum(currency), ROUND_HALF_EVEN), "f")


def batches(wsp) -> dict[str, Any]:
    """Each batch's direct totals per basis and currency and, beside them, its allocated shares per
    *source* basis and currency (an allocation is a view: its shares of cash, internal labor and
    estimates are never one figure). An allocated total drawing on an invoice or on labor is
    restricted as its pool is (report/field_kinds.py ``pool_kind``); a labor (internal) total as the sheet's
    is: one role's cost when the batch's labor is one role, else the phase's (``labor_roles``)."""
    out = []
    by_batch: dict[str, dict[tuple[str, str], list]] = {}
    allocated: dict[str, dict[tuple[str, str], list]] = {}
    for batch_id, basis, currency, low, expected, high in wsp.ledger.batch_amounts():  # direct lines
        acc = by_batch.setdefault(batch_id, {}).setdefault((basis, currency), [0, 0, 0, 0])
        acc[0] += low
        acc[1] += expected
        acc[2] += high
        acc[3] += 1
    for ln in wsp.ledger.allocation_lines():  # detail = <policy>/<source basis> (engine/allocation.py)
        key = (ln.detail.rpartition("/")[2], ln.currency)
        acc = allocated.setdefault(ln.batch_id, {}).setdefault(key, [0, 0, 0, 0, set()])
        kind = field_kinds.line_kind(ln)
        if kind:
            acc[4].add(kind)
        acc[0] += ln.amount.low
        acc[1] += ln.amount.expected
        acc[2] += ln.amount.high
        acc[3] += 1
    roles: dict[tuple[str, str], set[str]] = {}
    for batch_id, cur, role in wsp.ledger.labor_roles():
        roles.setdefault((batch_id, cur), set()).add(role)
    guard = rate_guard.guard(wsp)  # batch totals beside the other labor figures shown: a rate back?
    invoices = wsp.ledger.invoice_keys()  # a total an invoice is part of gives it back (review 7 L13)
    for b in wsp.ledger.list_batches():
        totals = []
        for (basis, cur), v in sorted(by_batch.get(b.id, {}).items()):
            figs = {k: _figure(v[i], basis, cur) for i, k in enumerate(FIGS)}
            if basis == "internal":  # labor: one role's total gives its rate away (fail closed on none)
                kind = "labor_cost_phase" if len(roles.get((b.id, cur), ())) > 1 else "labor_cost_person"
                figs = {k: restrict(x, guard.kind("total", kind)) for k, x in figs.items()}
            elif (b.id, basis, cur) in invoices:
                figs = {k: restrict(x, "vendor_amount") for k, x in figs.items()}
            totals.append({"basis": basis, "currency": cur, **figs, "lines": v[3]})
        shares = []
        for (basis, cur), v in sorted(allocated.get(b.id, {}).items()):
            kind = "vendor_amount" if "vendor_amount" in v[4] else next(iter(sorted(v[4])), None)
            figs = {k: _share(v[i], basis, cur) for i, k in enumerate(FIGS)}
            shares.append({"source_basis": basis, "currency": cur, "lines": v[3],
                           **({k: restrict(x, kind) for k, x in figs.items()} if kind else figs)})
        out.append({"id": b.id, "name": b.name, "project": b.project, "team": b.team,
                    "href": f"/batches/{_q(b.id)}", "totals_by_basis": totals, "allocated_by_source_basis": shares})
    return {"batches": out, "stale": freshness.check(wsp)}  # the lake changed since the attribution (freshness.py)


def batch_exists(wsp, batch_id: str) -> None:
    """NotFound with a remedy unless the ledger has the batch."""
    _require_batch(wsp, batch_id)


def _require_batch(wsp, batch_id: str):
    ids = [b.id for b in wsp.ledger.list_batches()]
    if batch_id not in ids:
        raise NotFound(f"no batch {batch_id!r}", remedy="see /batches (or `trainledger batch list`) for the ids")


def batch(wsp, batch_id: str) -> dict[str, Any]:
    """The sheet of report/sheet.py as ``trainledger sheet --format json`` gives it (``_as_cli``), plus
    links to each run."""
    _require_batch(wsp, batch_id)
    sheet = _as_cli(labor_kinds.mark_labor_totals(wsp.sheet(batch_id)))  # marked as the sheet's renderers do
    runs = [{"id": r["id"], "state": r.get("state"), "reason": r.get("reason"),
             "href": f"/batches/{_q(batch_id)}/runs/{_q(r['id'])}"} for r in sheet.get("runs", [])]
    return {"batch": batch_id, "runs": runs, "sheet": sheet}


def _as_cli(sheet: dict[str, Any]) -> dict[str, Any]:
    """A copy of the sheet as report/render.py ``to_json`` writes it before the role is applied: its
    lists in the vocabulary's order (``in_seed_order``, never alphabetical) and each run's GPU-hours
    rounded to 6 places with the exact ones beside when they differ (``hours_json``)."""
    from trainledger.report.render import hours_json, in_seed_order

    s = in_seed_order(sheet)
    runs = []
    for r in s.get("runs") or []:
        if isinstance(r.get("gpu_hours_by_state"), dict):
            items = [(k, x) for k, x in r.items() if k != "gpu_hours_by_state_exact"]
            at = [k for k, _x in items].index("gpu_hours_by_state")
            r = dict(items[:at] + list(hours_json(r["gpu_hours_by_state"]).items()) + items[at + 1:])
        runs.append(r)
    if "runs" in s:
        s["runs"] = runs
    return s


def run(wsp, batch_id: str, run_id: str) -> dict[str, Any]:
    """One run: its fields from the sheet, its cost lines grouped by state (detail), its retry chain.
    The groups are a function of the verified figures: ``wsp.memo`` (the dashboard's, web/cache.py)
    keeps them per figures digest, so a decision or a confirmation does not read them again."""
    _require_batch(wsp, batch_id)
    sheet = wsp.sheet(batch_id)
    found = [r for r in sheet.get("runs", []) if r["id"] == run_id]
    if not found:
        raise NotFound(f"no run {run_id!r} in batch {batch_id!r}",
                       remedy=f"see /batches/{batch_id} for its runs")

    def by_state() -> list[dict[str, Any]]:
        groups: dict[str, list[dict]] = {}
        for ln, n in wsp.ledger.run_lines(batch_id, run_id):  # ids as line_ids gives them, from this run's lines
            ident = f"{short_id(ln.provenance.source_sha256)}-{ln.provenance.row}-{n}"
            groups.setdefault(ln.detail or ln.category, []).append(line_dict(ln, ident))
        out = []
        for state, items in groups.items():
            totals: dict[tuple[str, str], list] = {}
            kinds: dict[tuple[str, str], str] = {}  # a total of restricted amounts is restricted as they are
            for it in items:
                acc = totals.setdefault((it["basis"], it["currency"]), [0, 0, 0])
                for i, k in enumerate(("low", "expected", "high")):
                    x = it[k]
                    if isinstance(x, Restricted):
                        kinds[(it["basis"], it["currency"])], x = x.kind, x.value
                    acc[i] += _dec(x)
            out.append({"state": state, "lines": items,
                        "totals": [{"basis": b, "currency": c,
                                    **{k: restrict(str(v[i]), kinds[(b, c)]) if (b, c) in kinds else str(v[i])
                                       for i, k in enumerate(("low", "expected", "high"))}}
                                   for (b, c), v in sorted(totals.items())]})
        return out

    digest = (sheet.get("ledger") or {}).get("figures_digest")  # the verified figures the sheet was built from
    memo = getattr(wsp, "memo", None)  # web/cache.py ``Pages.figures``: kept per figures digest, across writes
    states = memo((digest, "run", batch_id, run_id), by_state) if memo and digest else by_state()
    chains = [dict(c, attempt_links=[{"id": a, "href": f"/batches/{_q(batch_id)}/runs/{_q(a)}"} for a in c["attempts"]])
              for c in sheet.get("retry_chains", []) if run_id in c.get("attempts", [])]  # the sheet may be shared
    return {"batch": batch_id, "batch_href": f"/batches/{_q(batch_id)}", "run": found[0],
            "by_state": states, "retry_chains": chains, "stale": sheet.get("stale")}  # as the batch page says it


def _dec(text: str):
    from decimal import Decimal

    return Decimal(text)


def _row_lines(wsp, short: str, row: int) -> list[tuple[str, CostLine]]:
    """(id, line) of the lines ``line_ids`` numbers ``short``-``row``-n, read by index: the same n
    as over the whole ledger, since n counts only the lines of that import id and row."""
    return [(f"{short}-{row}-{n}", ln) for n, ln in enumerate(wsp.ledger.row_lines(short, row))]


def line(wsp, line_id: str) -> dict[str, Any]:
    """One cost line of the latest attribution by its stable id (IMPORT-ROW-N): its amounts, basis,
    evidence, quantity, reason and provenance (the source row it came from, the rule), with links to
    its batch, run and source row."""
    short, _, rest = line_id.partition("-")
    row, _, n = rest.partition("-")
    found = _row_lines(wsp, short, int(row)) if short and row.isdigit() and n.isdigit() else []
    for ident, ln in found:
        if ident == line_id:
            d = line_dict(ln, ident)
            if ln.batch_id:
                d["batch_href"] = f"/batches/{_q(ln.batch_id)}"
                if ln.run_id:
                    d["run_href"] = f"/batches/{_q(ln.batch_id)}/runs/{_q(ln.run_id)}"
            return d
    raise NotFound(f"no cost line {line_id!r} in the latest attribution",
                   remedy="line ids are IMPORT-ROW-N; follow a link from /batches (ids change only when"
                          " the attribution's lines for that source row change)")


def source(wsp, ident: str, row: int) -> dict[str, Any]:
    """One imported source row: its file and import, the lake's values, the raw row, the rules."""
    try:
        rec = resolve(wsp.ledger.imports(), ident)
    except NotFound as e:
        raise NotFound(f"no import {ident!r}", remedy="see `trainledger imports list` for the ids") from e
    table = KIND_TABLES.get(rec.kind)
    values = None
    if table is not None:
        dropped = wsp.lake.dropped()
        # this import's partitions only: another import of the same content (another --set) shares its folder
        state = next((st for (kind, key), st in states(wsp.lake).items()
                      if kind == rec.kind and st.import_key == rec.import_key), None)
        parts = (state_parts(wsp.lake, state, table) if state is not None
                 else wsp.lake.source_parts(table, rec.source_sha256))
        for part in parts:
            if partition_key(part) in dropped:
                continue
            t = pq.read_table(part)
            rows = t.column("row").to_pylist()
            if row in rows:
                r = t.slice(rows.index(row), 1).to_pylist()[0]
                values = {k: (None if v is None else str(v)) for k, v in r.items()
                          if k not in ("source_sha256", "row", "row_hash")}
                break
    if values is None:
        raise NotFound(f"import {short_id(rec.source_sha256)} ({rec.kind}, {rec.path}) has no accepted row {row}",
                       remedy=f"rows run 1..{rec.rows_read}; a quarantined or duplicate row is not in the lake"
                              " (`trainledger quarantine`)")
    of_row = [(i, ln) for i, ln in _row_lines(wsp, short_id(rec.source_sha256), row)
              if ln.provenance.source_sha256 == rec.source_sha256
              and ln.provenance.import_key in ("", rec.import_key)  # this import's ("": not recorded)
              and LINE_TABLES.get(ln.provenance.source_kind) in (None, table)]  # not another table's import
    attributed = [{"id": i, "href": f"/lines/{i}", "rule": ln.provenance.rule, "batch": ln.batch_id,
                   "run": ln.run_id, "basis": str(ln.basis),
                   "expected": field_kinds.line_fields({"expected": str(ln.amount.expected)}, ln)["expected"],
                   "currency": ln.currency, "detail": ln.detail}
                  for i, ln in of_row]
    # a line stored before lines recorded their import (migration 0008) names the content and row
    # only: when another live import of the same content into the same table (another statement:
    # --set vc=…, an undated inventory on another day) has a row of this number too, such a line
    # may be that import's — said, not hidden
    unknown = any(not ln.provenance.import_key for _i, ln in of_row)
    shared = sorted(short_id(st.import_key) for (kind, _key), st in states(wsp.lake).items()
                    if st.live and st.sha256 == rec.source_sha256 and st.import_key != rec.import_key
                    and KIND_TABLES.get(kind) == table) if table is not None and unknown else []
    raw, raw_note = raw_row(Path(rec.path), rec.source_sha256, row)
    shown = field_kinds.source_values(values, rec.kind)
    return {"flags_zh": _flags_zh(shown.get("flags"), rec.kind, short_id(rec.import_key)),
            "import": short_id(rec.import_key), "source_sha256": rec.source_sha256, "kind": rec.kind,
            "file": rec.path, "imported_at": rec.imported_at.isoformat(), "row": row,
            "values": shown, "raw": field_kinds.source_values(raw, rec.kind),
            "raw_note": raw_note, "rules": sorted({a["rule"] for a in attributed}),
            "lines": attributed, "lines_shared_with": shared}


# The lake table of the rows a cost line's ``source_kind`` names (engine: bill rows are "focus",
# job rows "slurm", whatever importer read them); a kind not here ("config": a capacity) is not told apart.
LINE_TABLES = {"focus": "bill_lines", "slurm": "jobs", "capacity": "jobs", "storage": "storage_objects",
               "timesheet": "labor_entries", "invoice": "external_services"}


def _flags_zh(flags: Any, kind: str, import_id: str) -> str | None:
    """The row's stored flags (lake JSON text) in Chinese, for the zh-CN page; None when there are
    none or the token's role may not see them (a withheld value stays withheld)."""
    from trainledger.model.restricted import Withheld
    from trainledger.report.flag_text import flags_text

    if isinstance(flags, Withheld) or not isinstance(flags, str) or not flags or flags == "[]":
        return None
    try:
        notes = json.loads(flags) if flags.startswith("[") else [flags]
    except ValueError:
        notes = [flags]
    return flags_text(notes, "zh-CN", kind, import_id)


def _decoded(data: bytes) -> str:
    """The file's text as the importers read it: UTF-8 (BOM or not) or UTF-16 by its BOM, else the
    legacy encoding Chinese consoles and Excel export (GB18030, a superset of GBK and GB2312, which
    the Chinese bill presets fall back to: ingest/mapfile.py); replacement characters only when
    neither decodes (review 5 J4: a Huawei 资源详单 showed as mojibake)."""
    from trainledger.ingest.text import encoding_of

    for enc in (encoding_of(data[:4]), "gb18030"):
        try:
            return data.decode(enc)
        except UnicodeDecodeError:
            continue
    return data.decode("utf-8-sig", errors="replace")


def raw_row(path: Path, sha256: str, row: int) -> tuple[dict[str, str] | None, str]:
    """Data row ``row`` (1-based, header excluded) of the file as it is on disk, if it is still the
    imported content: CSV / pipe-separated text by its header, JSON Lines by line, a JSON document
    (``kubectl get … -o json``'s List) by item."""
    try:
        data = path.read_bytes()
    except OSError:
        return None, f"the file is no longer at {path}"
    if hashlib.sha256(data).hexdigest() != sha256:
        return None, f"{path} has changed since it was imported (content hash differs)"
    text = _decoded(data)
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if 0 < row <= len(lines):
            try:
                obj = json.loads(lines[row - 1])
            except ValueError:
                return {"line": lines[row - 1]}, ""
            return {k: json.dumps(v, ensure_ascii=False) if isinstance(v, dict | list) else str(v)
                    for k, v in obj.items()}, ""
        return None, f"{path} has no line {row}"
    if path.suffix.lower() == ".json" and text.lstrip().startswith("{"):  # a Kubernetes List: item by item
        try:
            doc = json.loads(text)
        except ValueError:
            return None, f"{path} is not JSON"
        items = doc.get("items") if isinstance(doc, dict) and isinstance(doc.get("items"), list) else [doc]
        if 0 < row <= len(items) and isinstance(items[row - 1], dict):
            return {k: json.dumps(v, ensure_ascii=False) if isinstance(v, dict | list) else str(v)
                    for k, v in items[row - 1].items()}, ""
        return None, f"{path} has no item {row}"
    first = text.splitlines()[0] if text else ""
    delim = "|" if first.count("|") > first.count(",") else ","
    rows = list(csv.reader(io.StringIO(text), delimiter=delim))
    if 0 < row < len(rows):
        header = rows[0]
        return dict(zip(header, rows[row] + [""] * (len(header) - len(rows[row])), strict=False)), ""
    return None, f"{path} has no data row {row}"


def report(wsp, params=None, lang: str = "en", *, html: bool = False) -> dict[str, Any]:
    """The cross-batch report of report/cross.py (``report``: its JSON contract; ``?project=``,
    ``?from=``, ``?to=``, ``?by=`` as on the command line), each batch's totals per basis and currency
    (never summed across bases), and the workspace's conservation check of the latest attribution.
    ``html``: also the report's page (``html``, popped by the app before it answers)."""
    from trainledger.report import cross

    params = params or {}
    rep = cross.build(wsp, cross.scope(wsp, params.get("project"), params.get("from"), params.get("to"),
                                       params.get("by") or "month"))
    att = wsp.ledger.latest_attribution() or {}
    summary = att.get("summary") if isinstance(att.get("summary"), dict) else {}
    out = {"batches": batches(wsp)["batches"], "attribution_id": att.get("id"),
           "conservation": {"scope": "workspace", "as_of": summary.get("as_of"),
                            # an invoice's currency's totals are vendor_amount (report/vendor_kinds.py)
                            "by_currency": vendor_kinds.mark_conservation(vendor_kinds.with_invoiced(
                                summary.get("conservation", []),
                                vendor_kinds.invoiced_currencies(wsp, summary.get("conservation"))))},
           "report": cross_access.cross_by_role(rep),  # each role's own copy (report/cross_access.py)
           "stale": freshness.check(wsp)}  # the lake changed since that attribution (report/freshness.py)
    if html:
        out["html"] = cross_access.cross_by_role(rep, lang, html=True)
    return out


def plan_status(wsp, batch_id: str) -> dict[str, Any]:
    """review/service.py's status (AC, EV, EAC, alerts) and review (variance parts) of the latest plan,
    the batch's decisions and its plan versions (``plans``: ``trainledger plan list``), and
    ``ranges``: plan / AC / EV / EAC side by side per basis and currency; ``no_plan`` says why when
    the batch has no baseline yet."""
    from trainledger.ledger import review_repo
    from trainledger.review import service as review

    _require_batch(wsp, batch_id)
    out: dict[str, Any] = {"batch": batch_id, "batch_href": f"/batches/{_q(batch_id)}", "status": None,
                           "review": None, "no_plan": None}
    try:
        out["status"] = review.status(wsp, batch_id)
        out["review"] = review.review(wsp, batch_id)
    except NotFound as e:
        out["no_plan"] = no_plan(e)
    out["decisions"] = review_repo.decision_rows(wsp.ledger, batch_id)
    out["plans"] = review.plans(wsp, batch_id)
    out["ranges"] = _ranges(out["status"]) if out["status"] else []
    # the page's groups an invoice is part of (its ranges, decisions: report/vendor_kinds.py), not figures
    out["vendor_groups"] = (out["status"] or {}).get("vendor_groups") or _vendor_groups(wsp, batch_id)
    out["vendor_lines"] = (out["status"] or {}).get("vendor_lines") or [UNPLANNED_EXTERNAL]
    out["stale"] = freshness.check(wsp)  # AC is the last attribution's; the lake may have moved on
    b = _q(batch_id)
    out["links"] = {"decisions": f"/batches/{b}/decisions", "alerts": f"/alerts?batch={b}"}
    from trainledger.web.pages import version_kinds  # each alert / decision / version: its plan's labor kind

    return plan_access.mark_plan(json.loads(json.dumps(version_kinds(wsp, batch_id, out), default=str)))


def _vendor_groups(wsp, batch_id: str) -> list[dict[str, str]]:
    from trainledger.report.vendor_kinds import groups_of

    return groups_of(wsp).get(batch_id, [])


def _ranges(st: dict[str, Any]) -> list[dict[str, Any]]:
    """Plan, AC, EV and EAC of one basis and currency on one row (each a low / expected / high)."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for k in ("plan", "ac", "ev", "eac"):
        for r in st.get(k) or []:
            row = rows.setdefault((r["basis"], r["currency"]), {"basis": r["basis"], "currency": r["currency"]})
            row[k] = {f: r[f] for f in FIGS}
    return [rows[k] for k in sorted(rows)]


def scoped(request) -> None:
    """A page's scope marker (web/app.py ``page``): the page filters itself with ``scope_model``."""
    return None


def scope_model(model: dict[str, Any], batch: str | None, check) -> dict[str, Any]:
    """``model`` cut to a batch-scoped token's batch: the batches list to that batch; a cost line or a
    source row must belong to it (``check`` raises 403 otherwise); any other page is across batches."""
    if batch is None:
        return model
    if "provenance" in model:  # a cost line
        check(model.get("batch"))
        return model
    if "lines" in model and "source_sha256" in model:  # a source row: only its lines of that batch
        mine = [ln for ln in model["lines"] if ln["batch"] == batch]
        if not mine:
            check(next((ln["batch"] for ln in model["lines"] if ln["batch"]), None))
        return dict(model, lines=mine, rules=sorted({ln["rule"] for ln in mine}))
    if isinstance(model.get("batches"), list) and set(model) <= {"batches", "stale"}:
        return dict(model, batches=[b for b in model["batches"] if b["id"] == batch])
    if isinstance(model.get("alerts"), list) and "closed" in model:  # web/pages.py alerts
        if model.get("batch") is not None:
            check(model["batch"])
            return model
        mine = [a for a in model["alerts"] if a["batch"] == batch]
        return dict(model, alerts=mine, open=sum(1 for a in mine if a["open"]),
                    closed=sum(1 for a in mine if not a["open"]))
    check(None)
    return model
