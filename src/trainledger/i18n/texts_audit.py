"""Problems ``trainledger audit`` reports (ledger/audit.py, ledger/figures.py, ledger/review_repo.py)
and the workspace settings' checks (workspace.py): part of the ``error`` namespace, see
texts_errors.py."""

from __future__ import annotations

AUDIT: dict[str, tuple[str, str]] = {
    # the subject of an audit problem (``what`` in ledger/audit.py), translated inside the sentences below
    "audit.entry": ("audit entry {id} ({action} {object})", "审计条目 {id}（{action} {object}）"),
    "audit.head_not_in_chain": (
        "the published head {expected} is not in the chain: entries were removed or rewritten",
        "已发布的链头 {expected} 不在哈希链中：有条目被删除或改写"),
    "audit.entries_missing": (
        "audit entries {p0}..{p1} are missing (deleted after writing)",
        "审计条目 {p0}..{p1} 缺失（写入后被删除）"),
    "audit.id_out_of_order": (
        "{what}: id out of order after entry {prev_id}", "{what}：编号在条目 {prev_id} 之后乱序"),
    "audit.prev_hash": (
        "{what}: prev_hash does not match the hash of entry {prev_id} (an entry was removed, inserted or"
        " reordered)",
        "{what}：prev_hash 与条目 {prev_id} 的哈希不符（有条目被删除、插入或调换顺序）"),
    "audit.content_hash": (
        "{what}: content does not match its hash (edited after writing)", "{what}：内容与其哈希不符（写入后被修改）"),
    "audit.no_digests": (
        "attribution {id} was written before the ledger recorded figure digests: its figures cannot be verified"
        " (run `trainledger attribute` to record them)",
        "归属 {id} 写入时账本尚未记录数字摘要：其数字无法校验（运行 `trainledger attribute` 以记录摘要）"),
    "audit.latest_row": (
        "{what} is the latest in the audit chain, but the ledger's latest attribution row is {p1} (an attribution"
        " row was inserted or deleted)",
        "{what} 是审计链中最新的，但账本中最新的归属行是 {p1}（有归属行被插入或删除）"),
    "audit.unrecorded_rows": (
        "{what}: the ledger holds {n_have} {replace} that no audited write recorded (inserted behind the ledger's"
        " back)",
        "{what}：账本中有 {n_have} 条{replace}没有任何经审计的写入记录（绕过账本插入）"),
    "audit.stored_differ": (
        "{what}: the stored {plural} differ from what was written (audit entry {p2}); first difference:"
        " {describe}{extra}",
        "{what}：存储的{plural}与写入时不同（审计条目 {p2}）；第一处差异：{describe}{extra}"),
    "audit.fingerprints_rewritten": (
        "{what}: the stored {plural} differ from what was written, and their fingerprints (table figure_digests)"
        " were rewritten too: the first differing row cannot be named",
        "{what}：存储的{plural}与写入时不同，且其指纹（figure_digests 表）也被改写：无法指出第一处不同的行"),
    "audit.summary_edited": (
        "{what}: its summary (conservation, problems, assumptions) differs from what was written (edited after"
        " writing)",
        "{what}：其摘要（守恒、问题、假设）与写入时不同（写入后被修改）"),
    "audit.fingerprints_edited": (
        "{what}: the stored fingerprints of {name} (table figure_digests) were edited; the rows themselves still"
        " match the audit chain",
        "{what}：{name} 的存储指纹（figure_digests 表）被修改；数据行本身仍与审计链一致"),
    "audit.no_entry": (
        "{what}: no audit entry records it (written outside trainledger)",
        "{what}：没有审计条目记录它（在 trainledger 之外写入）"),
    "audit.record_edited": (
        "{what}: stored content does not match the hash in its audit entry (edited)",
        "{what}：存储内容与其审计条目中的哈希不符（被修改）"),
    "workspace.currency": (
        "{cur} is not an ISO 4217 currency code{hint} / 不是 ISO 4217 币种代码",
        "{cur} 不是 ISO 4217 币种代码{hint}"),
    "workspace.currency_remedy": (
        "write a three-letter code such as CNY, USD or EUR / 请填写三位币种代码，如 CNY、USD、EUR",
        "请填写三位币种代码，如 CNY、USD、EUR"),
    "workspace.language": (
        "{lang} is not a report language{hint} / 不是可用的报告语言", "{lang} 不是可用的报告语言{hint}"),
    "workspace.language_remedy": ("write en or zh-CN / 请填写 en 或 zh-CN", "请填写 en 或 zh-CN"),
    "workspace.positive": ("must be > 0, got {p0} / 必须大于 0", "必须大于 0，实际为 {p0}"),
    "workspace.positive_remedy": ("write a whole number >= 1 / 请填写正整数", "请填写正整数"),
    "workspace.timezone_remedy": (
        "write an IANA name such as Asia/Shanghai or UTC / 请填写 IANA 时区名，如 Asia/Shanghai",
        "请填写 IANA 时区名，如 Asia/Shanghai 或 UTC"),
}
