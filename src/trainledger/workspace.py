"""The workspace: a directory with ``trainledger.toml``, the ledger database, the lake and reports.

Every scalar setting is declared once in ``SETTINGS`` (name, type, default, help); ``load`` validates
the file against it and against the domain model, and names the file and entry in every error.
Projects, batches, rules, storage prefixes, labor rates, owned capacity and the node map
(``[[nodes]]``: host name ↔ the resource ids a cloud bill names it by) are arrays of tables (see
docs/workspace.md) whose keys are declared once in ``ENTRY_KEYS``.

Validated on load: an unknown section or key is an error with a "did you mean" suggestion (a typo
is never silently ignored); ``gpus_per_node`` and ``stale_gap_minutes`` > 0; the currency an ISO
4217 code; the language ``en`` or ``zh-CN``; ``engine.backend`` python, duckdb or spark; the
slurm and workspace time zones known IANA names, matched case-insensitively (``asia/shanghai`` reads as
``Asia/Shanghai``); an id (project, batch, rule) may use letters of any script (``客服-批次-a``),
digits, ``-``, ``_``, ``.`` and ``:``, but never a path separator, ``..`` or a blank
(``model.batch.check_id``). Errors name the file, the key and the remedy, in English and zh-CN.
``[import.worklog]`` holds the worklog importer's options (``roles``: author → labor role,
``phase``: a labor phase), checked against the labor vocabulary; ``Config.import_options`` gives
an import its section with the command's own options over it.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from trainledger.errors import ConfigError, NotFound
from trainledger.model import AmountRange, Assumption, AttributionKey, Batch, Evidence, Project
from trainledger.model.batch import check_id
from trainledger.model.money import ISO_4217
from trainledger.model.vocab import LaborPhase, LaborRole, StorageClass
from trainledger.names import did_you_mean, time_zone

CONFIG_NAME = "trainledger.toml"


@dataclass(frozen=True)
class Setting:
    name: str  # dotted: section.key
    type: type
    default: Any
    help: str


SETTINGS: tuple[Setting, ...] = (
    Setting("workspace.name", str, "trainledger", "A name for this workspace, shown in reports."),
    Setting("workspace.currency", str, "USD", "Currency of figures valued without a price (e.g. unpriced hours)."),
    Setting("workspace.language", str, "en", "Language of rendered reports: en or zh-CN."),
    Setting("workspace.db_url", str, "", "Ledger database URL; empty means sqlite:///<workspace>/ledger.db."),
    Setting("workspace.price_book", str, "",
            "Price book file (relative to the workspace) used to price storage and queued time."),
    Setting("workspace.timezone", str, "UTC",
            "Time zone of the days and months of reports (trainledger report), e.g. Asia/Shanghai."),
    Setting("sources.slurm.timezone", str, "UTC", "Time zone of sacct's offset-less timestamps, e.g. Asia/Shanghai."),
    Setting("cluster.gpus_per_node", int, 8, "GPU slots per billed node; a node-hour is split over them."),
    Setting("cluster.gpu_item", str, "", "Price-book item that values queued GPU-hours (opportunity, never cash)."),
    Setting("cluster.stale_gap_minutes", int, 15,
            "A gap between progress samples longer than this (and 3x the usual interval) counts as a hang."),
    Setting("engine.backend", str, "duckdb",
            "Where attribute's bill stage runs: python, duckdb or spark (same figures; --engine overrides)."),
    Setting("engine.memory_limit", str, "2GB",
            "DuckDB's memory limit in attribute (e.g. 2GB, 512MB); past it DuckDB spills to engine.temp_dir."),
    Setting("engine.temp_dir", str, "",
            "Where DuckDB spills (relative to the workspace); empty means <workspace>/.engine-tmp."),
    # `trainledger import worklog` (options worklog_roles / worklog_phase; the command's own override)
    Setting("import.worklog.roles", dict, {}, "Worklog author → labor role, for issues with no role: label."),
    Setting("import.worklog.phase", str, "",
            "Phase (build | run | rework) of worklogs whose issue has no phase: label."),
)
ENGINES = ("python", "duckdb", "spark")  # engine/frame/stage.py BACKENDS
# workspace settings that are an importer's options: kind → {setting: option}
IMPORT_OPTIONS: dict[str, dict[str, str]] = {
    "worklog": {"import.worklog.roles": "worklog_roles", "import.worklog.phase": "worklog_phase"},
}

LANGUAGES = ("en", "zh-CN")
ENTRY_KEYS: dict[str, tuple[str, ...]] = {
    "projects": ("id", "name", "goal", "owner"),
    "batches": ("id", "project", "name", "goal", "data_snapshot", "data_processing_version", "model_version",
                "code_version", "config_version", "team", "owner", "task_type", "max_rounds"),
    "rules": ("id", "source", "field", "match", "pattern", "batch"),
    "storage_prefixes": ("prefix", "storage_class"),
    "labor_rates": ("role", "currency", "low", "expected", "high", "source", "source_zh", "evidence", "owner"),
    # owned / reserved clusters; values and [capacity.amortized] checked by engine/capacity.py
    "capacity": ("id", "name", "nodes", "gpus_per_node", "from", "until", "currency", "source", "source_zh", "owner",
                 "evidence", "rate", "unit", "effective", "amortized", "price_item", "note", "cluster", "gpus",
                 "vc", "vc_field", "queued_item", "queued_rate"),
    # the node map: a cloud bill's resource id (i-xxxx, a Huawei resource id) ↔ the host name jobs name
    "nodes": ("node", "resource_id", "cluster", "gpus"),
}
# sections whose keys their own module validates on attribution (unknown keys are errors there too)
VALIDATED_BY = {"allocation": "engine/allocation.py"}
POSITIVE = ("cluster.gpus_per_node", "cluster.stale_gap_minutes")
MEMORY = re.compile(r"^\s*[0-9]+(\.[0-9]+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$", re.IGNORECASE)  # engine.memory_limit
DOCS_REMEDY = "see docs/workspace.md / 见 docs/workspace.md"

RULE_SOURCES = ("slurm", "focus", "storage", "timesheet", "invoice")
RULE_MATCHES = ("exact", "prefix", "regex", "template")


@dataclass(frozen=True)
class Rule:
    id: str
    source: str
    field: str
    match: str
    pattern: str = ""
    batch: str = ""


@dataclass(frozen=True)
class NodeEntry:
    """A ``[[nodes]]`` entry: the host name sacct / kubectl give a node (``node``), the resource ids
    its cloud bill names it by, and optionally the cluster whose jobs name it so."""

    node: str
    resource_ids: tuple[str, ...]
    cluster: str = ""
    gpus: int | None = None  # the node's GPUs (engine/node_map.py ``gpus``): else cluster.gpus_per_node
    origin: str = ""  # where the entry was said: "" the workspace's [[nodes]], else an import's file and item


@dataclass(frozen=True)
class LaborRate:
    role: LaborRole
    rate: AmountRange  # per hour
    source: str
    evidence: Evidence
    owner: str = ""


@dataclass(frozen=True)
class Config:
    path: Path
    settings: dict[str, Any]
    projects: tuple[Project, ...] = ()
    batches: tuple[Batch, ...] = ()
    rules: tuple[Rule, ...] = ()
    storage_prefixes: tuple[tuple[str, StorageClass], ...] = ()
    labor_rates: tuple[LaborRate, ...] = ()
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    nodes: tuple[NodeEntry, ...] = ()  # the node map (engine/node_map.py)

    def get(self, name: str) -> Any:
        return self.settings[name]

    @property
    def timezone(self) -> str:
        """The zone of the workspace's days and months in reports (workspace.timezone)."""
        return self.settings["workspace.timezone"]

    @property
    def root(self) -> Path:
        return self.path.parent

    def batch(self, batch_id: str) -> Batch:
        for b in self.batches:
            if b.id == batch_id:
                return b
        raise NotFound(f"no batch {batch_id!r} in {self.path}", remedy="see `trainledger batch list`")

    def import_options(self, kind: str, given: dict[str, Any] | None = None) -> dict[str, Any]:
        """The options of an import of ``kind``: the workspace's [import.<kind>] settings, with the
        command's own ``given`` over them (roles merge per author; the command's win)."""
        out: dict[str, Any] = {}
        for setting, option in IMPORT_OPTIONS.get(kind, {}).items():
            if self.settings[setting]:
                out[option] = self.settings[setting]
        given = dict(given or {})
        if isinstance(out.get("worklog_roles"), dict) and isinstance(given.get("worklog_roles"), dict):
            given["worklog_roles"] = {**out["worklog_roles"], **given["worklog_roles"]}
        return {**out, **given}

    def labor_rate(self, role: str) -> LaborRate | None:
        return next((r for r in self.labor_rates if r.role == role), None)

    def rate_assumptions(self) -> list[Assumption]:
        return [
            Assumption(
                name=f"labor rate: {r.role}",
                evidence=r.evidence,
                source=r.source,
                low=str(r.rate.low),
                high=str(r.rate.high),
                value=None if not r.rate.is_exact else str(r.rate.expected),
                unit=f"{r.rate.currency}/hour",
                owner=r.owner,
                value_kind="labor_rate",
            )
            for r in self.labor_rates
        ]


