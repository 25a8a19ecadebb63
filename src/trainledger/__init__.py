"""trainledger: where did this model's money go, and should we keep spending it?

The public API is the domain model (``trainledger.model``) and the error tree
(``trainledger.errors``); everything else is reached through the CLI (``trainledger --help``).
"""

from trainledger.errors import (
    BadInput,
    ConfigError,
    NotFound,
    TrainledgerError,
    WrongFileType,
)

__version__ = "0.1.0"

__all__ = [
    "BadInput",
    "ConfigError",
    "NotFound",
    "TrainledgerError",
    "WrongFileType",
    "__version__",
]
