"""Reports: the batch cost sheet (成本底稿), the estimate report and the cross-batch report — one view
model each, one catalogue (i18n/registry.py: ``sheet``, ``report.estimate`` …), one set of primitives.

    primitives.py  what every renderer draws with: values (money, quantities, shares, unit prices),
                 ranges, the evidence badge, Markdown tables, the JSON writer, the pages' Jinja env
    estimate_view.py   the estimate report's and the procurement comparison's view models (from
                 ``Estimate.to_dict()`` / ``Comparison.to_dict()``)
    estimate_render.py them as JSON, Markdown, HTML (templates/estimate.html.j2), in en or zh-CN
    texts_estimate.py  their headings and labels in both languages (``report.estimate``)

    sheet.py     build_sheet(workspace, batch) -> dict (the JSON contract of `trainledger sheet`):
                 batch_figures (what the lines, runs and summary give) + what is read per request,
                 and the balance view built from them (``balance``)
    precompute.py  every batch's batch_figures written once per attribution under the figures
                 digest (cache/sheets/), their sha256 in the audit chain; served under a verified proof
    provisional.py  the bill caveats (provisional rows, vendor notes) of the batch's bill rows, per
                 import and month: a note under the totals and assumptions-drawer rows (``sheet.bill``)
    sheet_compute.py  compute states with hours that conserve, sections that add up, retry chains
    sheet_problems.py  the problems a sheet carries: the batch's own (naming only its jobs, runs, roles,
                 files) and one counted line per other kind of the workspace's, indexed once
    render.py    to_json / to_markdown / to_html, in en or zh-CN; lists in model/vocab order, figures
                 through trainledger/fmt.py, rounding gaps and grouped problems told
    xlsx.py      the sheet as a workbook (openpyxl): README, Summary + charts, Lines, named Assumptions,
                 Balance, Variance and Control as live formulas beside the engine's exact figures,
                 Decisions; labels beside codes in the workbook's language (``Book.said``);
                 its own words in xlsx_text.py; each formula's cached result (the engine's figure) is
                 written into the file by xlsx_cache.py
    i18n.py      headings and column names in both languages (vocabulary labels: model/vocab.py)
    problems_i18n.py  every engine problem kind: label and message in en and zh-CN from its detail
                 (the sheets show the label; JSON keeps kind + message, adds message_zh, label, label_zh)
    plan_section.py  the sheet's plan-vs-actual section (from review/), its Markdown, its HTML include
    charts.py    inline SVG charts from the sheet dict (compute by state, cost per basis, variance bridge,
                 spend over time against plan and EAC)
    balance.py   the balance view: consumption | delivery investment, and the assumptions' sensitivity
    balance_section.py  the balance view in the Markdown sheet; the drawer's units in the sheet's language
    xlsx_balance.py   the workbook's Balance sheet (drawer low / high over their named Assumptions cells)
    xlsx_control.py   the workbook's Control: this batch's attributed cash (and each capacity's share) a
                 SUMIFS over Lines, the other batches a SUM over their table (the summary's
                 attributed_by_batch), unattributed the SUM of its rows by reason, billed − (attributed +
                 unattributed) a formula = 0.00
    xlsx_variance.py  the workbook's Variance as live formulas over Lines and the plan's rates (named
                 cells on Assumptions): change a rate and the bridge moves
    cross.py     the cross-batch report's view model (frozen dataclasses): spend per basis over time, per
                 batch, shares, the unattributed trend, plan vs actual, control, spend curves with the EAC
    dating.py    the day (workspace zone) and month (a bill's billing month) of each cost line; a
                 capacity's line by its node-day (engine/capacity_dating.py)
    cross_render.py  the cross-batch report as JSON (the documented contract), Markdown, HTML
    cross_xlsx.py    the cross-batch report as a workbook (report/xlsx.py's Book); the spend curves'
                 rows and line charts, also for the batch workbook's Curves sheet
    cross_text.py    the cross-batch report's and the spend chart's words in en and zh-CN
    access.py    which sheet fields are Restricted (model/restricted.py), and for_role(): the gate every
                 renderer passes the sheet through for a role (the balance view's marks too)
    field_kinds.py  the restricted kind of a field by its name or its cost line: unit prices anywhere,
                 a line's amounts (workbook Lines, CSV, the dashboard), a source row, a quarantined row
    labor_kinds.py  one person's labor cost or a phase's: the sheet's labor totals, the strictest kind
    plan_access.py  plan, status and review view models marked (mark_plan, mark_internal), plan_for()
    cross_access.py     the cross-batch report for a role (cross_for_role, each role's copy: cross_by_role)
    estimate_access.py  the estimate report for a role (mark_estimate, estimate_for)
    text_mask.py an alert's or a driver's text with its money masked for a role, its quantities kept;
                 restrict_text(): a text restricted as the figures it quotes
    csv_lines.py the batch's cost lines as CSV for a role (`sheet --format csv`), formula-safe
    templates/   the HTML page (self-contained: inline CSS, no network)
"""
