"""The estimator's message catalogue: every sentence and label that ``trainledger estimate`` and
``trainledger compare`` show people, in English and Simplified Chinese side by side.

``MESSAGES`` maps a message id to ``(english, chinese)`` templates with named ``{placeholders}``
(``str.format`` syntax); both languages of one id use the same placeholders (a test checks it).

Sentences are built as ``Msg(id, **params)``: a ``str`` whose value is the English text — what
the JSON contract, the sampler's input names (they seed the random streams) and every existing
consumer see — that also remembers its id and parameters, so ``msg.text("zh-CN")`` renders it in
Chinese. ``Term(value)`` is a vocabulary value (task type, labor role, phase): the identifier in
English, its ``trainledger.model.vocab`` label in Chinese. Parameters that are ``Msg``/``Term``
render in the same language as their message; lists are joined with ", " or "、".

The JSON output keeps the English text where it always was and adds a parallel ``*_zh`` field
(``warnings_zh``, ``notes_zh``, ``name_zh``, ``note_zh`` …) — see ``bilingual``. Sources and
citations of the assumptions drawer are references and stay as written.
"""

from __future__ import annotations

from string import Formatter

from trainledger.model.vocab import label

MESSAGES: dict[str, tuple[str, str]] = {
    # ---------------------------------------------------------------- report headings and labels
    "label.title": ("Training budget estimate", "训练预算估算"),
    "label.compare_title": ("Procurement comparison", "采购方式对比"),
    "label.task": ("Task type", "任务类型"),
    "label.main_cost": ("Where the money usually goes", "主要开销"),
    "label.priced_on": ("Prices as of", "价格日期"),
    "label.price_book": ("Price book", "价目表"),
    "label.currency": ("Currency", "币种"),
    "label.warnings": ("Warnings", "警告"),
    "label.notes": ("Notes", "说明"),
    "label.result": ("Result (P10 / P50 / P90)", "估算结果（P10 / P50 / P90）"),
    "label.figure": ("Figure", "项目"),
    "label.effective_gpu_hours": ("Effective GPU-hours (final run)", "有效卡时（最终运行）"),
    "label.gpu_hours": ("GPU-hours with overhead (final run)", "含额外占用的卡时（最终运行）"),
    "label.programme_gpu_hours": ("GPU-hours, whole programme (all rounds)", "全部实验轮次的卡时"),
    "label.wallclock_days": ("Wall-clock days on {n} GPUs", "{n} 卡上的日历天数"),
    "label.mfu": ("Utilisation (MFU)", "算力利用率（MFU）"),
    "label.overhead": ("Overhead factor", "额外占用系数"),
    "label.rounds": ("Experiment rounds", "实验轮次系数"),
    "label.cost_compute": ("Compute, all rounds", "算力（全部轮次）"),
    "label.cost_data": ("Data", "数据"),
    "label.cost_labor": ("Labor", "人力"),
    "label.cost_total": ("Total programme budget", "总预算（全部轮次）"),
    "label.final_compute": ("Final run: compute", "最终运行：算力"),
    "label.final_labor": ("Final run: one round of run labor", "最终运行：一轮运行人力"),
    "label.final_total": ("Final run: total", "最终运行：合计"),
    "label.memory": ("Memory and GPU count", "显存与卡数"),
    "label.per_gpu": ("Memory per GPU", "每卡显存"),
    "label.min_gpus": ("Minimum GPUs", "最少卡数"),
    "label.strategy": ("Least-GPU strategy", "最省卡的并行策略"),
    "label.training_strategy": ("Strategy costed for the run", "计价所用的并行策略"),
    "label.dominant": ("Dominant term", "显存主导项"),
    "label.why": ("Why", "原因"),
    "label.gpu": ("Accelerator", "加速卡"),
    "label.lines": ("Data and labor lines", "数据与人力明细"),
    "label.line": ("Line", "明细"),
    "label.sensitivity": ("What moves the total most (tornado)", "对总预算影响最大的假设（龙卷风图）"),
    "label.input": ("Input", "输入项"),
    "label.input_range": ("Input P10 - P90", "输入项 P10 – P90"),
    "label.total_at": ("Total at input P10 / P90", "输入项取 P10 / P90 时的总预算"),
    "label.swing": ("Swing", "摆幅"),
    "label.inference": (
        "Inference (serving) — separate, never added to training",
        "推理（长期服务）——单独估算，不计入训练",
    ),
    "label.monthly": ("Per month", "每月"),
    "label.gpu_hours_month": ("GPU-hours per month", "每月卡时"),
    "label.storage_month": ("Retrieval index storage per month", "检索索引每月存储费"),
    "label.over_months": ("Over {m} months", "{m} 个月合计"),
    "label.drawer": ("Assumptions drawer", "假设抽屉"),
    "label.name": ("Name", "名称"),
    "label.value": ("Value or range", "取值或区间"),
    "label.unit": ("Unit", "单位"),
    "label.evidence": ("Evidence", "证据等级"),
    "label.source": ("Source", "来源"),
    "label.owner": ("Owner to confirm", "待确认人"),
    "label.note": ("Note", "备注"),
    "label.option": ("Option", "方案"),
    "label.total": ("Total over {y} years", "{y} 年合计"),
    "label.per_hour": ("Per used GPU-hour", "每实际使用卡时"),
    "label.basis": ("Basis", "口径"),
    "label.unavailable": ("not available", "不可用"),
    "label.not_added": ("not added to any training figure", "不计入任何训练数字"),
    "label.fleet": ("GPU", "加速卡 × 卡数"),
    "label.demand": ("demand GPU-h/yr (P10/P50/P90)", "每年需求卡时（P10 / P50 / P90）"),
    "label.line_of": ("{group}: {line}", "{group}：{line}"),
    "label.labor_line": ("{phase} / {role}", "{phase} / {role}"),
    "mem.per_gpu_at": ("{gib:.1f} GiB @ {n} GPUs", "{gib:.1f} GiB（按 {n} 卡计）"),
    "mem.training_strategy": ("{strategy} ({gib:.1f} GiB/GPU)", "{strategy}（每卡 {gib:.1f} GiB）"),
    # ---------------------------------------------------------------- where the money goes, by task type
    "task.main_cost.pretrain": ("compute, and overwhelmingly so", "算力，且占绝对大头"),
    "task.main_cost.continued_pretrain": (
        "compute plus licensing of high-quality corpora",
        "算力，加上高质量语料的授权费",
    ),
    "task.main_cost.full_finetune": (
        "moderate compute; data and evaluation dominate",
        "算力中等，数据与评测是主要开销",
    ),
    "task.main_cost.lora": ("little compute; mostly data and people", "算力很少，主要花在数据和人力上"),
    "task.main_cost.qlora": ("little compute; mostly data and people", "算力很少，主要花在数据和人力上"),
    "task.main_cost.rag": (
        "data preparation and retrieval quality; almost no training compute",
        "数据整理与检索质量，几乎不消耗训练算力",
    ),
    # ---------------------------------------------------------------- guided mode (--guided)
    "guided.q_weights": ("Do the model's weights change?", "需要改动模型权重吗？"),
    "guided.q_labelled": (
        "How many labelled samples? (0 = raw text only)",
        "有多少条标注样本？（0 表示只有原始语料）",
    ),
    "guided.q_rounds": ("Will it run for several rounds?", "是否计划跑多轮实验？"),
    "guided.q_existing": ("Starting from an existing model?", "是否基于已有模型继续训练？"),
    "guided.task_type": ("Task type: {task}", "任务类型：{task}"),
    "guided.ask_params": ("Parameters (e.g. 7B)", "参数量（如 7B）"),
    "guided.ask_tokens": ("Training tokens (e.g. 20M)", "训练 token 数（如 20M）"),
    "guided.ask_gpu": ("Accelerator id (e.g. a100-80gb)", "加速卡型号（如 a100-80gb）"),
    "reason.several_rounds": (
        "several rounds planned: budget 2-6 final-run equivalents",
        "计划跑多轮：预算按 2–6 次最终运行的量预留",
    ),
    "reason.one_round": (
        "one main run planned: still budget 1-2 runs for the usual retry",
        "计划只跑一次主训练：预算仍按 1–2 次运行预留，以备常见的重跑",
    ),
    "reason.no_weight_change": (
        "the weights do not change: this is prompting plus retrieval, not training",
        "不改动权重：这是提示词加检索（RAG），不是训练",
    ),
    "reason.continued_pretrain": (
        "weights change, no labelled samples, starting from an existing model: continued pre-training on raw text",
        "改动权重、没有标注样本、基于已有模型：在原始语料上继续预训练",
    ),
    "reason.pretrain": (
        "weights change, no labelled samples, no starting model: pre-training from scratch — compute will "
        "dominate the bill",
        "改动权重、没有标注样本、没有基础模型：从零预训练——算力将是压倒性的开销",
    ),
    "reason.peft": (
        "weights change with {n:,} labelled samples: a fine-tune; parameter-efficient (adapters) usually "
        "suffices at this size{qlora}",
        "改动权重，有 {n:,} 条标注样本：属于微调；这个规模用参数高效微调（适配器）通常就够了{qlora}",
    ),
    "reason.qlora_suffix": (
        " and 4-bit base weights fit small GPUs (QLoRA)",
        "；底座权重量化到 4 比特后，小显存的卡也放得下（QLoRA）",
    ),
    "reason.full_finetune": (
        "weights change with {n:,} labelled samples: full fine-tuning; data and evaluation, not compute, are "
        "usually the larger cost",
        "改动权重，有 {n:,} 条标注样本：全参微调；通常数据与评测比算力更贵",
    ),
    # ---------------------------------------------------------------- warnings
    "warn.implausible_pretrain": (
        "implausible: pre-training {params} parameters on only {tokens} tokens (fewer tokens than parameters; "
        "compute-optimal is ~{ratio} tokens per parameter, Hoffmann et al. 2022)",
        "不合理：用仅 {tokens} 个 token 从零预训练 {params} 参数的模型（token 数少于参数量；"
        "按 Hoffmann et al. 2022，算力最优约为每个参数 {ratio} 个 token）",
    ),
    "warn.gpus_not_multiple": (
        "--gpus {gpus} is not a multiple of tensor x pipeline parallel {mp}: some GPUs would idle",
        "--gpus {gpus} 不是张量并行 × 流水线并行度 {mp} 的整数倍：会有卡闲置",
    ),
    "warn.proxy_price": (
        "no price for {item!r}: priced like the nearest catalog accelerator {near} ({tflops:g} TFLOP/s, "
        "{gb:g} GB) — pass --price-item or add your own price",
        "价目表中没有 {item!r} 的价格：按目录中最接近的加速卡 {near}（{tflops:g} TFLOP/s，{gb:g} GB）"
        "计价——请用 --price-item 指定，或在价目表中补上自己的价格",
    ),
    "warn.placeholders": (
        "placeholders used for {items}: assumed by task type, each needs its owner's confirmation — give "
        "[data] / [labor] in a spec (--from)",
        "以下输入沿用了按任务类型给出的占位值：{items}。这些都是假设，需由各自负责人确认——"
        "请在规格文件（--from）的 [data] / [labor] 中填写实际计划",
    ),
    "warn.ph.data.licensing": ("data licensing", "数据授权费（[data] licensing）"),
    "warn.ph.data.cleaning_person_months": (
        "data cleaning_person_months",
        "数据清洗人月（[data] cleaning_person_months）",
    ),
    "warn.ph.data.labelled_items": ("data labelled_items", "标注条数（[data] labelled_items）"),
    "warn.ph.data.review_fraction": ("data review_fraction", "复核比例（[data] review_fraction）"),
    "warn.ph.data.eval_items": ("data eval_items", "评测集条数（[data] eval_items）"),
    "warn.ph.labor.build": ("labor build", "一次性建设人力（[labor.build]）"),
    "warn.ph.labor.run": ("labor run", "每轮运行人力（[labor.run]）"),
    "warn.long_run": (
        "the final run takes ~{days:.0f} days on {gpus} GPUs at P50: pass --gpus with the cluster size you "
        "will really have",
        "按 P50，最终运行在 {gpus} 张卡上约需 {days:.0f} 天：请用 --gpus 填写实际能拿到的集群规模",
    ),
    "warn.fx_expired": (
        "FX rate {key} dated {day} has expired ({origin})",
        "汇率 {key}（日期 {day}）已过期（{origin}）",
    ),
    "warn.stale_prices": (
        "{n} stale price(s) on {on}, used only as flagged assumptions: {items} — update {path}",
        "截至 {on} 有 {n} 个过期价格，仅作为已标记的假设使用：{items}——请更新价目表 {path}",
    ),
    "price.stale_item": ("{item} ({why})", "{item}（{why}）"),
    "price.expired": ("expired {day}", "已于 {day} 过期"),
    "price.not_yet": ("effective only from {day}", "{day} 起才生效"),
    # ---------------------------------------------------------------- notes
    "note.rag_route": (
        "rag changes no weights: there is no training compute to estimate. Budget instead: document cleaning "
        "and chunking and an evaluation set ([data]), the retrieval index (embedding the corpus, vector-store "
        "storage) and serving ([inference]), and the people who own answer quality ([labor]).",
        "RAG 不改动模型权重，没有训练算力可估。请改为估算：文档清洗与切分、评测集（[data]）；"
        "检索索引（语料向量化、向量库存储）与推理服务（[inference]）；以及对回答质量负责的人力（[labor]）。",
    ),
    "note.selective_no_fit": (
        "selective recomputation does not fit at this GPU count: the run is costed with full recomputation "
        "(+~33% hardware FLOPs)",
        "在这个卡数下选择性重计算放不下显存：本次按完全重计算计价（硬件 FLOPs 约多 33%）",
    ),
    "note.gpus_chosen": (
        "no --gpus given: costed on {gpus} GPU(s), chosen so the final run takes about {days} days at the "
        "most likely utilisation (at least the least-GPU minimum, whole 8-GPU nodes); pass --gpus for yours",
        "未指定 --gpus：按 {gpus} 张卡计价——按最可能的利用率，使最终运行约 {days} 天跑完"
        "（不少于最少卡数，按整台 8 卡节点取整）；请用 --gpus 填写实际卡数",
    ),
    # ---------------------------------------------------------------- overhead calibration (ledger history)
    "hist.no_workspace": (
        "no workspace given: overhead from sourced priors",
        "未指定工作区：额外占用系数取有出处的先验值",
    ),
    "hist.no_hook": (
        "ledger history hook not available: overhead from sourced priors",
        "台账历史接口不可用：额外占用系数取有出处的先验值",
    ),
    "hist.unreadable": (
        "no ledger history read from workspace {workspace!r} ({error}): overhead from sourced priors",
        "未能从工作区 {workspace!r} 读到台账历史（{error}）：额外占用系数取有出处的先验值",
    ),
    "hist.empty": (
        "workspace has no finished batches yet: overhead from sourced priors",
        "工作区还没有已完成的批次：额外占用系数取有出处的先验值",
    ),
    "hist.calibrated": (
        "overhead calibrated from {n} finished batch(es) of the workspace",
        "额外占用系数已按工作区 {n} 个已完成批次校准",
    ),
    "hist.calibrated_dropped": (
        "overhead calibrated from {n} finished batch(es) of the workspace; {dropped} with a ratio below 0.99 "
        "ignored as inconsistent",
        "额外占用系数已按工作区 {n} 个已完成批次校准；另有 {dropped} 个批次比值低于 0.99，数据不一致，已忽略",
    ),
    "hist.none_given": ("no ledger history given", "未提供台账历史"),
    "src.history_all": (
        "{n} finished batches of this workspace (actual / effective GPU-hours): min, median, max",
        "本工作区 {n} 个已完成批次的实际卡时 / 有效卡时：取最小值、中位数、最大值",
    ),
    "src.history_widened": (
        "{n} finished batch(es) of this workspace (median {median:.3g}), range widened to the sourced prior "
        "({low:g}-{high:g}) because fewer than {min_batches} batches exist; prior: {prior}",
        "本工作区 {n} 个已完成批次（中位数 {median:.3g}）；已完成批次不足 {min_batches} 个，"
        "区间放宽到有出处的先验（{low:g}-{high:g}）；先验出处：{prior}",
    ),
    # ---------------------------------------------------------------- assumption (input) names
    "name.mfu": ("MFU ({family}, {size} model, pre-training)", "MFU（{family} 架构，{size}模型，预训练实测）"),
    "size.small": ("small", "小"),
    "size.medium": ("medium", "中等规模"),
    "size.large": ("large", "大"),
    "name.moe": ("MoE utilisation factor", "MoE 利用率系数"),
    "name.fp8": ("FP8 end-to-end speed-up over BF16", "FP8 相对 BF16 的端到端加速比"),
    "name.finetune": ("fine-tuning utilisation factor", "微调利用率系数"),
    "name.qlora": ("QLoRA dequantisation factor", "QLoRA 反量化系数"),
    "name.overhead": ("overhead factor (allocated / effective GPU-hours)", "额外占用系数（分配卡时 / 有效卡时）"),
    "name.rounds": ("experiment rounds (final-run equivalents)", "实验轮次（折合最终运行次数）"),
    "name.acc_memory": ("{acc} memory", "{acc} 显存"),
    "name.acc_peak": ("{acc} dense BF16 peak", "{acc} BF16 稠密峰值算力"),
    "name.model_shape": ("model shape (derived)", "模型结构（推导值）"),
    "name.recompute": ("activation recomputation", "激活重计算"),
    "name.scale": ("scale: {gpus} accelerators", "规模：{gpus} 张加速卡"),
    "name.fp32": ("fp32 (TF32) training", "fp32（TF32）训练"),
    "recompute.none": ("none", "不做"),
    "recompute.selective": ("selective", "选择性"),
    "recompute.full": ("full", "完全"),
    "name.recompute_vs_selective": (
        "recompute {recompute} vs selective (hardware FLOPs)",
        "{recompute} 重计算相对选择性重计算（硬件 FLOPs）",
    ),
    "name.overhead_calibration": ("overhead calibration", "额外占用系数校准"),
    "name.price": ("price {item}", "单价 {item}"),
    "name.proxy_price": ("price gpu_hour (proxy: {acc})", "单价 gpu_hour（替代：{acc}）"),
    "name.server_price": ("server price ({acc})", "服务器单价（{acc}）"),
    "name.fx": ("FX {pair}", "汇率 {pair}"),
    "name.data.licensing": ("data: licensing", "数据：授权费"),
    "name.data.cleaning_person_months": ("data: cleaning person months", "数据：清洗工作量（人月）"),
    "name.data.labelled_items": ("data: labelled items", "数据：标注条数"),
    "name.data.review_fraction": ("data: review fraction", "数据：复核比例"),
    "name.data.eval_items": ("data: eval items", "数据：评测集条数"),
    "name.data.extra": ("data: {name}", "数据：{name}"),
    "name.labor.build": ("labor build: {role} (one-time)", "一次性建设人力：{role}"),
    "name.labor.run": ("labor run: {role} (per round)", "每轮运行人力：{role}"),
    "name.inf_requests": ("inference: requests per day", "推理：每日请求量"),
    "name.inf_tokens": ("inference: tokens per request", "推理：每次请求的 token 数"),
    "name.serving_mfu": ("serving FLOP utilisation", "推理算力利用率（FLOP）"),
    "name.serving_util": ("serving fleet utilisation", "推理集群利用率"),
    "name.index_size": ("retrieval index size", "检索索引大小"),
    "name.demand": ("demand (GPU-hours per year)", "需求（每年卡时）"),
    "name.utilisation": ("fleet utilisation (share of hours used)", "集群利用率（实际使用时长占比）"),
    "name.exit_data": ("exit: data to move out", "退出：需迁出的数据量"),
    "name.reserved_discount": ("reserved discount vs on-demand", "预留相对按需的折扣"),
    "name.platform_markup": ("managed platform markup over on-demand", "托管平台相对按需的加价倍数"),
    "name.external_fee": ("external service fee per year", "外部服务年费"),
    "name.server_power": ("server power ({cls}-class, max)", "服务器功率（{cls} 级，峰值）"),
    "name.power_load": ("average power load (share of max)", "平均功率负载（占峰值比例）"),
    "name.pue": ("PUE", "PUE（电能使用效率）"),
    "name.ops_fte": ("operations staff (FTE per 256 GPUs)", "运维人员（每 256 卡的全职人数）"),
    "name.support": ("support contract (share of capex per year)", "维保合同（每年占采购额比例）"),
    "name.residual": ("resale value at the end (share of capex)", "期末残值（占采购额比例）"),
    # ---------------------------------------------------------------- assumption values, notes, sources
    "value.model_shape": (
        "{layers} layers, hidden {hidden}, {heads} heads, vocab {vocab}",
        "{layers} 层，隐藏维度 {hidden}，{heads} 个注意力头，词表 {vocab}",
    ),
    "value.sourced_prior": ("sourced prior", "有出处的先验值"),
    "note.give_shape": ("give --layers/--hidden for the real shape", "请用 --layers / --hidden 给出真实结构"),
    "note.mode": ("mode {mode}", "最可能值 {mode}"),
    "note.mode_and": ("mode {mode}; {note}", "最可能值 {mode}；{note}"),
    "note.price": ("{origin}; effective {effective}", "{origin}；{effective} 起生效"),
    "note.price_expires": (
        "{origin}; effective {effective}, expires {expires}",
        "{origin}；{effective} 起生效，{expires} 到期",
    ),
    "note.stale": ("STALE: {note}", "过期价格：{note}"),
    "note.converted": ("{note}; converted from {ccy}", "{note}；由 {ccy} 换算"),
    "note.converted_only": ("converted from {ccy}", "由 {ccy} 换算"),
    "note.fx_dated": ("rate dated {day}", "汇率日期 {day}"),
    "note.proxy": ("proxy for an accelerator outside the catalog; {note}", "目录外加速卡的替代价格；{note}"),
    "src.requester_rounds": ("requester (--rounds)", "需求方（--rounds）"),
    "src.requester_utilisation": ("requester (--utilisation)", "需求方（--utilisation）"),
    "src.requester": ("requester", "需求方"),
    "src.external_quote": (
        "requester (--external-per-year): a vendor's quote",
        "需求方（--external-per-year）：供应商报价",
    ),
    "src.recompute_default": (
        "default: selective when it fits (Korthikanti et al. 2022)",
        "默认：放得下时用选择性重计算（Korthikanti et al. 2022）",
    ),
    "src.spec_table": ("spec {table}", "规格文件 {table}"),
    "src.placeholder": (
        "trainledger placeholder by task type — no public base rate; replace with your plan in the spec's "
        "[data] and [labor] tables",
        "trainledger 按任务类型给出的占位值——没有公开的基准数据；请在规格文件的 [data] 和 [labor] 表中填写你的计划",
    ),
    "src.user_accelerator": (
        "user input (--gpu-memory-gb / --peak-tflops)",
        "用户输入（--gpu-memory-gb / --peak-tflops）",
    ),
    "acc.custom": ("custom accelerator ({gb:g} GB, {tflops:g} TFLOPS)", "自定义加速卡（{gb:g} GB，{tflops:g} TFLOPS）"),
    "acc.overridden": ("{name} (overridden)", "{name}（参数已覆盖）"),
    # ---------------------------------------------------------------- units (drawer and tornado)
    "unit.x": ("x", "倍"),
    "unit.fraction": ("fraction", "比例"),
    "unit.fraction of dense BF16 peak": ("fraction of dense BF16 peak", "占 BF16 稠密峰值的比例"),
    "unit.person_month": ("person_month", "人月"),
    "unit.person_hour": ("person_hour", "人时"),
    "unit.item": ("item", "条"),
    "unit.gpu_hour": ("gpu_hour", "卡时"),
    "unit.node_hour": ("node_hour", "节点时"),
    "unit.each": ("each", "台"),
    "unit.kwh": ("kwh", "kWh"),
    "unit.kw_month": ("kw_month", "kW·月"),
    "unit.gb": ("gb", "GB"),
    "unit.gb_month": ("gb_month", "GB·月"),
    "unit.mtok": ("mtok", "百万 token"),
    "unit.token": ("token", "token"),
    "unit.request/day": ("request/day", "请求/天"),
    "unit.fx": ("{quote} per {base}", "{quote}（每 1 {base}）"),
    # ---------------------------------------------------------------- owners who confirm an assumption
    "owner.requester": ("requester", "需求方"),
    "owner.platform team": ("platform team", "平台团队"),
    "owner.procurement": ("procurement", "采购"),
    "owner.finance": ("finance", "财务"),
    "owner.facilities": ("facilities", "机房设施"),
    "owner.data lead": ("data lead", "数据负责人"),
    "owner.project lead": ("project lead", "项目负责人"),
    "owner.serving team": ("serving team", "推理服务团队"),
    "owner.unassigned": ("unassigned", "未指定"),
    # ---------------------------------------------------------------- memory terms (the dominant one)
    "term.weights": ("weights", "权重"),
    "term.gradients": ("gradients", "梯度"),
    "term.optimizer_states": ("optimizer states", "优化器状态（含 fp32 主权重）"),
    "term.activations": ("activations", "激活值"),
    "term.zero3_buffers": ("zero3 buffers", "ZeRO-3 参数聚合缓冲"),
    "term.runtime_reserve": ("runtime reserve", "运行时预留"),
    "memory.why": (
        "{term} dominate ({share:.0%} of {total:.1f} GiB per GPU); model states total {bpp:.2f} "
        "bytes/parameter before sharding ({precision}, {optimizer}{peft}), sharded by {strategy}",
        "{term}占主导（占每卡 {total:.1f} GiB 的 {share:.0%}）；分片前模型状态共 {bpp:.2f} 字节/参数"
        "（{precision}，{optimizer}{peft}），分片方式 {strategy}",
    ),
    "memory.peft": (", {task}", "，{task}"),
    # ---------------------------------------------------------------- data lines
    "line.licensing": ("licensing", "授权费"),
    "line.cleaning": ("cleaning", "清洗与去重"),
    "line.labelling": ("labelling", "标注"),
    "line.eval_set": ("eval_set", "评测集"),
    "line.validation": ("validation", "复核"),
    # ---------------------------------------------------------------- compare (procurement)
    "compare.basis": (
        "cash to serve the same demand for the same years; own hardware amortised (purchase - resale); "
        "exit costs included",
        "同等需求、同样年限所需的现金；自建硬件按摊销计（采购额减残值）；含退出成本",
    ),
    "compare.option.on_demand": ("on_demand", "按需租用"),
    "compare.option.reserved": ("reserved", "预留实例"),
    "compare.option.own": ("own", "自建（自购硬件）"),
    "compare.option.platform": ("platform", "托管平台"),
    "compare.option.external_service": ("external_service", "外部服务"),
    "compare.basis.billed": ("billed", "账单现金"),
    "compare.basis.billed_reserved": ("billed (unused reservation included)", "账单现金（含预留未使用部分）"),
    "compare.basis.amortized": ("amortized", "摊销"),
    "compare.line.rent": ("rent", "租金"),
    "compare.line.exit_egress": ("exit_egress", "退出：数据迁出流量费"),
    "compare.line.reservation": ("reservation", "预留费用"),
    "compare.line.overflow_on_demand": ("overflow_on_demand", "超出容量部分按需租用"),
    "compare.line.purchase": ("purchase", "硬件采购"),
    "compare.line.power": ("power", "电费"),
    "compare.line.colocation": ("colocation", "机柜托管"),
    "compare.line.operations_staff": ("operations_staff", "运维人力"),
    "compare.line.support": ("support", "维保"),
    "compare.line.exit_resale": ("exit_resale", "退出：硬件残值回收"),
    "compare.line.platform": ("platform", "平台费用"),
    "compare.line.vendor": ("vendor", "供应商费用"),
    "compare.own_no_price": (
        "{path}: no price for {item!r}",
        "价目表 {path} 中没有 {item!r} 的价格，无法估算自建方案",
    ),
    "compare.own_unavailable": ("{reason}", "无法估算自建方案：{reason}"),
    # ---------------------------------------------------------------- CLI
    "cli.warning": ("warning: {text}", "警告：{text}"),
}

