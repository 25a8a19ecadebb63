"""Find the sentences the code writes for people: every message and remedy passed to an error class
(errors.py's tree), to a quarantine (``Rejected``, ``BadValue``, a converter's ``ValueError`` in
ingest/), a row flag (``Flagged``'s note), a ``remedy=`` / ``missing_remedy=`` keyword anywhere and
a module constant named ``*_REMEDY``. Each becomes a template (``{name}`` for each interpolated
value) that must be in the catalogue (trainledger/i18n/texts_errors.py, texts_ingest.py).

Used by tests/i18n/test_errors_catalogued.py; also prints the missing ones as catalogue rows:
``python tests/i18n/scan.py``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "trainledger"

ERRORS = {"BadInput", "ConfigError", "NotFound", "WrongFileType", "LedgerTampered", "TrainledgerError"}
INGEST = {"Rejected", "BadValue"}
ALL_ARGS = ERRORS | INGEST
REMEDY_KEYWORDS = {"remedy", "missing_remedy", "problem"}
TEXT_FUNCTIONS = ("_problem", "_remedy")  # functions that return one
TEXT_NAMES = {"problem", "remedy", "missing_remedy", "width_remedy"}  # variables and class attributes holding one
SKIP_FILES = {"i18n"}  # the catalogue itself


@dataclass(frozen=True)
class Found:
    path: str
    line: int
    template: str | None  # None: not a literal (``str(e)``, an attribute): said where it is made
    code: str

    @property
    def ingest(self) -> bool:
        return "/ingest/" in self.path or self.path.startswith("ingest/")


def _name(expr: ast.expr, i: int) -> str:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, str):
        return re.sub(r"\W", "_", expr.slice.value)
    if isinstance(expr, ast.Call):
        f = expr.func
        fname = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if fname in ("len", "str", "repr", "int", "float", "sorted", "list") and expr.args:
            inner = _name(expr.args[0], i)
            return ("n_" + inner) if fname == "len" else inner
        if fname in ("join",) and expr.args:
            return _name(expr.args[0], i)
        if fname:
            return fname.strip("_")
    return f"p{i}"


class _Template:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.names: dict[str, str] = {}  # expression source -> placeholder name

    def literal(self, s: str) -> None:
        self.parts.append(s.replace("{", "{{").replace("}", "}}"))

    def value(self, expr: ast.expr) -> None:
        src = ast.unparse(expr)
        if src not in self.names:
            base = _name(expr, len(self.names)) or "p"
            name, k = base, 2
            while name in self.names.values():
                name, k = f"{base}{k}", k + 1
            self.names[src] = name
        self.parts.append("{" + self.names[src] + "}")

    def text(self) -> str:
        return "".join(self.parts)


def _fill(node: ast.expr, t: _Template, resolve) -> bool:
    """Append ``node``'s text to ``t``; False when ``node`` holds no literal text at all."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        t.literal(node.value)
        return True
    if isinstance(node, ast.JoinedStr):
        for v in node.values:
            if isinstance(v, ast.Constant):
                t.literal(v.value)
            else:
                t.value(v.value)
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _fill(node.left, t, resolve), _fill(node.right, t, resolve)
        return left or right
    if isinstance(node, ast.Name):
        target = resolve(node.id)
        if target is not None:
            return _fill(target, t, lambda _n: None)
    t.value(node)
    return False


