"""A small evaluator of the formulas trainledger's workbook builder writes, in Decimal: + − × ÷,
parentheses, ``ROUND``, ``ABS``, ``SUM``, ``SUMIFS`` (equality and ``*`` wildcards, ``&`` joins), cell
and range references on any sheet, defined names (``asm_…_low``: the cell they name). Enough to
recompute a workbook read back with openpyxl without a spreadsheet program, and to change an input
cell and see what moves (``overrides``)."""

from __future__ import annotations

import fnmatch
import re
from decimal import ROUND_HALF_EVEN, Decimal

from openpyxl.utils import column_index_from_string

_TOKEN = re.compile(r"""(?P<ref>(?:(?P<sheet>[A-Za-z_][A-Za-z0-9_]*)!)?\$?(?P<c1>[A-Z]{1,3})\$?(?P<r1>[0-9]+)
                        (?::\$?(?P<c2>[A-Z]{1,3})\$?(?P<r2>[0-9]+))?)
                      |(?P<fn>SUMIFS|SUM|ROUND|ABS|IF)\(
                      |(?P<name>[a-z_][a-z0-9_]*)
                      |(?P<str>"[^"]*")
                      |(?P<num>[0-9]+(?:\.[0-9]+)?)
                      |(?P<op>[-+*/(),&=])""", re.X)


class Evaluator:
    def __init__(self, wb, overrides: dict[tuple[str, str], Decimal] | None = None) -> None:
        self.wb = wb
        self.overrides = dict(overrides or {})
        self.cache: dict[tuple[str, str], object] = {}

    def value(self, sheet: str, coord: str):
        key = (sheet, coord)
        if key in self.overrides:
            return self.overrides[key]
        if key not in self.cache:
            c = self.wb[sheet][coord]
            v = c.value
            if c.data_type == "f":
                v = self.formula(sheet, v)
            elif isinstance(v, bool) or v is None:
                v = v
            elif isinstance(v, int | float):
                v = Decimal(repr(v))
            self.cache[key] = v
        return self.cache[key]

    def cells(self, sheet: str, c1: str, r1: int, c2: str, r2: int) -> list:
        a, b = column_index_from_string(c1), column_index_from_string(c2)
        from openpyxl.utils import get_column_letter

        return [self.value(sheet, f"{get_column_letter(c)}{r}") for r in range(r1, r2 + 1) for c in range(a, b + 1)]

    def formula(self, sheet: str, text: str):
        assert text.startswith("="), text
        out, pos = [], 0
        body = text[1:]
        while pos < len(body):
            m = _TOKEN.match(body, pos)
            assert m, f"cannot read {body[pos:]!r} in {text!r}"
            pos = m.end()
            if m["ref"]:
                sh = m["sheet"] or sheet
                if m["c2"]:
                    out.append(f"R({sh!r},{m['c1']!r},{int(m['r1'])},{m['c2']!r},{int(m['r2'])})")
                else:
                    out.append(f"V({sh!r},{m['c1'] + m['r1']!r})")
            elif m["name"]:  # a defined name: the one cell it names
                sh, coord = next(self.wb.defined_names[m["name"]].destinations)
                out.append(f"V({sh!r},{coord.replace('$', '')!r})")
            elif m["fn"]:
                out.append(m["fn"] + "(")
            elif m["str"]:
                out.append(repr(m["str"][1:-1]))
            elif m["num"]:
                out.append(f"D({m['num']!r})")
            elif m["op"] == "&":
                out.append("+")
            elif m["op"] == "=":
                out.append("==")
            else:
                out.append(m["op"])
        env = {"D": Decimal, "V": self.value, "R": self.cells, "SUMIFS": _sumifs, "ABS": abs,
               "SUM": lambda *xs: sum((v for x in xs for v in (x if isinstance(x, list) else [x])
                                       if isinstance(v, Decimal)), Decimal(0)),
               "ROUND": lambda x, n: Decimal(x).quantize(Decimal(1).scaleb(-int(n)), ROUND_HALF_EVEN),
               "IF": lambda c, a, b: a if c else b}
        return eval("".join(out), {"__builtins__": {}}, env)  # noqa: S307 - tokens checked above


def _sumifs(total: list, *pairs) -> Decimal:
    out = Decimal(0)
    crits = list(zip(pairs[::2], pairs[1::2], strict=True))
    for i, v in enumerate(total):
        if all(_hit(rng[i], crit) for rng, crit in crits) and isinstance(v, Decimal):
            out += v
    return out


def _hit(value, crit) -> bool:
    if isinstance(crit, str) and "*" in crit:
        return isinstance(value, str) and fnmatch.fnmatchcase(value, crit)
    return value == crit