def _unknown(path: Path, what: str, name: str, known: list[str]) -> ConfigError:
    leaf = name.strip("[]").rsplit(".", 1)[-1]
    leaves = {k.strip("[]").rsplit(".", 1)[-1]: k for k in known}
    hint = did_you_mean(leaf, leaves)
    for short, full in leaves.items():  # "did you mean gpus_per_node?" → the full spelling
        hint = hint.replace(f" {short}?", f" {full}?").replace(f" {short}？", f" {full}？")
    zh = "配置节" if what == "section" else "配置项"
    return ConfigError(f"{path}: unknown {what} {name}{hint} / 未知的{zh} {name}",
                       remedy=f"known: {', '.join(known)}; {DOCS_REMEDY}")


def check_keys(path: Path, data: dict) -> None:
    """Every section and key of ``data`` is declared (SETTINGS, ENTRY_KEYS), else ConfigError."""
    sections: dict[str, set[str]] = {}
    for setting in SETTINGS:
        section, _, key = setting.name.rpartition(".")
        sections.setdefault(section, set()).add(key)
    containers = {".".join(sec.split(".")[: i + 1]) for sec in sections for i in range(sec.count(".") + 1)}

    def below(prefix: str) -> list[str]:
        depth = prefix.count(".") + 1 if prefix else 0
        return sorted(f"[{c}]" for c in containers if c.count(".") == depth and c.startswith(prefix))

    def walk(prefix: str, table: dict) -> None:
        for name, value in table.items():
            dotted = f"{prefix}.{name}" if prefix else name
            if not prefix and name in ENTRY_KEYS:
                _check_entries(path, name, value)
            elif not prefix and name in VALIDATED_BY:
                continue
            elif dotted in containers:
                if not isinstance(value, dict):
                    raise ConfigError(f"{path}: {dotted} must be a section, written [{dotted}] "
                                      f"/ {dotted} 应是配置节 [{dotted}]", remedy=DOCS_REMEDY)
                walk(dotted, value)
            elif prefix in sections and name not in sections[prefix]:
                raise _unknown(path, "key", dotted, sorted(f"{prefix}.{k}" for k in sections[prefix]))
            elif prefix not in sections:
                known = below(prefix) + ([f"[[{k}]]" for k in ENTRY_KEYS] if not prefix else [])
                raise _unknown(path, "section", f"[{dotted}]", known)

    walk("", data)


