"""JSON text where ``Decimal`` money is written as an exact JSON number (never a float's guess).

``json.loads(text, parse_float=Decimal)`` reads it back exactly; a plain ``json.loads`` gives the
nearest float, which is what most consumers expect of a number.
"""

from __future__ import annotations

import json
import math
from datetime import date
from decimal import Decimal


def _enc(o: object, indent: int, level: int) -> str:
    pad = " " * (indent * (level + 1))
    end = " " * (indent * level)
    if isinstance(o, Decimal):
        return format(o, "f")
    if isinstance(o, bool) or o is None or isinstance(o, str | int):
        return json.dumps(o, ensure_ascii=False)
    if isinstance(o, float):
        if not math.isfinite(o):
            raise ValueError(f"refusing to write a non-finite number {o!r} to JSON")
        return repr(o)
    if isinstance(o, date):
        return json.dumps(o.isoformat())
    if isinstance(o, dict):
        if not o:
            return "{}"
        items = [f"{pad}{json.dumps(str(k), ensure_ascii=False)}: {_enc(v, indent, level + 1)}" for k, v in o.items()]
        return "{\n" + ",\n".join(items) + f"\n{end}}}"
    if isinstance(o, list | tuple):
        if not o:
            return "[]"
        return "[\n" + ",\n".join(f"{pad}{_enc(v, indent, level + 1)}" for v in o) + f"\n{end}]"
    raise TypeError(f"cannot write {type(o).__name__} to JSON")


def dumps(obj: object, indent: int = 2) -> str:
    return _enc(obj, indent, 0) + "\n"
