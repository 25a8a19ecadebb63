"""Reports: the batch cost sheet (成本底稿) as data, and its renderers.

    sheet.py     build_sheet(workspace, batch) -> dict (the JSON contract of `trainledger sheet`)
    sheet_compute.py  compute states with hours that conserve, sections that add up, retry chains
    render.py    to_json / to_markdown / to_html, in en or zh-CN; lists in model/vocab order, figures
                 through trainledger/fmt.py, rounding gaps and grouped problems told
    xlsx.py      the sheet as a workbook (openpyxl): README, Summary + charts, Lines, named Assumptions,
                 Variance and Control as live formulas beside the engine's exact figures, Decisions;
                 its own words in xlsx_text.py
    i18n.py      headings and column names in both languages (vocabulary labels: model/vocab.py)
    problems_i18n.py  every engine problem kind: label and message in en and zh-CN from its detail
                 (the sheets show the label; JSON keeps kind + message, adds message_zh, label, label_zh)
    plan_section.py  the sheet's plan-vs-actual section (from review/), its Markdown, its HTML include
    charts.py    inline SVG charts from the sheet dict (compute by state, cost per basis, variance bridge)
    balance.py   the balance view: consumption | delivery investment, and the assumptions' sensitivity
    access.py    which sheet, plan and line fields are Restricted (model/restricted.py), and for_role():
                 the gate every renderer passes a view model through for a role
    csv_lines.py the batch's cost lines as CSV for a role (`sheet --format csv`), formula-safe
    templates/   the HTML page (self-contained: inline CSS, no network)
"""
