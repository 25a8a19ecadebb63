"""The problems a sheet reports, in both languages, from one catalogue.

The engine (engine/*.py, service.py) creates ``Problem(kind, message, detail)`` with an English
message; the message's facts are in ``detail``. Here every kind has a label and a message template
per language that renders from those detail fields, so a zh-CN sheet never shows the English
message, and a code such as ``job_without_batch`` is shown as its label (the code stays in JSON).

``KINDS`` is the registry: tests/report/test_problems_i18n.py fails when the code creates a kind
that is not here, or a kind lacks either language.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trainledger.engine import asof

EN, ZH = "en", "zh-CN"
ELSEWHERE = "workspace_problems"

# kind: {lang: (label, message template over the problem's detail)}
CATALOGUE: dict[str, dict[str, tuple[str, str]]] = {
    "quarantined_rows": {
        EN: ("rows in quarantine", "{rows} {kind} row(s) are in quarantine and in no figure: fix them and"
             " import the fixed file with `trainledger import {kind} FILE --replace ID` (import {ids}; {files})"),
        ZH: ("隔离区中的数据行", "{rows} 行 {kind} 数据在隔离区，未计入任何数字：修正后用"
             " `trainledger import {kind} FILE --replace ID` 导入修正后的文件（导入 {ids}；{files}）"),
    },
    "unknown_rule_field": {
        EN: ("rule reads an unknown field", "rule {rule}: {source} rows have no field '{field}'; it can never"
             " match. Fields: {known}, or tags.<key>"),
        ZH: ("规则读取不存在的字段", "规则 {rule}：{source} 数据行没有字段 '{field}'，永远不会匹配。可用字段：{known}，"
             "或 tags.<键>"),
    },
    "unknown_batch": {
        EN: ("row names an undefined batch", "{source} row {row} names batch '{batch}', which the workspace does"
             " not define; rules decide instead"),
        ZH: ("数据行指定了未定义的批次", "{source} 第 {row} 行指定批次 '{batch}'，工作区未定义该批次；改由规则决定"),
    },
    "unpriced_storage": {
        EN: ("storage not priced", "no price-book entry '{item}': objects of tier {tier} are listed but not priced"),
        ZH: ("存储未计价", "价格表没有条目 '{item}'：存储层级 {tier} 的对象已列出但未计价"),
    },
    "modified_after_snapshot": {
        EN: ("modified after the inventory", "storage row {row}: {path} was modified {written}, after its"
             " inventory date {snapshot}; it is not charged"),
        ZH: ("清单日期之后被修改", "存储第 {row} 行：{path} 于 {written} 被修改，晚于其清单日期 {snapshot}；不计费"),
    },
    "storage_held_unknown": {
        EN: ("storage held time unknown", "{count} storage object(s) of the {snapshot} inventory (e.g. {path}) have"
             " no last_modified: held time before this snapshot unknown, not charged (a later snapshot pays from"
             " this one; list last_modified to charge the time before)"),
        ZH: ("存储持有时长未知", "{snapshot} 清单中有 {count} 个存储对象（例如 {path}）没有 last_modified："
             "此次快照之前的持有时长未知，不计费"
             "（之后的快照从这一次起计费；清单写上 last_modified 才能计入之前的时间）"),
    },
    "missing_labor_rate": {
        EN: ("no labor rate", "no [[labor_rates]] entry for role {role}: its hours are counted but valued at zero"),
        ZH: ("缺少人力费率", "角色 {role} 没有 [[labor_rates]] 条目：其工时已计数，但按零估值"),
    },
    "unpriced_capacity": {
        EN: ("capacity not priced", "capacity {capacity}: no price-book entry '{item}' in {currency} on {on}:"
             " {resource} that day is not valued"),
        ZH: ("容量未计价", "容量 {capacity}：{on} 价格表中没有 {currency} 的条目 '{item}'：{resource} 当天未估值"),
    },
    "capacity_not_stated": {
        EN: ("capacity not stated", "capacity {capacity}: no imported capacity fact states the GPUs of cluster"
             " {cluster} for {hours} hour(s) between {since} and {until}: that time is not costed"),
        ZH: ("容量未说明", "容量 {capacity}：{since} 至 {until} 之间有 {hours} 小时没有导入的容量事实说明集群 {cluster}"
             " 的 GPU 数：这段时间不计成本"),
    },
    "capacity_gpus_unknown": {
        EN: ("capacity counts nodes only", "capacity {capacity}: the imported capacity facts of cluster {cluster}"
             " count nodes, not GPUs, for {hours} hour(s) between {since} and {until}: that time is not costed"),
        ZH: ("容量只有节点数", "容量 {capacity}：{since} 至 {until} 之间 {hours} 小时，集群 {cluster}"
             " 导入的容量事实只有节点数、没有 GPU 数：这段时间不计成本"),
    },
    "capacity_sources_overlap": {
        EN: ("capacity stated twice", "cluster {cluster}: several imported files state the same nodes or VCs for"
             " the same time ({since} to {until}); the last imported ({used}) is used, not {others}"),
        ZH: ("容量被重复说明", "集群 {cluster}：多个导入文件说明了同一时段（{since} 至 {until}）的相同节点或虚拟集群；"
             "采用最后导入的（{used}），不用 {others}"),
    },
    "capacity_conflict": {
        EN: ("capacity differs from the imported facts", "capacity {capacity}: the workspace says {config} GPUs for"
             " {subject}, imported capacity facts say {stated} ({since} to {until}, {spans} span(s)); the"
             " workspace's figure is used"),
        ZH: ("容量与导入的事实不符", "容量 {capacity}：工作区配置 {subject} 有 {config} 张 GPU，"
             "导入的容量事实为 {stated} 张（{since} 至 {until}，{spans} 段）；采用工作区的数字"),
    },
    "capacity_facts_unpriced": {
        EN: ("imported capacity not priced", "cluster {cluster}: {facts} imported capacity fact(s) ({files} file(s))"
             " that no [[capacity]] entry prices: the GPU time no job held there is not costed"),
        ZH: ("导入的容量未计价", "集群 {cluster}：导入了 {facts} 条容量事实（{files} 个文件），"
             "但没有 [[capacity]] 条目为其计价：无作业占用的 GPU 时间不计成本"),
    },
    "capacity_vcs_unpriced": {
        EN: ("virtual clusters not priced", "cluster {cluster}: {facts} imported capacity fact(s) of {vcs} virtual"
             " cluster(s) ({examples}) that no [[capacity]] pool prices: the GPU time no job held there is not"
             " costed"),
        ZH: ("虚拟集群未计价", "集群 {cluster}：导入了 {vcs} 个虚拟集群（{examples}）的 {facts} 条容量事实，"
             "但没有 [[capacity]] 资源池为其计价：那里无作业占用的 GPU 时间不计成本"),
    },
    "vc_not_pooled": {
        EN: ("jobs of a virtual cluster without a pool", "cluster {cluster}: {jobs} job(s) of {vcs} virtual"
             " cluster(s) ({examples}) that no [[capacity]] pool holds (the job's VC is read from {field}): their"
             " GPU time is in no capacity's cost — add a pool for the VC, or one for the whole cluster (cluster"
             " without vc)"),
        ZH: ("虚拟集群的作业没有资源池", "集群 {cluster}：{vcs} 个虚拟集群（{examples}）的 {jobs} 个作业不属于任何"
             " [[capacity]] 资源池（作业的虚拟集群取自 {field}）：其 GPU 时间不计入任何容量的成本——"
             "请为该虚拟集群加一个资源池，或为整个集群加一个（写 cluster、不写 vc）"),
    },
    "conservation": {
        EN: ("conservation does not hold", "{subject}: cost {total} but lines carry {carried} ({side} attributed"
             " by {gap})"),
        ZH: ("守恒不成立", "{subject}：费用 {total}，成本行合计 {carried}（{side} {gap}）"),
    },
    "labor_hours_conservation": {
        EN: ("labor hours do not add up", "labor hours ({currency}): the timesheet has {timesheet_hours} h but batches"
             " {batches_hours} + shared pools {pooled_hours} + unattributed {unattributed_hours} carry {carried} h"
             " ({side} by {gap})"),
        ZH: ("人力工时不守恒", "人力工时（{currency}）：工时表 {timesheet_hours} 小时，但批次 {batches_hours}"
             " + 共享分摊池 {pooled_hours} + 未归属 {unattributed_hours} 合计 {carried} 小时（{side} {gap}）"),
    },
    "restated_bill_row": {
        EN: ("bill row restated by a later import", "{rows} bill row(s) of import {later} restate rows of import"
             " {earlier} (same billing account, resource, charge period, category, class and SKU): {earlier_amount}"
             " then {later_amount} {currency}, both counted; if the later export replaces the earlier,"
             " {earlier_amount} {currency} is counted twice: run `{command}`"),
        ZH: ("账单行被后续导入重述", "导入 {later} 的 {rows} 行账单重述了导入 {earlier} 中的行"
             "（计费账户、资源、计费时段、费用类别、类型和 SKU 相同）："
             "先 {earlier_amount}，后 {later_amount} {currency}，两者都已计入；"
             "若后一份导出取代前一份，则 {earlier_amount} {currency} 被重复计入：请运行 `{command}`"),
    },
    "lake_rows_short": {
        EN: ("lake holds fewer rows than an import states", "import {import} ({kind}, {path}) states {rows}"
             " distinct row(s) that the lake holds {copies} copy(ies) fewer of than the file says: they are in no"
             " figure; read the file again: `{command}`"),
        ZH: ("数据湖中的行少于导入所述", "导入 {import}（{kind}，{path}）陈述的 {rows} 种数据行，数据湖少存了"
             " {copies} 份：它们未计入任何数字；请重新读取该文件：`{command}`"),
    },
    "lake_partition_missing": {
        EN: ("a partition of an import is missing from the lake", "import {import} ({kind}, {path}): its partition"
             " {partition} ({rows} row(s)), named in lake/imports.jsonl, is not in the lake: those rows are in no"
             " figure; restore the file from a backup, or read the file again: `{command}`"),
        ZH: ("数据湖缺少某次导入的分区", "导入 {import}（{kind}，{path}）：lake/imports.jsonl 记录的分区 {partition}"
             "（{rows} 行）不在数据湖中：这些行未计入任何数字；请从备份恢复该文件，或重新读取该文件：`{command}`"),
    },
    "lake_import_unlogged": {
        EN: ("lake files of an import its log does not record", "the lake holds {files} file(s) of an import of"
             " the file {sha} ({kind}, {table}: {rows} row(s) in the figures, {held} held for it) that"
             " lake/imports.jsonl does not record — an import cut off between publishing them and logging itself:"
             " it is in no `imports list` and cannot be dropped; import that file again to record it: `{command}`"
             " (the file whose sha256 begins {sha})"),
        ZH: ("数据湖中有导入日志未记录的导入文件",
             "数据湖中有文件 {sha} 的一次导入的 {files} 个文件（{kind}，{table}：{rows} 行已计入数字，"
             "{held} 行为其保留），lake/imports.jsonl 未记录这次导入——"
             "导入在发布这些文件之后、写入日志之前被中断：它不在 `imports list` 中，也无法撤销；"
             "请重新导入该文件以记录它：`{command}`（sha256 以 {sha} 开头的文件）"),
    },
    "lake_rows_extra": {
        EN: ("lake holds more rows than any import states", "the lake holds {copies} more copy(ies) of {rows}"
             " distinct {table} row(s) than any live import states (held by import(s) {ids}): counted more than"
             " once; drop those imports and import their files again"),
        ZH: ("数据湖中的行多于任何导入所述", "数据湖中有 {rows} 种 {table} 数据行比任何仍有效的导入所述多存了"
             " {copies} 份（由导入 {ids} 承载）：被重复计入；请撤销这些导入并重新导入其文件"),
    },
    "repeated_bill_row": {
        EN: ("bill row repeated by a later import", "{rows} bill row(s) of import {later} repeat rows of import"
             " {earlier} unchanged (same charge, {currency} amount and every other column): a repeat, not a"
             " restatement; counted as import {later} states them, nothing twice"),
        ZH: ("账单行被后续导入重复陈述", "导入 {later} 的 {rows} 行账单原样重复了导入 {earlier} 中的行"
             "（费用、{currency} 金额及其他各列均相同）：这是重复陈述，不是重述；按导入 {later} 的陈述计入，"
             "没有重复计入"),
    },
    "no_node_on_bill": {
        EN: ("bill names no Slurm node", "no bill row names any of the {count} Slurm nodes (e.g. {example}): GPU"
             " compute cannot be split by job and stays unattributed — bill ResourceId/ResourceName must be the"
             " node's host name, or map each node's resource id to its host name in [[nodes]] (docs/workspace.md),"
             " or declare the cluster as [[capacity]] if it is owned"),
        ZH: ("账单未出现任何 Slurm 节点", "没有账单行对应 {count} 个 Slurm 节点中的任何一个（例如 {example}）："
             "GPU 算力无法按作业拆分，留在未归属桶——账单的 ResourceId/ResourceName 须为节点主机名，"
             "或在 [[nodes]] 中把每个节点的资源 ID 对应到主机名（见 docs/workspace.md）；"
             "自有集群请声明为 [[capacity]]"),
    },
    "node_without_jobs": {
        EN: ("billed node with no imported jobs", "{count} node(s) are billed as GPU nodes (the SKU of the nodes jobs"
             " ran on, or declared in [[nodes]]), but no imported job ran on them (e.g. {example}): their cost is"
             " capacity no job held — check that every cluster's sacct was imported"),
        ZH: ("账单中的节点没有已导入的作业", "{count} 个节点按 GPU 节点计费"
             "（与作业所在节点同一 SKU，或已在 [[nodes]] 中声明），"
             "但没有任何已导入的作业在其上运行（例如 {example}）："
             "其费用计为无作业占用的容量——请检查每个集群的 sacct 是否都已导入"),
    },
    "node_map_conflict": {
        EN: ("node map conflict", "{imported} maps node {node} to resource id {resource_id}; {other} maps"
             " {other_ids} to node {other_node}: the node map uses {used} — correct the one that is wrong"),
        ZH: ("节点对照冲突", "{imported} 把节点 {node} 对应到资源 ID {resource_id}；{other} 把 {other_ids}"
             " 对应到节点 {other_node}：节点对照表采用 {used}——请改正错误的那一方"),
    },
    "node_gpus_differ": {
        EN: ("node GPUs differ from cluster.gpus_per_node", "{count} node(s) of the node map have another number of"
             " GPUs than cluster.gpus_per_node = {gpus_per_node} ({nodes}): their bill rows are split over their own"
             " GPUs (capacity no job held = their GPUs × the period − what jobs held) — check the count if it is a"
             " typo"),
        ZH: ("节点 GPU 数与 cluster.gpus_per_node 不同", "节点对照表中有 {count} 个节点的 GPU 数不同于"
             " cluster.gpus_per_node = {gpus_per_node}（{nodes}）：这些节点的账单行按其自身 GPU 数拆分"
             "（无作业占用的容量 = 其 GPU 数 × 时段 − 作业占用）——如为笔误请核对数量"),
    },
    "oversubscribed_node": {
        EN: ("node oversubscribed", "{node} {at}: jobs hold {held} GPUs but the node has {slots}"),
        ZH: ("节点超额占用", "{node} {at}：作业占用 {held} 张 GPU，但节点只有 {slots} 张"),
    },
    "negative_usage": {
        EN: ("usage row below zero", "bill row {row} on {node} ({at}) is a usage row of {amount} {currency}:"
             " carried as a credit (money, no GPU-hours); if it is not a refund, correct the bill"),
        ZH: ("用量行金额为负", "账单第 {row} 行（{node}，{at}）是金额为 {amount} {currency} 的用量行："
             "按退款/赔付计入（只计金额，不计卡时）；若不是退款，请更正账单"),
    },
    "capacity_period_misses_runs": {
        EN: ("runs outside the capacity's period", "capacity {capacity} ({where}): {runs} run(s) hold it outside"
             " its period {period} ({examples}): {gpu_hours} GPU-hours there are not valued — check the"
             " capacity's from / until"),
        ZH: ("作业超出容量的期间", "容量 {capacity}（{where}）：{runs} 个作业在其期间 {period} 之外占用它"
             "（{examples}）：这部分 {gpu_hours} 卡时未计价——请检查该容量的 from / until"),
    },
    "occupancy_jobs_missing": {
        EN: ("occupancy shows jobs not imported", "pool {pool} (capacity {capacity}): its occupancy series shows"
             " {running} GPU-hours running (idle {idle}) but the imported jobs hold {held}: {missing} GPU-hours"
             " were held by jobs not imported: costed as held, jobs not imported (not as capacity no job held) and in"
             " no batch — import the cluster's job list"),
        ZH: ("占用序列显示有未导入的作业", "资源池 {pool}（容量 {capacity}）：其占用序列显示运行中 {running} 卡时"
             "（空闲 {idle}），但已导入的作业只占用 {held}：{missing} 卡时由未导入的作业占用，"
             "其成本计为“有作业占用（作业未导入）”而非无作业占用的容量，且不归属任何批次——请导入该集群的作业清单"),
    },
    "pool_oversubscribed": {
        EN: ("pool smaller than its jobs hold", "pool {pool} (capacity {capacity}): its jobs hold {peak}"
             " GPU-equivalents at once ({at}) but the pool has {gpus} GPUs; its unheld capacity is"
             " understated — set gpus to what the pool has, or check the job list"),
        ZH: ("资源池小于其作业同时占用量", "资源池 {pool}（容量 {capacity}）：其作业在 {at} 同时占用"
             " {peak} 张折合整卡，但资源池只有 {gpus} 张 GPU；无作业占用的容量因此被低估——"
             "请把 gpus 设为资源池实际的卡数，或检查作业清单"),
    },
    "unpriced_queue": {
        EN: ("queue not valued", "{gpu_hours} queued GPU-hours of {jobs} job(s) that no [[capacity]] holds"
             " ({never_started} never started, so they name no node) are counted but not valued; a capacity's"
             " jobs are valued at its queued price: set cluster.gpu_item to a price-book entry, or give the"
             " cluster a [[capacity]] pool (cluster = NAME) that holds its jobs without nodes"),
        ZH: ("排队未估值", "{jobs} 个不属于任何 [[capacity]] 的作业（其中 {never_started} 个从未启动，未分配节点）"
             "的 {gpu_hours} 排队卡时已计数但未估值；容量上的作业按该容量的排队单价估值："
             "请把 cluster.gpu_item 设为价格表中的条目，或为该集群配置一个 [[capacity]] 资源池"
             "（cluster = 名称），以容纳未分配节点的作业"),
    },
    "steps_workers_mismatch": {
        EN: ("steps of another worker count", "job {job_id}: the per-worker step times tied to it (steps job"
             " {steps_job}) name {workers} workers, but the job holds {gpus} GPUs on {nodes} node(s) — {workers}"
             " workers can be neither one per node nor an even share of its GPUs, so the steps may be another"
             " job's; its straggler wait is carved from them all the same: check import steps --set job="),
        ZH: ("迭代耗时的 worker 数与作业不符", "作业 {job_id}：与它关联的各 worker 迭代耗时（steps 作业 {steps_job}）"
             "有 {workers} 个 worker，但该作业在 {nodes} 个节点上占用 {gpus} 张卡——{workers} 个 worker"
             "既不是每节点一个，也不能均分它的卡，这些耗时可能属于另一个作业；慢节点等待仍按它们扣除："
             "请检查 import steps --set job="),
    },
    "unpriced_capacity_queue": {
        EN: ("capacity queue not valued", "capacity {capacity}: its jobs' queued GPU-hours are counted but not"
             " valued: its price-book entry has no price on the day — add one, or give the capacity a queued_rate"),
        ZH: ("容量排队未估值", "容量 {capacity}：其作业的排队 卡时已计数但未估值：它的价格表条目在当天没有价格——"
             "请补上，或为该容量设置 queued_rate"),
    },
    "inexact_total": {
        EN: ("total not exact", "{view}: a total cannot be computed exactly in {digits} digits; no conservation"
             " figure is shown rather than a rounded one"),
        ZH: ("合计无法精确", "{view}：合计无法在 {digits} 位精度内精确计算；宁可不显示守恒数字，也不显示舍入值"),
    },
    "stale_price": {
        EN: ("stale price", "price {item} is stale on {on}: effective {effective}, expires {expires} — update"
             " the price book ({source})"),
        ZH: ("价格已过期", "价格 {item} 在 {on} 已过期：生效 {effective}，到期 {expires}——请更新价格表（{source}）"),
    },
    "bad_tag": {
        EN: ("tag value not allowed", "job {job_id}: {what} '{value}' is not one of {allowed}"),
        ZH: ("标签取值无效", "作业 {job_id}：{what} '{value}' 不在允许值 {allowed} 之中"),
    },
    "straggler_share_unused": {
        EN: ("straggler waiting not placed", "job {job_id}: per-worker step times say its workers wait {share} of"
             " their time at the iteration barrier, but no progress event marks effective time to carve it from;"
             " import its progress events"),
        ZH: ("慢节点等待未能计入", "作业 {job_id}：各 worker 的迭代耗时表明其 {share} 的时间在迭代屏障处等待，"
             "但没有进度事件标出有效训练时间可供扣除；请导入它的进度事件"),
    },
    "progress_outside_allocation": {
        EN: ("progress outside the allocation", "job {job_id}: {events} progress events, none between its start"
             " {start} and end {end} — a clock or time-zone error? The allocation stays unclassified"),
        ZH: ("进度不在分配时段内", "作业 {job_id}：{events} 条进度事件，没有一条落在开始 {start} 与结束 {end} 之间——"
             "时钟或时区错误？该分配时段保持未分类"),
    },
    "progress_without_job": {
        EN: ("progress events match no job", "{events} progress event(s) of {runs} run(s) (first: {names}) match"
             " no job: they classify no compute time. Name the job each belongs to — tag the job with the"
             " tracker's run name (sacct Comment run=NAME, a pod annotation trainledger.io/run), or import a"
             " history that names no run with --set run=JOB_ID (trainledger import wandb FILE --set run=JOB_ID)"),
        ZH: ("进度事件未匹配任何作业", "{runs} 个运行（前几个：{names}）的 {events} 条进度事件未匹配任何作业："
             "它们没有用于划分任何算力时段。请指明每条记录所属的作业——"
             "给作业打上跟踪工具的运行名标签（sacct 的 Comment run=名称，或 Pod 注解 trainledger.io/run）；"
             "未写明运行名的历史记录，导入时加 --set run=作业ID"
             "（trainledger import wandb FILE --set run=作业ID）"),
    },
    "missing_cause": {
        EN: ("retry without a failure cause", "job {job_id} is a fault retry without a failure cause"),
        ZH: ("故障重跑缺少失败原因", "作业 {job_id} 是故障重跑，但没有失败原因"),
    },
    "duplicate_run_id": {
        EN: ("run id used twice", "job {job_id} claims run {run_id}, already taken by job {taken_by};"
             " kept as {run_id}#{job_id}"),
        ZH: ("运行编号重复", "作业 {job_id} 声明运行 {run_id}，该编号已被作业 {taken_by} 使用；记为 {run_id}#{job_id}"),
    },
    "open_job": {
        EN: ("job not ended", "job {job_id} ({state}) has not ended: the run is open, classified up to {until}"
             " ({why}); attribute again when it has, or cut elsewhere with attribute --as-of TIMESTAMP"),
        ZH: ("作业尚未结束", "作业 {job_id}（{state}）尚未结束：运行仍在进行，已分类到 {until}（{why}）；"
             "结束后请重新归属，或用 attribute --as-of 时间戳 指定截止时刻"),
    },
    "uneven_gpu_split": {
        EN: ("GPUs not even across nodes", "job {job_id}: {gpus} GPUs on {nodes} nodes do not divide evenly;"
             " its node-hours are split as if they did"),
        ZH: ("GPU 无法在节点间均分", "作业 {job_id}：{gpus} 张 GPU 分布在 {nodes} 个节点上，无法均分；"
             "其节点小时按均分处理"),
    },
    "job_without_batch": {
        EN: ("job without a batch", "job {job_id} matched no slurm rule; its compute stays in the unattributed"
             " bucket"),
        ZH: ("作业无批次", "作业 {job_id} 未匹配任何 slurm 规则；其算力费用留在未归属桶"),
    },
    "stage_failed": {
        EN: ("a stage failed", "stage {stage} failed with {error} (at {where}): its figures are missing from this"
             " run and the {rows} cash line(s) it would have attributed are in the unattributed bucket"
             " (stage_failed); the other stages ran. This is a bug in trainledger: report it with this message"),
        ZH: ("归属阶段出错", "阶段 {stage} 出错：{error}（位于 {where}）：本次运行缺少它的数字，它本应归属的 {rows}"
             " 条现金成本行留在未归属桶（stage_failed）；其余阶段照常运行。这是 trainledger 的缺陷：请连同此消息报告"),
    },
    "timezone_mismatch": {
        EN: ("time zone mismatch", "{path}: the progress events of {jobs} job(s) are {shift_hours} h off their"
             " sacct windows; it was read as {read_tz} — likely --tz {likely_tz}. Re-import: trainledger import"
             " slurm {path} --tz {likely_tz} --replace {import_id}"),
        ZH: ("时区不一致", "{path}：{jobs} 个作业的进度事件与 sacct 时段相差 {shift_hours} 小时；"
             "该文件按 {read_tz} 读取——应为 --tz {likely_tz}。"
             "重新导入：trainledger import slurm {path} --tz {likely_tz} --replace {import_id}"),
    },
    "timezone_mismatch_bill": {
        EN: ("time zone mismatch with the bill", "{path}: the jobs' node time is {shift_hours} h off"
             " the node bill's hours; it was read as {read_tz} — likely --tz {likely_tz}. Until then the"
             " bill is capacity no job held. Re-import: trainledger import slurm {path} --tz {likely_tz}"
             " --replace {import_id}"),
        ZH: ("与账单时区不一致", "{path}：作业在节点上的时段与节点账单的小时相差 {shift_hours} 小时；"
             "该文件按 {read_tz} 读取——应为 --tz {likely_tz}。在此之前账单都算作无作业占用的容量。"
             "重新导入：trainledger import slurm {path} --tz {likely_tz} --replace {import_id}"),
    },
    ELSEWHERE: {  # not a problem: a batch sheet's count of the workspace's problems of another kind (sheet_problems.py)
        EN: ("more in the workspace", "{what} × {count} more in the workspace (other batches' or no batch's,"
             " not listed on this sheet) — `trainledger --verbose attribute` lists each"),
        ZH: ("工作区其他问题", "工作区中另有 {what} × {count}（属于其他批次或不属于任何批次，本底稿不逐条列出）——"
             "`trainledger --verbose attribute` 会逐条列出"),
    },
}
KINDS = frozenset(CATALOGUE) - {ELSEWHERE}  # the kinds the engine emits

# English words the engine puts in a detail field, as the zh-CN message says them
_DETAIL_ZH = {"too little": "少归属", "too much": "多归属",
              **{en: zh for en, zh in asof.WHY.values()}}  # where an open job was cut (engine/asof.py)


class _Missing(KeyError):
    pass


class _Detail(dict):
    def __missing__(self, key: str) -> str:
        raise _Missing(key)


def _lang(lang: str) -> str:
    return ZH if lang.lower().startswith("zh") else EN


def label(kind: str, lang: str) -> str:
    """The kind's label; an unknown kind (a catalogue gap the tests catch) shows as its code."""
    entry = CATALOGUE.get(kind)
    return entry[_lang(lang)][0] if entry else kind


