"""A demo workspace whose labor rates are distinctive numbers, its tokens, and the secrets to look for.

The demo's own rates (260, 380 …) also occur as chart coordinates and sizes, so a search for them
would prove nothing. ``rates_ws`` rewrites every ``[[labor_rates]]`` range of the demo config to
values with odd cents (e.g. 263.17), re-attributes, and ``secrets`` lists what an engineer must
never see: each rate of the config, and each rate-derived cost the finance view holds — per role,
a one-role phase's cost, and every labor line (one timesheet row: a person's hours × a rate).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

BATCH_A, BATCH_B = "csa-sft-2026-11-a", "csa-sft-2026-11-b"


def distinctive(i: int) -> tuple[Decimal, Decimal, Decimal]:
    base = Decimal("201.37") + 23 * i
    return base, base + Decimal("41.54"), base + Decimal("97.81")


def rewrite_rates(config: Path) -> dict[str, tuple[Decimal, Decimal, Decimal]]:
    text = config.read_text(encoding="utf-8")
    blocks = text.split("[[labor_rates]]")
    rates = {}
    for i, block in enumerate(blocks[1:]):
        role = re.search(r'role = "([^"]+)"', block).group(1)
        low, exp, high = distinctive(i)
        block = re.sub(r'^low = "[^"]*"', f'low = "{low}"', block, count=1, flags=re.M)
        block = re.sub(r'^expected = "[^"]*"', f'expected = "{exp}"', block, count=1, flags=re.M)
        block = re.sub(r'^high = "[^"]*"', f'high = "{high}"', block, count=1, flags=re.M)
        blocks[i + 1] = block
        rates[role] = (low, exp, high)
    config.write_text("[[labor_rates]]".join(blocks), encoding="utf-8")
    return rates


def run_cli(*args) -> str:
    from trainledger.cli import cli

    r = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.output


@pytest.fixture(scope="module")
def rates_ws(tmp_path_factory):
    root = tmp_path_factory.mktemp("roles-demo")
    run_cli("demo", "--dir", root)
    rates = rewrite_rates(root / "trainledger.toml")
    assert len(rates) == 6
    run_cli("--workspace", root, "attribute")
    return root, rates


@pytest.fixture(scope="module")
def tokens(rates_ws):
    """Token texts by name: finance, engineer (any batch), engineer_a (batch A only), viewer,
    expired, revoked; and their ids."""
    from trainledger.ledger import tokens as tk
    from trainledger.service import Workspace

    root, _ = rates_ws
    out, ids = {}, {}
    for name, args in {"finance": ["--role", "finance"], "engineer": ["--role", "engineer"],
                       "engineer_a": ["--role", "engineer", "--batch", BATCH_A], "viewer": ["--role", "viewer"],
                       "revoked": ["--role", "finance", "--expires", "30"]}.items():
        out[name] = run_cli("--workspace", root, "token", "create", *args).strip().splitlines()[-1]
        ids[name] = out[name].split("_")[1]
    run_cli("--workspace", root, "token", "revoke", ids["revoked"])
    with Workspace.open(root) as wsp:
        rec, text = tk.create(wsp.ledger, "finance", expires_days=1, now=datetime.now(UTC) - timedelta(days=2))
    out["expired"], ids["expired"] = text, rec.id
    return out, ids


def variants(d: Decimal) -> set[Decimal]:
    """The figure as it may be printed: exact, or rounded to the cent either way."""
    from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP

    cent = Decimal("0.01")
    out = {d, d.quantize(cent, ROUND_HALF_EVEN), d.quantize(cent, ROUND_HALF_UP)}
    return {v for v in out if v != v.to_integral_value()}  # a whole number alone is too common to search


NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
PLAIN = re.compile(r"\d+(?:\.\d+)?")


def numbers(text: str) -> set[Decimal]:
    """Every number in ``text``, read both with thousands separators (1,004.73) and without (so
    "5,726.03" in a CSV row gives 5, 726.03 and 5726.03): a leak is never hidden by a separator."""
    found = {m.group().replace(",", "") for m in NUMBER.finditer(text)} | set(PLAIN.findall(text))
    return {Decimal(x) for x in found}


def secrets(root: Path, rates: dict) -> set[Decimal]:
    from trainledger.report.access import for_role
    from trainledger.service import Workspace

    found: set[Decimal] = set()
    for low, exp, high in rates.values():
        found |= {low, exp, high}
    with Workspace.open(root) as wsp:
        for b in (BATCH_A, BATCH_B):
            s, _ = for_role(wsp.sheet(b), "finance")
            for p in s["labor_by_phase"]:
                for r in p["roles"]:
                    for m in r["cost"]:
                        found |= {Decimal(m[k]) for k in ("low", "expected", "high")}
                if len([r for r in p["roles"] if r["cost"]]) == 1:
                    for m in p["cost"]:
                        found |= {Decimal(m[k]) for k in ("low", "expected", "high")}
        for ln in wsp.ledger.cost_lines():
            if ln.category == "labor":
                found |= {ln.amount.low, ln.amount.expected, ln.amount.high}
    return {v for d in found if d for v in variants(d)}


def leaks(text: str, needles: set[Decimal]) -> list[str]:
    """The needles that occur in ``text`` as a figure of their own."""
    return sorted(str(n) for n in numbers(text) & needles)


def xlsx_text(data: bytes) -> str:
    """Every XML part of a workbook, concatenated (cells, shared strings, defined names, charts)."""
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return "\n".join(z.read(n).decode("utf-8") for n in z.namelist() if n.endswith((".xml", ".rels")))
