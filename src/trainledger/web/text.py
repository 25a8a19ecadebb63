"""The dashboard's own words in English and Simplified Chinese, and which language a request gets.

Labels of vocabulary values (bases, states, evidence) come from model/vocab.py via report/i18n.py;
the finance terms follow the sheet's glossary (口径 basis, 未归属 unattributed, 摊销 amortized).
"""

from __future__ import annotations

LANGS = ("en", "zh-CN")
COOKIE = "trainledger_lang"

TEXT: dict[str, tuple[str, str]] = {
    "app": ("trainledger dashboard", "trainledger 看板"),
    "batches": ("Training batches", "训练批次"),
    "batch": ("batch", "批次"), "name": ("name", "名称"), "project": ("project", "项目"),
    "team": ("team", "责任团队"),
    "totals": ("Totals by basis (never summed across bases)", "按口径汇总（不同口径不相加）"),
    "basis": ("basis", "口径"), "currency": ("currency", "币种"), "low": ("low", "低"),
    "expected": ("expected", "预期"), "high": ("high", "高"), "lines": ("cost lines", "成本明细行数"),
    "runs": ("Runs", "运行"), "run": ("run", "运行"), "state": ("state", "状态"), "reason": ("reason", "原因"),
    "sheet": ("Cost sheet", "成本底稿"),
    "run_title": ("Run", "运行"), "by_state": ("Cost lines by state", "按状态的成本明细"),
    "retry": ("Retry chain", "重试链"), "attempts": ("attempts", "尝试"), "failed": ("failed run", "失败运行"),
    "cause": ("failure cause", "失败原因"), "none": ("none", "无"),
    "line": ("Cost line", "成本明细"), "category": ("category", "类别"), "evidence": ("evidence", "证据等级"),
    "amount": ("amount", "金额"), "detail": ("detail", "明细"), "quantity": ("quantity", "数量"),
    "unit": ("unit", "单位"), "provenance": ("Provenance", "来源"), "source_file": ("source file hash", "源文件哈希"),
    "row": ("row", "行"), "rule": ("rule", "规则"), "kind": ("kind", "类型"),
    "source_row": ("Imported source row", "导入的源数据行"), "file": ("file", "文件"), "import": ("import", "导入"),
    "imported_at": ("imported at", "导入时间"), "values": ("Values in the lake", "数据湖中的取值"),
    "raw": ("The row in the file as imported", "导入文件中的原始行"), "field": ("field", "字段"),
    "value": ("value", "取值"), "attributed_by": ("Cost lines made from this row", "由此行生成的成本明细"),
    "unattributed": ("unattributed", "未归属"), "report": ("Across batches", "跨批次汇总"),
    "conservation": ("Conservation check (workspace)", "守恒校验（工作区）"),
    "billed_total": ("billed total", "账单总额"), "attributed": ("attributed", "已归属"),
    "difference": ("difference", "差额"), "not_found": ("Not found", "未找到"), "remedy": ("remedy", "处理办法"),
    "bad_request": ("Bad request", "请求有误"), "language": ("language", "语言"),
    "back_batch": ("back to the batch", "返回批次"), "back_run": ("back to the run", "返回运行"),
    "read_only": ("read-only", "只读"),
    "status": ("Plan and status", "计划与执行状态"), "status_h": ("AC, EV and EAC against the plan; alerts",
                                                          "实际、挣值与完工估算（对照计划）；预警"),
    "review_h": ("Plan against actual: price, volume, efficiency, rework", "计划与实际差异：价格、量、效率、返工"),
    "decisions": ("Decisions", "决策记录"),
    "role": ("role", "角色"), "unauthorized": ("Token needed", "需要令牌"),
    "forbidden": ("Outside this token's scope", "超出令牌的授权范围"),
}


def t(key: str, lang: str) -> str:
    en, zh = TEXT[key]
    return zh if lang == "zh-CN" else en


def normal(value: str | None) -> str | None:
    """``zh``, ``zh-cn``, ``zh-Hans`` … → ``zh-CN``; ``en-US`` … → ``en``; anything else → None."""
    if not value:
        return None
    v = value.strip().lower()
    if v.startswith("zh"):
        return "zh-CN"
    if v.startswith("en"):
        return "en"
    return None


def from_accept(header: str | None) -> str | None:
    """The first language of Accept-Language (by q, then order) that the dashboard speaks."""
    if not header:
        return None
    choices = []
    for i, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        if normal(tag) and q > 0:
            choices.append((-q, i, normal(tag)))
    return min(choices)[2] if choices else None


def choose(query: str | None, cookie: str | None, accept: str | None, default: str = "en") -> str:
    """``?lang=``, then the cookie, then Accept-Language, then the workspace language."""
    return normal(query) or normal(cookie) or from_accept(accept) or normal(default) or "en"
