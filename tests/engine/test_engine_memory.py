"""The DuckDB engine's memory limit and spill directory come from the workspace
(``engine.memory_limit``, ``engine.temp_dir``), so a large attribution spills instead of growing."""

from __future__ import annotations

import warnings

import pytest

from trainledger import workspace
from trainledger.engine.context import Settings
from trainledger.engine.frame.stage import connect, duckdb_config
from trainledger.errors import ConfigError


def settings(tmp_path, **values) -> Settings:
    return Settings(path=str(tmp_path / "trainledger.toml"), values=values)


def current(con, name: str):
    return con.con.execute(f"select current_setting('{name}')").fetchone()[0]


def test_the_connection_takes_the_workspace_limit_and_spills_under_the_workspace(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        con = connect("duckdb", settings(tmp_path, **{"engine.memory_limit": "300MB"}))
        assert current(con, "memory_limit") == "286.1 MiB"  # 300 MB as DuckDB prints it
        assert current(con, "temp_directory") == str(tmp_path / ".engine-tmp")
        con = connect("duckdb", settings(tmp_path, **{"engine.temp_dir": "spill"}))
        assert current(con, "memory_limit") == "1.8 GiB"  # the default, 2GB
        assert current(con, "temp_directory") == str(tmp_path / "spill")
    assert duckdb_config(None)["memory_limit"] == "2GB"


def test_duckdb_refusing_the_setting_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="engine.memory_limit"):
        connect("duckdb", settings(tmp_path, **{"engine.memory_limit": "lots"}))


@pytest.mark.parametrize("value, ok", [("2GB", True), ("512 MiB", True), ("1.5gb", True), ("2", False),
                                       ("-1GB", False), ("", False)])
def test_the_workspace_checks_the_limit(tmp_path, value, ok):
    (tmp_path / "trainledger.toml").write_text(f'[engine]\nmemory_limit = "{value}"\n', encoding="utf-8")
    if ok:
        assert workspace.load(tmp_path).get("engine.memory_limit") == value
    else:
        with pytest.raises(ConfigError, match="memory_limit"):
            workspace.load(tmp_path)
