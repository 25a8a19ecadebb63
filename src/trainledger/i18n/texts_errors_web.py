"""Errors and remedies of the dashboard's pages and writes (web/pages.py, web/writes.py,
web/auth.py's write checks): part of the ``error`` namespace, see texts_errors.py."""

from __future__ import annotations

WEB: dict[str, tuple[str, str]] = {
    "web.auth.may_not_decide": ("role {role} may not record a decision", "角色 {role} 无权记录决策"),
    "web.auth.may_not_confirm": (
        "role {role} may not confirm a run's failure cause", "角色 {role} 无权确认运行的失败原因"),
    "web.auth.ask_for_token_role": (
        "ask for a token of role {p0} (`trainledger token create --role R`)",
        "请申请以下角色之一的令牌：{p0}（`trainledger token create --role R`）"),
    "web.app.no_page_at": ("no page at {path}", "没有此页面：{path}"),
    "web.app.see_batches_or_openapi": ("see /batches, or /api/openapi.json", "请查看 /batches 或 /api/openapi.json"),
    "web.auth.no_csrf_token": ("this write carries no CSRF token", "此写入请求未携带 CSRF 令牌"),
    "web.auth.post_from_form": (
        "post from the dashboard's form, or send the token of GET /api/csrf as the csrf field or the"
        " X-CSRF-Token header",
        "请从看板的表单提交，或把 GET /api/csrf 给出的令牌放入 csrf 字段或 X-CSRF-Token 请求头"),
    "web.auth.csrf_not_session": (
        "this write's CSRF token does not belong to its session",
        "此写入请求的 CSRF 令牌不属于其会话"),
    "web.auth.reload_and_post": (
        "reload the page and post its form again, or fetch a new token from GET /api/csrf with the same"
        " bearer token or session cookie",
        "请刷新页面后重新提交表单，或用同一个 Bearer 令牌或会话 Cookie 从 GET /api/csrf 获取新令牌"),
    "web.pages.see_imports": (
        "see /imports (or `trainledger imports list`) for the ids",
        "编号见 /imports（或 `trainledger imports list`）"),
    "web.writes.body_too_large": (
        "the request body has {n_raw} bytes, more than {MAX_BODY}",
        "请求体有 {n_raw} 字节，超过 {MAX_BODY}"),
    "web.writes.send_fields_only": ("send the form's fields only", "只发送表单的字段"),
    "web.writes.not_an_action": (
        "action {action} is not one of {DECISION_ACTIONS}", "决策 {action} 不是 {DECISION_ACTIONS} 之一"),
    "web.writes.choose_action": (
        "choose continue, shrink, stop or retarget (a retarget names its child batch: child=B)",
        "请选择 continue（继续）、shrink（缩小）、stop（停止）或 retarget（重定目标；重定目标须指明子批次：child=B）"),
    "web.writes.not_json_object": ("the request body is not a JSON object", "请求体不是 JSON 对象"),
    "web.writes.send_object": ('send {{"field": value, …}}', '请发送 {{"field": value, …}}'),
    "web.writes.no_field": ("the form has no {label}", "表单缺少 {label}"),
    "web.writes.bad_next_review": (
        "next review {nr} is not an ISO date (YYYY-MM-DD)", "下次复查 {nr} 不是 ISO 日期（YYYY-MM-DD）"),
    "web.writes.give_date": (
        "give the date as YYYY-MM-DD, or leave it empty (in 7 days)", "请按 YYYY-MM-DD 填写日期，或留空（7 天后）"),
    "web.writes.not_json": ("the request body is not JSON", "请求体不是 JSON"),
    "web.writes.send_json_or_form": ("send a JSON object, or a form", "请发送 JSON 对象或表单"),
    "web.writes.alert_not_number": ("alert id {part} is not a number", "预警编号 {part} 不是数字"),
    "web.writes.tick_open_alerts": (
        "tick the open alerts the decision answers (ids from /alerts)",
        "请勾选本决策处理的未处理预警（编号见 /alerts）"),
    "web.cache.prover_found": (
        "the ledger does not match its audit chain (found by the dashboard's background check), so no page is"
        " served from it:\n  {problems}",
        "账本与其审计链不符（由看板的后台检查发现），因此不基于它提供任何页面：\n  {problems}"),
    "web.cache.still_building": (
        "this page is still being built for the ledger's current state (waited {wait} s)",
        "此页面仍在按账本的当前状态生成（已等待 {wait} 秒）"),
    "web.cache.try_again": (
        "try again in {RETRY_AFTER} s: the page is kept once built", "请在 {RETRY_AFTER} 秒后重试：页面生成后即会保留"),
}
