"""One exception tree for trainledger.

    TrainledgerError                 base of everything the tool raises on purpose
    ├── BadInput(ValueError)         input the user can fix: names the file, row and remedy
    │   └── WrongFileType            a whole file is not the format asked for
    ├── ConfigError(ValueError)      the workspace config or a price book is inconsistent
    ├── NotFound(LookupError)        a batch, run, workspace or price that does not exist
    └── LedgerTampered               stored figures or audit entries differ from the audit chain

Row-level problems during an import are *not* exceptions: they become quarantine records and the
import goes on. Exceptions are for what stops the whole command. The CLI turns each into one
message and exit code 2; ``http_status`` is the status a web API will answer with.

Messages and remedies are written in English in the code (or given as ``trainledger.i18n.Msg``);
``text(lang)`` says the error in ``en`` or ``zh-CN`` from the one catalogue (trainledger/i18n:
every sentence raised in src/ has its template there, checked by tests/i18n).
"""

from __future__ import annotations


class TrainledgerError(Exception):
    http_status = 500

    def __init__(self, message: str, *, remedy: str | None = None) -> None:
        self.message = message
        self.remedy = remedy
        if not hasattr(self, "detail"):
            self.detail = message  # the message without the file / row in front (BadInput)
        super().__init__(message if remedy is None else f"{message}\n  remedy: {remedy}")

    def where(self, lang: str) -> str:
        return ""

    def text(self, lang: str = "en") -> str:
        """The error as people read it in ``lang``: the message, then the remedy on its own line."""
        from trainledger.i18n.core import localize, text

        out = self.where(lang) + localize(self.detail, lang)
        if self.remedy is not None:
            out += "\n  " + text("cli.remedy", lang, remedy=localize(self.remedy, lang))
        return out


class BadInput(TrainledgerError, ValueError):
    http_status = 400

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        row: int | None = None,
        remedy: str | None = None,
    ) -> None:
        self.path = path
        self.row = row
        self.detail = message
        where = ""
        if path is not None:
            where = f"{path}" + (f", row {row}" if row is not None else "") + ": "
        TrainledgerError.__init__(self, where + message, remedy=remedy)

    def where(self, lang: str) -> str:
        from trainledger.i18n.core import text

        if self.path is None:
            return ""
        if self.row is None:
            return text("cli.where_file", lang, path=self.path)
        return text("cli.where_row", lang, path=self.path, row=self.row)


class WrongFileType(BadInput):
    """Raised when a file looks like another format; the message says what it looks like."""


class ConfigError(TrainledgerError, ValueError):
    http_status = 400


class NotFound(TrainledgerError, LookupError):
    http_status = 404


class LedgerTampered(TrainledgerError):
    """The ledger's stored figures or audit log no longer match its hash chain: nothing is built on them."""

    http_status = 409
