"""Both languages from one catalogue: every user-facing text in English and Simplified Chinese.

    core.py          the API: ``text(id, lang, **params)``, ``Msg`` (a str that is its English
                     text and renders any language), ``Term``, ``localize``, ``is_zh``
    registry.py      the one registry: each domain table under a namespace (sheet, problem,
                     estimate, web, xlsx, review, vocab, cli, scheduler, help, click, error,
                     ingest)
    choose.py        which language a command speaks: --lang, TRAINLEDGER_LANG, the workspace's
                     language, LC_ALL / LC_MESSAGES / LANG, else en
    patterns.py      sentences written in the code (errors, remedies, quarantine reasons) found
                     by their template and rendered in Chinese
    texts_cli.py     the command line's own lines: summaries, notes, the error edge
    texts_help.py    every command's and option's help in Chinese
    texts_click.py   click's fixed words (Usage:, Options:, its usage errors) in Chinese
    texts_errors.py  every error message and remedy the code raises, as templates (with
                     texts_errors_estimate.py and texts_audit.py: audit problems, settings)
    texts_ingest.py  every quarantine reason, flag and remedy of the importers, as templates
                     (with texts_ingest_more.py; texts_mapfile.py: a mapping file's errors;
                     texts_ingest_detect.py: what a file is and
                     is not — importers' descriptions, identify()'s reasons, text.sniff's words)
    texts_causes.py  where a run's failure cause came from (engine/causes.py), as messages and
                     templates
    texts_stored.py  sentences the tool writes into the ledger (a plan's default reason, an
                     import's drop reason), as messages and templates
    clickzh.py       click's help and usage errors in the chosen language

Domain tables stay next to their code and are registered in ``registry.SOURCES``; a message
lacking either language, or whose two languages differ in placeholders, fails tests/i18n.

**Adding a message**: a line or a label a command prints goes into the table of its domain (or
texts_cli.py) as ``(english, chinese)`` and is said with ``text(id, lang)`` / ``Msg(id)``. An error,
remedy or quarantine reason is written in the code as an English f-string as before, and its
template added to texts_errors*.py / texts_ingest*.py — ``python tests/i18n/scan.py`` prints every
sentence the code writes that the catalogue lacks, ready to be translated.
"""

from trainledger.i18n.core import EN, LANGS, ZH, Msg, Term, is_zh, localize, normal, text, tr

__all__ = ["EN", "LANGS", "ZH", "Msg", "Term", "is_zh", "localize", "normal", "text", "tr"]
