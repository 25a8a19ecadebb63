"""A bill row's price terms on its source-row page (review 7 L1).

The demo's hourly H800 node rows state BilledCost 288.00 with ListCost 360.00 and ListUnitPrice 360.00
over a PricingQuantity of 1: the list cost is the list price, and its gap to the charge the discount.
The unit-price columns were withheld from an engineer while ListCost and ContractedCost were printed
beside them; now every price term of a bill row is unit_price, for the lake's values and the raw file's
alike, in the JSON and the HTML page. Finance still sees them.
"""

from __future__ import annotations

import re

import pytest

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")]

J = {"accept": "application/json"}
TERMS = ("listcost", "contractedcost", "listunitprice", "contractedunitprice")


@pytest.fixture(scope="module")
def app(rates_ws):
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    with TestClient(create_app(rates_ws[0], require_token=True)) as c:
        yield c


def _h(tok: str) -> dict:
    return {"Authorization": f"Bearer {tok}", **J}


def _node_row(app, tok: str) -> str:
    imports = app.get("/imports", headers=_h(tok)).json()["imports"]
    imp = next(r["id"] for r in imports if r["file"].endswith("bill-focus.csv"))
    return f"/sources/{imp}/1"  # the first hourly node row: BilledCost 288.00, ListCost 360.00


def _terms(page: dict) -> dict[str, object]:
    out = {}
    for part in ("values", "raw"):
        for k, v in (page.get(part) or {}).items():
            if k.replace("_", "").lower() in TERMS:
                out[f"{part}.{k}"] = v
    return out


def test_finance_sees_the_list_price_an_engineer_sees_none_of_the_price_terms(app, tokens):
    toks, _ = tokens
    path = _node_row(app, toks["finance"])
    fin = app.get(path, headers=_h(toks["finance"])).json()
    terms = _terms(fin)
    assert {k.split(".")[0] for k in terms} == {"values", "raw"}, terms
    assert "360" in {str(v).split(".")[0] for v in terms.values()}, terms  # the list price is there for finance
    for who in ("engineer", "viewer"):
        page = app.get(path, headers=_h(toks[who])).json()
        got = _terms(page)
        assert got.keys() == terms.keys()
        assert set(got.values()) == {"restricted"}, (who, got)
        assert page["values"].get("billed_cost") not in (None, "restricted") or \
            page["raw"].get("BilledCost") not in (None, "restricted")  # the charge itself stays
        html = app.get(path + "?lang=en", headers={"Authorization": f"Bearer {toks[who]}"}).text
        assert not re.search(r"(?<![\d.,])360(\.0+)?(?![\d.,])", html), who
