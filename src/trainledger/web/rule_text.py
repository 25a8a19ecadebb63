"""A cost line's rule (``Provenance.rule``) said as a sentence in the page's language, the code kept
beside it for drill-down. The rule strings the engine writes:

    gpu_seconds_on_node/<rule id>    a bill row of a node split by GPU-seconds; the job's batch from a rule
    capacity <id> (<file> row <n>): <rule>  a capacity's row held by the job (engine/capacity_source.py)
    gpu_seconds_on_node/unheld       … the capacity no job held
    gpu_seconds_on_node/no_rule_matched … a job no rule matched
    queued/<rule id>                 a job's queued GPU time (opportunity, no cash)
    allocation/<policy>/<category>   an allocation policy's view (engine/allocation.py)
    <source>_batch_column            a timesheet / storage / invoice row's own batch column
    no_rule_matched, stage_failed    unattributed
    <rule id>                        a workspace rule (``[[rules]]``)

and `` (EffectiveCost)`` after any of them when the line is valued at a bill's EffectiveCost."""

from __future__ import annotations

from trainledger.engine.capacity_source import parse_rule
from trainledger.web.text import TEXT, t

NO_MATCH = "no_rule_matched"
SUFFIX = " (EffectiveCost)"


def rule_sentence(rule: str | None, lang: str) -> str:
    if not rule:
        return ""
    if rule.endswith(SUFFIX):
        return t("rule.effective_cost", lang).format(text=rule_sentence(rule[: -len(SUFFIX)], lang))
    if rule.startswith("capacity ") and (cap := parse_rule(rule)) is not None:
        return t("rule.capacity", lang).format(capacity=cap[0], file=cap[1], row=cap[2],
                                               text=rule_sentence(cap[3], lang))
    head, _, rest = rule.partition("/")
    if head == "gpu_seconds_on_node" and rest:
        if rest == "unheld":
            return t("rule.unheld", lang)
        if rest == NO_MATCH:
            return t("rule.split_unmatched", lang)
        return t("rule.split", lang).format(rule=rest)
    if head == "queued" and rest:
        return t("rule.queued_unmatched", lang) if rest == NO_MATCH else t("rule.queued", lang).format(rule=rest)
    if head == "allocation" and rest:
        policy, _, category = rest.partition("/")
        return t("rule.allocation", lang).format(policy=policy, category=_word("category", category, lang))
    if rule.endswith("_batch_column"):
        return t("rule.column", lang).format(source=_word("source", rule.removesuffix("_batch_column"), lang))
    if rule == NO_MATCH:
        return t("rule.no_match", lang)
    if rule == "stage_failed":
        return t("rule.stage_failed", lang)
    return t("rule.workspace", lang).format(rule=rule)


def _word(kind: str, code: str, lang: str) -> str:
    key = f"rule.{kind}.{code}"
    return t(key, lang) if key in TEXT else code