ZH_LIST_SEP = "、"
EN_LIST_SEP = ", "


def is_zh(lang: str) -> bool:
    return lang.lower().startswith("zh")


def _param(value: object, lang: str) -> object:
    if isinstance(value, Msg | Term):
        return value.text(lang)
    if isinstance(value, list | tuple):
        sep = ZH_LIST_SEP if is_zh(lang) else EN_LIST_SEP
        return sep.join(str(_param(v, lang)) for v in value)
    return value


def text(msg_id: str, lang: str = "en", **params: object) -> str:
    """Message ``msg_id`` in ``lang`` (``en`` or ``zh-CN``) with its placeholders filled in."""
    en, zh = MESSAGES[msg_id]
    template = zh if is_zh(lang) else en
    return template.format(**{k: _param(v, lang) for k, v in params.items()})


def placeholders(template: str) -> set[tuple[str, str | None, str]]:
    """``{(name, conversion, format spec)}`` of a template: what a translation must keep."""
    return {(name, conv, spec or "") for _, name, spec, conv in Formatter().parse(template) if name is not None}


class Msg(str):
    """A catalogue message: the ``str`` is its English text; ``.text(lang)`` renders any language."""

    id: str
    params: dict

    def __new__(cls, msg_id: str, /, **params: object) -> Msg:
        obj = super().__new__(cls, text(msg_id, "en", **params))
        obj.id = msg_id
        obj.params = params
        return obj

    def __getnewargs_ex__(self) -> tuple[tuple, dict]:
        return (self.id,), self.params

    def text(self, lang: str) -> str:
        return text(self.id, lang, **self.params)

    @property
    def zh(self) -> str:
        return self.text("zh-CN")

    def __repr__(self) -> str:
        return f"Msg({self.id!r}, {str.__repr__(self)})"


