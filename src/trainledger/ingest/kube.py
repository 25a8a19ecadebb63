"""``k8s``: Kubernetes pods (``kubectl get pods -o json``, watch streams) → table ``jobs``.

The file is a ``List`` (or ``PodList``) of pods, a single Pod, or a stream of them: JSON lines
or pretty-printed objects one after another, bare or as watch events
(``{"type": "MODIFIED", "object": {…}}``, from ``kubectl get pods -w -o json
--output-watch-events``). Each pod object is one row; a List is read whole (its size in memory),
a stream object by object. Rows that are not pods (a Job, an Event) are quarantined, named.

A pod is an attempt of job ``namespace/name`` (``job_id_raw`` is its uid): ``submit`` is its
creationTimestamp, ``start`` the time its PodScheduled condition became True (GPUs are bound
then), ``end`` the last container's finishedAt once the pod Succeeded or Failed, else its
deletionTimestamp. Phases become states: Pending → PENDING, Running → RUNNING, Succeeded →
COMPLETED, Failed → FAILED (OUT_OF_MEMORY when a container was OOMKilled, PREEMPTED when the
pod was evicted or preempted); a pod deleted before it finished is CANCELLED. Snapshots of one
pod in a stream are rows of the same attempt: ``trainledger jobs`` and the engine keep the one
that knows most.

GPUs, summed over containers (init containers run one after another: the largest counts, if
larger), requests or else limits: ``nvidia.com/gpu`` whole GPUs; MIG slices
``nvidia.com/mig-<g>g.<mem>gb`` as g / 7 of a GPU each (seven compute slices on A100, H100, H200,
B200; an A30's 1g.6gb / 2g.12gb / 4g.24gb as g / 4, its four slices — the profile tables of the
NVIDIA MIG User Guide, "Supported MIG Profiles" and "Supported GPUs"; rounded to 6 places,
flagged); time-sliced ``nvidia.com/gpu.shared`` as 1 / ``gpu_replicas``
each (``--set gpu_replicas=N``, the device plugin's replicas; without it counted whole and
flagged); a milli-GPU annotation or label (``alibabacloud.com/gpu-milli``, thousandths of each
GPU) scales the GPUs pro rata. Ascend NPUs (``huawei.com/Ascend910``, ``huawei.com/Ascend910B``,
``huawei.com/npu``, …) count as whole accelerator cards. A vNPU (``huawei.com/Ascend910-2c``,
``huawei.com/Ascend310P-4c.3cpu``: the Ascend device plugin's virtual instance of N AI cores) is
N / the card's AI cores of a card, pro rata like a MIG slice — 32 for Ascend910 and 8 for Ascend310P,
the cores of the Atlas training and inference products in Huawei's virtual-instance rules
(MindCluster "Virtualization Rules", Table 1); a 30-core training card or a 910B: ``--set
npu_cores=N``. The card's cores are assumed, so the row is flagged. Another vendor's resource (or a
vNPU of an unknown chip without ``npu_cores``) on a pod that holds no GPU or NPU is counted 0 and
flagged. ``gpus`` is the number of devices touched, ``gpu_share`` the GPU-equivalents held.

Labels and annotations become tags ``labels.<key>`` and ``annotations.<key>`` (rules read them as
``tags.labels.team``); trainledger's own tags (``batch``, ``run``, ``reason``, ``cause``,
``retry_of``) are read from annotations or labels named bare or ``trainledger.io/<tag>``. The
owner (Job, Volcano Job, …), namespace, node, QoS class and scheduler are kept in ``extra``;
``job_name`` is the owner's name (else the ``job-name`` / ``volcano.sh/job-name`` label, else the
pod's). ``--set cluster=NAME`` names the cluster.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator, Mapping
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Any

from trainledger.errors import BadInput
from trainledger.ingest.base import Context, Record, Rejected, Verdict, dumps
from trainledger.ingest.convert import decimal_plain, timestamp_with_offset
from trainledger.ingest.delimited import reading_options
from trainledger.ingest.keys import content_key, row_key
from trainledger.ingest.mapping import overrides
from trainledger.ingest.text import HEAD_BYTES, decoded_lines, open_text, text_encoding

GPU = "nvidia.com/gpu"
SHARED = "nvidia.com/gpu.shared"
MIG = re.compile(r"nvidia\.com/mig-(\d+)g\.(\d+)gb")
MIG_SLICES = 7  # compute slices of an A100 / H100 / H200 / B200 (NVIDIA MIG User Guide)
MIG_FOUR_SLICE = {(1, 6), (2, 12), (4, 24)}  # (g, GB) of the A30-24GB's profiles: 4 slices
MILLI_KEYS = ("alibabacloud.com/gpu-milli", "gpu-milli")
# Ascend NPUs, whole cards: the Ascend device plugin's huawei.com/Ascend910 / Ascend310P / ...
# (HAMi's Ascend plugin: huawei.com/Ascend910A, Ascend910B...; some clusters: huawei.com/npu).
# Not cards: a vNPU slice huawei.com/Ascend910-2c (AI cores: VNPU) and HAMi's ...-memory.
ASCEND = re.compile(r"huawei\.com/(Ascend\d+[A-Za-z0-9]*|npu)")
# a vNPU: the device plugin's virtual instance of N AI cores (…-2c, -4c.3cpu, -5c.1cpu.16g)
VNPU = re.compile(r"huawei\.com/(Ascend\d+[A-Za-z0-9]*)-(\d+)c(?:\.[0-9A-Za-z.]+)?")
# AI cores of a whole card, by the resource's chip name: Huawei MindCluster, "Virtualization Rules"
# Table 1 (Atlas training product: 32 AI cores, or 30; Atlas inference product: 8)
CARD_CORES = {"Ascend910": 32, "Ascend310P": 8}
NOT_ACCELERATORS = re.compile(r"(?:[^/]*\.)?kubernetes\.io/.*|hugepages-.*|cpu|memory|ephemeral-storage|pods|storage")
OWN_TAGS = ("batch", "run", "reason", "cause", "retry_of")
PHASES = {"Pending": "PENDING", "Running": "RUNNING", "Succeeded": "COMPLETED", "Failed": "FAILED",
          "Unknown": "UNKNOWN"}  # fmt: skip
PLACES = Decimal("0.000001")
SETTINGS = ("cluster", "gpu_replicas", "npu_cores")
BLANK = re.compile(r"\s*")
NODE_KIND = re.compile(rb'"kind"\s*:\s*"Node(List)?"')
POD_KIND = re.compile(rb'"kind"\s*:\s*"Pod(List)?"')


def _items(obj: Any) -> Iterator[Any]:
    """The pod-like objects of one top-level JSON value."""
    if isinstance(obj, dict) and isinstance(obj.get("items"), list) and str(obj.get("kind", "")).endswith(
        "List"
    ):
        yield from obj["items"]
    elif isinstance(obj, dict) and "object" in obj and "type" in obj and "kind" not in obj:
        yield obj["object"]  # a watch event
    else:
        yield obj


def _time(value: Any, what: str) -> Any:
    if value in (None, ""):
        return None
    try:
        return timestamp_with_offset(value)
    except ValueError as e:
        raise Rejected(f"{what}: {e}", "write Kubernetes times as RFC 3339, e.g. 2026-01-01T08:00:00Z") from None


class KubeImporter:
    kind = "k8s"
    table = "jobs"
    options_used = ("set",)
    description = "Kubernetes pods as JSON (kubectl get pods -o json, or a watch stream)"

    def configure(self, options: Mapping[str, Any]) -> dict[str, str]:
        fixed = overrides(options.get("set"))
        unknown = sorted(set(fixed) - set(SETTINGS))
        if unknown:
            raise BadInput(f"--set {', '.join(unknown)}: not a k8s setting",
                           remedy=f"set {' or '.join(SETTINGS)}")  # fmt: skip
        if "gpu_replicas" in fixed and not re.fullmatch(r"[1-9]\d*", fixed["gpu_replicas"]):
            raise BadInput("--set gpu_replicas must be a whole number > 0", remedy="e.g. --set gpu_replicas=4")
        if "npu_cores" in fixed and not re.fullmatch(r"[1-9]\d*", fixed["npu_cores"]):
            raise BadInput("--set npu_cores must be a whole number > 0", remedy="e.g. --set npu_cores=30")
        return fixed

    def identity(
        self, path: Path, options: Mapping[str, Any], cfg: dict[str, str]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        reading = reading_options(options, ())
        if cfg:
            reading["set"] = dict(sorted(cfg.items()))
        return reading, ({"set": reading["set"]} if cfg else {})

    def identify(self, path: Path) -> bool | str:
        with open(path, "rb") as f:
            head = f.read(HEAD_BYTES)
        text = head.lstrip(b"\xef\xbb\xbf").strip()
        if not text:
            return True
        if not text.startswith((b"{", b"[")):
            return "it is not JSON (kubectl get pods -o json writes an object)"
        if b'"apiVersion"' not in head and b'"metadata"' not in head:
            return "it is JSON without Kubernetes objects (no apiVersion or metadata)"
        if NODE_KIND.search(head) and not POD_KIND.search(head):
            return Verdict("it is a list of Kubernetes nodes (kubectl get nodes -o json), not pods",
                           remedy=f"import it with `trainledger import nodes {path}`")
        return True

    def parse(self, path: Path, ctx: Context) -> Iterator[Record]:
        enc, given = text_encoding(path, ctx.options)
        with open_text(path, enc, ctx.watch) as f:
            lines = decoded_lines(path, f, enc, given)
            first: list[str] = []
            for ln in lines:
                first.append(ln)
                if ln.strip():
                    break
            try:
                json.loads(first[-1]) if first else None
                one_per_line = bool(first)
            except json.JSONDecodeError:
                one_per_line = False
            if one_per_line:
                yield from self._lines(itertools.chain(first, lines))
            else:
                yield from self._document("".join([*first, *lines]))

    def _lines(self, lines: Iterator[str]) -> Iterator[Record]:
        row = 0
        for no, ln in enumerate(lines, 1):
            if not ln.strip():
                continue
            try:
                obj = json.loads(ln)
            except json.JSONDecodeError as e:
                row += 1
                yield Record(row, no, ln, row_key(ln)[0], {}, None, f"not JSON: {e.msg} at column {e.colno}",
                             "write one JSON object per line")  # fmt: skip
                continue
            for item in _items(obj):
                row += 1
                yield _record(row, no, item)

    def _document(self, text: str) -> Iterator[Record]:
        dec, pos, row = json.JSONDecoder(), 0, 0
        while True:
            pos = BLANK.match(text, pos).end()
            if pos >= len(text):
                return
            line = text.count("\n", 0, pos) + 1
            try:
                obj, pos = dec.raw_decode(text, pos)
            except json.JSONDecodeError as e:
                row += 1
                rest = text[pos:]
                yield Record(row, line, rest, row_key(rest)[0], {}, None,
                             f"not JSON from line {line}: {e.msg} (line {e.lineno}, column {e.colno})",
                             "fix the JSON (an export cut short?) and import the file again")  # fmt: skip
                return
            for item in _items(obj):
                row += 1
                yield _record(row, line, item)

    def validate(self, record: Record, ctx: Context) -> dict[str, Any]:
        if record.problem:
            raise Rejected(record.problem, record.remedy)
        pod = record.values.get("pod")
        kind = pod.get("kind") if isinstance(pod, dict) else None
        if not isinstance(pod, dict) or (kind not in (None, "Pod")):
            what = f"a {kind}" if kind else f"a JSON {type(pod).__name__}"
            raise Rejected(f"{what}, not a Pod: trainledger counts GPUs where pods hold them",
                           "import the pods (kubectl get pods -o json); their owner is kept with each")  # fmt: skip
        meta = pod.get("metadata")
        if not isinstance(meta, dict) or not isinstance(meta.get("name"), str) or not meta["name"]:
            raise Rejected("the pod has no metadata.name", "export whole pod objects")
        for part in ("spec", "status"):
            if pod.get(part) is not None and not isinstance(pod[part], dict):
                raise Rejected(f"the pod's {part} is a JSON {type(pod[part]).__name__}, not an object",
                               "export whole pod objects (kubectl get pods -o json)")  # fmt: skip
        return {"pod": pod, "flags": []}

    def normalise(self, values: dict[str, Any], record: Record, ctx: Context) -> dict[str, Any]:
        pod, flags = values["pod"], values["flags"]
        meta, spec, status = pod["metadata"], _dict(pod.get("spec")), _dict(pod.get("status"))
        labels = _strings(meta.get("labels"))
        notes = _strings(meta.get("annotations"))
        submit = _time(meta.get("creationTimestamp"), "metadata.creationTimestamp")
        start = _scheduled(status)
        deleted = _time(meta.get("deletionTimestamp"), "metadata.deletionTimestamp")
        finished, exit_code, oom = _terminated(status)
        phase = str(status.get("phase") or "Unknown")
        state = PHASES.get(phase, phase.upper())
        if phase not in PHASES:
            flags.append(f"phase {phase!r} is not a Kubernetes pod phase")
        end = None
        if phase in ("Succeeded", "Failed"):
            end = finished or deleted
            if oom:
                state = "OUT_OF_MEMORY"
            elif str(status.get("reason") or "") in ("Evicted", "Preempting", "DeadlineExceeded"):
                state = "TIMEOUT" if status.get("reason") == "DeadlineExceeded" else "PREEMPTED"
        elif deleted is not None:
            end, state = deleted, "CANCELLED"
        if start is not None and end is not None and end < start:
            raise Rejected(f"end {end.isoformat()} is before the pod was scheduled ({start.isoformat()})",
                           "check the pod's times")  # fmt: skip
        gpus, share, gpu_type, gpu_notes = _gpus(spec, labels, notes, ctx.cfg)
        flags += gpu_notes
        tags = {f"labels.{k}": v for k, v in labels.items()}
        tags.update({f"annotations.{k}": v for k, v in notes.items()})
        for t in OWN_TAGS:
            for source in (labels, notes):  # annotations win
                for key in (t, f"trainledger.io/{t}"):
                    if source.get(key):
                        tags[t] = source[key]
        owners = _list(meta.get("ownerReferences"))
        owner = _strings(owners[0]) if owners else {}
        ns = meta.get("namespace") if isinstance(meta.get("namespace"), str) and meta["namespace"] else "default"
        extra = {k: v for k, v in {
            "namespace": ns, "uid": meta.get("uid"), "phase": phase, "reason": status.get("reason"),
            "owner_kind": owner.get("kind"), "owner_name": owner.get("name"), "node": spec.get("nodeName"),
            "qos_class": status.get("qosClass"), "scheduler": spec.get("schedulerName"),
            "priority_class": spec.get("priorityClassName"),
        }.items() if v}  # fmt: skip
        name = str(meta["name"])
        job_name = owner.get("name") or labels.get("job-name") or labels.get("volcano.sh/job-name") or name
        return {
            "cluster": ctx.cfg.get("cluster", ""),
            "job_id": f"{ns}/{name}",
            "job_id_raw": str(meta.get("uid") or ""),
            "job_name": str(job_name),
            "account": "",
            "wckey": "",
            "comment": "",
            "user": "",
            "submit": submit,
            "eligible": None,
            "start": start,
            "end": end,
            "state": state,
            "exit_code": exit_code,
            "gpus": gpus,
            "gpu_share": share,
            "gpu_type": gpu_type,
            "nodes": str(spec.get("nodeName") or ""),
            "restarts": sum(_int(c.get("restartCount")) for c in _list(status.get("containerStatuses"))),
            "tags": dumps(tags),
            "is_step": False,
            "alloc_tres": "",
            "extra": dumps(extra),
            "flags": flags,
        }


def _record(row: int, line: int, item: Any) -> Record:
    raw = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
    key = content_key([json.dumps(item, ensure_ascii=False, sort_keys=True, separators=(",", ":"))])
    return Record(row, line, raw, key, {"pod": item})


def _dict(v: Any) -> dict:
    return v if isinstance(v, dict) else {}


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else 0


def _list(v: Any) -> list[dict]:
    return [x for x in v if isinstance(x, dict)] if isinstance(v, list) else []


def _strings(v: Any) -> dict[str, str]:
    return {str(k): str(x) for k, x in v.items()} if isinstance(v, dict) else {}


def _scheduled(status: dict) -> Any:
    for c in _list(status.get("conditions")):
        if c.get("type") == "PodScheduled" and str(c.get("status")) == "True":
            return _time(c.get("lastTransitionTime"), "PodScheduled lastTransitionTime")
    return None


def _terminated(status: dict) -> tuple[Any, str, bool]:
    """(last container finishedAt, exit code of the first container that failed else 0, OOMKilled?)"""
    last, code, oom = None, "", False
    for c in _list(status.get("containerStatuses")):
        term = _dict(c.get("state")).get("terminated") or _dict(c.get("lastState")).get("terminated")
        if not isinstance(term, dict):
            continue
        t = _time(term.get("finishedAt"), "containerStatuses finishedAt")
        if t is not None and (last is None or t > last):
            last = t
        ec = term.get("exitCode")
        if ec is not None and (code in ("", "0")):
            code = str(ec)
        oom = oom or term.get("reason") == "OOMKilled"
    return last, code, oom


def _resources(c: dict) -> dict[str, str]:
    res = _dict(c.get("resources"))
    limits, requests = _strings(res.get("limits")), _strings(res.get("requests"))
    return {**limits, **requests}  # extended resources: requests equal limits when both are given


def _count(value: str, name: str) -> int:
    if not re.fullmatch(r"\d+", value.strip()):
        raise Rejected(f"resource {name}={value!r} is not a whole number",
                       "extended resources are counted in whole units")  # fmt: skip
    return int(value)


def _gpus(spec: dict, labels: dict, notes: dict, cfg: dict) -> tuple[int, str, str | None, list[str]]:
    def per(containers: list[dict]) -> tuple[int, Decimal, set[str], list[str]]:
        n, share, types, flags, others = 0, Decimal(0), set(), [], []
        for c in containers:
            for k, v in _resources(c).items():
                if k == GPU:
                    n += _count(v, k)
                    share += _count(v, k)
                elif k == SHARED:
                    m = _count(v, k)
                    n += m
                    replicas = cfg.get("gpu_replicas")
                    if replicas:
                        share += Decimal(m) / Decimal(replicas)
                    else:
                        share += m
                        flags.append(f"{k}={v}: time-sliced GPUs counted whole; pass --set gpu_replicas=N")
                    types.add("time-sliced")
                elif (vnpu := VNPU.fullmatch(k)) is not None and (
                        card := int(cfg.get("npu_cores") or CARD_CORES.get(vnpu.group(1), 0))):
                    m, cores = _count(v, k), int(vnpu.group(2))
                    n += m
                    share += Decimal(m * cores) / card
                    types.add(k.split("/", 1)[1])
                    flags.append(f"{k}={v}: a vNPU of {cores} AI cores, counted as {cores}/{card} of a card each"
                                 f" ({card} AI cores a card assumed; another card: --set npu_cores=N)")
                elif (npu := ASCEND.fullmatch(k)) is not None:
                    m = _count(v, k)
                    n += m
                    share += m
                    types.add(npu.group(1))
                elif (mig := MIG.fullmatch(k)) is not None:
                    m, g = _count(v, k), int(mig.group(1))
                    slices = 4 if (g, int(mig.group(2))) in MIG_FOUR_SLICE else MIG_SLICES
                    n += m
                    share += Decimal(m * g) / slices
                    types.add(k.split("/", 1)[1])
                    flags.append(f"{k}={v}: counted as {g}/{slices} of a GPU each (rounded)" if slices == MIG_SLICES
                                 else f"{k}={v}: counted as {g}/{slices} of a GPU each")
                elif not NOT_ACCELERATORS.fullmatch(k) and v.strip() not in ("", "0"):
                    others.append(f"{k}={v}")
        if not share and others:
            flags.append(f"resources name {', '.join(others)} and no GPU or Ascend NPU: counted 0 GPUs "
                         "(if these are accelerator cards, their cost lands in capacity no job held)")
        return n, share, types, flags

    n, share, types, flags = per(_list(spec.get("containers")))
    ni, si, ti, fi = per(_list(spec.get("initContainers")))
    if si > share:
        n, share, types, flags = ni, si, ti, fi
    elif not share:
        flags += [f for f in fi if f not in flags]  # an init container's unread accelerator, said too
    milli = next((src[k] for src in (notes, labels) for k in MILLI_KEYS if k in src), None)
    if milli is not None:
        if not re.fullmatch(r"\d+", milli.strip()) or int(milli) > 1000:
            raise Rejected(f"gpu-milli {milli!r} is not thousandths of a GPU (0 to 1000)", "fix the annotation")
        devices = n or 1
        n, share = devices, Decimal(devices) * int(milli) / 1000
    product = _dict(spec.get("nodeSelector")).get("nvidia.com/gpu.product")
    gpu_type = ",".join(sorted(types | ({str(product)} if product else set()))) or None
    text = decimal_plain(share.quantize(PLACES, rounding=ROUND_HALF_EVEN).normalize()) if share else "0"
    return n, text, gpu_type, flags
