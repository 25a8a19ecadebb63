"""Plan, execution, review, decision: a batch budget that updates itself and ends in a record.

Data flow::

    estimate spec and/or estimate options (+ [plan] table) ──► baseline.from_estimate
                   ──► Plan v1 (ledger ``plans``, immutable; the estimator inputs kept in it)
    ledger cost lines + runs, lake progress ──► actuals.collect ──► Actuals (work, quantities by state, rework)
    Plan + Actuals ──► variance.split (price / volume / efficiency / rework, exact)
                   ──► status.build (AC, EV, EAC, rounds, gates, alert candidates)
    service.check (after every attribution), service.check_at_import (hard caps, every import)
                   ──► alerts (ledger, open until a decision answers them)
    service.decide ──► options.options (cost to go per option, re-estimated through the estimator)
                   ──► decision record (ledger, hash-chained audit) with options, verdict, assets
    service.plan_from_review ──► Plan v1 of the next batch from measured rates

    plan.py      Plan, PlanLine, Rng; the [plan] table (bounds, gates, rules, assumptions)
    baseline.py  plans from an estimate spec / the estimate options, or from a review
    capacity_plan.py  the plan's compute on the capacity's bases (amortized, rate_card), one line each
    options.py   a decision's options: continue, shrink (re-estimated), stop, retarget (the child's plan)
    actuals.py   useful work from progress; cost lines matched to plan lines; measured rates
    chains.py    of a retry chain, which compute time is the failure's (and its review class), not rework whole
    variance.py  the exact four-part split, per line and per basis and currency
    status.py    AC / EV / EAC, metrics, rule verdicts, alert candidates and their drivers
    service.py   the workspace-level calls (CLI, demo, the sheet's section in report/plan_section.py)
    texts.py     English and zh-CN text
"""
