"""The internal (labor) spend curve's daily steps (review 7 L15).

A batch whose labor has several roles shows its phase totals to an engineer (labor_cost_phase), and its
internal spend curve took that kind too; but a day's step of the curve is that day's timesheet rows —
on the demo's 11-03 one person's 11 h, a step of 11 × the rate — so the curve printed the rate in one
division. Now the curve's points are labor_cost_person wherever they are shown: the batch page's JSON and
the cross report (whose engineer copy leaves the internal curve out).
Finance still sees every point.
"""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")]

from tests.web.roles_ws import BATCH_A  # noqa: E402

J = {"accept": "application/json"}


@pytest.fixture(scope="module")
def app(rates_ws):
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    with TestClient(create_app(rates_ws[0], require_token=True)) as c:
        yield c


def internal_curves(obj) -> list[dict]:
    found = []
    if isinstance(obj, dict):
        if obj.get("basis") == "internal" and isinstance(obj.get("points"), list) and obj["points"]:
            found.append(obj)
        for v in obj.values():
            found += internal_curves(v)
    elif isinstance(obj, list):
        for v in obj:
            found += internal_curves(v)
    return found


def _get(app, path, tok):
    r = app.get(path, headers={"Authorization": f"Bearer {tok}", **J})
    assert r.status_code == 200, (path, r.text[:300])
    return r.json()


@pytest.mark.parametrize("path", [f"/batches/{BATCH_A}", "/report"])
def test_an_engineer_sees_no_point_of_the_labor_curve_finance_sees_them_all(app, tokens, path):
    toks, _ = tokens
    fin = internal_curves(_get(app, path, toks["finance"]))
    assert fin, f"finance's {path} holds the internal spend curve"
    assert all(p["cumulative"] not in (None, "restricted") for c in fin for p in c["points"])
    for who in ("engineer", "viewer"):
        seen = internal_curves(_get(app, path, toks[who]))
        assert all(p["cumulative"] == "restricted" for c in seen for p in c["points"]), (who, path)
        # every point but the last, which is the batch's labor to date (a phase total the engineer sees)
        steps = {p["cumulative"] for c in fin for p in c["points"][:-1]} - {c["points"][-1]["cumulative"] for c in fin}
        body = app.get(path, headers={"Authorization": f"Bearer {toks[who]}", **J}).text
        assert not [s for s in steps if s and f'"{s}"' in body], (who, path)  # no point printed elsewhere either
