"""A mapping file's errors and remedies (ingest/mapfile.py), one language each (issue 8).

The code writes each sentence in English only — the key, then the problem (``{key}: {problem}``),
and a remedy; the Chinese is here, so an English reader sees no Chinese fragment and a Chinese one
no English, except the names the file itself uses (keys, headers, TOML examples). A closeness hint
is its own template, ``{value} — did you mean {name}?``, so it is said in the sentence's language.
"""

from __future__ import annotations

MAPFILE: dict[str, tuple[str, str]] = {
    "mapfile.text": ("{key}: {problem}", "{key}：{problem}"),
    "mapfile.did_you_mean": ("{value} — did you mean {name}?", "{value}——是否想写 {name}？"),
    "mapfile.see_docs": ("see docs/formats.md § Mappings", "见 docs/formats.md「映射」一节"),
    "mapfile.known": ("known: {known}; {DOCS}", "可用：{known}；{DOCS}"),
    # choosing the mapping
    "mapfile.give_preset_mapping_not": ("give --preset or --mapping, not both", "--preset 与 --mapping 只能给一个"),
    "mapfile.import_needs_mapping_columns": (
        "`import {kind}` needs a mapping: the columns of a {tables} table differ by source",
        "`import {kind}` 需要映射文件：{tables} 表的列因来源而异",
    ),
    "mapfile.pass_preset_name_one": (
        "pass --preset NAME (one of: {listing}) or --mapping FILE; {DOCS}",
        "传入 --preset 名称（以下之一：{listing}）或 --mapping 文件；{DOCS}",
    ),
    "mapfile.mapping_file_utf_toml": ("a mapping file is UTF-8 TOML", "映射文件须为 UTF-8 编码的 TOML"),
    "mapfile.save_mapping_as_utf": ("save the mapping as UTF-8", "把映射文件另存为 UTF-8"),
    "mapfile.preset_fills_table_not": (
        "preset {name} fills table {other}, not {tables}",
        "预设 {name} 填充表 {other}，不是 {tables}",
    ),
    "mapfile.import_with_trainledger_import2": (
        "import it with `trainledger import {mapped_kind} --preset {name}`",
        "用 `trainledger import {mapped_kind} --preset {name}` 导入它",
    ),
    # {hint}: "" or " — did you mean X?" (its own template); the two placeholders together are the rest
    "mapfile.no_preset": ("no preset {name}{hint}", "没有预设 {name}{hint}"),
    "mapfile.no_mapping_or_preset": ("no mapping file or preset {name}{hint}", "没有映射文件或预设 {name}{hint}"),
    "mapfile.use_one_trainledger_presets": (
        "use one of: {listing} (`trainledger presets` lists them)",
        "从以下选一个：{listing}（`trainledger presets` 会列出它们）",
    ),
    "mapfile.check_mapping_path": (
        "check the --mapping path, or use a preset: {listing} (`trainledger presets` lists them)",
        "检查 --mapping 的路径，或改用预设：{listing}（`trainledger presets` 会列出它们）",
    ),
    "mapfile.this_mapping_fills_table": (
        "this mapping fills table {table}, but `import {kind}` fills {tables}",
        "该映射填充表 {table}，而 `import {kind}` 填充 {tables}",
    ),
    "mapfile.import_with_trainledger_import": (
        "import it with `trainledger import {mapped_kind}`, or set table = \"{p1}\" in the mapping",
        "用 `trainledger import {mapped_kind}` 导入它，或在映射中设置 table = \"{p1}\"",
    ),
    # the document
    "mapfile.not_toml": ("not TOML: {e}", "不是合法的 TOML：{e}"),
    "mapfile.unknown_key": ("unknown key", "未知的键"),
    "mapfile.unknown_key_elsewhere": ("unknown key: it is written as {spelling}", "未知的键：应写作 {spelling}"),
    "mapfile.elsewhere_vocabulary": ("a map on the column", "该列上的 map"),
    "mapfile.elsewhere_map": (
        "a map on the column: state = {{ from = …, map = {{ … }} }}",
        "该列上的 map：state = {{ from = …, map = {{ … }} }}",
    ),
    "mapfile.not_target_table": ("{target} is not a target table", "{target} 不是可映射的表"),
    "mapfile.table_one": ("table = one of {TABLES}", "table 取 {TABLES} 之一"),
    "mapfile.does_not_apply": (
        "does not apply to table {target} (it is for {tables})",
        "不适用于表 {target}（此键用于 {tables}）",
    ),
    "mapfile.leave_out": ("leave {key} out; {DOCS}", "去掉 {key}；{DOCS}"),
    "mapfile.must_be_table": ("must be a table, written [{key}]", "应为表，写作 [{key}]"),
    "mapfile.header_or_list": ("must be a header name or a list of them", "应为列名或列名列表"),
    "mapfile.e_g_pretaxamount": (
        "e.g. {key} = [\"应付金额\", \"PretaxAmount\"]",
        "例如 {key} = [\"应付金额\", \"PretaxAmount\"]",
    ),
    "mapfile.columns_empty": ("is empty: map at least one field", "为空：请至少映射一个字段"),
    "mapfile.e_g_columns_job": ("e.g. [columns] job_id = \"id\"", "例如 [columns] job_id = \"id\""),
    "mapfile.no_field": ("{table} has no field {n}", "{table} 没有字段 {n}"),
    "mapfile.map_onto_one": ("map onto one of {known}", "映射到 {known} 之一"),
    "mapfile.text_or_number": ("must be a text or number", "应为文本或数字"),
    "mapfile.name_a_header": ("must name a header", "应为列名"),
    "mapfile.e_g_group": ("e.g. {k} = \"group\"", "例如 {k} = \"group\""),
    "mapfile.numbers_need_origin": ("numbers need an origin", "以数字书写的时间需要起点"),
    "mapfile.add_time_origin_z": ("add [time] origin = \"…Z\"", "加上 [time] origin = \"…Z\""),
    "mapfile.list_of_headers": ("must be a list of headers", "应为列名列表"),
    "mapfile.list_of_texts": ("must be a list of texts", "应为文本列表"),
    "mapfile.e_g_nulls_none": ("e.g. nulls = [\"\", \"None\"]", "例如 nulls = [\"\", \"None\"]"),
    "mapfile.whole_seconds": ("must be a whole number of seconds > 0", "应为大于 0 的整数秒"),
    "mapfile.e_g_interval": ("e.g. interval_s = 60", "例如 interval_s = 60"),
    # [time] and a column's time
    "mapfile.not_iso_or_number": ("{fmt} is not iso or number", "{fmt} 应为 iso 或 number"),
    "mapfile.not_iso_time": ("{value} is not an ISO time", "{value} 不是 ISO 时间"),
    "mapfile.e_g_t": ("e.g. {p0} = \"2020-04-01T00:00:00+08:00\"", "例如 {p0} = \"2020-04-01T00:00:00+08:00\""),
    "mapfile.no_utc_offset": ("{value} has no UTC offset", "{value} 缺少 UTC 偏移"),
    "mapfile.write_instant_with_its": (
        "write the instant with its offset, e.g. +08:00 or Z",
        "时刻请带时区偏移书写，例如 +08:00 或 Z",
    ),
    "mapfile.unit_not_one_of": ("unit {value} is not one of {units}", "单位 {value} 不是 {units} 之一"),
    "mapfile.e_g": ("e.g. {p0} = \"s\"", "例如 {p0} = \"s\""),
    # [columns]
    "mapfile.job_column_key": (
        "does not apply to the job tables (jobs, occupancy, worker_steps, capacity: their fields are read by"
        " their own converters)",
        "不适用于作业类表（jobs、occupancy、worker_steps、capacity：其字段由各自的转换器读取）",
    ),
    "mapfile.leave_out_for_times": (
        "leave {k} out; for times use the [time] section",
        "去掉 {k}；时间请用 [time] 一节",
    ),
    "mapfile.names_no_header": ("names no header: add from = \"…\"", "未指明列名：请加上 from = \"…\""),
    "mapfile.e_g2": ("e.g. {name} = {{ from = \"…\" }}", "例如 {name} = {{ from = \"…\" }}"),
    "mapfile.unknown_type": ("unknown type {kind}", "未知类型 {kind}"),
    "mapfile.scale_not_number": ("{scale} is not a number", "{scale} 不是数字"),
    "mapfile.scale_remedy": (
        "write the factor as a number in quotes, e.g. scale = \"0.01\": a bill whose amounts are in fen"
        " (1/100 yuan) is read in yuan by billed_cost = {{ from = \"Amount (fen)\", type = \"decimal\","
        " scale = \"0.01\" }}, which divides each amount by 100 exactly",
        "把系数写成带引号的数字，例如 scale = \"0.01\"：金额以分为单位的账单，用 billed_cost = {{ from = \"金额(分)\","
        " type = \"decimal\", scale = \"0.01\" }} 按元读取，每个金额精确地除以 100",
    ),
    "mapfile.map_words": ("must map source words to texts", "应为“原词 = 值”的表"),
    "mapfile.state_only": (
        "only the state column of a job table has a vocabulary",
        "作业类表只有 state 列可映射词汇",
    ),
    "mapfile.keep_or_null": ("{unmapped} is not keep or null", "{unmapped} 应为 keep 或 null"),
    "mapfile.number_time_origin": ("a time written as a number needs an origin", "以数字书写的时间需要起点"),
    "mapfile.add_origin_unix_time": (
        "add origin = \"{EPOCH}\" (Unix time) on the column or under [time]",
        "在该列或 [time] 下加上 origin = \"{EPOCH}\"（Unix 时间）",
    ),
    "mapfile.unit_origin_time": (
        "unit and origin are for type = \"time\"",
        "unit 与 origin 仅用于 type = \"time\" 的列",
    ),
    # [wide], [period], [finalised], [[notes]]
    "mapfile.wide_table": ("must be a table [wide] with field and value", "应为含 field 与 value 的表 [wide]"),
    "mapfile.wide_needs": (
        "needs field and value, two field names (and total, a header)",
        "需要 field 与 value 两个字段名（以及列名 total）",
    ),
    "mapfile.wide_also": (
        "is also under [columns]: a wide table's headers give it",
        "也在 [columns] 中：宽表的列名已给出它",
    ),
    "mapfile.finalised_table": ("must be a table [finalised] with day and hour", "应为含 day 与 hour 的表 [finalised]"),
    "mapfile.finalised_range": ("day is 1-28 and hour 0-23", "day 取 1-28，hour 取 0-23"),
    "mapfile.notes_tables": ("must be [[notes]] tables", "应为 [[notes]] 表数组"),
    "mapfile.notes_needs": (
        "needs text, and when = always, decimals_over or missing",
        "需要 text，且 when 取 always、decimals_over 或 missing",
    ),
    # the built-in presets' [[notes]] (presets/*.toml), written on rows as "note: {text}": English in the
    # preset, Chinese here, so a row's note is one language either way (a user's own mapping says its own)
    "preset.aliyun_no_category": (
        "no service category: the row's product code (产品Code / ProductCode) or product name (产品 / ProductName)"
        " is not one this preset knows, so the sheet files it under other services and the storage reconciliation"
        " does not see it; map it with a --mapping file",
        "未识别服务类别：该行的产品编码（产品Code / ProductCode）或产品名称（产品 / ProductName）不在本预设的对照表中，"
        "成本底稿将其计入其他服务，存储对账也看不到它；请用 --mapping 文件映射",
    ),
    "preset.huawei_no_category": (
        "no service category: the row's product type code (产品类型编码 / cloud_service_type) or name (产品类型 /"
        " cloud_service_type_name) is not one this preset knows, so the sheet files it under other services and the"
        " storage reconciliation does not see it; map it with a --mapping file",
        "未识别服务类别：该行的产品类型编码（产品类型编码 / cloud_service_type）"
        "或名称（产品类型 / cloud_service_type_name）不在本预设的对照表中，"
        "成本底稿将其计入其他服务，存储对账也看不到它；请用 --mapping 文件映射",
    ),
    "preset.volcengine_no_category": (
        "no service category: the row's product (Product / 产品) is not one this preset knows, so the sheet files it"
        " under other services and the storage reconciliation does not see it; map it with a --mapping file",
        "未识别服务类别：该行的产品（Product / 产品）不在本预设的对照表中，"
        "成本底稿将其计入其他服务，存储对账也看不到它；请用 --mapping 文件映射",
    ),
    "preset.huawei_decimals": (
        "Huawei resource detail amounts keep 8 decimals; the account is debited to 2 (to the fen) and the rest"
        " written off (the column 抹零金额), so sums of these rows can differ from the deductions: reconcile with the"
        " monthly bill, not with row sums",
        "华为资源详单金额保留 8 位小数，实际按分扣费、其余抹零（抹零金额 列），"
        "行合计可能与扣费不一致：请与月度账单对账，而不是按行合计",
    ),
    "preset.volcengine_decimals": (
        "Volcano Engine bill-detail amounts keep up to 6 decimals; the bill drops the third decimal and beyond, so"
        " sums of these rows can exceed what is charged: reconcile with the monthly bill, not with row sums",
        "火山引擎账单明细金额最多保留 6 位小数，汇总为账单时抹掉第 3 位及之后的小数，"
        "行合计可能高于实际扣费：请与月度账单对账，而不是按行合计",
    ),
    # an old-format file, read translated (legacy_notes)
    "mapfile.legacy_head": (
        "{where}: old mapping format, read translated; rewrite it so:",
        "{where}：旧映射格式（已按新格式读取），请这样改写：",
    ),
    "mapfile.legacy_timezone": (
        "timezone = \"{tz}\" is the old spelling: write [time] zone = \"{tz}\"",
        "timezone = \"{tz}\" 是旧写法：请写作 [time] zone = \"{tz}\"",
    ),
    "mapfile.legacy_tz": (
        "[time] tz = \"{tz}\" is the old spelling: write [time] zone = \"{tz}\"",
        "[time] tz = \"{tz}\" 是旧写法：请写作 [time] zone = \"{tz}\"",
    ),
    "mapfile.legacy_states": (
        "[states] is the old spelling: write the words on the state column, "
        "state = {{ from = \"…\", map = {{ word = \"STATE\", … }} }}",
        "[states] 是旧写法：请把词汇写在 state 列上，state = {{ from = \"…\", map = {{ word = \"STATE\", … }} }}",
    ),
    "mapfile.legacy_notes": (
        "notes = \"…\" (text) is the old spelling: write caveats = \"…\" ([[notes]] are put on rows)",
        "notes = \"…\"（文本）是旧写法：请写作 caveats = \"…\"（[[notes]] 是写在行上的备注）",
    ),
    "mapfile.legacy_epoch": (
        "columns.{name}: type = \"{type}\" is the old spelling: write type = \"time\", unit = \"{unit}\","
        " origin = \"{origin}\"",
        "columns.{name}：type = \"{type}\" 是旧写法：请写作 type = \"time\", unit = \"{unit}\", origin = \"{origin}\"",
    ),
}
