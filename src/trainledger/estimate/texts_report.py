"""Message texts of the estimator (where the money goes, guided mode, warnings, notes, calibration):
``id -> (English, Chinese)`` templates, merged into ``messages.MESSAGES`` (see ``messages.py`` for the
rules: both languages, the same placeholders). The reports' headings and labels are report/'s
(report/texts_estimate.py)."""

from __future__ import annotations

REPORT: dict[str, tuple[str, str]] = {
    "scope.min_gpus": (
        "least-GPU plan over the on-GPU options the request leaves open ({searched}); as given: {given}; {offload}",
        "最省卡方案：在请求未指定的显存内选项中搜索（{searched}）；已指定：{given}；{offload}",
    ),
    "scope.offload_not_searched": (
        "CPU offload not searched (your nodes' host memory is not known): pass --offload to plan with it "
        "and see the host memory it needs",
        "未搜索 CPU 卸载（工具不知道你节点的主机内存）：如需卸载请用 --offload 指定，并查看所需主机内存",
    ),
    "scope.offload_given": ("CPU offload as given", "CPU 卸载按指定方式"),
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
        "several rounds planned: budget {low:.3g}-{high:.3g} final-run equivalents (the task type's prior)",
        "计划跑多轮：按该任务类型的先验，预算按 {low:.3g}–{high:.3g} 次最终运行的量预留",
    ),
    "reason.one_round": (
        "one main run planned: still budget {low:.3g}-{high:.3g} final-run equivalents for the usual retries "
        "(the task type's prior, extra rounds scaled down)",
        "计划只跑一次主训练：预算仍按 {low:.3g}–{high:.3g} 次最终运行预留，以备常见的重跑"
        "（该任务类型的先验，额外轮次按比例缩小）",
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
    "warn.host_memory": (
        "CPU offload needs {need:.0f} GiB of host memory per 8-GPU node, more than the {have:.0f} GiB of a typical "
        "node ({source}): use more GPUs, offload less, or check your nodes' memory",
        "CPU 卸载每台 8 卡节点需要 {need:.0f} GiB 主机内存，超过典型节点的 {have:.0f} GiB（{source}）："
        "请增加卡数、减少卸载内容，或核对节点内存",
    ),
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
    "warn.stale_sample_prices": (
        "{n} stale price(s) on {on}, used only as flagged assumptions: {items} — these are the shipped sample "
        "price book's: write your own price book and name it in trainledger.toml (workspace.price_book) or pass "
        "--price-book FILE",
        "截至 {on} 有 {n} 个过期价格，仅作为已标记的假设使用：{items}——它们来自随软件附带的示例价目表："
        "请编写自己的价目表，在 trainledger.toml 中指定（workspace.price_book），或用 --price-book FILE 传入",
    ),
    "warn.history_unreadable": (
        "the ledger history of workspace {workspace!r} could not be read ({error}: {message}): the overhead "
        "factor falls back to the sourced prior; fix the workspace to calibrate it",
        "无法读取工作区 {workspace!r} 的台账历史（{error}：{message}）：额外占用系数改用有出处的先验值；"
        "修复工作区后即可按历史校准",
    ),
    "warn.workspace_book_unreadable": (
        "the configuration of workspace {workspace!r} could not be read ({error}): priced with {book} instead "
        "of the workspace's own price book, currency and labor rates; fix the workspace",
        "无法读取工作区 {workspace!r} 的配置（{error}）：改用 {book} 计价，而不是工作区自己的价目表、币种和人力费率；"
        "请修复工作区",
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
    "note.plan_table_ignored": (
        "the spec's [plan] table is for `trainledger plan --from-estimate` (docs/plan.md): the estimate "
        "does not read it",
        "规格文件中的 [plan] 表供 `trainledger plan --from-estimate` 使用（docs/plan.md）：预估不读取它",
    ),
    "note.workspace_book": (
        "priced with workspace {root}'s own book: {book}, in {currency}; labor rates from its trainledger.toml "
        "[[labor_rates]] ({roles})",
        "按工作区 {root} 自己的价目计价：{book}，币种 {currency}；人力费率取自其 trainledger.toml 的 "
        "[[labor_rates]]（{roles}）",
    ),
    "note.host_memory": (
        "CPU offload needs {need:.0f} GiB of host memory per 8-GPU node (DeepSpeed's estimators, x1.5 buffers)",
        "CPU 卸载每台 8 卡节点需要 {need:.0f} GiB 主机内存（按 DeepSpeed 估算公式，含 1.5 倍缓冲）",
    ),
    "note.selective_no_fit": (
        "selective recomputation does not fit on {gpus} GPUs (it needs {n}): the run is costed with full "
        "recomputation (+~33% hardware FLOPs)",
        "在 {gpus} 张卡上选择性重计算放不下显存（至少需要 {n} 张）：本次按完全重计算计价（硬件 FLOPs 约多 33%）",
    ),
    "note.selective_no_fit_any": (
        "selective recomputation fits on no number of GPUs: the run is costed with full recomputation "
        "(+~33% hardware FLOPs)",
        "选择性重计算在任何卡数下都放不下显存：本次按完全重计算计价（硬件 FLOPs 约多 33%）",
    ),
    "note.gpus_chosen_memory": (
        "no --gpus given: costed on {gpus} GPU(s), the fewest that hold the costed setup{rounded}; on them the "
        "final run takes {days:.3g} days (P50); pass --gpus for yours",
        "未指定 --gpus：按 {gpus} 张卡计价——能放下计价方案的最少卡数{rounded}；在这些卡上最终运行约需 {days:.3g} 天"
        "（P50）；请用 --gpus 填写实际卡数",
    ),
    "note.gpus_chosen_schedule": (
        "no --gpus given: costed on {gpus} GPUs, chosen so the final run takes about {target} days at the most "
        "likely utilisation{rounded}; at P50 it takes {days:.3g} days; pass --gpus for yours",
        "未指定 --gpus：按 {gpus} 张卡计价——按最可能的利用率使最终运行约 {target} 天跑完{rounded}；"
        "P50 为 {days:.3g} 天；请用 --gpus 填写实际卡数",
    ),
    "note.rounded_nodes": (", rounded up to whole 8-GPU nodes", "，并按整台 8 卡节点向上取整"),
    # ---------------------------------------------------------------- overhead calibration (ledger history)
    "hist.no_workspace": (
        "no workspace given: overhead from sourced priors",
        "未指定工作区：额外占用系数取有出处的先验值",
    ),
    "hist.not_a_workspace": (
        "no workspace (no trainledger.toml in {workspace!r}): overhead from sourced priors",
        "未找到工作区（{workspace!r} 下没有 trainledger.toml）：额外占用系数取有出处的先验值",
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
}
