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


@pytest.mark.parametrize("path", modules("engine"), ids=lambda p: str(p.relative_to(SRC / "engine")))
def test_the_engine_imports_neither_the_service_nor_the_cli(path):
    """The engine takes lake tables (Facts) and a Settings record (engine/context.py) built by
    service.py; it never reaches back into the service, the CLI or the workspace's Config / loader."""
    forbidden = ("trainledger.service", "trainledger.cli", "trainledger.workspace.Config",
                 "trainledger.workspace.load")
    assert hits(path, forbidden) == []


def test_the_engine_check_sees_every_engine_module():
    names = {str(p.relative_to(SRC / "engine")) for p in modules("engine")}
    assert {"__init__.py", "context.py", "guard.py", "history.py", "frame/stage.py"} <= names


def test_settings_give_the_engine_what_the_config_gave_it(tmp_path):
    """Attribution on the Settings record service.py builds equals attribution on the workspace
    Config it was built from (owned capacity and an allocation policy included)."""
    import textwrap

    from tests.engine.factories import CONFIG, T0, at, bill, event, job, price_lookup
    from tests.engine.test_owned_capacity import RATE_CARD
    from trainledger import workspace
    from trainledger.engine import Facts, attribute
    from trainledger.service import engine_settings

    (tmp_path / "trainledger.toml").write_text(
        textwrap.dedent(CONFIG) + textwrap.dedent(RATE_CARD)
        + '\n[allocation]\ncapacity_unheld = "spread_by_gpu_hours"\n', encoding="utf-8")
    config = workspace.load(tmp_path)
    settings = engine_settings(config)
    facts = Facts(jobs=(job("100", start=at(0), end=at(90)),),
                  bill_lines=(bill(at(0), resource="n9", tags='{"batch": "b1"}'),),
                  progress_events=(event("100", 10, "step", step=1), event("100", 90, "step", step=2)))
    by_config = attribute(facts, config, price_lookup, T0.date())
    by_settings = attribute(facts, settings, price_lookup, T0.date())
    assert by_settings.summary() == by_config.summary()
    assert by_settings.lines == by_config.lines
    assert by_settings.conservation_capacity and by_settings.allocation  # both tables were read
    with pytest.raises(TypeError):
        settings.values["workspace.currency"] = "USD"  # type: ignore[index]  # a frozen record
