"""The ``error`` namespace: every error message and remedy the code raises (errors.py's tree),
as templates: the f-string as written in the code with ``{name}`` for each value,
and its Chinese (see patterns.py). Ids are ``<module>.<first words>``;
tests/i18n/test_errors_catalogued.py keeps these tables equal to the code."""

from __future__ import annotations

from trainledger.i18n.texts_audit import AUDIT
from trainledger.i18n.texts_errors_estimate import ESTIMATE
from trainledger.i18n.texts_errors_web import WEB

ERRORS: dict[str, tuple[str, str]] = {
    'cli.scheduler_cmds.no_job_of_cluster': ('no imported job names cluster {cluster}',
                                             '没有已导入的作业属于集群 {cluster}'),
    'cli.scheduler_cmds.clusters_of_jobs': ('clusters of the imported jobs: {p0}',
                                            '已导入作业的集群：{p0}'),
    'cli.demo_cmd.not_empty_does_not': ('{directory} is not empty and does not hold this demo (seed {seed})',
                                        '{directory} 不是空目录，也不是本演示（种子 {seed}）的目录'),
    'cli.demo_cmd.choose_new_directory_with': ('choose a new directory with --dir, or remove this one',
                                               '用 --dir 另选一个新目录，或删除这个目录'),
    'cli.estimate.give_utilisation_gpu_hours': ('give --utilisation or --gpu-hours-per-year, not both',
                                                '--utilisation 与 --gpu-hours-per-year 只能给一个'),
    'cli.estimate.must_be_whole_number': ('{what} must be a whole number, got {value}',
                                          '{what} 必须是整数，实际为 {value}'),
    'cli.estimate.on_not_iso_date': ('--on {on} is not an ISO date (YYYY-MM-DD)',
                                     '--on {on} 不是 ISO 日期（YYYY-MM-DD）'),
    'cli.export_cmd.no_attribution_yet': ('no attribution yet',
                                          '还没有归属结果'),
    'cli.export_cmd.run_trainledger_attribute_first': ('run `trainledger attribute` first',
                                                       '先运行 `trainledger attribute`'),
    'cli.lazy.choose_path_you_may': ('choose a path you may write to, or fix its permissions',
                                     '选择一个有写权限的路径，或修正它的权限'),
    'cli.lazy.file_system_read_only': ('the file system is read-only: choose a path on a writable one',
                                       '文件系统是只读的：请选择可写文件系统上的路径'),
    'cli.lazy.part_path_file_not': ('a part of the path is a file, not a directory: choose another path',
                                    '路径中有一段是文件而不是目录：请换一个路径'),
    'cli.lazy.path_exists_already_choose': ('the path exists already: choose another one, or remove it',
                                            '该路径已存在：请换一个，或先删除它'),
    'cli.lazy.check_path_its_parent': ('check the path (its parent directories must exist or be creatable)',
                                       '检查路径（其上级目录必须存在或可以创建）'),
    'cli.lazy.disk_full_free_some': ('the disk is full: free some space and run the command again',
                                     '磁盘已满：释放一些空间后重新运行命令'),
    'cli.lazy.path_directory_give_file': ('the path is a directory: give a file name',
                                          '该路径是目录：请给出文件名'),
    'cli.plan_cmds.plan_give_one_from': ('plan: give one of --from-estimate SPEC.toml, the estimate options (--task '
                                         '--params --tokens --gpu …), --from-review BATCH or --show',
                                         '计划：请给出 --from-estimate SPEC.toml、estimate 的选项（--task --params '
                                         '--tokens --gpu …）、--from-review BATCH 或 --show 之一'),
    'cli.plan_cmds.eg_trainledger_plan_from': ('e.g. `trainledger plan {batch} --from-estimate spec.toml` or '
                                               '`trainledger plan {batch} --show`',
                                               '例如 `trainledger plan {batch} --from-estimate spec.toml` 或 '
                                               '`trainledger plan {batch} --show`'),
    'cli.plan_cmds.plan_plan_toml_max': ('plan: --plan-toml and --max-rounds go with an estimate (--from-estimate or '
                                         'its options)',
                                         '计划：--plan-toml 与 --max-rounds 只用于由预估生成的计划（--from-estimate '
                                         '或 estimate 的选项）'),
    'cli.plan_cmds.add_from_estimate_or': ('add --from-estimate SPEC.toml or the estimate options, or leave out '
                                           '--plan-toml and --max-rounds',
                                           '加上 --from-estimate SPEC.toml 或 estimate 的选项，或去掉 --plan-toml 与 '
                                           '--max-rounds'),
    'cli.plan_cmds.next_review_not_iso': ('--next-review {next_review} is not an ISO date (YYYY-MM-DD)',
                                          '--next-review {next_review} 不是 ISO 日期（YYYY-MM-DD）'),
    'engine.allocation.allocation_has_unknown_key': ('{where}: [allocation] has unknown key(s) {p1}',
                                                     '{where}：[allocation] 有未知的键 {p1}'),
    'engine.allocation.known_see_docs_workspace': ('known: {known}; see docs/workspace.md',
                                                   '可用的键：{known}；见 docs/workspace.md'),
    'engine.allocation.allocation_capacity_unheld': ('{where}: [allocation] capacity_unheld = {cap}',
                                                     '{where}：[allocation] capacity_unheld = {cap} 不可用'),
    'engine.allocation.choose_one': ('choose one of {CAPACITY_POLICIES}',
                                     '从 {CAPACITY_POLICIES} 中选一个'),
    'engine.allocation.allocation_capacity_unheld_cost': ("{where}: [allocation] capacity_unheld = 'cost_centre' "
                                                          'needs cost_centre = NAME',
                                                          "{where}：[allocation] capacity_unheld = 'cost_centre' "
                                                          '需要 cost_centre = 名称'),
    'engine.allocation.allocation_shared_driver_category': ('{where}: [[allocation.shared]] {id}: driver {driver} / '
                                                            'category {category}',
                                                            '{where}：[[allocation.shared]] {id}：分摊依据 {driver} '
                                                            '/ 类别 {category}'),
    'engine.allocation.drivers_categories': ('drivers: {DRIVERS}; categories: {CATEGORIES}',
                                             '分摊依据：{DRIVERS}；类别：{CATEGORIES}'),
    'engine.allocation.allocation_shared_entry_missing': ('{where}: [[allocation.shared]] entry {p1}: missing key '
                                                          '{exc}',
                                                          '{where}：[[allocation.shared]] 条目 {p1}：缺少键 {exc}'),
    'engine.allocation.see_docs_workspace_md': ('see docs/workspace.md, [allocation]',
                                                '见 docs/workspace.md 的 [allocation]'),
    'engine.capacity.vc_fields_differ': ("{where}: the VC pools of cluster {cluster} read a job's VC from different"
                                         " fields ({fields_named})",
                                         "{where}：集群 {cluster} 的各虚拟集群资源池从不同字段读取作业的虚拟集群"
                                         "（{fields_named}）"),
    'engine.capacity.vc_fields_remedy': ('give every VC pool of one cluster the same vc_field (or none); see'
                                         ' docs/workspace.md, [[capacity]]',
                                         '同一集群的所有虚拟集群资源池请用同一个 vc_field（或都不写）；'
                                         '见 docs/workspace.md 的 [[capacity]]'),
    'engine.capacity.missing_key': ('{label}: missing key {exc}',
                                    '{label}：缺少键 {exc}'),
    'engine.capacity.see_docs_workspace_md': ('see docs/workspace.md, [[capacity]]',
                                              '见 docs/workspace.md 的 [[capacity]]'),
    'engine.capacity.text': ('{label}: {exc}',
                             '{label}：{exc}'),
    'imports.accepted_figures_check_source': ('accepted and in the figures; check the source row (docs/formats.md '
                                              'lists each note)',
                                              '已接收并计入数字；请核对源数据行（docs/formats.md 列出了每种标记）'),
    'imports.not_import_id': ('{ident} is not an import id',
                              '{ident} 不是导入编号'),
    'imports.give_id_trainledger_imports': ('give the id `trainledger imports list` shows (at least 6 hex digits)',
                                            '给出 `trainledger imports list` 显示的编号（至少 6 位十六进制）'),
    'imports.no_import_with_id': ('no import with id {ident}',
                                  '没有编号为 {ident} 的导入'),
    'imports.see_trainledger_imports_list': ('see `trainledger imports list`',
                                             '见 `trainledger imports list`'),
    'imports.import_id_ambiguous': ('import id {ident} is ambiguous: {p1}',
                                    '导入编号 {ident} 有歧义：{p1}'),
    'imports.give_more_digits_kind': ('give more digits, or KIND:ID',
                                      '多给几位，或写成 KIND:ID'),
    'lake.no_lake_table': ('no lake table {table}',
                           '数据湖没有表 {table}'),
    'lake.known': ('known: {TABLES}',
                   '已有的表：{TABLES}'),
    'ledger.backends.unsupported_ledger_database': ('unsupported ledger database {get_backend_name} in '
                                                    '{render_as_string}',
                                                    '{render_as_string} 中的账本数据库 {get_backend_name} 不受支持'),
    'ledger.backends.use_sqlite_path_ledger': ('use sqlite:///path/to/ledger.db or postgresql+psycopg://user@host/db',
                                               '使用 sqlite:///path/to/ledger.db 或 postgresql+psycopg://user@host/db'),
    'ledger.backends.row': ('{name}.{name2} of row {p2}: {exc}',
                            '第 {p2} 行的 {name}.{name2}：{exc}'),
    'ledger.backends.fix_value_where_produced': ('fix the value where it is produced; nothing was written',
                                                 '在产生该值的地方修正它；没有写入任何数据'),
    'ledger.backends.not_database_url': ('not a database URL: {url} ({exc})',
                                         '不是数据库 URL：{url}（{exc}）'),
    'ledger.repo.ledger_at_at_schema': ('the ledger at {where} is at schema revision {p1}; this trainledger expects '
                                        '{head}',
                                        '{where} 的账本处于结构版本 {p1}；本版 trainledger 需要 {head}'),
    'ledger.repo.open_with_ledger_open': ('open it with Ledger.open(url) (upgrade=True) to migrate it',
                                          '用 Ledger.open(url)（upgrade=True）打开以迁移它'),
    'ledger.repo.batch_not_ledger_at': ('{what}: batch {shown} is not in the ledger at {where}',
                                        '{what}：批次 {shown} 不在 {where} 的账本中'),
    'ledger.repo.declare_batch_first_ledger': ('declare the batch first (Ledger.upsert_batch); known batches: {hint}',
                                               '先声明该批次（Ledger.upsert_batch）；已有的批次：{hint}'),
    'ledger.repo.drop_needs_reason': ('a drop needs a reason',
                                      '撤销导入需要说明原因'),
    'ledger.repo.pass_reason_text_kept': ('pass --reason TEXT (it is kept in the audit log)',
                                          '传入 --reason 原因（会记入审计日志）'),
    'ledger.repo.cannot_open_ledger_database': ('cannot open the ledger database {where}: {orig}',
                                                '无法打开账本数据库 {where}：{orig}'),
    'ledger.repo.check_url_that_server': ('check the URL, that the server is running and that you may connect',
                                          '检查 URL、服务器是否在运行以及你是否有连接权限'),
    'ledger.repo.batch_project_not_ledger': ('batch {id}: project {project} is not in the ledger at {where}',
                                             '批次 {id}：项目 {project} 不在 {where} 的账本中'),
    'ledger.repo.declare_project_first_ledger': ('declare the project first (Ledger.upsert_project)',
                                                 '先声明该项目（Ledger.upsert_project）'),
    'ledger.repo.no_import_ledger_at': ('no {kind} import {import_key} in the ledger at {where}',
                                        '{where} 的账本中没有 {kind} 导入 {import_key}'),
    'ledger.repo.ledger_refused_cost_line': ('the ledger refused a cost line among lines {p0}...{p1}: {exc}; nothing '
                                             'was replaced',
                                             '账本拒收了第 {p0}…{p1} 条之间的一条成本行：{exc}；没有替换任何数据'),
    'ledger.repo.fix_attribution_that_produced': ('fix the attribution that produced these lines and run it again',
                                                  '修正产生这些成本行的归属计算后重新运行'),
    'ledger.review_repo.decide_alert_not_alert': ('decide {batch_id}: alert {a} is not an alert of this batch',
                                                  'decide {batch_id}：预警 {a} 不属于这个批次'),
    'ledger.review_repo.list_batch_alerts_with': ("list the batch's alerts with `trainledger alerts --open`",
                                                  '用 `trainledger alerts --open` 列出该批次的预警'),
    'ledger.review_repo.decide_alert_already_answered': ('decide {batch_id}: alert {a} is already answered by an '
                                                         'earlier decision',
                                                         'decide {batch_id}：预警 {a} 已由之前的决策答复'),
    'ledger.review_repo.answer_only_open_alerts': ('answer only open alerts (`trainledger alerts --open`)',
                                                   '只答复未处理的预警（`trainledger alerts --open`）'),
    'ledger.rows.must_be_list_items': ('{what} must be a list of items, got the string {values}',
                                       '{what} 必须是条目列表，实际是字符串 {values}'),
    'ledger.rows.pass': ('pass [{values}]',
                         '写成 [{values}]'),
    'ledger.rows.unknown': ('unknown {what} {value}',
                            '未知的 {what} {value}'),
    'ledger.rows.use_one': ('use one of: {p0}',
                            '从以下选一个：{p0}'),
    'pricebook.unknown_unit': ('{where}: unknown unit {unit}',
                               '{where}：未知的单位 {unit}'),
    'pricebook.use_one': ('use one of: {UNITS}',
                          '从以下选一个：{UNITS}'),
    'pricebook.price_stale_no_current': ('{origin}: the price of {key} is stale ({why}); no current price on {on}',
                                         '{origin}：{key} 的价格已过期（{why}）；{on} 没有有效价格'),
    'pricebook.add_current_dated_price': ('add a current dated price to the price book (stale prices are never used '
                                          'silently)',
                                          '在价格表中加一个带日期的现行价格（过期价格从不被默默使用）'),
    'pricebook.price_book_does_not': ('price book {p} does not exist',
                                      '价格表 {p} 不存在'),
    'pricebook.pass_existing_price_book': ('pass an existing --price-book FILE',
                                           '传入一个存在的 --price-book 文件'),
    'pricebook.unit_mismatch_items_are': ('{where}: unit mismatch: {kind} items are priced in {want} units, not '
                                          '{unit} ({dim})',
                                          '{where}：单位不符：{kind} 条目按 {want} 单位计价，而不是 {unit}（{dim}）'),
    'pricebook.use_unit_such_as': ('use a {want} unit such as {base_unit}',
                                   '使用 {want} 单位，例如 {base_unit}'),
    'pricebook.assumed_price_needs_owner': ('{where}: an assumed price needs an owner who must confirm it',
                                            '{where}：假设的价格需要一位负责确认的人'),
    'pricebook.add_owner_procurement_whoever': ('add owner = "procurement" (or whoever confirms it)',
                                                '加上 owner = "procurement"（或负责确认的人）'),
    'pricebook.unit_needs_gpus_per': ('{where}: unit {unit} needs gpus_per_node to convert to GPU-hours',
                                      '{where}：单位 {unit} 需要 gpus_per_node 才能换算成卡时'),
    'pricebook.add_gpus_per_node': ('add gpus_per_node = 8 (or your node size) to the entry',
                                    '在该条目中加上 gpus_per_node = 8（或你的节点卡数）'),
    'pricebook.no_price_for': ('{path}: no price for {key}',
                               '{path}：没有 {key} 的价格'),
    'pricebook.add_price_entry_with': ('add a [[price]] entry with item = {key}, a unit, source and date',
                                       '加一个 [[price]] 条目：item = {key}，并写明单位、来源与日期'),
    'pricebook.unit_mismatch_price_per': ('{where}: unit mismatch: the price is per {unit} ({dim_from}) but {unit2} '
                                          '({dim_to}) is needed',
                                          '{where}：单位不符：价格按 {unit}（{dim_from}）计，而需要的是 '
                                          '{unit2}（{dim_to}）'),
    'pricebook.price_unit_such_as': ('price {item} in a {dim_to} unit such as {base_unit}',
                                     '用 {dim_to} 单位给 {item} 定价，例如 {base_unit}'),
    'pricebook.no_exchange_rate_dated': ('{path}: no {base}/{quote} exchange rate dated on or before {on}',
                                         '{path}：没有 {on} 或之前日期的 {base}/{quote} 汇率'),
    'pricebook.add_fx_base_quote': ('add [[fx]] base = {base}, quote = {quote}, rate, date and source',
                                    '加上 [[fx]] base = {base}、quote = {quote}，以及 rate、date 与 source'),
    'pricebook.not_valid_toml': ('{p}: not valid TOML: {exc}',
                                 '{p}：不是有效的 TOML：{exc}'),
    'pricebook.csv_price_book_lacks': ('{p}: CSV price book lacks columns {missing}',
                                       '{p}：CSV 价格表缺少列 {missing}'),
    'pricebook.header_item_unit_price': ('header: item,unit,price,currency,source,effective[,low,high,...]',
                                         '表头：item,unit,price,currency,source,effective[,low,high,...]'),
    'pricebook.not_iso_date_yyyy': ('{where}: {field} {value} is not an ISO date (YYYY-MM-DD)',
                                    '{where}：{field} {value} 不是 ISO 日期（YYYY-MM-DD）'),
    'pricebook.not_number': ('{where}: {field} {value} is not a number',
                             '{where}：{field} {value} 不是数字'),
    'pricebook.missing': ('{where}: missing {f}',
                          '{where}：缺少 {f}'),
    'pricebook.every_price_needs_item': ('every price needs item, unit, price, currency, source and effective date',
                                         '每个价格都需要 item、unit、price、currency、source 与生效日期'),
    'pricebook.fx_rate_missing': ('{where}: FX rate missing {f}',
                                  '{where}：汇率缺少 {f}'),
    'pricebook.fx_rate_must_be': ('{where}: FX rate must be > 0',
                                  '{where}：汇率必须 > 0'),
    'pricebook.has_two_prices_effective': ('{origin}: {item} has two prices effective {effective} (also {p3})',
                                           '{origin}：{item} 有两个于 {effective} 生效的价格（另一个：{p3}）'),
    'pricebook.give_one_expiry_later': ('give one an expiry and a later effective date, or delete one',
                                        '给其中一个加上失效日期和更晚的生效日期，或删除一个'),
    'pricebook.fx_item_must_look': ('{where}: FX item must look like fx:USD/CNY, got {item}',
                                    '{where}：汇率条目必须形如 fx:USD/CNY，实际为 {item}'),
    'pricebook.zh_without_en': ('{where}: {key}_zh is given without {key}',
                                '{where}：给出了 {key}_zh，却没有 {key}'),
    'pricebook.write_english_beside': ('write the English {key} beside it (the English pages and the JSON show {key})',
                                       '在旁边写上英文的 {key}（英文页面和 JSON 显示 {key}）'),
    'review.baseline.plan_sample_book_currency': ('{where}: the plan would be priced in {currency} from the shipped '
                                                  "sample price book; the workspace's currency is {ws_currency}",
                                                  '{where}：该计划将按随软件附带的示例价目表以 {currency} 定价；'
                                                  '而工作区的币种是 {ws_currency}'),
    'review.baseline.write_book_in_currency': ('write a price book in {ws_currency} (your GPU-hour and labor prices) '
                                               'and name it in trainledger.toml as workspace.price_book, or pass '
                                               '--price-book FILE',
                                               '编写一份以 {ws_currency} 计价的价目表（你们的卡时与人力价格），'
                                               '在 trainledger.toml 中设为 workspace.price_book，'
                                               '或用 --price-book FILE 传入'),
    'review.baseline.plan_book_currency': ("{where}: the plan would be priced in {currency} ({book_path}); the "
                                           "workspace's currency is {ws_currency}",
                                           '{where}：该计划将以 {currency} 定价（{book_path}）；而工作区的币种是 '
                                           '{ws_currency}'),
    'review.baseline.price_items_in_currency': ("price the plan's items in {ws_currency} in that price book, or pass "
                                                '--price-book with a book in {ws_currency}',
                                                '在该价目表中以 {ws_currency} 为计划的各项定价，或用 --price-book 传入'
                                                '一份以 {ws_currency} 计价的价目表'),
    'review.capacity_plan.compute_share_must_be': ('{where}: [plan] compute_share must be a table of basis = share',
                                                   '{where}：[plan] compute_share 必须是“口径 = 份额”的表'),
    'review.capacity_plan.plan_compute_share_table': ('e.g. a [plan.compute_share] table with billed = "0.4"',
                                                      '例如写一个 [plan.compute_share] 表：billed = "0.4"'),
    'review.capacity_plan.compute_share_names_basis': ('{where}: [plan] compute_share names basis {b}',
                                                       '{where}：[plan] compute_share 写了口径 {b}'),
    'review.capacity_plan.use_billed_amortized_rate': ('use billed, amortized or rate_card',
                                                       '请用 billed、amortized 或 rate_card'),
    'review.capacity_plan.compute_share_gives_share': ("{where}: [plan] compute_share gives {b} a share but the"
                                                       " workspace declares no [[capacity]] on basis {b} in the"
                                                       " plan's currency",
                                                       '{where}：[plan] compute_share 给了 {b} 份额，但工作区'
                                                       '没有以计划币种声明口径为 {b} 的 [[capacity]]'),
    'review.capacity_plan.declare_capacity_drop_share': ('declare the capacity (docs/workspace.md) or drop the share',
                                                         '声明该容量（见 docs/workspace.md），或删去该份额'),
    'review.capacity_plan.compute_share_not_share': ('{where}: [plan] compute_share {b} = {v} is not a share in [0, 1]',
                                                     '{where}：[plan] compute_share {b} = {v} 不是 [0, 1] 内的份额'),
    'review.capacity_plan.give_fraction_billed': ('give a fraction, e.g. billed = "0.4"',
                                                  '请给出一个比例，例如 billed = "0.4"'),
    'review.capacity_plan.compute_share_adds_up': ('{where}: [plan] compute_share adds up to {total}, not 1',
                                                   '{where}：[plan] compute_share 合计为 {total}，不是 1'),
    'review.capacity_plan.shares_add_up_leave': ('give shares that add up to 1, or leave a capacity basis out to take'
                                                 ' the rest',
                                                 '请给出合计为 1 的份额，或留出一个容量口径来承接其余部分'),
    'review.baseline.plan_needs_tokens_its': ('{path}: a plan needs tokens (its volume driver)',
                                              '{path}：计划需要 tokens（它的工作量驱动）'),
    'review.baseline.add_tokens_spec': ('add tokens = "…" to the spec',
                                        '在规格中加上 tokens = "…"'),
    'review.baseline.price_estimate': ('{path}: price {item} is in {currency}, the estimate in {currency2}',
                                       '{path}：价格 {item} 以 {currency} 计，而预估以 {currency2} 计'),
    'review.baseline.set_currency_price_currency': ("set currency = the price's currency in the spec",
                                                    '在规格中把 currency 设为该价格的币种'),
    'review.baseline.plan_rework_reasons': ('{path}: [plan.rework] reasons {bad}',
                                            '{path}：[plan.rework] 原因 {bad}'),
    'review.baseline.use': ('use {REWORK_REASONS}',
                            '可用：{REWORK_REASONS}'),
    'review.baseline.plan_storage_needs_gib': ('{path}: [plan.storage] needs gib_months (and may give item, '
                                               'retention_rework); unknown keys {unknown}',
                                               '{path}：[plan.storage] 需要 gib_months（可另给 '
                                               'item、retention_rework）；未知的键 {unknown}'),
    'review.baseline.e_g_gib_months': ('e.g. gib_months = [800, 1500, 2500]',
                                       '例如 gib_months = [800, 1500, 2500]'),
    'review.baseline.priced_plan': ('{path}: {item} is priced in {currency}, the plan in {currency2}',
                                    '{path}：{item} 以 {currency} 计价，而计划以 {currency2} 计'),
    'review.baseline.price_storage_plan_currency': ("price storage in the plan's currency",
                                                    '用计划的币种给存储定价'),
    'review.baseline.labor_priced_plan': ('{path}: labor:{role} is priced in {rate_ccy}, the plan in {currency}',
                                          '{path}：labor:{role} 以 {rate_ccy} 计价，而计划以 {currency} 计'),
    'review.baseline.price_labor_plan_currency': ("price labor in the plan's currency",
                                                  '用计划的币种给人力定价'),
    'review.baseline.not_toml_file': ('{plan_toml}: not a TOML file: {exc}',
                                      '{plan_toml}：不是 TOML 文件：{exc}'),
    'review.baseline.fix_file_syntax': ("fix the file's syntax",
                                        '修正文件语法'),
    'review.options.plan_shrink_has_unknown': ('{where}: [plan.shrink] has unknown keys {bad}',
                                               '{where}：[plan.shrink] 有未知的键 {bad}'),
    'review.options.give_rounds_params_b': ('give rounds = "1..1.5..2" and/or params = "3B" (a smaller model)',
                                            '给出 rounds = "1..1.5..2" 和/或 params = "3B"（更小的模型）'),
    'review.plan.cannot_read_condition': ('{where}: cannot read the condition {text}',
                                          '{where}：无法读取条件 {text}'),
    'review.plan.write_metric_op_number': ("write 'METRIC OP NUMBER' with OP one of > >= < <= == and METRIC one of "
                                           '{METRICS}',
                                           "写成 '指标 运算符 数字'，运算符为 > >= < <= == 之一，指标为 {METRICS} "
                                           '之一'),
    'review.plan.plan_has_unknown_keys': ('{where}: [plan] has unknown keys {unknown}',
                                          '{where}：[plan] 有未知的键 {unknown}'),
    'review.plan.use': ('use {known}',
                        '可用：{known}'),
    'review.plan.plan_curves_needs_metric': ('{where}: [[plan.curves]] #{i} needs metric, better = lower|higher and '
                                             'points [[work fraction 0..1, value], ...]',
                                             '{where}：[[plan.curves]] #{i} 需要 metric、better = lower|higher 以及 '
                                             'points [[工作量占比 0..1, 值], ...]'),
    'review.plan.e_g_metric_loss': ('e.g. metric = "loss", points = [[0.5, 0.9]]',
                                    '例如 metric = "loss", points = [[0.5, 0.9]]'),
    'review.plan.plan_gates_has_no': ('{where}: [[plan.gates]] #{i} has no at_work (fraction of the planned work)',
                                      '{where}：[[plan.gates]] #{i} 没有 at_work（计划工作量的占比）'),
    'review.plan.gate_at_work_must': ('{where}: gate #{i} at_work must be in (0, 1], got {frac}',
                                      '{where}：关口 #{i} 的 at_work 必须在 (0, 1] 之内，实际为 {frac}'),
    'review.plan.rule_action': ('{where}: rule {rid}: action {action}',
                                '{where}：规则 {rid}：动作 {action}'),
    'review.plan.use_one': ('use one of {ACTIONS}',
                            '从 {ACTIONS} 中选一个'),
    'review.plan.rule_has_no_conditions': ('{where}: rule {rid} has no conditions (when = [...])',
                                           '{where}：规则 {rid} 没有条件（when = [...]）'),
    'review.plan.plan_assumptions_needs_name': ('{where}: [[plan.assumptions]] #{i} needs a name and an owner',
                                                '{where}：[[plan.assumptions]] #{i} 需要名称和负责人'),
    'review.plan.high_risk_assumption_without': ("a high-risk assumption without an owner is nobody's to confirm",
                                                 '没有负责人的高风险假设无人确认'),
    'review.plan.not_low_expected_high': ('{what}: not a low / expected / high range: {raw} ({exc})',
                                          '{what}：不是低 / 预期 / 高区间：{raw}（{exc}）'),
    'review.plan.write_low_expected_high': ('write [low, expected, high], e.g. [0.02, 0.05, 0.1]',
                                            '写成 [低, 预期, 高]，例如 [0.02, 0.05, 0.1]'),
    'review.service.plan_plan_exists_already': ('plan {batch}: a plan exists already; a new version needs --reason',
                                                'plan {batch}：计划已存在；新版本需要 --reason'),
    'review.service.say_why_baseline_changes': ('say why the baseline changes: --reason TEXT (v1 is kept as it is)',
                                                '说明基线为何改变：--reason 原因（v1 原样保留）'),
    'review.service.plan_from_review_has': ('plan {next_batch} --from-review {source_batch}: {source_batch} has no '
                                            'measured useful work',
                                            'plan {next_batch} --from-review {source_batch}：{source_batch} '
                                            '没有实测的有效工作量'),
    'review.service.import_its_progress_events': ('import its progress events and attribute first',
                                                  '先导入它的进度事件并做归属'),
    'review.service.batch_has_no_plan': ('batch {batch_id} has no plan',
                                         '批次 {batch_id} 没有计划'),
    'review.service.make_one_trainledger_plan': ('make one: trainledger plan {batch_id} --from-estimate SPEC.toml',
                                                 '先制定一个：trainledger plan {batch_id} --from-estimate SPEC.toml'),
    'review.service.decide_reason_by_are': ('decide: --reason and --by are required',
                                            'decide：--reason 与 --by 都是必填的'),
    'review.service.say_why_who_decides': ('say why and who decides',
                                           '说明原因以及由谁决策'),
    'review.service.next_review_before_decision': (
        "decide {batch_id}: the next review {isoformat} is before the decision's date {isoformat2}",
        'decide {batch_id}：下次复查日期 {isoformat} 早于决策日期 {isoformat2}'),
    'review.service.next_review_on_or_after': (
        "give a next review on or after the decision's date, or leave it empty (in 7 days)",
        '请给出不早于决策日期的下次复查日期，或留空（默认 7 天后）'),
    'review.service.decide_rules_recommend_choosing': ('decide {batch_id}: the rules recommend {action}; choosing '
                                                       '{action2} overrides them',
                                                       'decide {batch_id}：规则建议“{action}”；选择“{action2}”'
                                                       '会推翻规则的建议'),
    'review.service.override_needs_second_named': ('an override needs a second named approver: --approver NAME (not '
                                                   'the decider)',
                                                   '推翻建议需要第二位具名审批人：--approver 姓名（不能是决策人本人）'),
    'review.service.decide_child_names_batch': ('decide {batch_id}: --child names the batch a retarget opens; the '
                                                'action is {action}',
                                                'decide {batch_id}：--child 指重定目标时新开的批次；当前动作是 '
                                                '{action}'),
    'review.service.use_action_retarget_leave': ('use --action retarget, or leave --child out',
                                                 '使用 --action retarget，或不写 --child'),
    'review.service.decide_retarget_child_must': ("decide {batch_id}: a retarget's child must be another batch",
                                                  'decide {batch_id}：重定目标的子批次必须是另一个批次'),
    'run_causes.confirmation_needs_name_who': ('a confirmation needs the name of who confirms it',
                                               '确认需要写明确认人的姓名'),
    'run_causes.pass_by_name': ('pass --by NAME',
                                '传入 --by 姓名'),
    'run_causes.no_run_latest_attribution': ('no run {run_id} in the latest attribution',
                                             '最近一次归属中没有运行 {run_id}'),
    'run_causes.see_trainledger_runs_list': ('see `trainledger runs list` for run ids',
                                             '运行编号见 `trainledger runs list`'),
    'run_causes.unknown_failure_cause': ('unknown failure cause {cause}',
                                         '未知的失败原因 {cause}'),
    'run_causes.use_one': ('use one of {p0}',
                           '从 {p0} 中选一个'),
    'service.ledger_at_kept_changing': ('the ledger at {where} kept changing while the sheet of {batch_id} was read',
                                        '读取 {batch_id} 的底稿时，{where} 的账本一直在变化'),
    'service.run_command_again_when': ('run the command again when the running `attribute` or import has finished',
                                       '等正在运行的 `attribute` 或导入结束后重新运行命令'),
    'service.price_book_does_not': ('{path}: price_book {name} does not exist at {path2}',
                                    '{path}：价格表 {name} 在 {path2} 不存在'),
    'service.fix_workspace_price_book': ('fix workspace.price_book or create the file',
                                         '修正 workspace.price_book，或创建该文件'),
    'workspace.missing_keys': ('missing keys {names}',
                               '缺少键 {names}'),
    'service.replace_import_is_not': ('--replace {ident}: import {short_id} is a {kind} import ({path}), not one a '
                                      '{kind2} file can replace; nothing was dropped or imported',
                                      '--replace {ident}：导入 {short_id} 是 {kind} 导入（{path}），不能由 {kind2} '
                                      '文件替换；没有撤销也没有导入任何数据'),
    'service.give_id_of_import': ('give the id of the {kind} import this file corrects (`trainledger imports list '
                                  '--kind {kind}`), or import it without --replace',
                                  '给出该文件所更正的 {kind} 导入的 id（`trainledger imports list --kind {kind}`），'
                                  '或不带 --replace 导入'),
    'service.import_was_already_dropped': ('import {ident} ({path}) was already dropped on {dropped_at} UTC: '
                                           '{drop_reason}',
                                           '导入 {ident}（{path}）已于 {dropped_at} UTC 撤销：{drop_reason}'),
    'service.import_file_again_bring': ('import the file again to bring its rows back',
                                        '重新导入该文件即可恢复它的数据行'),
    'service.ledger_at_does_not': ('the ledger at {where} does not match its audit chain, so no sheet is built from '
                                   'it:\n  {problems}',
                                   '{where} 的账本与其审计链不符，因此不基于它生成底稿：\n  {problems}'),
    'service.run_trainledger_audit_for': ('run `trainledger audit` for the details; restore the database from a '
                                          'backup, or run `trainledger attribute` to recompute the figures from the '
                                          'lake (recorded in the chain)',
                                          '运行 `trainledger audit` 查看详情；从备份恢复数据库，或运行 `trainledger '
                                          'attribute` 从数据湖重新计算数字（会记入审计链）'),
    'web.app.row_not_row_number': ('row {raw} is not a row number',
                                   'row {raw} 不是行号'),
    'web.app.rows_are_numbered_from': ('rows are numbered from 1 (header excluded)',
                                       '行号从 1 开始（不含表头）'),
    'web.views.no_cost_line_latest': ('no cost line {line_id} in the latest attribution',
                                      '最近一次归属中没有成本行 {line_id}'),
    'web.views.line_ids_are_import': ('line ids are IMPORT-ROW-N; follow a link from /batches (ids change only when '
                                      "the attribution's lines for that source row change)",
                                      '成本行编号形如 IMPORT-ROW-N；请从 /batches '
                                      '的链接进入（只有该源数据行的归属结果变化时编号才会变）'),
    'web.views.no_batch': ('no batch {batch_id}',
                           '没有批次 {batch_id}'),
    'web.views.see_batches_trainledger_batch': ('see /batches (or `trainledger batch list`) for the ids',
                                                '编号见 /batches（或 `trainledger batch list`）'),
    'web.views.no_run_batch': ('no run {run_id} in batch {batch_id}',
                               '批次 {batch_id} 中没有运行 {run_id}'),
    'web.views.see_batches_for_its': ('see /batches/{batch_id} for its runs',
                                      '它的运行见 /batches/{batch_id}'),
    'web.views.import_has_no_accepted': ('import {short_id} ({kind}, {path}) has no accepted row {row}',
                                         '导入 {short_id}（{kind}，{path}）没有已接收的第 {row} 行'),
    'web.views.rows_run_quarantined_duplicate': ('rows run 1..{rows_read}; a quarantined or duplicate row is not in '
                                                 'the lake (`trainledger quarantine`)',
                                                 '行号为 1..{rows_read}；被隔离或重复的行不在数据湖中（`trainledger '
                                                 'quarantine`）'),
    'web.views.no_import': ('no import {ident}',
                            '没有导入 {ident}'),
    'web.views.see_trainledger_imports_list': ('see `trainledger imports list` for the ids',
                                               '编号见 `trainledger imports list`'),
    'workspace.see_docs_workspace_md': ('see docs/workspace.md / 见 docs/workspace.md',
                                        '见 docs/workspace.md'),
    'workspace.unknown': ('{path}: unknown {what} {name}{hint} / 未知的{zh} {name}',
                          '{path}：未知的{zh} {name}{hint}（{what}）'),
    'workspace.known': ('known: {known}; {DOCS_REMEDY}',
                        '可用：{known}；{DOCS_REMEDY}'),
    'workspace.no_batch': ('no batch {batch_id} in {path}',
                           '{path} 中没有批次 {batch_id}'),
    'workspace.see_trainledger_batch_list': ('see `trainledger batch list`',
                                             '见 `trainledger batch list`'),
    'workspace.must_be_array_tables': ('{path}: {kind} must be an array of tables, written [[{kind}]] / {kind} '
                                       '应写作 [[{kind}]]',
                                       '{path}：{kind} 应写作表数组 [[{kind}]]'),
    'workspace.text': ('{path}: {name} {problem}',
                       '{path}：{name} {problem}'),
    'workspace.no_workspace_at_missing': ('no workspace at {root} ({CONFIG_NAME} missing)',
                                          '{root} 没有工作区（缺少 {CONFIG_NAME}）'),
    'workspace.run_trainledger_init_there': ('run `trainledger init` there, or pass --workspace DIR',
                                             '在那里运行 `trainledger init`，或传入 --workspace 目录'),
    'workspace.batch_ids_defined_twice': ('{path}: batch ids defined twice: {dup}',
                                          '{path}：批次编号定义了两次：{dup}'),
    'workspace.entry': ('{path}: [[{kind}]] entry {p2} ({entry_name}): {what}',
                        '{path}：[[{kind}]] 条目 {p2}（{entry_name}）：{what}'),
    'workspace.node_resource_id_twice': ("{path}: [[nodes]] entry {p1} ({node}): resource_id {rid} is already node"
                                         " {where}'s / 资源 ID {rid} 已属于节点 {where}",
                                         '{path}：[[nodes]] 条目 {p1}（{node}）：资源 ID {rid} 已属于节点 {where}'),
    'workspace.node_resource_id_twice_remedy': ('a resource id names one node: remove one of the two entries'
                                                ' / 一个资源 ID 只能对应一个节点，请删除其中一条',
                                                '一个资源 ID 只能对应一个节点，请删除其中一条'),
    'workspace.see_docs_workspace_md2': ('see docs/workspace.md for the fields of each entry',
                                         '每种条目的字段见 docs/workspace.md'),
    'workspace.not_valid_toml_toml': ('{path}: not valid TOML: {exc} / 不是有效的 TOML',
                                      '{path}：不是有效的 TOML：{exc}'),
    'workspace.batch_names_project_which': ('{path}: batch {id} names project {project}, which is not defined',
                                            '{path}：批次 {id} 指定的项目 {project} 没有定义'),
    'workspace.add_projects_entry_with': ('add a [[projects]] entry with that id',
                                          '加一个该编号的 [[projects]] 条目'),
    'workspace.rule_attributes_unknown_batch': ('{path}: rule {id} attributes to unknown batch {batch}',
                                                '{path}：规则 {id} 归属到未知的批次 {batch}'),
    'workspace.entry_unknown_key': ('{path}: [[{kind}]] entry {p2} ({entry_name}): unknown key {key}{did_you_mean}'
                                    ' / 未知配置项 {key}',
                                    '{path}：[[{kind}]] 条目 {p2}（{entry_name}）：未知配置项 {key}{did_you_mean}'),
    'workspace.known2': ('known: {p0}; {DOCS_REMEDY}',
                         '可用：{p0}；{DOCS_REMEDY}'),
    'workspace.must_be_got': ('{path}: {name} must be {__name__}, got {value}',
                              '{path}：{name} 必须是 {__name__}，实际为 {value}'),
    'workspace.must_be_section_written': ('{path}: {dotted} must be a section, written [{dotted}] / {dotted} '
                                          '应是配置节 [{dotted}]',
                                          '{path}：{dotted} 应是配置节 [{dotted}]'),
    "imports.fix_row_in_source": (
        "fix the row in the source (or export it again) and import the file again; docs/formats.md lists what {kind} "
        "expects in each column",
        "在源数据中修正该行（或重新导出），然后重新导入文件；docs/formats.md 列出了 {kind} 对每一列的要求",
    ),
    "cli.presets_cmd.no_preset": (
        "no preset {name}{did_you_mean} / 没有这个预设",
        "没有预设 {name}{did_you_mean}",
    ),
    "cli.presets_cmd.see_trainledger_presets": (
        "see `trainledger presets`: {found}",
        "见 `trainledger presets`：{found}",
    ),
    "cli.storage_cmd.no_storage_reconciliation_yet": (
        "no storage reconciliation yet",
        "还没有存储对账结果",
    ),
    "report.cross.no_project": (
        "no project {project} in {path}",
        "{path} 中没有项目 {project}",
    ),
    "report.cross.use_one_projects_workspace": (
        "use one of: {known} (the [[projects]] of the workspace file)",
        "从以下选一个：{known}（工作区文件中的 [[projects]]）",
    ),
    "report.cross.from_after": (
        "--from {start} is after --to {end}",
        "--from {start} 晚于 --to {end}",
    ),
    "report.cross.swap_them": (
        "swap them",
        "把两者对调",
    ),
    "report.cross.by": (
        "--by {by}",
        "--by {by}",
    ),
    "report.cross.use_one": (
        "use one of {BY}",
        "从 {BY} 中选一个",
    ),
    "report.cross.not_date": (
        "{option} {text} is not a date",
        "{option} {text} 不是日期",
    ),
    "report.cross.write_yyyy_mm_dd": (
        "write YYYY-MM-DD or YYYY-MM, e.g. --from 2026-11 --to 2026-11-30",
        "写成 YYYY-MM-DD 或 YYYY-MM，例如 --from 2026-11 --to 2026-11-30",
    ),
    "workspace.import_worklog_phase_not": (
        "{path}: import.worklog.phase: {phase} is not a labor phase{did_you_mean} / 不是人工阶段",
        "{path}：import.worklog.phase：{phase} 不是人工阶段{did_you_mean}",
    ),
    "workspace.use_one": (
        "use one of {phases}; {DOCS_REMEDY}",
        "从 {phases} 中选一个；{DOCS_REMEDY}",
    ),
    "workspace.import_worklog_roles_not": (
        "{path}: import.worklog.roles.{person}: {role} is not a labor role{did_you_mean} / 不是人工角色",
        "{path}：import.worklog.roles.{person}：{role} 不是人工角色{did_you_mean}",
    ),
    "workspace.use_one2": (
        "use one of {roles}; {DOCS_REMEDY}",
        "从 {roles} 中选一个；{DOCS_REMEDY}",
    ),
    "lake.lake_partition_source_already": (
        "lake partition {table}/source={sha256} already exists",
        "数据湖分区 {table}/source={sha256} 已存在",
    ),
    "lake.lake_partition_source_already2": (
        "lake partition {table}/source={sha256} already exists; partitions are immutable",
        "数据湖分区 {table}/source={sha256} 已存在；分区不可修改",
    ),
    "ledger.tokens.unknown_role": (
        "unknown role {role}",
        "未知的角色 {role}",
    ),
    "ledger.tokens.choose_one": (
        "choose one of {ROLES}",
        "从 {ROLES} 中选一个",
    ),
    "ledger.tokens.expires_out_range": (
        "--expires {expires_days} is out of range",
        "--expires {expires_days} 超出范围",
    ),
    "ledger.tokens.give_number_days_from": (
        "give a number of days from 1 to {MAX_DAYS}, or leave it out for no expiry",
        "给出 1 到 {MAX_DAYS} 之间的天数，或不写以永不过期",
    ),
    "ledger.tokens.this_dashboard_needs_token": (
        "this dashboard needs a token: send `Authorization: Bearer TOKEN`",
        "该看板需要令牌：请发送 `Authorization: Bearer TOKEN`",
    ),
    "ledger.tokens.ask_workspace_owner_for": (
        "ask the workspace owner for one (`trainledger token create --role R`)",
        "向工作区负责人申请一个（`trainledger token create --role R`）",
    ),
    "ledger.tokens.bearer_token_not_trainledger": (
        "the bearer token is not a trainledger token (tl_ID_SECRET)",
        "该 bearer 令牌不是 trainledger 令牌（tl_ID_SECRET）",
    ),
    "ledger.tokens.send_whole_token_trainledger": (
        "send the whole token `trainledger token create` printed",
        "发送 `trainledger token create` 输出的完整令牌",
    ),
    "ledger.tokens.bearer_token_not_valid": (
        "the bearer token is not valid",
        "该 bearer 令牌无效",
    ),
    "ledger.tokens.check_ask_for_new": (
        "check it, or ask for a new one",
        "检查它，或申请一个新令牌",
    ),
    "ledger.tokens.token_revoked": (
        "token {id} is revoked",
        "令牌 {id} 已吊销",
    ),
    "ledger.tokens.token_expired": (
        "token {id} is expired",
        "令牌 {id} 已过期",
    ),
    "ledger.tokens.ask_workspace_owner_for2": (
        "ask the workspace owner for a new one (`trainledger token create`)",
        "向工作区负责人申请新令牌（`trainledger token create`）",
    ),
    "ledger.tokens.no_token": (
        "no token {token_id}",
        "没有令牌 {token_id}",
    ),
    "ledger.tokens.see_trainledger_token_list": (
        "see `trainledger token list` for the ids",
        "令牌编号见 `trainledger token list`",
    ),
    "web.app.host_not_loopback_address2": (
        "--host {host} is not a loopback address; other machines would reach the dashboard",
        "--host {host} 不是回环地址；其他机器将能访问该看板",
    ),
    "web.app.serve_on_default_reach2": (
        "serve on 127.0.0.1 (the default) and reach it through an SSH tunnel, or pass --allow-remote: then every "
        "request needs a token (`trainledger token create`) / 默认只绑定回环地址；--allow-remote "
        "时每个请求都须携带令牌",
        "默认只绑定回环地址 127.0.0.1，并通过 SSH 隧道访问；或传入 --allow-remote："
        "此时每个请求都须携带令牌（`trainledger token create`）",
    ),
    "web.app.no_sheet_format": (
        "no sheet format {fmt}",
        "没有底稿格式 {fmt}",
    ),
    "web.app.choose_one": (
        "choose one of {DOWNLOADS}",
        "从 {DOWNLOADS} 中选一个",
    ),
    "web.auth.token_limited_batch": (
        "token {token_id} is limited to batch {batch}; {what} is batch {batch2}",
        "令牌 {token_id} 仅限批次 {batch}；{what} 属于批次 {batch2}",
    ),
    "web.auth.token_limited_across": (
        "token {token_id} is limited to batch {batch}; {what} is a page across batches (or of unattributed cost)",
        "令牌 {token_id} 仅限批次 {batch}；{what} 是跨批次（或未归属成本）的页面",
    ),
    "web.auth.open_batches_ask_for": (
        "open /batches/{batch}, or ask for a token with that scope",
        "打开 /batches/{batch}，或申请具有该范围的令牌",
    ),
    "web.auth.authorization_header_not_bearer": (
        "the Authorization header is not `Bearer TOKEN`",
        "Authorization 请求头不是 `Bearer TOKEN`",
    ),
    "web.auth.send_authorization_bearer_tl": (
        "send `Authorization: Bearer tl_…` as `trainledger token create` printed it",
        "按 `trainledger token create` 的输出发送 `Authorization: Bearer tl_…`",
    ),
    "engine.frame.stage.unknown_engine": (
        "unknown engine {backend} / 未知引擎",
        "未知引擎 {backend}",
    ),
    "engine.frame.stage.use_one": (
        "use one of {BACKENDS}",
        "从 {BACKENDS} 中选一个",
    ),
    "engine.frame.stage.engine_spark_could_not_start_java": (
        "engine spark could not start Java ({error}) / Spark 无法启动 Java",
        "spark 引擎无法启动 Java（{error}）",
    ),
    "engine.frame.stage.check_java_home": (
        "check JAVA_HOME and that `java -version` runs (a Java 17 runtime, Debian: openjdk-17-jre-headless), or use"
        " --engine duckdb / 检查 JAVA_HOME 与 java -version，或改用 --engine duckdb",
        "检查 JAVA_HOME 以及 `java -version` 能否运行（需要 Java 17 运行时，Debian：openjdk-17-jre-headless），"
        "或改用 --engine duckdb",
    ),
    "engine.guard.attribution_ran_out_of_memory": (
        "attribution ran out of memory ({error}) / 归集时内存不足",
        "归集时内存不足（{error}）",
    ),
    "engine.guard.raise_memory_limit": (
        "raise [engine] memory_limit or set [engine] temp_dir to a disk with room, then run trainledger attribute"
        " again; nothing was written / 调高 [engine] memory_limit 或设置 [engine] temp_dir 后重新归集；"
        "本次未写入任何结果",
        "调高 [engine] memory_limit，或把 [engine] temp_dir 设到空间足够的磁盘，然后重新运行 trainledger attribute；"
        "本次未写入任何结果",
    ),
    "engine.frame.stage.engine_spark_needs_java": (
        "engine spark needs Java (no `java` on PATH) / Spark 需要 Java",
        "spark 引擎需要 Java（PATH 中没有 `java`）",
    ),
    "engine.frame.stage.install_java_runtime_debian": (
        "install a Java 17 runtime (Debian: openjdk-17-jre-headless), or use --engine duckdb / 安装 Java 17，或改用 "
        "--engine duckdb",
        "安装 Java 17 运行时（Debian：openjdk-17-jre-headless），或改用 --engine duckdb",
    ),
    "engine.frame.stage.engine_needs_ibis_framework": (
        "engine {backend} needs ibis-framework, which is not installed / 未安装 ibis",
        "{backend} 引擎需要 ibis-framework，但它没有安装",
    ),
    "engine.frame.stage.pip_install_ibis_framework": (
        "pip install 'ibis-framework[duckdb]', or use --engine python / 安装 ibis-framework[duckdb]，或改用 --engine "
        "python",
        "pip install 'ibis-framework[duckdb]'，或改用 --engine python",
    ),
    "engine.frame.stage.engine_spark_needs_pyspark": (
        "engine spark needs pyspark, which is not installed / 未安装 pyspark",
        "spark 引擎需要 pyspark，但它没有安装",
    ),
    "engine.frame.stage.pip_install_trainledger_spark": (
        "pip install 'trainledger[spark]' (and Java 17), or use --engine duckdb / 安装 trainledger[spark]，或改用 "
        "--engine duckdb",
        "pip install 'trainledger[spark]'（以及 Java 17），或改用 --engine duckdb",
    ),
    "engine.frame.stage.bill_lines_not_plain": (
        "bill_lines: {column} is not plain decimal text in bill rows {bad} — the frame engine reads money as exact "
        "integers / 金额不是普通小数文本",
        "bill_lines：账单行 {bad} 中的 {column} 不是普通小数文本——frame 引擎按精确整数读取金额",
    ),
    "engine.frame.stage.re_import_bill_importers": (
        "re-import the bill (the importers write plain text), or use --engine python",
        "重新导入账单（导入器会写入普通文本），或改用 --engine python",
    ),
    "workspace.not_engine": (
        "{engine} is not an engine{did_you_mean} / 不是可用的引擎",
        "{engine} 不是可用的引擎{did_you_mean}",
    ),
    "workspace.write_python_duckdb_spark": (
        "write python, duckdb or spark / 请填写 python、duckdb 或 spark",
        "请填写 python、duckdb 或 spark",
    ),
    "workspace.not_memory_size": (
        "{engine_memory_limit} is not a size / 不是内存大小",
        "{engine_memory_limit} 不是内存大小",
    ),
    "workspace.write_memory_size": (
        "write a number and a unit, e.g. 2GB, 512MB or 4GiB / 请填写数字加单位，如 2GB、512MB 或 4GiB",
        "请填写数字加单位，如 2GB、512MB 或 4GiB",
    ),
    "engine.duckdb_refused_settings": (
        "engine.memory_limit {memory_limit} / engine.temp_dir {temp_directory}: DuckDB refused them ({exc})"
        " / DuckDB 不接受该设置",
        "engine.memory_limit {memory_limit} / engine.temp_dir {temp_directory}：DuckDB 不接受该设置（{exc}）",
    ),
    "engine.write_size_and_dir": (
        "write a size such as 2GB and a writable directory / 请填写如 2GB 的大小和可写目录",
        "请填写如 2GB 的大小和可写目录",
    ),
    **ESTIMATE,
    **AUDIT,
    **WEB,
}
