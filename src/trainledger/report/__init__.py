"""Reports: the batch cost sheet (成本底稿) as data, and its renderers.

    sheet.py     build_sheet(workspace, batch) -> dict (the JSON contract of `trainledger sheet`)
    sheet_compute.py  compute states with hours that conserve, sections that add up, retry chains
    render.py    to_json / to_markdown / to_html, in en or zh-CN
    i18n.py      headings and column names in both languages (vocabulary labels: model/vocab.py)
    templates/   the HTML page (self-contained: inline CSS, no network)
"""
