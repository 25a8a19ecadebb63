"""``trainledger serve``: a dashboard over the same view models as the static sheet, with two writes.

    views.py     the view models of the pages, as plain JSON-able dicts: batches, batch (the sheet of
                 report/sheet.py), run, cost line (with its stable id), source row (from the lake), report, plan status
                 (review/service.py's status and review, and the decisions)
    pages.py     the ledger's pages: imports, one import's quarantine, alerts (open and closed, the
                 deciding decision), a batch's decisions — from the calls the CLI makes
    writes.py    the two writes, POST with a CSRF token: a decision (``review.service.decide``; a
                 retarget names its child batch) and a run's failure-cause confirmation
                 (``run_causes.confirm``), the CLI's own service calls
    exports.py   a ledger page as a CSV file for the requester's role: an import's quarantine
    text.py      the pages' own words in en and zh-CN, and choosing the language (?lang=, cookie,
                 Accept-Language)
    rule_text.py a cost line's rule (its provenance) as a sentence in the page's language
    line_text.py a cost line's codes as words and its figures at the sheet's precision (the line page)
    app.py       the Starlette app: routes, HTML or JSON by ``Accept``, 404s that name the remedy,
                 /api/openapi.json, sheet downloads; the binding rule (``check_host``)
    openapi.py   the /api/openapi.json document: paths, parameters (?lang=, ?format=json, Accept), answers
    openapi_models.py  each view model's JSON shape, inferred from its real answers on the demo as admin
                 and viewer into openapi_models.json (``--update``), and the two-way conformance check
    auth.py      who asks: bearer token (role, batch scope) or the local admin on loopback; 401 / 403;
                 the audit entry of a response that revealed a restricted field; which role may make
                 which write (``WRITERS``) and the CSRF tokens (``Csrf``)
    cache.py     view models and rendered pages (and each page gzipped once) kept per ledger state
                 (the newest audit entry that changed a figure, the config's stat, the date) in bounded
                 LRUs; pages keyed by role; a page with a write form is rendered per request; the
                 ledger's verification proof kept per audit head; a watcher that builds the pages
                 read recently for the new state after a write
    templates/   Jinja pages (server-rendered, inline CSS, no script; plain HTML forms for the
                 writes); the batch page embeds report/render.py's to_html output unchanged

Every URL is a stable name: ``/batches/{batch}/runs/{run}``, ``/lines/{line}`` where a line id is
``{import}-{row}-{n}`` (the source file's 12-digit id, its data row, and the line's ordinal among
the lines that row produced, in ledger order), ``/sources/{import}/{row}``,
``/imports/{import}/quarantine`` (and ``.csv``), ``/alerts``, ``/batches/{batch}/decisions``.
"""
