import textwrap

import pytest

from trainledger import workspace
from trainledger.service import engine_settings

from .factories import CONFIG


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    (root / "trainledger.toml").write_text(textwrap.dedent(CONFIG), encoding="utf-8")
    return engine_settings(workspace.load(root))  # what service.py hands the engine