def _entry_name(item: dict) -> str:
    """What an error calls an entry: its id, role or node."""
    return str(item.get("id", item.get("role", item.get("node", "?"))))


def _check_entries(path: Path, kind: str, entries: Any) -> None:
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ConfigError(f"{path}: {kind} must be an array of tables, written [[{kind}]] / {kind} 应写作 [[{kind}]]",
                          remedy=DOCS_REMEDY)
    for i, item in enumerate(entries):
        for key in item:
            if key not in ENTRY_KEYS[kind]:
                raise ConfigError(
                    f"{path}: [[{kind}]] entry {i + 1} ({_entry_name(item)}): unknown key "
                    f"{key}{did_you_mean(key, ENTRY_KEYS[kind])} / 未知配置项 {key}",
                    remedy=f"known: {', '.join(ENTRY_KEYS[kind])}; {DOCS_REMEDY}")


def _check_settings(path: Path, settings: dict[str, Any]) -> None:
    def fail(name: str, problem: str, remedy: str) -> ConfigError:
        return ConfigError(f"{path}: {name} {problem}", remedy=remedy)

    for name in POSITIVE:
        if settings[name] <= 0:
            raise fail(name, f"must be > 0, got {settings[name]} / 必须大于 0",
                       "write a whole number >= 1 / 请填写正整数")
    cur = settings["workspace.currency"]
    if cur not in ISO_4217:
        hint = f" (did you mean {cur.upper()}? / 是否想写 {cur.upper()}？)" if cur.upper() in ISO_4217 else ""
        raise fail("workspace.currency", f"{cur!r} is not an ISO 4217 currency code{hint} / 不是 ISO 4217 币种代码",
                   "write a three-letter code such as CNY, USD or EUR / 请填写三位币种代码，如 CNY、USD、EUR")
    engine = settings["engine.backend"]
    if engine not in ENGINES:
        raise fail("engine.backend", f"{engine!r} is not an engine{did_you_mean(engine, ENGINES)} / 不是可用的引擎",
                   "write python, duckdb or spark / 请填写 python、duckdb 或 spark")
    if not MEMORY.match(str(settings["engine.memory_limit"])):
        raise fail("engine.memory_limit", f"{settings['engine.memory_limit']!r} is not a size / 不是内存大小",
                   "write a number and a unit, e.g. 2GB, 512MB or 4GiB / 请填写数字加单位，如 2GB、512MB 或 4GiB")
    lang = settings["workspace.language"]
    if lang not in LANGUAGES:
        fixed = next((x for x in LANGUAGES if x.casefold() == lang.casefold().replace("_", "-")), None)
        hint = f" (did you mean {fixed}? / 是否想写 {fixed}？)" if fixed else ""
        raise fail("workspace.language", f"{lang!r} is not a report language{hint} / 不是可用的报告语言",
                   "write en or zh-CN / 请填写 en 或 zh-CN")
    _check_worklog(path, settings)
    for name in ("sources.slurm.timezone", "workspace.timezone"):
        try:
            settings[name] = time_zone(settings[name])
        except ValueError as e:
            raise fail(name, str(e), "write an IANA name such as Asia/Shanghai or UTC"
                                     " / 请填写 IANA 时区名，如 Asia/Shanghai") from None