class Term(str):
    """A vocabulary value (task type, labor role, phase): itself in English, its label in Chinese."""

    def text(self, lang: str) -> str:
        return label(str(self), lang) if is_zh(lang) else str(self)

    @property
    def zh(self) -> str:
        return self.text("zh-CN")


def tr(value: object, lang: str) -> str:
    """Any text in ``lang``: a ``Msg``/``Term`` rendered, anything else as it is."""
    if isinstance(value, Msg | Term):
        return value.text(lang)
    return "" if value is None else str(value)


def unit_text(unit: str, lang: str) -> str:
    """A unit in ``lang``: ``person_month`` -> 人月, ``USD/person_month`` -> USD/人月."""
    if isinstance(unit, Msg):
        return unit.text(lang)
    unit = str(unit)
    if not is_zh(lang) or not unit:
        return unit
    if f"unit.{unit}" in MESSAGES:
        return text(f"unit.{unit}", lang)
    head, sep, tail = unit.partition("/")
    if sep and len(head) == 3 and head.isalpha() and head.isupper():  # a currency per a unit
        return f"{head}/{unit_text(tail, lang)}"
    return unit


def owner_text(owner: str, lang: str) -> str:
    """An owner role in ``lang`` (free-text owners, such as a person's name, stay as written)."""
    if isinstance(owner, Msg):
        return owner.text(lang)
    key = f"owner.{owner}"
    return text(key, lang) if is_zh(lang) and key in MESSAGES else str(owner)


