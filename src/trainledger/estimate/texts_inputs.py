"""Message texts of the inputs (assumption names, sources, units, owners, memory terms, compare):
``id -> (English, Chinese)`` templates, merged into ``messages.MESSAGES`` (see ``messages.py`` for
the rules: both languages, the same placeholders)."""

from __future__ import annotations

INPUTS: dict[str, tuple[str, str]] = {
    # ---------------------------------------------------------------- assumption (input) names
    "name.mfu": ("MFU ({family}, {size} model, pre-training)", "MFU（{family} 架构，{size}模型，预训练）"),
    "size.small": ("small", "小"),
    "size.medium": ("medium", "中等规模"),
    "size.large": ("large", "大"),
    "name.moe_compute": ("MoE expert compute efficiency", "MoE 专家计算效率系数"),
    "name.moe_a2a": ("MoE all-to-all (expert parallelism)", "MoE all-to-all 通信（专家并行）"),
    "name.moe_overlap": ("share of the all-to-all hidden behind compute", "all-to-all 被计算掩盖的比例"),
    "name.moe_efficiency": ("achieved all-to-all bandwidth / line rate", "all-to-all 实测带宽 / 标称带宽"),
    "overlap.none": ("no", "无"),
    "overlap.partial": ("partial", "部分"),
    "overlap.full": ("full", "完全"),
    "a2a.link": ("within one node over the GPU link", "节点内，经 GPU 互联"),
    "a2a.network": ("across nodes, the slower of the GPU link and the NIC", "跨节点，取 GPU 互联与网卡中较慢者"),
    "src.moe_a2a": (
        "ep {ep}, top-{top_k}, {overlap_level} overlap: {mb:.1f} MB per token and step ({layers} MoE "
        "layers x top-{top_k} x hidden {hidden}, {where}): all-to-all / compute r = {ratio:.2f} at the "
        "MFU mode; factor "
        "1 / (1 + (1 - overlap) x r / efficiency). Overlap: {overlap}. Efficiency: {eff}. Link: {link}",
        "专家并行 {ep} 路，top-{top_k}，{overlap_level}重叠：每个 token 每步 {mb:.1f} MB（{layers} 个 MoE 层 "
        "x top-{top_k} x 隐藏维度 {hidden}，{where}）：按 MFU 众数，all-to-all 时间 / 计算时间 r = {ratio:.2f}；系数 "
        "1 / (1 + (1 - 重叠比例) x r / 带宽效率)。重叠：{overlap}。带宽效率：{eff}。互联：{link}",
    ),
    "name.link_pcie": (
        "interconnect: {acc} over PCIe (no NVLink), data parallel",
        "互联：{acc} 经 PCIe（无 NVLink）数据并行",
    ),
    "name.link_reduced": (
        "interconnect: {acc} reduced NVLink under tensor parallelism",
        "互联：{acc} 的受限 NVLink，张量并行",
    ),
    "name.network": ("network between nodes: {network}", "节点间网络：{network}"),
    "name.network_choice": ("network between nodes", "节点间网络"),
    "network.infiniband": ("InfiniBand", "InfiniBand 网络"),
    "network.roce": ("RoCE", "RoCE 网络"),
    "network.ethernet": ("Ethernet without RDMA", "无 RDMA 的以太网"),
    "src.network_default": (
        "not given: InfiniBand assumed, the MFU sources' own fabric (factor 1); set network = roce or "
        "ethernet in the spec if your nodes use those",
        "未给出：假定为 InfiniBand，即 MFU 来源所用网络（系数 1）；若节点间为 RoCE 或以太网，请在规格中设置 network",
    ),
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
    "name.offload": ("CPU offload ({offload}): throughput vs no offload", "CPU 卸载（{offload}）：相对不卸载的吞吐"),
    "name.offload_choice": ("CPU offload", "CPU 卸载"),
    "name.paged_optimizer": ("QLoRA paged optimizer", "QLoRA 分页优化器"),
    "value.paged_optimizer": ("optimizer states counted on the GPU", "优化器状态按常驻显存计"),
    "src.paged_optimizer": (
        "QLoRA (Dettmers et al. 2023, arXiv:2305.14314) section 3: paged optimizers move optimizer states to CPU "
        "memory (NVIDIA unified memory) when a gradient-checkpointing spike would run the GPU out of memory, and "
        "back for the update; the plan counts the adapters' states on the GPU (the steady state), so a paged run "
        "fits at least where this one does — the 4-bit NF4 base is 4.127 bits/parameter (section 3)",
        "QLoRA（Dettmers 等 2023，arXiv:2305.14314）第 3 节：分页优化器在梯度检查点造成显存峰值时"
        "把优化器状态移到 CPU 内存（NVIDIA 统一内存），更新时再取回；本方案把适配器的优化器状态按常驻显存计，"
        "因此分页运行至少在本方案能放下的地方也能放下——4 位 NF4 底座按每参数 4.127 比特（第 3 节）",
    ),
    "name.attention": ("attention kernel", "注意力计算内核"),
    "name.useful_life": ("server useful life (straight-line)", "服务器使用年限（直线折旧）"),
    "name.resale_haircut": ("used-market price vs remaining book value", "二手市场价相对剩余账面价值"),
    "name.salvage_floor": ("resale floor (share of capex)", "残值下限（占采购额比例）"),
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
    # ---------------------------------------------------------------- assumption values, notes, sources
    "value.model_shape": (
        "{layers} layers, hidden {hidden}, {heads} heads, vocab {vocab}",
        "{layers} 层，隐藏维度 {hidden}，{heads} 个注意力头，词表 {vocab}",
    ),
    "value.sourced_prior": ("sourced prior", "有出处的先验值"),
    "value.flash_attention": ("FlashAttention (scores never stored)", "FlashAttention（不保存注意力分数）"),
    "value.no_flash_attention": ("standard attention (no FlashAttention)", "标准注意力（无 FlashAttention）"),
    "answer.yes": ("yes", "是"),
    "answer.no": ("no", "否"),
    "note.tail": (
        "mode {mode}; with probability {p:.0%} a troubled run: {low}-{high} (mode {tail_mode})",
        "最可能值 {mode}；有 {p:.0%} 的概率是一次出问题的运行：{low}-{high}（最可能值 {tail_mode}）",
    ),
    "note.give_shape": ("give --layers/--hidden for the real shape", "请用 --layers / --hidden 给出真实结构"),
    "note.mode": ("mode {mode}", "最可能值 {mode}"),
    "note.mode_and": ("mode {mode}; {note}", "最可能值 {mode}；{note}"),
    "note.mfu_beyond_extrapolated": (
        "measured only {lo} – {hi} (the {n} cited figures); below and above that the range is "
        "extrapolated: the triangle puts the lowest and highest of n figures at its 1/(n+1) and "
        "n/(n+1) quantiles, where the extremes of n draws lie",
        "实测的只有 {lo} – {hi}（所引 {n} 个数字）；其下与其上为外推：三角分布把 n 个数字中最低与最高者"
        "放在 1/(n+1) 与 n/(n+1) 分位，即 n 次抽样的极值所在之处",
    ),
    "note.mfu_beyond_assumed": (
        "measured only {lo} – {hi} (the {n} cited figures); the range beyond them is assumed: too "
        "few figures for a measured spread",
        "实测的只有 {lo} – {hi}（所引 {n} 个数字）；超出部分为假设：数字太少，得不出实测的离散程度",
    ),
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
    "src.model_shape": (
        "N ~ 12*L*h^2 with h/L ~ 128 (data/priors.toml [shape])",
        "按 N ~ 12*L*h^2、h/L ~ 128 推导（data/priors.toml [shape]）",
    ),
    "src.recompute_default": (
        "default: selective when it fits (Korthikanti et al. 2022)",
        "默认：放得下时用选择性重计算（Korthikanti et al. 2022）",
    ),
    "src.offload_default": (
        "default: none, and not searched for min_gpus (your nodes' host memory is not known); "
        "--offload to plan with it, at a throughput cost (ZeRO-Offload, Ren et al. 2021)",
        "默认：不卸载，最少卡数的搜索也不含卸载（工具不知道你节点的主机内存）；如需卸载请用 --offload，"
        "吞吐会下降（ZeRO-Offload，Ren et al. 2021）",
    ),
    "src.flash_attention": (
        "assumed: FlashAttention (Dao et al. 2022, arXiv:2205.14135) never stores the s x s attention scores and "
        "recomputes them in the backward pass, so --recompute none costs like selective; --no-flash-attention "
        "if your stack lacks it",
        "假设使用 FlashAttention（Dao et al. 2022，arXiv:2205.14135）：不保存 s×s 注意力分数、反向时重算，"
        "因此 --recompute none 与选择性重计算代价相同；若训练框架没有它，请加 --no-flash-attention",
    ),
    "src.no_flash_attention": (
        "requester (--no-flash-attention): with --recompute none the 5*a*s/h attention scores per layer are "
        "stored (Korthikanti et al. 2022)",
        "需求方（--no-flash-attention）：--recompute none 时每层保存 5*a*s/h 的注意力分数（Korthikanti et al. 2022）",
    ),
    "src.guided_rounds": (
        "guided answer (several rounds: {answer}): the {task} prior with the rounds beyond the final run x{scale:g} "
        "({why}); prior: {prior}",
        "引导问答的回答（是否多轮：{answer}）：{task} 的先验，最终运行之外的轮次 ×{scale:g}"
        "（{why}）；先验出处：{prior}",
    ),
    "src.spec_table": ("spec {table}", "规格文件 {table}"),
    "note.workspace_rate": (
        "workspace [[labor_rates]]: {low}-{high} {ccy}/hour, x hours per unit (person-month = 168 h)",
        "工作区 [[labor_rates]]：每小时 {low}-{high} {ccy}，按单位折算工时（人月 = 168 小时）",
    ),
    "src.guided_labelled": (
        "requester's guided answer: {n} labelled samples",
        "需求方在引导问答中的回答：{n} 条标注样本",
    ),
    "src.guided_labelled_eval": (
        "requester's guided answer: {n} labelled samples, used as the evaluation set (rag trains no weights)",
        "需求方在引导问答中的回答：{n} 条标注样本，用作评测集（RAG 不训练权重）",
    ),
    "src.placeholder_labelled": (
        "trainledger placeholder: the {task} placeholder's freshly labelled set ({table} items), never more "
        "than the request trains on ({tokens} training tokens / (1-3 epochs, mode 2, x 512-2048 tokens per "
        "sample, mode 1024) = {samples} samples); the rest of the training data is assumed existing, public or "
        "generated (its cost is in licensing and cleaning), not labelled for this run. For scale, LIMA (Zhou et "
        "al. 2023, arXiv:2305.11206) fine-tuned on 1,000 curated samples, Alpaca (Taori et al. 2023) on 52,000 "
        "generated ones, Tulu 2 (Ivison et al. 2023, arXiv:2311.10702) on a 326,000-sample mix of existing sets "
        "— replace with your plan in [data] labelled_items",
        "trainledger 占位值：{task}占位表中新标注的样本量（{table} 条），且不超过本需求实际训练的样本数"
        "（{tokens} 个训练 token ÷（1–3 轮，众数 2 轮 × 每条 512–2048 token，众数 1024）= {samples} 条）；"
        "其余训练数据假设为已有、公开或生成的数据（其成本计入授权与清洗），不为本次训练新标注。参照：LIMA"
        "（Zhou 等 2023，arXiv:2305.11206）用 1,000 条精选样本微调，Alpaca（Taori 等 2023）用 52,000 条生成样本，"
        "Tulu 2（Ivison 等 2023，arXiv:2311.10702）用 326,000 条已有数据集的混合——请在 [data] labelled_items "
        "中填写你的计划",
    ),
    "src.placeholder_cleaning": (
        "trainledger placeholder for a {task} corpus of {ref} tokens, x sqrt({tokens} / {ref}) = x{factor:.2f} "
        "(kept within {floor:g}-{cap:g}: cleaning pipelines are reused, so the work grows slower than the corpus) "
        "— no public base rate; replace with your plan in [data] cleaning_person_months",
        "trainledger 按 {ref} token 的{task}语料给出的占位值，再乘 sqrt({tokens} / {ref}) = x{factor:.2f}"
        "（限定在 {floor:g}–{cap:g}：清洗流程可复用，工作量增长慢于语料规模）——没有公开的基准数据；"
        "请在 [data] cleaning_person_months 中填写你的计划",
    ),
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
        "cash to serve the same demand for the same years; own hardware amortised: purchase minus an assumed "
        "resale value that falls with the horizon (straight-line over the useful life x a used-market haircut, "
        "floored); exit costs included",
        "同等需求、同样年限所需的现金；自建硬件按摊销计：采购额减去假设的残值——残值随年限下降"
        "（按使用年限直线折旧 × 二手市场折价，并设下限）；含退出成本",
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