def _check_worklog(path: Path, settings: dict[str, Any]) -> None:
    """[import.worklog]: roles map authors to labor roles, phase is a labor phase (or empty)."""
    roles = {r.value for r in LaborRole}
    for person, role in settings["import.worklog.roles"].items():
        if not isinstance(role, str) or role not in roles:
            raise ConfigError(
                f"{path}: import.worklog.roles.{person}: {role!r} is not a labor role"
                f"{did_you_mean(str(role), roles)} / 不是人工角色",
                remedy=f"use one of {', '.join(sorted(roles))}; {DOCS_REMEDY}")
    phase, phases = settings["import.worklog.phase"], {p.value for p in LaborPhase}
    if phase and phase not in phases:
        raise ConfigError(f"{path}: import.worklog.phase: {phase!r} is not a labor phase"
                          f"{did_you_mean(phase, phases)} / 不是人工阶段",
                          remedy=f"use one of {', '.join(sorted(phases))}; {DOCS_REMEDY}")


def _lookup(data: dict, dotted: str) -> tuple[bool, Any]:
    cur: Any = data
    for part in dotted.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return False, None
        cur = cur[part]
    return True, cur


def _entry(path: Path, kind: str, i: int, item: dict, build: Callable[[dict], Any]) -> Any:
    try:
        return build(item)
    except (KeyError, TypeError, ValueError) as exc:
        what = f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)
        raise ConfigError(
            f"{path}: [[{kind}]] entry {i + 1} ({_entry_name(item)}): {what}",
            remedy="see docs/workspace.md for the fields of each entry",
        ) from None


BATCH_KEYS = ("id", "project", "goal", "data_snapshot", "data_processing_version", "model_version", "code_version",
              "config_version", "team")  # the attribution key and the team: every batch names them


