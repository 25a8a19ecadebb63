"""Which package may import which: checked on the source (AST), imports inside functions and
under TYPE_CHECKING included, so a cycle cannot hide behind a lazy import."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "trainledger"


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports (absolute names; ``from X import Y`` gives X and X.Y)."""
    package = ".".join(("trainledger", *path.relative_to(SRC).with_suffix("").parts[:-1]))
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
    return out


def hits(path: Path, forbidden: tuple[str, ...]) -> list[str]:
    return sorted(m for m in imported(path) if any(m == f or m.startswith(f + ".") for f in forbidden))


def modules(package: str) -> list[Path]:
    return sorted((SRC / package).rglob("*.py"))


def test_the_checker_sees_lazy_and_type_checking_imports(tmp_path):
    probe = SRC / "lake" / "_probe_for_test.py"
    probe.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from trainledger.lake import Lake\n"
                     "def f():\n    import trainledger.service\n    from . import store\n", encoding="utf-8")
    try:
        assert hits(probe, ("trainledger.service",)) == ["trainledger.service"]
        assert "trainledger.lake.store" in imported(probe)
        assert "trainledger.lake.Lake" in imported(probe)
    finally:
        probe.unlink()


@pytest.mark.parametrize("name", ["settle.py", "fs.py", "schemas.py"])
def test_the_lakes_helpers_do_not_import_the_store(name):
    """store.py uses settle / fs / schemas; none of them reaches back (the old lake ↔ settle cycle)."""
    assert hits(SRC / "lake" / name, ("trainledger.lake.store", "trainledger.lake.Lake")) == []
    assert "trainledger.lake" not in imported(SRC / "lake" / name)


@pytest.mark.parametrize("path", modules("lake"), ids=lambda p: p.name)
def test_the_lake_imports_no_importer_engine_or_service(path):
    """The lake owns partitions, schemas and settling; importers, the engine and the service sit
    above it. (It uses ingest's row-hash leaves, keys.py and keyset.py, and nothing else of ingest.)"""
    allowed = {"trainledger.ingest.keys", "trainledger.ingest.keyset"}
    found = hits(path, ("trainledger.ingest", "trainledger.engine", "trainledger.service", "trainledger.cli"))
    assert [m for m in found if m not in allowed and m.rsplit(".", 1)[0] not in allowed] == []
