"""Golden JSON for a few specs (tests/estimate/golden/*.toml -> *.json).

Regenerate after an intended change with ``TRAINLEDGER_UPDATE_GOLDEN=1 pytest tests/estimate``,
then read the diff: every changed figure must be explainable by the change.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from trainledger.estimate.engine import run
from trainledger.estimate.spec import build_spec, load_spec_file
from trainledger.report.estimate_render import dumps

GOLDEN = Path(__file__).parent / "golden"
SPECS = sorted(GOLDEN.glob("*.toml"))


def render(spec_path: Path, book) -> str:
    spec = build_spec(load_spec_file(spec_path), where=spec_path.name)
    d = run(spec, book=book).to_dict()
    # machine-independent: the book's folder appears in its path, warnings and drawer notes
    return dumps(d).replace(str(Path(book.path).parent) + "/", "")


@pytest.mark.parametrize("spec_path", SPECS, ids=[p.stem for p in SPECS])
def test_golden(spec_path, book):
    text = render(spec_path, book)
    out = spec_path.with_suffix(".json")
    if os.environ.get("TRAINLEDGER_UPDATE_GOLDEN") == "1" or not out.exists():
        out.write_text(text, encoding="utf-8")
        if os.environ.get("TRAINLEDGER_UPDATE_GOLDEN") != "1":
            pytest.fail(f"wrote missing golden file {out.name}; review it and rerun")
    assert text == out.read_text(encoding="utf-8"), (
        f"{out.name} changed: review, then TRAINLEDGER_UPDATE_GOLDEN=1 to accept"
    )