def _batch(item: dict) -> Batch:
    missing = [k for k in BATCH_KEYS if k not in item]
    if len(missing) > 1:  # all at once, not one per run (review 7 L9: six rounds before an import ran)
        names = ", ".join(missing)
        raise ValueError(f"missing keys {names}")
    key = AttributionKey(
        project=item["project"], goal=item["goal"], data_snapshot=item["data_snapshot"],
        data_processing_version=item["data_processing_version"],
        model_version=item["model_version"], code_version=item["code_version"],
        config_version=item["config_version"], batch_id=item["id"],
    )
    mr = item.get("max_rounds")
    return Batch(key=key, team=item["team"], owner=item.get("owner", ""), name=item.get("name", ""),
                 task_type=item.get("task_type", ""), max_rounds=int(mr) if mr is not None else None)


def _rule(item: dict) -> Rule:
    rule = Rule(id=check_id(item["id"], "rule"), source=item["source"], field=item["field"], match=item["match"],
                pattern=str(item.get("pattern", "")), batch=str(item.get("batch", "")))
    if rule.source not in RULE_SOURCES:
        raise ValueError(f"source must be one of {', '.join(RULE_SOURCES)}, got {rule.source!r}")
    if rule.match not in RULE_MATCHES:
        raise ValueError(f"match must be one of {', '.join(RULE_MATCHES)}, got {rule.match!r}")
    if rule.match != "template" and not (rule.pattern and rule.batch):
        raise ValueError(f"a {rule.match} rule needs both pattern and batch")
    if rule.match == "regex":
        import re

        try:
            re.compile(rule.pattern)
        except re.error as exc:
            raise ValueError(f"pattern {rule.pattern!r} is not a regular expression: {exc}") from None
    return rule


def _text_value(item: dict, key: str, *, required: bool = True) -> str:
    value = item.get(key, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise ValueError(f"{key} must be a non-empty text, got {value!r} / {key} 须为非空文本")
    return value.strip()


def _node(item: dict) -> NodeEntry:
    node = _text_value(item, "node")
    ids = item.get("resource_id")
    ids = [ids] if isinstance(ids, str) else ids
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and i.strip() for i in ids):
        raise ValueError(f"resource_id must be the id the bill names the node by (a text, or a list of them),"
                         f" got {item.get('resource_id')!r} / resource_id 须为账单中该节点的资源 ID（文本或文本列表）")
    gpus = item.get("gpus")
    if gpus is not None and (not isinstance(gpus, int) or isinstance(gpus, bool) or gpus <= 0):
        raise ValueError(f"gpus must be the node's number of GPUs, a whole number > 0, got {gpus!r}"
                         f" / gpus 须为该节点的 GPU 数（大于 0 的整数）")
    return NodeEntry(node=node, resource_ids=tuple(dict.fromkeys(i.strip() for i in ids)),
                     cluster=_text_value(item, "cluster", required=False), gpus=gpus)


def _check_nodes(path: Path, nodes: tuple[NodeEntry, ...]) -> None:
    """A resource id names one node: the same id on two nodes would split one bill row twice."""
    owner: dict[str, NodeEntry] = {}
    for i, entry in enumerate(nodes):
        for rid in entry.resource_ids:
            prev = owner.setdefault(rid, entry)
            if (prev.node, prev.cluster) != (entry.node, entry.cluster):
                where = f"{prev.cluster}/{prev.node}" if prev.cluster else prev.node
                raise ConfigError(f"{path}: [[nodes]] entry {i + 1} ({entry.node}): resource_id {rid!r} is"
                                  f" already node {where}'s / 资源 ID {rid!r} 已属于节点 {where}",
                                  remedy="a resource id names one node: remove one of the two entries"
                                         " / 一个资源 ID 只能对应一个节点，请删除其中一条")