def message(problem: Mapping[str, Any], lang: str) -> str:
    """The problem's message in ``lang``: the catalogue template over its detail. English falls back to
    the engine's own message for a kind not in the catalogue or a problem whose detail lacks a field the
    template needs (recorded by an older version); zh-CN then gives the label and points to the JSON."""
    entry = CATALOGUE.get(problem["kind"])
    if entry is None:
        return str(problem.get("message", ""))
    zh = _lang(lang) == ZH
    given = problem.get("detail") or {}
    detail = _Detail({k: (given.get(f"{k}_zh") or _DETAIL_ZH.get(v, v) if zh and isinstance(v, str) else v)
                      for k, v in given.items()})  # a field's own Chinese (a price book's source_zh) first
    if problem["kind"] == ELSEWHERE:  # the kind it counts, as its label in this language
        detail["what"] = label(str(detail.get("of", "")), lang)
    if "import_id" not in detail and isinstance(detail.get("source_sha256"), str):  # recorded before it had one
        detail["import_id"] = detail["source_sha256"][:12]
    try:
        return entry[_lang(lang)][1].format_map(detail)
    except _Missing:
        return (f"{entry[ZH][0]}（详情见 JSON 底稿：--format json）" if zh
                else str(problem.get("message", "")))


def for_json(problem: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON sheet's problem: ``kind`` and the English ``message`` as the engine wrote them, plus the
    zh-CN message and the label in both languages."""
    kind = problem["kind"]
    return {**problem, "message_zh": message(problem, ZH), "label": label(kind, EN), "label_zh": label(kind, ZH)}
