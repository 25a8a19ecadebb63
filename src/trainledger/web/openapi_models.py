"""The JSON shapes of the dashboard's view models for /api/openapi.json, derived from the view models
themselves: ``python -m trainledger.web.openapi_models --update`` builds the demo workspace, asks
every page kind (web/views.py: batches, batch, run, cost line, source row, status, report) for its
view model as the local admin and with a viewer's token (the role that sees least), and infers each model's
schema from what they answered (``infer``) into ``openapi_models.json`` beside this file — reviewed
like a golden file, never written at run time. tests/web/test_openapi_models.py asks the same pages
of a fresh demo and checks both ways (``conformance``): every documented property is in some real
response, and no response holds a key the schema does not document.

Inferred per object: its properties (each with the types seen: string, integer, number, boolean,
nullable), required = present in every sample. A string field that some role reads as "restricted"
(model/restricted.py) is money or a rate the role may not see: ``anyOf`` decimal text or
``"restricted"``; a string that is always a decimal is ``format: decimal``. Objects keyed by data
(``MAPS``: a source row's columns, GPU-hours per state, rework per reason) are maps: their values'
shape, any key. A list's items are the merge of every element seen.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

FILE = Path(__file__).with_name("openapi_models.json")
RESTRICTED = "restricted"  # model/restricted.py: what JSON says for a field the role may not see
# keys whose object is keyed by data, not by a fixed vocabulary of fields
MAPS = frozenset({"values", "raw", "gpu_hours_by_state", "compute_rework_by", "rework_by", "rates", "bases",
                  "withheld", "revealed"})
MODELS = ("Batches", "Batch", "Run", "Line", "Source", "Status", "Report")
_DECIMAL = re.compile(r"-?\d+(\.\d+)?")


def _is_decimal(x: str) -> bool:
    if not _DECIMAL.fullmatch(x):
        return False
    try:
        Decimal(x)
    except InvalidOperation:
        return False
    return True


class _Shape:
    """What the samples at one place held: scalar types, an object's fields, a list's items."""

    def __init__(self) -> None:
        self.types: set[str] = set()
        self.strings = self.decimals = self.restricted = 0
        self.objects = 0
        self.fields: dict[str, _Shape] = {}
        self.seen: dict[str, int] = {}
        self.map: _Shape | None = None
        self.items: _Shape | None = None

    def add(self, x: Any, key: str = "") -> None:
        if isinstance(x, dict):
            self.types.add("object")
            if key in MAPS:
                self.map = self.map or _Shape()
                for v in x.values():
                    self.map.add(v)
                return
            self.objects += 1
            for k, v in x.items():
                self.fields.setdefault(k, _Shape()).add(v, k)
                self.seen[k] = self.seen.get(k, 0) + 1
        elif isinstance(x, list):
            self.types.add("array")
            self.items = self.items or _Shape()
            for v in x:
                self.items.add(v)
        elif x is None:
            self.types.add("null")
        elif isinstance(x, bool):
            self.types.add("boolean")
        elif isinstance(x, int):
            self.types.add("integer")
        elif isinstance(x, float):
            self.types.add("number")
        else:
            self.types.add("string")
            self.strings += 1
            if x == RESTRICTED:
                self.restricted += 1
            elif _is_decimal(str(x)):
                self.decimals += 1

    def schema(self) -> dict[str, Any]:
        kinds = sorted(self.types - {"null"})
        out: list[dict[str, Any]] = []
        for k in kinds:
            if k == "object":
                if self.map is not None and not self.fields:
                    out.append({"type": "object", "additionalProperties": self.map.schema()})
                else:
                    props = {name: s.schema() for name, s in self.fields.items()}
                    req = sorted(n for n, c in self.seen.items() if c == self.objects)
                    out.append({"type": "object", "properties": props, **({"required": req} if req else {})})
            elif k == "array":
                out.append({"type": "array", "items": self.items.schema() if self.items and self.items.types else {}})
            elif k == "string":
                out.append(self._string())
            else:
                out.append({"type": k})
        if not out:
            return {"nullable": True} if "null" in self.types else {}
        one = out[0] if len(out) == 1 else {"anyOf": out}
        if "null" in self.types:
            one = {**one, "nullable": True}
        return one

    def _string(self) -> dict[str, Any]:
        if self.restricted and self.decimals + self.restricted == self.strings:
            return {"anyOf": [{"type": "string", "format": "decimal"}, {"type": "string", "enum": [RESTRICTED]}],
                    "description": "decimal text, or \"restricted\" when the token's role may not see it"}
        if self.restricted:
            return {"type": "string", "description": "\"restricted\" when the token's role may not see it"}
        if self.strings and self.decimals == self.strings:
            return {"type": "string", "format": "decimal"}
        return {"type": "string"}


def infer(samples: Iterable[Any]) -> dict[str, Any]:
    """The schema of everything in ``samples`` (one view model kind, every role's answers)."""
    shape = _Shape()
    for x in samples:
        shape.add(x)
    return shape.schema()


def conformance(schema: dict[str, Any], samples: Iterable[Any]) -> tuple[list[str], list[str]]:
    """(keys in a sample the schema does not document, documented properties no sample holds), each
    as a path (``sheet.runs[].id``)."""
    undocumented: list[str] = []
    found: set[str] = set()

    def objects(s: dict[str, Any]) -> list[dict[str, Any]]:
        return [x for x in s.get("anyOf", [s]) if x.get("type") == "object"]

    def arrays(s: dict[str, Any]) -> list[dict[str, Any]]:
        return [x for x in s.get("anyOf", [s]) if x.get("type") == "array"]

    def walk(x: Any, s: dict[str, Any], path: str) -> None:
        if isinstance(x, dict):
            for o in objects(s):
                if "additionalProperties" in o and "properties" not in o:
                    for v in x.values():
                        walk(v, o["additionalProperties"], path + ".*")
                    return
                props = o.get("properties", {})
                for k, v in x.items():
                    if k not in props:
                        undocumented.append(f"{path}.{k}".lstrip("."))
                        continue
                    found.add(f"{path}.{k}".lstrip("."))
                    walk(v, props[k], f"{path}.{k}")
                return
            undocumented.append(path or "(top)")
        elif isinstance(x, list):
            for a in arrays(s):
                for v in x:
                    walk(v, a.get("items", {}), path + "[]")
                return
            undocumented.append(path or "(top)")

    for x in samples:
        walk(x, schema, "")

    documented: list[str] = []

    def names(s: dict[str, Any], path: str) -> None:
        for o in objects(s):
            for k, v in o.get("properties", {}).items():
                documented.append(f"{path}.{k}".lstrip("."))
                names(v, f"{path}.{k}")
            if "additionalProperties" in o and isinstance(o["additionalProperties"], dict):
                names(o["additionalProperties"], path + ".*")
        for a in arrays(s):
            names(a.get("items", {}), path + "[]")

    names(schema, "")
    return sorted(set(undocumented)), sorted(p for p in set(documented) if p not in found)


def samples(client, headers: dict[str, dict[str, str]]) -> dict[str, list[Any]]:
    """Every view model kind as JSON, from the pages a demo holds, for each role's ``headers``: the
    batches list, each batch, a run page of each kind of run (``_run_kinds``), a cost line and a
    source row of each kind of line (its category, source kind, basis, whether it has a batch, a run,
    a reason), each status page, the report by month and by batch."""
    out: dict[str, list[Any]] = {m: [] for m in MODELS}
    for h in headers.values():
        def get(path: str, h=h) -> Any:
            r = client.get(path, headers={**h, "Accept": "application/json"})
            if r.status_code != 200:
                raise AssertionError(f"GET {path}: {r.status_code} {r.text[:300]}")
            return r.json()

        batches = get("/batches")
        out["Batches"].append(batches)
        lines: dict[tuple, str] = {}
        for b in batches["batches"]:
            page = get(b["href"])
            out["Batch"].append(page)
            out["Status"].append(get(b["href"] + "/status"))
            for href in _run_kinds(page):
                run = get(href)
                out["Run"].append(run)
                for group in run["by_state"]:
                    for ln in group["lines"]:
                        lines.setdefault(_kind(ln), ln["href"])
        for href in _other_lines(client, h):
            lines.setdefault(("other", href), href)
        seen_sources: set[str] = set()
        for href in sorted(set(lines.values())):
            ln = get(href)
            out["Line"].append(ln)
            src = ln["provenance"]["href"]
            if src and ln["provenance"]["source_kind"] not in seen_sources:
                seen_sources.add(ln["provenance"]["source_kind"])
                out["Source"].append(get(src))
        out["Report"] += [get("/report"), get("/report?by=batch")]
    return out


def _run_kinds(page: dict[str, Any]) -> list[str]:
    """One run page per kind of run on a batch page: its state, reason, whether it has a cause, is a
    retry, has queued time, and whether it is in a retry chain."""
    chained = {a for c in page["sheet"].get("retry_chains", []) for a in c.get("attempts", [])}
    hrefs = {r["id"]: r["href"] for r in page["runs"]}
    kinds: dict[tuple, str] = {}
    for r in page["sheet"].get("runs", []):
        key = (r.get("state"), r.get("reason"), bool(r.get("cause")), bool(r.get("retry_of")),
               bool(r.get("queued")), r["id"] in chained)
        if r["id"] in hrefs:
            kinds.setdefault(key, hrefs[r["id"]])
    return sorted(kinds.values())


def _kind(ln: dict[str, Any]) -> tuple:
    p = ln["provenance"]
    return (ln["category"], p["source_kind"], ln["basis"], bool(ln["batch"]), bool(ln["run"]), bool(p["href"]))


def _other_lines(client, headers: dict[str, str]) -> list[str]:
    """Lines no run page lists (labor, storage, external, allocation, unattributed): from each source
    row the runs' lines come from, and each import's first rows."""
    from trainledger.web.views import line_ids

    wsp_root = getattr(client.app.state, "root", None)
    if wsp_root is None:
        return []
    from trainledger.service import Workspace

    with Workspace.open(wsp_root) as wsp:
        lines = list(wsp.ledger.cost_lines())
    kinds: dict[tuple, str] = {}
    for ident, ln in zip(line_ids(lines), lines, strict=True):
        key = (ln.category, ln.provenance.source_kind, str(ln.basis), bool(ln.batch_id), bool(ln.run_id),
               bool(ln.reason))
        kinds.setdefault(key, f"/lines/{ident}")
    return sorted(kinds.values())


def schemas(models: dict[str, list[Any]]) -> dict[str, Any]:
    return {name: infer(models[name]) for name in MODELS}


def load() -> dict[str, Any]:
    """The stored schemas (``--update`` writes them; none before the first)."""
    return json.loads(FILE.read_text(encoding="utf-8")) if FILE.exists() else {}


BUILDERS = {"Batches": "batches", "Batch": "batch", "Run": "run", "Line": "line", "Source": "source",
            "Status": "plan_status", "Report": "report"}  # web/views.py: the function each model comes from


def documented() -> dict[str, Any]:
    """The stored schemas, each described by the first paragraph of the web/views.py function that
    builds its view model."""
    from trainledger.web import views

    out = {}
    for name, schema in load().items():
        doc = (getattr(views, BUILDERS[name]).__doc__ or "").strip().split("\n\n")[0]
        out[name] = {**schema, "description": " ".join(doc.split()) + f" (web/views.py {BUILDERS[name]})"}
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m trainledger.web.openapi_models --update``: the demo built in a temporary directory,
    an engineer's and a viewer's token made there, every page kind asked, the schemas written."""
    import sys
    import tempfile
    import warnings

    argv = sys.argv[1:] if argv is None else argv
    if argv != ["--update"]:
        print("usage: python -m trainledger.web.openapi_models --update", file=sys.stderr)
        return 2
    warnings.filterwarnings("ignore")
    from click.testing import CliRunner
    from starlette.testclient import TestClient

    from trainledger.cli import cli
    from trainledger.web.app import create_app

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "demo"
        run = CliRunner().invoke(cli, ["demo", "--dir", str(root)], catch_exceptions=False)
        assert run.exit_code == 0, run.output
        with TestClient(create_app(root)) as c:
            found = samples(c, role_headers(root))
    FILE.write_text(json.dumps(schemas(found), indent=1, ensure_ascii=False, sort_keys=True) + "\n",
                    encoding="utf-8")
    print(f"wrote {FILE}")
    return 0


def role_headers(root: Path) -> dict[str, dict[str, str]]:
    """The local admin (no token) and a fresh viewer's bearer token on ``root``."""
    from click.testing import CliRunner

    from trainledger.cli import cli

    out: dict[str, dict[str, str]] = {"admin": {}}
    for role in ("viewer",):  # the role that sees least: every field a role may withhold
        r = CliRunner().invoke(cli, ["--workspace", str(root), "token", "create", "--role", role],
                               catch_exceptions=False)
        assert r.exit_code == 0, r.output
        out[role] = {"Authorization": f"Bearer {r.output.strip().splitlines()[-1]}"}
    return out


if __name__ == "__main__":
    raise SystemExit(main())
