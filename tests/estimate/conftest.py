"""Shared fixture: the shipped sample price book, loaded once."""

from __future__ import annotations

import pytest

from trainledger.pricebook import SAMPLE_PRICE_BOOK, load_price_book


@pytest.fixture(scope="session")
def book():
    return load_price_book(SAMPLE_PRICE_BOOK)
