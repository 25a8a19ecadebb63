"""The ``cause`` namespace: the sentences engine/causes.py writes to say where a run's failure cause
and its review note came from (``Explained.cause_source``, ``review_note``).

Each is a ``Msg`` when the engine makes it — its English is the stored text, as before, and
``.text("zh-CN")`` renders it in Chinese with a cause's label — and a template here, so a stored
English sentence (an attribution summary's ``runs_explained``, a JSON consumer's copy) is
translated by ``i18n.localize`` too (patterns.py reads this namespace)."""

from __future__ import annotations

CONFIRM_EN = "confirm with `trainledger runs confirm`"
CONFIRM_ZH = "请用 `trainledger runs confirm` 确认"

CAUSES: dict[str, tuple[str, str]] = {
    "confirmed": ("confirmed by {by}", "由 {by} 确认"),
    "confirmed_note": ("confirmed by {by} ({note})", "由 {by} 确认（{note}）"),
    "recorded": ("recorded on the job (Comment cause=)", "作业自身记录（Comment 中的 cause=）"),
    "retry_names": (f"suggested: its retry {{retry}} names it; {CONFIRM_EN}",
                    f"推断：其重试 {{retry}} 注明了此原因；{CONFIRM_ZH}"),
    "scheduler_state": (f"suggested by scheduler state {{state}}; {CONFIRM_EN}",
                        f"由调度器状态 {{state}} 推断；{CONFIRM_ZH}"),
    "retries": (f"suggested: it retries {{first}} ({{state}}); {CONFIRM_EN}",
                f"推断：它是 {{first}}（{{state}}）的重试；{CONFIRM_ZH}"),
    "needs_review": ("{state}: no cause recorded or suggested; needs review",
                     "{state}：既无记录也无法推断失败原因；需要复核"),
    "repeats": ("repeats {first}'s {cause} with no change of data, code or config version",
                "重复了 {first} 的失败原因（{cause}），而数据、代码与配置版本均未变更"),
}
