"""Evidence of a figure: the weakest of its inputs (contract > measured > assumed).

A bill's amount split by measured GPU-seconds is ``measured``; a measured quantity at an assumed
price is ``assumed``. Nothing is stronger than what it rests on.
"""

from __future__ import annotations

from trainledger.model.vocab import Evidence

STRENGTH = {Evidence.CONTRACT: 2, Evidence.MEASURED: 1, Evidence.ASSUMED: 0}


def weakest(*levels: Evidence | str) -> Evidence:
    """The weakest of ``levels`` (at least one)."""
    if not levels:
        raise ValueError("weakest needs at least one evidence level")
    return min((Evidence(x) for x in levels), key=STRENGTH.__getitem__)
