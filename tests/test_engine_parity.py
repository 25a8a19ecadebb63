"""`trainledger attribute --json` is byte-identical on every engine, and so are the stored figures.

Whole workspaces through the CLI: the demo, the owned-capacity scenario, the real FOCUS sample and
Hypothesis-generated small workspaces (sacct + FOCUS files drawn, imported, attributed). After each
engine's run the ledger's stored cost lines (read back, in the order written) and the digests of
its runs and attribution summary (the audit chain's ``runs_digest`` / ``summary_digest``) must be
the same too.
Spark: the same on two workspaces with ``TRAINLEDGER_TEST_SPARK=1`` (slow: a Spark session).
"""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trainledger.cli import cli
from trainledger.ledger import figures
from trainledger.service import Workspace

from .configs import ONE_BATCH

pytest.importorskip("ibis")
pytestmark = [pytest.mark.filterwarnings("ignore:fetch_arrow_table:DeprecationWarning")]

DATA = Path(__file__).resolve().parent / "data"
SAMPLE = DATA / "focus-sample-data" / "focus_sample.csv"
SPARK = pytest.mark.skipif(os.environ.get("TRAINLEDGER_TEST_SPARK") != "1" or shutil.which("java") is None,
                           reason="slow (a Spark session): set TRAINLEDGER_TEST_SPARK=1 (and Java)")


def invoke(*args: str) -> str:
    res = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.output


def attribute(root: Path, engine: str) -> tuple[str, tuple]:
    """(`attribute --json` output, what the ledger stored: its cost lines as read back, in the order
    written, and the digests of the stored runs and attribution summary the audit chain recorded).
    The chain's lines digest itself differs per attribution: each line row names its attribution."""
    out = invoke("--workspace", str(root), "attribute", "--json", "--engine", engine)
    with Workspace.open(root) as w:
        rec = figures.recorded(w.ledger.audit_log())
        stored = [repr(ln) for ln in w.ledger.cost_lines()]
    return out, (stored, rec.runs_digest, rec.summary_digest)


def assert_same(root: Path, *engines: str) -> str:
    ref_out, ref_digests = attribute(root, "python")
    assert ref_digests[0] and json.loads(ref_out)  # a real run: figures recorded, conservation printed
    for engine in engines:
        out, digests = attribute(root, engine)
        assert out == ref_out, engine
        assert digests == ref_digests, engine
    return ref_out


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    from trainledger.cli.demo_cmd import run_demo
    from trainledger.demo import DEFAULT_SEED

    root = tmp_path_factory.mktemp("parity-demo")
    run_demo(root, DEFAULT_SEED, echo=lambda *a, **k: None)
    return root


@pytest.fixture(scope="module")
def owned(tmp_path_factory):
    from trainledger.cli.demo_cmd import run_demo
    from trainledger.demo import DEFAULT_SEED

    root = tmp_path_factory.mktemp("parity-owned")
    run_demo(root, DEFAULT_SEED, echo=lambda *a, **k: None, scenario="owned")
    return root


FOCUS_RULES = """
[[rules]]
id = "compute-usd"
source = "focus"
field = "service_category"
match = "regex"
pattern = "^(Compute|Storage)$"
batch = "b1"
"""


@pytest.fixture(scope="module")
def focus_sample(tmp_path_factory):
    root = tmp_path_factory.mktemp("parity-focus") / "ws"
    Workspace.init(root, currency="USD").close()
    with open(root / "trainledger.toml", "a", encoding="utf-8") as f:
        f.write(textwrap.dedent(ONE_BATCH + FOCUS_RULES))
    invoke("--workspace", str(root), "import", "focus", str(SAMPLE))
    return root


def test_the_demo_is_byte_identical_on_duckdb(demo):
    out = assert_same(demo, "duckdb")
    assert '"capacity_unheld", "detail": "node gpu-node-04", "amount": "61347.92"' in out  # by hand, the demo


def test_the_owned_scenario_is_byte_identical_on_duckdb(owned):
    assert_same(owned, "duckdb")


def test_the_focus_sample_is_byte_identical_on_duckdb(focus_sample):
    out = json.loads(assert_same(focus_sample, "duckdb"))
    (usd,) = out
    assert Decimal(usd["difference"]) == 0 and Decimal(usd["attributed"]) > 0 and Decimal(usd["unattributed"]) > 0


def test_the_workspace_setting_chooses_the_engine(demo, tmp_path):
    """`[engine] backend` is read (a typo is refused with did-you-mean) and --engine overrides it."""
    from trainledger import workspace
    from trainledger.errors import ConfigError

    text = (demo / "trainledger.toml").read_text(encoding="utf-8")
    (tmp_path / "trainledger.toml").write_text(text + '\n[engine]\nbackend = "duckbd"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="did you mean duckdb"):
        workspace.load(tmp_path)
    (tmp_path / "trainledger.toml").write_text(text + '\n[engine]\nbackend = "duckdb"\n', encoding="utf-8")
    assert workspace.load(tmp_path).get("engine.backend") == "duckdb"
    (tmp_path / "trainledger.toml").write_text(text, encoding="utf-8")
    assert workspace.load(tmp_path).get("engine.backend") == "duckdb"  # the default; python is the oracle
    res = CliRunner().invoke(cli, ["--workspace", str(demo), "attribute", "--engine", "pandas"])
    assert res.exit_code == 2 and "pandas" in res.output


def test_spark_without_pyspark_or_java_is_a_clear_error(demo, monkeypatch):
    import sys

    from trainledger.engine.frame import stage

    monkeypatch.setattr(stage, "_CONNECTIONS", {})
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)  # pyspark not installed
    res = CliRunner().invoke(cli, ["--workspace", str(demo), "attribute", "--engine", "spark"])
    assert res.exit_code == 2 and ("needs pyspark" in res.output
            or "需要 pyspark" in res.output) and "trainledger[spark]" in res.output
    monkeypatch.delitem(sys.modules, "pyspark.sql")
    pytest.importorskip("pyspark.sql")
    monkeypatch.setattr(stage.shutil, "which", lambda name: None)  # no Java on PATH
    res = CliRunner().invoke(cli, ["--workspace", str(demo), "attribute", "--engine", "spark"])
    assert res.exit_code == 2 and ("needs Java" in res.output
            or "需要 Java" in res.output) and "--engine duckdb" in res.output