def fixed(prefix: str, key: str, lang: str) -> str:
    """A fixed vocabulary entry ``prefix.key`` in ``lang``; the key itself when not catalogued."""
    msg_id = f"{prefix}.{key}"
    return text(msg_id, lang) if msg_id in MESSAGES else str(key)


_ZH_OF = {"unit": unit_text, "owner": owner_text}


def bilingual(d: dict, keys: tuple[str, ...] = ("name", "value", "unit", "owner", "note", "source")) -> dict:
    """``d`` with plain-``str`` values and, after each of ``keys`` whose Chinese differs, ``<key>_zh``.

    The English fields stay exactly as they were (the JSON contract); ``<key>_zh`` is absent when
    the text reads the same in both languages (numbers, identifiers, references).
    """
    out: dict = {}
    for k, v in d.items():
        out[k] = str(v) if isinstance(v, str) else v
        if k in keys and isinstance(v, str):
            zh = _ZH_OF.get(k, tr)(v, "zh-CN")
            if zh != out[k]:
                out[f"{k}_zh"] = zh
    return out


def both(items) -> tuple[list[str], list[str]]:
    """(English texts, Chinese texts) of a list of messages — the JSON's ``x`` and ``x_zh``."""
    return [str(m) for m in items], [tr(m, "zh-CN") for m in items]


__all__ = [
    "MESSAGES",
    "Msg",
    "Term",
    "bilingual",
    "both",
    "fixed",
    "is_zh",
    "owner_text",
    "placeholders",
    "text",
    "tr",
    "unit_text",
]
