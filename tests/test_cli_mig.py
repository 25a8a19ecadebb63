"""A MIG slice on a billed node is billed as its share of a GPU, and `jobs` and the sheet agree
(the reviewer's mig_whole_gpu finding: a 3g.20gb pod for 42 min is 3/7 x 0.7 = 0.3 GPU-hours of an
8-GPU node-hour of 32.7726 USD: 1.2290, not 0.7 GPU-hours / 2.8676)."""

from __future__ import annotations

import json
from decimal import Decimal

from click.testing import CliRunner

from trainledger.cli import cli

from .configs import ONE_BATCH

RULE = '\n[[rules]]\nid = "tag"\nsource = "slurm"\nfield = "tags.batch"\nmatch = "template"\n'
BILL = ("BillingAccountId,BillingPeriodStart,BillingPeriodEnd,ChargePeriodStart,ChargePeriodEnd,ChargeCategory,"
        "ChargeClass,ChargeDescription,BilledCost,EffectiveCost,BillingCurrency,ResourceId,ServiceName,ProviderName,"
        "SkuId\n" + "".join(f"1,2026-11-01T00:00:00Z,2026-12-01T00:00:00Z,2026-11-10T{h}:00:00Z,"
                            f"2026-11-10T{h + 1}:00:00Z,Usage,,node,32.7726,32.7726,USD,node-1,EC2,AWS,p4d\n"
                            for h in (9, 12)))


def pod(name, resources, start, end):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ml", "uid": "u-" + name, "creationTimestamp": start,
                         "labels": {"batch": "b1"}},
            "spec": {"nodeName": "node-1", "containers": [{"name": "c", "resources": {"limits": resources}}]},
            "status": {"phase": "Succeeded",
                       "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": start}],
                       "containerStatuses": [{"name": "c", "restartCount": 0, "state": {"terminated": {
                           "exitCode": 0, "reason": "Completed", "startedAt": start, "finishedAt": end}}}]}}


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def pod_workspace(tmp_path, *pods):
    """A workspace of batch b1 (pods tagged ``batch``) with ``pods`` and the two node-hours of BILL imported."""
    ws = tmp_path / "ws"
    run("init", ws)
    with open(ws / "trainledger.toml", "a", encoding="utf-8") as f:
        f.write(ONE_BATCH + RULE)
    (tmp_path / "pods.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": list(pods)}),
                                        encoding="utf-8")
    (tmp_path / "bill.csv").write_text(BILL, encoding="utf-8")
    run("--workspace", ws, "import", "k8s", tmp_path / "pods.json")
    run("--workspace", ws, "import", "focus", tmp_path / "bill.csv")
    return ws


def test_a_mig_slice_is_billed_as_its_share_and_jobs_agrees_with_the_sheet(tmp_path):
    ws = pod_workspace(
        tmp_path, pod("train", {"nvidia.com/gpu": "4"}, "2026-11-10T09:00:00Z", "2026-11-10T10:00:00Z"),
        pod("eval-mig", {"nvidia.com/mig-3g.20gb": "1"}, "2026-11-10T12:00:00Z", "2026-11-10T12:42:00Z"))
    jobs = json.loads(run("--workspace", ws, "jobs", "--json"))["gpu_hours"]
    assert (jobs["total"], jobs["whole_gpu_total"]) == ("4.300000", "4.700000")
    run("--workspace", ws, "attribute")
    sheet = json.loads(run("--workspace", ws, "sheet", "b1", "--format", "json"))
    runs = {r["id"]: r for r in sheet["runs"]}
    mig = runs["ml/eval-mig"]
    assert mig["gpu_share"] == "0.428571"  # 3/7, six places
    assert mig["compute_cost"] == [{"amount": "1.2290", "currency": "USD", "basis": "billed"}]
    held = sum(Decimal(h) for r in runs.values() for h in r["gpu_hours_by_state"].values())
    assert abs(held - Decimal(jobs["total"])) < Decimal("0.000001")  # the same hours, to the share's places
