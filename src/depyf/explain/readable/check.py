"""Checks of a readable view: it compiles, and it holds no statement without effect.

The finder of statements without effect works on the view's text with `ast`, independently of the
passes that made it (which work on the decompiler's own tree), so it can catch what they miss. It
flags, in each function:

- an expression statement that only reads names and constants or builds a display of them
  (`___stack0`, `[__temp_3[0]]` where `__temp_3` is a local list);
- an empty slice assignment or extension (`l[0:0] = []`, `l.extend([])`);
- an assignment to a local that nothing reads afterwards, of a value without effect;
- a `del` of a local that nothing reads afterwards (it only ends a lifetime early);
- `pass` beside other statements.
"""
from __future__ import annotations

import ast
from typing import List, Set


def compile_view(text: str, filename: str = "<readable view>") -> None:
    """Raise SyntaxError where the view does not compile."""
    compile(text, filename, "exec")


def statements_without_effect(text: str) -> List[str]:
    """`line N: <statement>` for each statement of `text` that has no effect."""
    tree = ast.parse(text)
    found: List[str] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.extend(_in_function(node, text))
    return found


def _in_function(func: ast.FunctionDef, text: str) -> List[str]:
    local = _locals(func)
    order = [s for s in _statements(func.body)]
    found: List[str] = []
    for k, stmt in enumerate(order):
        why = _why_without_effect(stmt, local, order[k + 1:])
        if why:
            found.append(f"line {stmt.lineno}: {ast.get_source_segment(text, stmt) or why} ({why})")
    for block in _blocks(func):
        if len(block) > 1:
            for stmt in block:
                if isinstance(stmt, ast.Pass):
                    found.append(f"line {stmt.lineno}: pass beside other statements")
    return found


def _why_without_effect(stmt: ast.stmt, local: Set[str], later: List[ast.stmt]) -> str:
    if isinstance(stmt, ast.Expr) and _reads_only(stmt.value, local):
        return "an expression that only reads"
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target, value = stmt.targets[0], stmt.value
        if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Slice) \
                and isinstance(value, (ast.List, ast.Tuple)) and not value.elts \
                and _same_bounds(target.slice):
            return "an empty slice assignment"
        if isinstance(target, ast.Name) and target.id in local and _reads_only(value, local) \
                and not _read_later(target.id, later):
            return "a value stored and never read"
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        if isinstance(call.func, ast.Attribute) and call.func.attr == "extend" and len(call.args) == 1 \
                and isinstance(call.args[0], (ast.List, ast.Tuple)) and not call.args[0].elts:
            return "an extension by nothing"
    if isinstance(stmt, ast.Delete) and all(isinstance(t, ast.Name) and t.id in local for t in stmt.targets) \
            and not any(_read_later(t.id, later) for t in stmt.targets):  # type: ignore[attr-defined]
        return "a del that only ends a lifetime"
    return ""


def _same_bounds(s: ast.Slice) -> bool:
    """`l[i:i]` with the same constant bounds: inserting nothing there changes nothing."""
    return isinstance(s.lower, ast.Constant) and isinstance(s.upper, ast.Constant) and s.lower.value == s.upper.value \
        and s.step is None


def _reads_only(e: ast.expr, local: Set[str]) -> bool:
    """Evaluating `e` reads locals and constants, or builds displays of them, or subscripts a
    local list display by a constant (nothing that could run other code)."""
    if isinstance(e, ast.Constant):
        return True
    if isinstance(e, ast.Name):
        return e.id in local
    if isinstance(e, (ast.List, ast.Tuple)):
        return all(_reads_only(x, local) for x in e.elts)
    if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and e.value.id in local \
            and isinstance(_index(e.slice), ast.Constant):
        return True  # (a local list of Dynamo's bookkeeping read by index)
    return False


def _index(node: ast.AST) -> ast.AST:
    """A subscript's index (`ast` wraps a plain one in `Index` before Python 3.9)."""
    index_type = getattr(ast, "Index", None)
    return node.value if index_type is not None and isinstance(node, index_type) else node  # type: ignore[attr-defined]


def _read_later(name: str, later: List[ast.stmt]) -> bool:
    for stmt in later:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
                return True
    return False


def _locals(func: ast.FunctionDef) -> Set[str]:
    names: Set[str] = {a.arg for a in func.args.args + func.args.posonlyargs + func.args.kwonlyargs}
    for extra in (func.args.vararg, func.args.kwarg):
        if extra is not None:
            names.add(extra.arg)
    declared: Set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
    return names - declared


def _statements(body: List[ast.stmt]) -> List[ast.stmt]:
    """The statements of a body in program order, nested ones after their owner."""
    out: List[ast.stmt] = []
    for stmt in body:
        out.append(stmt)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            out.extend(_statements(getattr(stmt, field, None) or []))
        for handler in getattr(stmt, "handlers", None) or []:
            out.extend(_statements(handler.body))
    return out


def _blocks(func: ast.FunctionDef) -> List[List[ast.stmt]]:
    blocks: List[List[ast.stmt]] = [func.body]
    for node in ast.walk(func):
        if node is func:
            continue
        for field in ("body", "orelse", "finalbody"):
            value = getattr(node, field, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                blocks.append(value)
    return blocks