def templates(node: ast.expr, resolve) -> list[str | None]:
    """Every template ``node`` can produce (both branches of ``a if c else b``); None for a value
    with no literal text."""
    if isinstance(node, ast.IfExp):
        return templates(node.body, resolve) + templates(node.orelse, resolve)
    if isinstance(node, ast.Constant) and node.value is None:
        return []
    if isinstance(node, ast.Dict):  # {errno: remedy, ...}
        return [x for v in node.values for x in templates(v, resolve)]
    if isinstance(node, ast.BoolOp):  # record.remedy or "write one JSON object per line"
        return [x for v in node.values for x in templates(v, resolve)]
    t = _Template()
    return [t.text()] if _fill(node, t, resolve) else [None]


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def scan_file(path: Path) -> list[Found]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = str(path.relative_to(SRC))
    module_consts: dict[str, ast.expr] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            module_consts[stmt.targets[0].id] = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            module_consts[stmt.target.id] = stmt.value
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    out: list[Found] = []

    def resolver(at: ast.AST):
        fn = at
        while fn in parents and not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            fn = parents[fn]
        local: dict[str, ast.expr] = {}
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            for n in ast.walk(fn):
                if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                    local.setdefault(n.targets[0].id, n.value)

        def resolve(name: str) -> ast.expr | None:
            v = local.get(name, module_consts.get(name))
            if isinstance(v, ast.Constant | ast.JoinedStr | ast.BinOp | ast.IfExp):
                return v
            return None
        return resolve

    def add(node: ast.expr, at: ast.AST) -> None:
        resolve = resolver(at)
        for tpl in templates(node, resolve):
            out.append(Found(rel, node.lineno, tpl, ast.unparse(node)[:120]))

    in_ingest = rel.startswith("ingest/")
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _callee(node)
            if name in ALL_ARGS or (in_ingest and name == "ValueError"):
                for a in node.args[:2] if name in INGEST else node.args[:1]:
                    add(a, node)
            if name == "Flagged" and len(node.args) >= 2:
                add(node.args[1], node)
            if name == "fail" and len(node.args) >= 3:  # workspace.py: fail(setting, problem, remedy)
                add(node.args[1], node)
                add(node.args[2], node)
            if (name == "append" and isinstance(node.func, ast.Attribute) and node.args
                    and isinstance(node.args[0], ast.JoinedStr | ast.Constant | ast.BinOp | ast.IfExp)
                    and any(w in ast.unparse(node.func.value) for w in ("problem", "flags"))):
                # audit problems (ledger verify), row flags (importers)
                add(node.args[0], node)
            for kw in node.keywords:
                if kw.arg in REMEDY_KEYWORDS and name not in ("t", "text", "_t"):  # a catalogue call's parameter
                    add(kw.value, node)
        elif isinstance(node, ast.Assign | ast.AnnAssign) and any(
                isinstance(x, ast.Name) and x.id in TEXT_NAMES
                for x in (node.targets if isinstance(node, ast.Assign) else [node.target])) and node.value is not None:
            add(node.value, node)
        elif isinstance(node, ast.FunctionDef) and node.name.endswith(TEXT_FUNCTIONS):  # row_problem(): its returns
            for ret in ast.walk(node):
                if isinstance(ret, ast.Return) and isinstance(ret.value, ast.JoinedStr | ast.Constant | ast.BinOp):
                    add(ret.value, ret)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id in TEXT_NAMES:
            # problem = f"..."; problem += f" (...)": the sentence is both together
            fn = node
            while fn in parents and not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                fn = parents[fn]
            first = [n for n in ast.walk(fn) if isinstance(n, ast.Assign) and n.lineno < node.lineno
                     and any(isinstance(x, ast.Name) and x.id == node.target.id for x in n.targets)]
            if first:
                add(ast.BinOp(left=first[-1].value, op=ast.Add(), right=node.value, lineno=node.lineno), node)
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(x, ast.Name) and x.id.endswith("_REMEDY") for x in targets) and node.value is not None:
                add(node.value, node)
    return out


def _error_classes(paths: list[Path]) -> None:
    """Add every subclass of errors.py's tree defined in src (``TokenRefused(BadInput)``) to ERRORS."""
    classes = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = {b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else ""
                         for b in node.bases}
                classes.append((node.name, bases))
    grew = True
    while grew:
        grew = False
        for name, bases in classes:
            if name not in ERRORS and bases & ERRORS:
                ERRORS.add(name)
                ALL_ARGS.add(name)
                grew = True


def scan() -> list[Found]:
    found: list[Found] = []
    _error_classes(sorted(SRC.rglob("*.py")))
    for path in sorted(SRC.rglob("*.py")):
        if set(path.relative_to(SRC).parts) & SKIP_FILES:
            continue
        found += scan_file(path)
    return found


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(SRC.parent))
    from trainledger.i18n import patterns

    known = patterns.known_templates()
    seen = set()
    for f in scan():
        if f.template and f.template not in known and f.template not in seen:
            seen.add(f.template)
            print(f"{f.path}:{f.line}\t{f.template}")
