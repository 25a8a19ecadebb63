"""Helpers for the ingest tests: run one import, snapshot what it produced, golden files.

Golden files live in ``golden/`` beside these tests. They are rewritten only when the
environment has ``TRAINLEDGER_UPDATE_GOLDEN=1`` — then read every changed file before
committing it: a golden file is a claim about what the importer *should* produce.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from trainledger.ingest import KIND_TABLES, ImportResult, import_files
from trainledger.lake import Lake

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("TRAINLEDGER_UPDATE_GOLDEN") == "1"
JSON_COLUMNS = ("tags", "flags", "extra")


def run(kind: str, path: Path, lake: Lake, **options: Any) -> ImportResult:
    (result,) = import_files(kind, [path], lake, options=options)
    assert result.accepted + result.duplicates + result.quarantined == result.rows_read
    return result


def _plain(v: Any) -> Any:
    if isinstance(v, datetime):
        return v.isoformat()
    if isinstance(v, date):
        return v.isoformat()
    return v


def snapshot(lake: Lake, kind: str, results: Sequence[ImportResult]) -> dict[str, Any]:
    """What an import produced, in a form worth reading: counts, lake rows, quarantine."""
    rows = []
    for r in lake.read(KIND_TABLES[kind]).to_pylist():
        for k in ("source_sha256", "row_hash"):
            r.pop(k)
        rows.append({k: json.loads(v) if k in JSON_COLUMNS else _plain(v) for k, v in r.items()})
    quarantine = []
    for res in results:
        if res.quarantine_file:
            for line in Path(res.quarantine_file).read_text(encoding="utf-8").splitlines():
                q = json.loads(line)
                q["file"] = Path(q["file"]).name
                quarantine.append(q)
    return {
        "results": [
            {
                **{
                    k: getattr(res, k)
                    for k in (
                        "kind",
                        "rows_read",
                        "accepted",
                        "duplicates",
                        "quarantined",
                        "flagged",
                    )
                },
                "path": Path(res.path).name,
                "quarantine_file": Path(res.quarantine_file).name if res.quarantine_file else None,
            }
            for res in results
        ],
        "rows": rows,
        "quarantine": quarantine,
    }


def check_golden(name: str, data: Any) -> None:
    path = GOLDEN / f"{name}.json"
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    if UPDATE:
        path.write_text(text, encoding="utf-8")
        return
    if not path.exists():
        pytest.fail(
            f"no golden file {path.name}: run with TRAINLEDGER_UPDATE_GOLDEN=1, then review it"
        )
    assert json.loads(text) == json.loads(path.read_text(encoding="utf-8")), (
        f"output differs from golden/{path.name}"
    )