def with_zh(item: dict, key: str) -> str:
    """``item[key]`` as written, with its reviewed Chinese ``<key>_zh`` beside it as a ``Twin`` when
    given (the zh-CN drawer shows it, the JSON adds ``<key>_zh``); never ``str()`` the result."""
    from trainledger.i18n.core import Twin

    en, zh = str(item.get(key) or ""), str(item.get(f"{key}_zh") or "").strip()
    if not zh:
        return en
    if not en.strip():
        raise ValueError(f"{key}_zh is given without {key}: write the English {key} beside it"
                         f" / 给出了 {key}_zh 却没有 {key}：请在旁边写上英文 {key}")
    return Twin(en, zh)


def _rate(item: dict) -> LaborRate:
    if item["currency"] not in ISO_4217:
        raise ValueError(f"currency {item['currency']!r} is not an ISO 4217 code (e.g. CNY, USD)")
    rng = AmountRange(str(item["low"]), str(item.get("expected", item["low"])), str(item["high"]),
                      item["currency"])
    ev = Evidence(item.get("evidence", "assumed"))
    if ev is Evidence.ASSUMED and not item.get("owner"):
        raise ValueError("an assumed rate needs an owner who will confirm it")
    if "source" not in item:
        raise KeyError("source")
    return LaborRate(role=LaborRole(item["role"]), rate=rng, source=with_zh(item, "source"), evidence=ev,
                     owner=item.get("owner", ""))


def load(root: str | Path) -> Config:
    root = Path(root)
    path = root / CONFIG_NAME
    if not path.exists():
        raise NotFound(f"no workspace at {root} ({CONFIG_NAME} missing)",
                       remedy="run `trainledger init` there, or pass --workspace DIR")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc} / 不是有效的 TOML", remedy=DOCS_REMEDY) from None
    check_keys(path, data)
    settings: dict[str, Any] = {}
    for s in SETTINGS:
        found, value = _lookup(data, s.name)
        if not found:
            value = s.default
        elif not isinstance(value, s.type) or isinstance(value, bool) and s.type is int:
            raise ConfigError(f"{path}: {s.name} must be {s.type.__name__}, got {value!r}",
                              remedy=s.help)
        settings[s.name] = value
    _check_settings(path, settings)
    projects = tuple(_entry(path, "projects", i, it, lambda d: Project(
        id=d["id"], name=d.get("name", d["id"]), goal=d["goal"], owner=d.get("owner", "")))
        for i, it in enumerate(data.get("projects", [])))
    batches = tuple(_entry(path, "batches", i, it, _batch) for i, it in enumerate(data.get("batches", [])))
    rules = tuple(_entry(path, "rules", i, it, _rule) for i, it in enumerate(data.get("rules", [])))
    prefixes = tuple(_entry(path, "storage_prefixes", i, it, lambda d: (d["prefix"], StorageClass(d["storage_class"])))
                     for i, it in enumerate(data.get("storage_prefixes", [])))
    rates = tuple(_entry(path, "labor_rates", i, it, _rate) for i, it in enumerate(data.get("labor_rates", [])))
    nodes = tuple(_entry(path, "nodes", i, it, _node) for i, it in enumerate(data.get("nodes", [])))
    _check_nodes(path, nodes)
    cfg = Config(path=path, settings=settings, projects=projects, batches=batches, rules=rules,
                 storage_prefixes=prefixes, labor_rates=rates, raw=data, nodes=nodes)
    _check_references(cfg)
    return cfg


def _check_references(cfg: Config) -> None:
    project_ids = {p.id for p in cfg.projects}
    batch_ids = [b.id for b in cfg.batches]
    dup = {b for b in batch_ids if batch_ids.count(b) > 1}
    if dup:
        raise ConfigError(f"{cfg.path}: batch ids defined twice: {', '.join(sorted(dup))}")
    for b in cfg.batches:
        if b.project not in project_ids:
            raise ConfigError(f"{cfg.path}: batch {b.id} names project {b.project!r}, which is not defined",
                              remedy="add a [[projects]] entry with that id")
    for r in cfg.rules:
        if r.batch and r.batch not in batch_ids:
            raise ConfigError(f"{cfg.path}: rule {r.id} attributes to unknown batch {r.batch!r}")


def db_url(cfg: Config) -> str:
    return cfg.get("workspace.db_url") or f"sqlite:///{(cfg.root / 'ledger.db').resolve()}"


def today() -> date:
    from datetime import UTC, datetime

    return datetime.now(UTC).date()
