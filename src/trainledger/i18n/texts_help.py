"""Every command's and option's help in English and Chinese (``help.<command>[.<option>]``). The
English is the text in the code exactly (clickzh.py looks each one up by it); tests/i18n/test_help_zh.py
fails when a command or option has help this table lacks."""

from __future__ import annotations

HELP: dict[str, tuple[str, str]] = {
    'trainledger': (
        "trainledger — where did this model's money go? / 模型训练成本归属、估算与复盘。\n\n    Exit codes: 0 done; 1 problems found (audit, --strict); 2 usage or input error; 3 internal error.",  # noqa: E501
        "trainledger——这个模型的钱花到哪里去了？模型训练成本归属、估算与复盘。\n\n退出码：0 完成；1 发现问题（audit、--strict）；2 用法或输入错误；3 内部错误。",  # noqa: E501
    ),
    'workspace': (
        "Workspace directory (also TRAINLEDGER_WORKSPACE).",
        "工作区目录（也可用 TRAINLEDGER_WORKSPACE）。",
    ),
    'lang': (
        "Language of reports and messages (default: the workspace's, else en).",
        "报告与消息的语言（默认：TRAINLEDGER_LANG、工作区的语言、系统区域设置，否则 en）。",
    ),
    'quiet': (
        "Print only results and errors, no notes or warnings.",
        "只输出结果和错误，不输出提示或警告。",
    ),
    'verbose': (
        "Print every warning, and the traceback of an internal error.",
        "输出每一条警告，以及内部错误的回溯信息。",
    ),
    'version': (
        "Show the version and exit.",
        "显示版本并退出。",
    ),
    'init': (
        "Create a workspace: config, ledger and lake. / 创建工作区。",
        "创建工作区：配置、账本与数据湖。",
    ),
    'init.db_url': (
        "Ledger URL, e.g. postgresql+psycopg://user@host/db (default: SQLite in the workspace).",
        "账本 URL，例如 postgresql+psycopg://user@host/db（默认：工作区内的 SQLite）。",
    ),
    'init.currency': (
        "Default currency of the workspace.",
        "工作区的默认币种。",
    ),
    'init.workspace': (
        "Workspace directory (global option).",
        "工作区目录（全局选项）。",
    ),
    'init.lang': (
        "Language of reports and messages (global option).",
        "报告与消息的语言（全局选项）。",
    ),
    'init.quiet': (
        "Only results and errors (global option).",
        "只输出结果和错误（全局选项）。",
    ),
    'init.verbose': (
        "Every warning; tracebacks (global option).",
        "输出每一条警告；显示回溯（全局选项）。",
    ),
    'import': (
        "Import source files into the lake (idempotent). / 导入源数据（可重复执行）。\n\n    Exit codes: 0 imported (quarantined rows are reported, not fatal); 1 with --strict when any\n    row was quarantined; 2 a usage or input error (nothing imported).",  # noqa: E501
        "把源文件导入数据湖（可重复执行）。\n\n退出码：0 已导入（被隔离的行会报告，但不算失败）；1 使用 --strict 且有行被隔离；2 用法或输入错误（没有导入任何数据）。",  # noqa: E501
    ),
    'import.tz': (
        "Time zone of offset-less times (slurm), e.g. Asia/Shanghai.",
        "不带时区偏移的时间所在的时区（slurm），例如 Asia/Shanghai。",
    ),
    'import.currency': (
        "Currency for FOCUS files without BillingCurrency.",
        "没有 BillingCurrency 的 FOCUS 文件所用的币种。",
    ),
    'import.encoding': (
        "Text encoding when not UTF-8/UTF-16, e.g. gb18030 for Excel exports in Chinese.",
        "文件不是 UTF-8/UTF-16 时的文本编码，例如中文 Excel 导出文件用 gb18030。",
    ),
    'import.preset': (
        "Built-in mapping (jobs, occupancy, steps), e.g. alibaba-openb-2023.",
        "内置映射（jobs、occupancy、steps），例如 alibaba-openb-2023。",
    ),
    'import.mapping': (
        "A TOML mapping of the file's columns (jobs, occupancy, steps; mapped_* kinds also take a vendor preset name); "
        "see docs/formats.md.",
        "描述文件各列的 TOML 映射（jobs、occupancy、steps；mapped_* 类型也接受供应商预设名称）；见 docs/formats.md。",
    ),
    'import.fixed': (
        "A field the file does not hold (mapped kinds, k8s, wandb's run), e.g. --set vc=vc6YE, --set job=job_1 or"
        " --set run=r03.",
        "文件中没有的字段（映射类导入、k8s、wandb 的 run），例如 --set vc=vc6YE、--set job=job_1 或 --set run=r03。",
    ),
    'import.replace_id': (
        "Drop this import first (see `trainledger imports list`), e.g. one read with the wrong --tz.",
        "先撤销这次导入（见 `trainledger imports list`），例如用错了 --tz 的那次。",
    ),
    'import.reason': (
        "Why the replaced import is dropped (kept in the audit log).",
        "撤销被替换的导入的原因（记入审计日志）。",
    ),
    'import.strict': (
        "Exit 1 when any row was quarantined (for pipelines).",
        "有任何行被隔离时以退出码 1 结束（用于流水线）。",
    ),
    'import.as_json': (
        "Print one JSON object with the counts.",
        "以一个 JSON 对象输出计数。",
    ),
    'attribute': (
        "Recompute every cost line from the lake and check conservation. / 重新归属并做守恒校验。",
        "从数据湖重新计算每一条成本行并做守恒校验。",
    ),
    'attribute.as_json': (
        "Print the conservation check per currency as JSON.",
        "以 JSON 输出每个币种的守恒校验。",
    ),
    'batch': (
        "Training batches (训练批次).",
        "训练批次。",
    ),
    'batch.list': (
        "List batches with their attribution keys.",
        "列出批次及其统一归属键。",
    ),
    'audit': (
        "Verify the audit log and the figures it recorded. / 校验审计日志哈希链与账本数字。\n\n    Exits 1 when an entry was edited, removed or reordered, when a stored cost line, run or\n    attribution summary differs from the digest the chain recorded for it, or when --expect names\n    a head that is no longer in the chain (the newest entries were cut off).",  # noqa: E501
        "校验审计日志哈希链与它记录的账本数字。\n\n以下情况以退出码 1 结束：有条目被修改、删除或调换顺序；存储的成本行、运行或归属摘要与哈希链为它记录的摘要不同；或 --expect 指定的链头已不在链中（最新的条目被截掉）。",  # noqa: E501
    ),
    'audit.expected': (
        "A head hash published earlier (a report, a ticket): it must still be in the chain.",
        "之前发布的链头哈希（写在报告或工单里）：它必须仍在链中。",
    ),
    'imports': (
        "Imported files: list, inspect, drop. / 已导入的文件：列出、查看、撤销。",
        "已导入的文件：列出、查看、撤销。",
    ),
    'imports.drop': (
        "Withdraw an import: its rows leave the next `attribute`. / 撤销一次导入。\n\n    Nothing is deleted: the lake tombstones the file's partitions and the ledger's audit log\n    records the drop. Import the file again (with the right options) to bring it back.",  # noqa: E501
        "撤销一次导入：它的数据行不再进入下一次 `attribute`。\n\n不会删除任何东西：数据湖为该文件的分区加上墓碑标记，账本的审计日志记录这次撤销。用正确的选项重新导入该文件即可恢复。",  # noqa: E501
    ),
    'imports.drop.reason': (
        "Why (kept in the audit log), e.g. 'imported with the wrong --tz'.",
        "原因（记入审计日志），例如 '用错了 --tz 导入'。",
    ),
    'imports.drop.by': (
        "Who withdraws it (recorded in the audit log; default: login name).",
        "由谁撤销（记入审计日志；默认：登录名）。",
    ),
    'imports.list': (
        "Every imported file with its counts and status. / 列出全部导入。",
        "列出每个已导入的文件及其计数与状态。",
    ),
    'imports.show': (
        "One import: counts, options, quarantine file, quarantined and flagged rows. / 查看一次导入。",
        "查看一次导入：计数、选项、隔离文件、被隔离与带标记的行。",
    ),
    'quarantine': (
        "Quarantined and flagged rows of the live imports, with reasons and remedies. / 隔离与带标记的行。",
        "有效导入中被隔离与带标记的行，附原因与解决办法。",
    ),
    'quarantine.kind': (
        "Only this import kind.",
        "只看这种导入类型。",
    ),
    'sheet': (
        "Render one batch's cost sheet. / 输出训练批次成本底稿。",
        "输出一个训练批次的成本底稿。",
    ),
    'sheet.lang': (
        "Default: the workspace language.",
        "默认：工作区的语言。",
    ),
    'sheet.lang_xlsx': (
        "Default: the workspace language; xlsx: English and Chinese side by side unless --lang is given.",
        "默认：工作区的语言；xlsx：未给 --lang 时英文与中文并列。",
    ),
    'sheet.out': (
        "Write to a file instead of stdout.",
        "写入文件而不是标准输出。",
    ),
    'demo': (
        "Build a demo workspace end to end and print a summary. / 生成演示工作区并输出成本底稿。",
        "端到端生成一个演示工作区并输出摘要。",
    ),
    'demo.directory': (
        "Where to write the demo workspace.",
        "演示工作区写到哪里。",
    ),
    'demo.seed': (
        "Seed of the generated data.",
        "生成数据所用的随机种子。",
    ),
    'demo.db_url': (
        "Ledger URL (default: SQLite inside the demo directory).",
        "账本 URL（默认：演示目录内的 SQLite）。",
    ),
    'demo.scenario': (
        "rented: a rented cluster on the cloud bill; owned: owned and reserved capacity, no GPU bill.",
        "rented：云账单上的租用集群；owned：自有与预留算力，没有 GPU 账单。",
    ),
    'estimate': (
        "Estimate a training batch before it runs: P10 / P50 / P90 with every assumption.\n\n    预估一个训练批次:任务类型 → 显存 → 吞吐 → 额外占用 → 数据 → 人力 → 单价 → 轮次。",  # noqa: E501
        "在训练批次运行之前做预估：给出 P10 / P50 / P90 以及每一项假设。\n\n预估一个训练批次：任务类型 → 显存 → 吞吐 → 额外占用 → 数据 → 人力 → 单价 → 轮次。",  # noqa: E501
    ),
    'estimate.task': (
        "task type: pretrain, continued_pretrain, full_finetune, lora, qlora, rag",
        "任务类型：pretrain、continued_pretrain、full_finetune、lora、qlora、rag",
    ),
    'estimate.params': (
        "parameters: 7e9, 7B, 70B…",
        "参数量：7e9、7B、70B…",
    ),
    'estimate.active_params': (
        "active parameters per token (mixture of experts)",
        "每个 token 激活的参数量（混合专家模型）",
    ),
    'estimate.tokens': (
        "training tokens: 2T, 500M…",
        "训练 token 数：2T、500M…",
    ),
    'estimate.gpu': (
        "accelerator id, e.g. a100-80gb, h100-80gb, h800, tpu-v5p",
        "加速卡编号，例如 a100-80gb、h100-80gb、h800、tpu-v5p",
    ),
    'estimate.gpus': (
        "GPUs you will run on (default: the fewest that hold it, more for a ~90-day final run)",
        "运行所用的 GPU 数（默认：放得下模型的最少卡数，最终运行约 90 天时会更多）",
    ),
    'estimate.seq_len': (
        "sequence length (default 4096)",
        "序列长度（默认 4096）",
    ),
    'estimate.micro_batch': (
        "micro-batch per GPU (default 1)",
        "每张 GPU 的微批次大小（默认 1）",
    ),
    'estimate.zero_stage': (
        "ZeRO stage 0-3 (default: searched; min_gpus: least-GPU plan over on-GPU options left open)",
        "ZeRO 阶段 0-3（默认：搜索；min_gpus：在未限定的卡上方案中取卡数最少的）",
    ),
    'estimate.tp': (
        "tensor parallel degree",
        "张量并行度",
    ),
    'estimate.pp': (
        "pipeline parallel degree",
        "流水线并行度",
    ),
    'estimate.layers': (
        "transformer layers (default: derived)",
        "Transformer 层数（默认：推算）",
    ),
    'estimate.hidden': (
        "hidden size (default: derived)",
        "隐藏层维度（默认：推算）",
    ),
    'estimate.heads': (
        "attention heads (default: hidden/128)",
        "注意力头数（默认：隐藏维度/128）",
    ),
    'estimate.vocab': (
        "vocabulary size (default 32000)",
        "词表大小（默认 32000）",
    ),
    'estimate.lora_rank': (
        "LoRA rank (default 16)",
        "LoRA 秩（默认 16）",
    ),
    'estimate.gpu_memory_gb': (
        "memory of an accelerator not in the catalog (GB as on its datasheet)",
        "目录之外的加速卡的显存（GB，按其规格书）",
    ),
    'estimate.peak_tflops': (
        "dense BF16 peak of an accelerator not in the catalog",
        "目录之外的加速卡的 BF16 稠密峰值算力",
    ),
    'estimate.price_item': (
        "price-book item for compute (default gpu_hour:<gpu>)",
        "算力的价格表条目（默认 gpu_hour:<gpu>）",
    ),
    'estimate.rounds': (
        "experiment rounds: 2, 1..3 or 1..2..4 (final-run equivalents; default: the task's prior)",
        "试验轮数：2、1..3 或 1..2..4（以最终运行为单位；默认：该任务类型的先验）",
    ),
    'estimate.currency': (
        "reporting currency (default: the price book's)",
        "报告币种（默认：价格表的币种）",
    ),
    'estimate.on': (
        "pricing date YYYY-MM-DD (default today)",
        "定价日期 YYYY-MM-DD（默认今天）",
    ),
    'estimate.samples': (
        "Monte Carlo samples (default 100000)",
        "蒙特卡洛样本数（默认 100000）",
    ),
    'estimate.seed': (
        "Monte Carlo seed",
        "蒙特卡洛随机种子",
    ),
    'estimate.name': (
        "a name for this estimate",
        "这次预估的名称",
    ),
    'estimate.recompute': (
        "activation recomputation (default: selective when it fits)",
        "激活重计算（默认：放得下时用 selective）",
    ),
    'estimate.offload': (
        "ZeRO CPU offload (default: none; not searched for min_gpus; the host memory it needs is reported)",
        "ZeRO CPU 卸载（默认：不用；min_gpus 不搜索它；会报告所需的主机内存）",
    ),
    'estimate.fsdp': (
        "plan with PyTorch FSDP (FULL_SHARD, HYBRID_SHARD within 8-GPU nodes, SHARD_GRAD_OP, NO_SHARD) instead of "
        "DeepSpeed ZeRO",
        "按 PyTorch FSDP（FULL_SHARD、8 卡节点内 HYBRID_SHARD、SHARD_GRAD_OP、NO_SHARD）而不是 DeepSpeed ZeRO 规划",
    ),
    'estimate.flash_attention': (
        "the stack has no FlashAttention: --recompute none then stores the s x s attention scores",
        "技术栈没有 FlashAttention：此时 --recompute none 会存储 s × s 的注意力分数",
    ),
    'estimate.price_book': (
        "TOML or CSV price book (default: the shipped sample)",
        "TOML 或 CSV 价格表（默认：随附的示例）",
    ),
    'estimate.spec_file': (
        "a spec TOML with the same names plus [data], [labor], [inference]",
        "使用相同名称的规格 TOML，另可含 [data]、[labor]、[inference]",
    ),
    'estimate.lang': (
        "en (default) or zh-CN; also a global option",
        "en（默认）或 zh-CN；也是全局选项",
    ),
    'estimate.guided': (
        "answer the three questions to find the task type",
        "回答三个问题来确定任务类型",
    ),
    'estimate.output': (
        "write to FILE instead of stdout",
        "写入文件而不是标准输出",
    ),
    'compare': (
        "Rent on demand vs reserved vs own hardware vs a platform or external service, N years.\n\n    按需租用、预留、自建、平台或外部服务的 N 年总成本对比(同一口径,含退出成本)。",  # noqa: E501
        "按需租用、预留、自建硬件、平台或外部服务的 N 年对比。\n\n按需租用、预留、自建、平台或外部服务的 N 年总成本对比（同一口径，含退出成本）。",  # noqa: E501
    ),
    'compare.gpu': (
        "accelerator id",
        "加速卡编号",
    ),
    'compare.gpus': (
        "fleet size for reserved / own hardware",
        "预留 / 自建硬件的机群规模",
    ),
    'compare.years': (
        "horizon in whole years",
        "年限（整数年）",
    ),
    'compare.utilisation': (
        "share of fleet hours used: 0.6 or 0.4..0.6..0.8",
        "机群时间的使用比例：0.6 或 0.4..0.6..0.8",
    ),
    'compare.gpu_hours_per_year': (
        "demand instead of utilisation: 1e6..2e6",
        "以需求代替使用率：1e6..2e6",
    ),
    'compare.price_item': (
        "on-demand price item (default gpu_hour:<gpu>)",
        "按需价格条目（默认 gpu_hour:<gpu>）",
    ),
    'compare.external_per_year': (
        "an external service's yearly quote (range), in the report currency",
        "外部服务的年度报价（区间），以报告币种计",
    ),
    'jobs': (
        "Summary of imported scheduler jobs. / 已导入调度作业的汇总。",
        "已导入调度作业的汇总。",
    ),
    'jobs.as_json': (
        "Print the summary as one JSON object.",
        "以一个 JSON 对象输出汇总。",
    ),
    'occupancy': (
        "Idle capacity and waiting demand from occupancy series. / 占用序列：空闲容量与排队需求。",
        "占用序列：空闲容量与排队需求。",
    ),
    'occupancy.as_json': (
        "Print one JSON object per series, in a list.",
        "每个序列一个 JSON 对象，输出为列表。",
    ),
    'steps': (
        "Waiting at the iteration barrier, from per-worker step times. / 同步屏障等待（慢节点）。",
        "同步屏障等待（慢节点），来自各 worker 的步时。",
    ),
    'jobs.cluster': (
        "Only the jobs of this cluster.",
        "只看这个集群的作业。",
    ),
    'steps.job': (
        "Only this job.",
        "只看这个作业。",
    ),
    'steps.as_json': (
        "Print one JSON object per job, in a list.",
        "每个作业一个 JSON 对象，输出为列表。",
    ),
    'plan': (
        "Make, show or list plan baselines (`plan list`). / 制定、查看或列出计划基线。\n\n    From an estimate spec (--from-estimate), the same options as `estimate` (--task --params --tokens\n    --gpu …), or a review (--from-review). 来自预估规格文件、与 estimate 相同的选项，或复盘。",  # noqa: E501
        "制定、查看或列出计划基线（`plan list`）。\n\n来源可以是预估规格文件（--from-estimate）、与 `estimate` 相同的选项（--task --params --tokens --gpu …），或一次复盘（--from-review）。",  # noqa: E501
    ),
    'plan.spec': (
        "the estimator's --from spec TOML",
        "预估器的 --from 规格 TOML",
    ),
    'plan.plan_toml': (
        "the plan's [plan] table (max_rounds, bounds, gates, rules…) when not in the spec",
        "规格中没有时，计划的 [plan] 表（max_rounds、界限、关口、规则…）",
    ),
    'plan.max_rounds': (
        "the plan's maximum rounds",
        "计划的最大轮数",
    ),
    'plan.price_book': (
        "estimate: TOML or CSV price book (default: the shipped sample)",
        "预估：TOML 或 CSV 价格表（默认：随附的示例）",
    ),
    'plan.source': (
        "a reviewed batch whose measured rates seed this plan",
        "一个已复盘的批次，用它的实测速率作为本计划的起点",
    ),
    'plan.work': (
        "with --from-review: planned useful work in Mtoken, LOW..EXPECTED..HIGH (default: the reviewed batch's "
        "measured work)",
        "与 --from-review 一起：计划的有效工作量（百万 token），低..预期..高（默认：被复盘批次的实测工作量）",
    ),
    'plan.reason': (
        "why this baseline (required for v2 and later)",
        "为什么制定这条基线（v2 及以后必填）",
    ),
    'plan.author': (
        "who makes the plan (default: login name)",
        "由谁制定计划（默认：登录名）",
    ),
    'plan.show': (
        "show the latest version",
        "显示最新版本",
    ),
    'status': (
        "AC, EV and EAC against the plan; rounds, gates and open alerts. / 执行状态：实际、挣值、完工估算。",
        "相对计划的实际成本（AC）、挣值（EV）与完工估算（EAC）；轮次、关口与未处理的预警。",
    ),
    'alerts': (
        "Crossed bounds awaiting a decision. / 越界预警（等待决策）。",
        "越过界限、等待决策的预警。",
    ),
    'alerts.open_only': (
        "only alerts no decision has answered",
        "只看尚无决策答复的预警",
    ),
    'review': (
        "Plan against actual: price, volume, efficiency and rework, exactly. / 计划与实际差异分解。",
        "计划与实际的差异分解：价格、数量、效率与返工，精确到分。",
    ),
    'decide': (
        "Record a continue / shrink / stop / retarget decision. / 记录继续、缩小、停止或重定目标决策。",
        "记录继续 / 缩小 / 停止 / 重定目标的决策。",
    ),
    'decide.by': (
        "who decides",
        "由谁决策",
    ),
    'decide.approver': (
        "second named approver (needed to override the rules)",
        "第二位具名审批人（推翻规则建议时需要）",
    ),
    'decide.answers': (
        "alert ids this decision answers: --answers 1 2 3 (or repeat the flag)",
        "本决策答复的预警编号：--answers 1 2 3（也可重复该选项）",
    ),
    'decide.next_review': (
        "YYYY-MM-DD (default: in 7 days)",
        "YYYY-MM-DD（默认：7 天后）",
    ),
    'decide.child': (
        "retarget: the linked child batch that takes the assets by reference",
        "重定目标：以引用方式接收资产的关联子批次",
    ),
    'runs': (
        "Runs and their failure causes; confirm a cause. / 运行与失败归因。",
        "运行及其失败原因；确认一个原因。",
    ),
    'runs.confirm': (
        "Confirm or override a run's failure cause; recorded in the audit chain. / 确认失败原因。",
        "确认或改写一次运行的失败原因；记入审计链。",
    ),
    'runs.confirm.cause': (
        "The failure cause you confirm (or set instead of the suggestion).",
        "你确认的失败原因（或用它代替建议的原因）。",
    ),
    'runs.confirm.by': (
        "Who confirms it (recorded in the audit chain).",
        "由谁确认（记入审计链）。",
    ),
    'runs.confirm.note': (
        "Why, e.g. a ticket.",
        "原因，例如一个工单。",
    ),
    'runs.list': (
        "Each run's failure cause, its evidence and source, and its review class.",
        "每次运行的失败原因、证据与来源，以及复盘归类。",
    ),
    'runs.list.batch_id': (
        "Only this batch's runs.",
        "只看这个批次的运行。",
    ),
    'export': (
        "Export the attribution, e.g. as FOCUS 1.3 allocation rows. / 导出归属结果（如 FOCUS 分摊行）。",
        "导出归属结果，例如导出为 FOCUS 1.3 分摊行。",
    ),
    'export.focus-allocation': (
        "Write the split as FOCUS 1.3 allocation rows. / 按 FOCUS 1.3 分摊格式导出。",
        "把分摊结果写成 FOCUS 1.3 分摊行。",
    ),
    'export.focus-allocation.out': (
        "Default: reports/focus-allocation.<fmt>.",
        "默认：reports/focus-allocation.<fmt>。",
    ),
    'serve': (
        "Serve the dashboard on loopback (two forms write). / 在本机提供看板（两个表单会写入）。",
        "在本机回环地址上提供看板（页面只读；决策与失败原因两个表单会写入）。",
    ),
    'serve.host': (
        "Address to bind: loopback only for now.",
        "绑定的地址：目前只允许回环地址。",
    ),
    'serve.port': (
        "TCP port (0: any free one).",
        "TCP 端口（0：任意空闲端口）。",
    ),
    'serve.allow_remote': (
        "Bind a non-loopback address (needs tokens: not available yet).",
        "绑定非回环地址（需要令牌：尚未提供）。",
    ),
    'short.129': (
        "Import source files into the lake (idempotent). / 导入源数据（可重复执行）。",
        "把源文件导入数据湖（可重复执行）。",
    ),
    'short.130': (
        "Verify the audit log and the figures it recorded. / 校验审计日志哈希链与账本数字。",
        "校验审计日志哈希链与它记录的账本数字。",
    ),
    'short.131': (
        "Estimate a training batch before it runs: P10 / P50 / P90 with every assumption.",
        "在训练批次运行之前做预估：给出 P10 / P50 / P90 以及每一项假设。",
    ),
    'short.132': (
        "Rent on demand vs reserved vs own hardware vs a platform or external service, N years.",
        "按需租用、预留、自建硬件、平台或外部服务的 N 年对比。",
    ),
    'short.133': (
        "Make, show or list plan baselines (`plan list`). / 制定、查看或列出计划基线。",
        "制定、查看或列出计划基线（`plan list`）。",
    ),
    "import.preset.2": (
        "Built-in mapping (jobs, occupancy, nodes, steps, mapped_*), e.g. alibaba-openb-2023; a wrong name lists them.",
        "内置映射（jobs、occupancy、nodes、steps、mapped_*），例如 alibaba-openb-2023；名称写错时会列出全部。",
    ),
    "import.mapping.2": (
        "A TOML mapping of the file's columns (jobs, occupancy, nodes, steps, mapped_*); see docs/formats.md"
        " § Mappings.",
        "描述文件各列的 TOML 映射（jobs、occupancy、nodes、steps、mapped_*）；见 docs/formats.md 的「映射」一节。",
    ),
    "import.worklog_role": (
        "worklog: the labor role of an author's entries without a role: label (over [import.worklog] roles).",
        "worklog：没有 role: 标签的条目按作者给出的人力角色（优先于 [import.worklog] roles）。",
    ),
    "import.worklog_phase": (
        "worklog: the phase (build, run, rework) of entries without a phase: label.",
        "worklog：没有 phase: 标签的条目的阶段（build、run、rework）。",
    ),
    "report": (
        "Spend, shares, unattributed and plan vs actual across batches. / 跨批次成本报告。",
        "跨批次的花费、占比、未归属与计划对实际。",
    ),
    "report.project": (
        "Only this project's batches (default: every project).",
        "只看这个项目的批次（默认：全部项目）。",
    ),
    "report.start": (
        "First day, YYYY-MM-DD or YYYY-MM (a day of the workspace.timezone).",
        "起始日，YYYY-MM-DD 或 YYYY-MM（按 workspace.timezone 时区）。",
    ),
    "report.end": (
        "Last day, YYYY-MM-DD or YYYY-MM (a day of the workspace.timezone).",
        "结束日，YYYY-MM-DD 或 YYYY-MM（按 workspace.timezone 时区）。",
    ),
    "report.by": (
        "Spend over months, or per batch.",
        "按月份或按批次汇总花费。",
    ),
    "presets": (
        "Built-in mappings for --preset; `presets NAME` prints one (a start for your own). / 内置映射预设。",
        "--preset 可用的内置映射；`presets 名称` 输出其中一个（可作为自己映射的起点）。",
    ),
    "presets.as_json": (
        "Print the list as JSON.",
        "以 JSON 输出列表。",
    ),
    "storage": (
        "Storage bills against the inventory estimate, per month and bucket. / 存储账单与存储清单估算对账。",
        "按月份与存储桶，把存储账单与存储清单的估算对账。",
    ),
    "storage.as_json": (
        "The reconciliation object (docs/ledger.md).",
        "输出对账对象（docs/ledger.md）。",
    ),
    "storage.batch_id": (
        "Only this batch's bill rows and objects.",
        "只看这个批次的账单行与对象。",
    ),
    "sheet.fmt": (
        "csv: the batch's cost lines (formula-safe).",
        "csv：本批次的成本行（已防公式注入）。",
    ),
    "status.role": (
        "Print restricted fields (labor rates, unit prices …) as this role may see them (docs/web.md). / "
        "按角色输出受限字段。",
        "按该角色可见的范围输出受限字段（人力费率、单价 …）（docs/web.md）。",
    ),
    "review.role": (
        "Print restricted fields (labor rates, unit prices …) as this role may see them (docs/web.md). / "
        "按角色输出受限字段。",
        "按该角色可见的范围输出受限字段（人力费率、单价 …）（docs/web.md）。",
    ),
    "estimate.role": (
        "Print restricted fields (labor rates, unit prices …) as this role may see them (docs/web.md). / "
        "按角色输出受限字段。",
        "按该角色可见的范围输出受限字段（人力费率、单价 …）（docs/web.md）。",
    ),
    "report.role": (
        "Print labor cost that is one person's (a batch whose labor is one role) as this role may see it"
        " (docs/web.md). / 按角色输出受限字段。",
        "按该角色可见的范围输出受限字段（只含一人的批次人力成本等）（docs/web.md）。",
    ),
    "sheet.role": (
        "Print restricted fields (labor rates, unit prices …) as this role may see them (docs/web.md). / "
        "按角色输出受限字段。",
        "按该角色可见的范围输出受限字段（人力费率、单价 …）（docs/web.md）。",
    ),
    "serve.host.2": (
        "Address to bind; a non-loopback one needs --allow-remote.",
        "绑定的地址；非回环地址需要 --allow-remote。",
    ),
    "serve.allow_remote.2": (
        "Bind a non-loopback address; every request then needs a token (`trainledger token create`).",
        "绑定非回环地址；此时每个请求都需要令牌（`trainledger token create`）。",
    ),
    "serve.require_token": (
        "Require a token on loopback too (e.g. behind a reverse proxy on this machine).",
        "在回环地址上也要求令牌（例如本机有反向代理时）。",
    ),
    "token": (
        "API tokens for serve: create, list, revoke. / 看板访问令牌：创建、列出、吊销。",
        "看板访问令牌：创建、列出、吊销。",
    ),
    "token.create": (
        "Create a token and print it once. / 创建令牌（只显示一次）。",
        "创建令牌并只输出一次。",
    ),
    "token.create.role": (
        "What the token may see (docs/web.md).",
        "令牌可以看到的内容（docs/web.md）。",
    ),
    "token.create.batch_id": (
        "Limit the token to this batch (default: every batch).",
        "把令牌限定在这个批次（默认：全部批次）。",
    ),
    "token.create.days": (
        "Days until it expires (default: never).",
        "多少天后过期（默认：永不过期）。",
    ),
    "token.list": (
        "Tokens with their role, scope, expiry and state (never the secret). / 列出令牌。",
        "列出令牌及其角色、范围、过期时间与状态（从不显示密钥）。",
    ),
    "token.revoke": (
        "Revoke a token; recorded in the audit chain. / 吊销令牌（记入审计日志）。",
        "吊销令牌；记入审计链。",
    ),
    "attribute.engine": (
        "Where the bill stage runs (default: the workspace's engine.backend); same figures on each.",
        "账单阶段在哪个引擎上运行（默认：工作区的 engine.backend）；各引擎的数字相同。",
    ),
    "attribute.as_of": (
        "Cut open jobs and capacities at this time (ISO 8601 with an offset, e.g. 2026-11-10T14:00:00Z)",
        "在此时刻截断未结束的作业与容量（带时区偏移的 ISO 8601，例如 2026-11-10T14:00:00Z）",
    ),
}