T0 = datetime(2026, 11, 2, tzinfo=UTC)
SACCT = "JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|NodeList|Restarts"
FOCUS = ("BilledCost,EffectiveCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,ChargeCategory,ResourceId,"
         "ServiceCategory,ServiceName,Tags,CommitmentDiscountStatus,CommitmentDiscountId")
GEN_RULES = """
[[rules]]
id = "wckey"
source = "slurm"
field = "wckey"
match = "template"
[[rules]]
id = "tag"
source = "focus"
field = "tags.batch"
match = "template"
[[rules]]
id = "net"
source = "focus"
field = "service_name"
match = "regex"
pattern = "(?i)^vpc"
batch = "b1"
"""


def _ts(minutes: int, z: str = "") -> str:
    return (T0 + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S") + z


jobs_st = st.lists(st.tuples(st.integers(0, 300), st.integers(1, 200), st.sampled_from([1, 2, 4, 8, 16]),
                             st.sampled_from(["gpu-1", "gpu-2", "gpu-1,gpu-2"]), st.sampled_from(["b1", "", "x"]),
                             st.sampled_from(["COMPLETED", "FAILED", "NODE_FAIL"])), min_size=1, max_size=5)
bills_st = st.lists(st.tuples(st.integers(0, 5), st.sampled_from(["288.00", "99.99", "0.01", "-3.50", "12.3456"]),
                              st.sampled_from(["", "same", "half"]), st.sampled_from(["Usage", "Credit", "Tax"]),
                              st.sampled_from(["gpu-1", "gpu-2", "gpu-2.dc", "vol-9"]),
                              st.sampled_from(["Compute", "Networking", "Storage"]),
                              st.sampled_from(["ECS", "VPC peering", "OSS"]),
                              st.sampled_from(["{}", '{"batch": "b1"}']), st.sampled_from(["", "Unused"])),
                    min_size=1, max_size=12)


def _write_workspace(root: Path, jobs, bills) -> None:
    Workspace.init(root, currency="CNY").close()
    with open(root / "trainledger.toml", "a", encoding="utf-8") as f:
        f.write(textwrap.dedent(ONE_BATCH + GEN_RULES))
    lines = [SACCT]
    for i, (start, dur, gpus, nodes, wckey, state) in enumerate(jobs, start=1):
        n = len(nodes.split(","))
        lines.append(f"{i}|j|a|{wckey}||u|{_ts(start)}|{_ts(start)}|{_ts(start)}|{_ts(start + dur)}|{state}|0:0|"
                     f"gres/gpu:h800={gpus},node={n}|{nodes}|0")
    (root / "sacct.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = [FOCUS]
    for h, amount, eff, cat, res, scat, service, tags, status in bills:
        effective = {"": "", "same": amount, "half": str(Decimal(amount) / 2)}[eff]
        tags_csv = '"' + tags.replace('"', '""') + '"'
        rows.append(f"{amount},{effective},CNY,{_ts(60 * h, 'Z')},{_ts(60 * h + 60, 'Z')},{cat},{res},{scat},"
                    f"{service},{tags_csv},{status},{'cd-1' if status else ''}")
    (root / "bill.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    invoke("--workspace", str(root), "import", "slurm", str(root / "sacct.txt"), "--tz", "UTC")
    invoke("--workspace", str(root), "import", "focus", str(root / "bill.csv"))


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(jobs_st, bills_st)
def test_generated_workspaces_are_byte_identical_on_duckdb(tmp_path_factory, jobs, bills):
    root = tmp_path_factory.mktemp("parity-gen") / "ws"
    _write_workspace(root, jobs, bills)
    out = json.loads(assert_same(root, "duckdb"))
    assert out and all(Decimal(rec["difference"]) == 0 for rec in out)


@SPARK
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_the_owned_scenario_and_a_generated_workspace_are_byte_identical_on_spark(owned, tmp_path):
    assert_same(owned, "spark", "duckdb")
    root = tmp_path / "ws"
    _write_workspace(root, [(0, 90, 8, "gpu-1,gpu-2", "b1", "COMPLETED"), (30, 20, 2, "gpu-1", "", "FAILED")],
                     [(0, "288.00", "half", "Usage", "gpu-1", "Compute", "ECS", "{}", ""),
                      (0, "-3.50", "", "Credit", "gpu-2.dc", "Compute", "ECS", "{}", ""),
                      (1, "99.99", "", "Usage", "vol-9", "Networking", "VPC peering", "{}", ""),
                      (1, "12.3456", "same", "Usage", "vol-9", "Storage", "OSS", "{}", "Unused")])
    assert_same(root, "spark", "duckdb")
