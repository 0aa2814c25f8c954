"""Single-use temporaries put back in place (`decompiler/temporaries.py`), and only where that
evaluates the same things in the same order."""
from __future__ import annotations

import ast
import textwrap
from typing import Any, List

import pytest

from depyf.decompiler import nodes as n
from depyf.decompiler.printer import Printer
from depyf.decompiler.temporaries import inline_single_use


def _expr(e: ast.expr) -> n.Expr:
    if isinstance(e, ast.Name):
        return n.Name(e.id)
    if isinstance(e, ast.Constant):
        return n.Const(e.value)
    if isinstance(e, ast.Call):
        return n.Call(_expr(e.func), [_expr(a) for a in e.args])
    if isinstance(e, ast.Attribute):
        return n.Attribute(_expr(e.value), e.attr)
    if isinstance(e, ast.BinOp):
        return n.BinOp({ast.Add: "+", ast.Mult: "*"}[type(e.op)], _expr(e.left), _expr(e.right))
    if isinstance(e, ast.Lambda):
        return n.Lambda("", _expr(e.body))
    if isinstance(e, ast.List):
        return n.List_([_expr(x) for x in e.elts])
    if isinstance(e, ast.NamedExpr):
        return n.NamedExpr(_expr(e.target), _expr(e.value))
    raise NotImplementedError(ast.dump(e))


def _stmts(body: List[ast.stmt]) -> List[n.Stmt]:
    out: List[n.Stmt] = []
    for s in body:
        if isinstance(s, ast.Assign):
            out.append(n.Assign([_expr(t) for t in s.targets], _expr(s.value)))
        elif isinstance(s, ast.Expr):
            out.append(n.ExprStmt(_expr(s.value)))
        elif isinstance(s, ast.Return):
            out.append(n.Return(_expr(s.value)))
        elif isinstance(s, ast.Delete):
            out.append(n.Delete([_expr(t) for t in s.targets]))
        elif isinstance(s, ast.If):
            out.append(n.If(_expr(s.test), _stmts(s.body), _stmts(s.orelse)))
        elif isinstance(s, ast.While):
            out.append(n.While(_expr(s.test), _stmts(s.body), _stmts(s.orelse)))
        else:
            raise NotImplementedError(ast.dump(s))
    return out


def inlined(source: str, plain_locals: Any = ("a", "b")) -> str:
    stmts = _stmts(ast.parse(textwrap.dedent(source)).body)
    inline_single_use(stmts, set(plain_locals))
    return "\n".join(Printer(4).block(stmts, 0))


@pytest.mark.parametrize(
    "source, expected",
    [
        # the temporary is the first value the next statement evaluates: put back
        ("__temp_0 = f.g\nx = __temp_0(y)", "x = f.g(y)"),
        ("__temp_0 = f()\nx = (t := __temp_0)()", "x = (t := f())()"),
        ("__temp_0 = f()\nif __temp_0:\n    g()", "if f():\n    g()"),
        ("__temp_0 = f()\nreturn __temp_0 + 1", "return f() + 1"),
        # chains collapse from the last one up
        ("__temp_0 = f()\n__temp_1 = __temp_0.g\nh(__temp_1)", "__temp_1 = f().g\nh(__temp_1)"),
        # stepping over the `del` of a plain local the value does not read
        ("__temp_0 = f(b)\ndel a\nx = __temp_0", "del a\nx = f(b)"),
    ],
)
def test_put_back(source: str, expected: str) -> None:
    assert inlined(source) == expected


@pytest.mark.parametrize(
    "source",
    [
        "__temp_0 = f()\nx = g() + __temp_0",  # g() would run before f()
        "__temp_0 = f()\nx = __temp_0 + __temp_0",  # used twice
        "__temp_0 = f()\ny = 1\nx = __temp_0",  # not the next statement
        "__temp_0 = f(a)\ndel a\nx = __temp_0",  # f reads the deleted name
        "__temp_0 = f()\ndel c\nx = __temp_0",  # c may be a global or a cell f can see
        "__temp_0 = f()\nwhile __temp_0:\n    g()",  # a loop test is evaluated again and again
        "__temp_0 = f()\nx = lambda: __temp_0",  # evaluated later, if ever
    ],
)
def test_left_alone(source: str) -> None:
    assert inlined(source) == source


def test_never_read_becomes_an_expression_statement() -> None:
    assert inlined("__temp_0 = f()\nreturn x") == "f()\nreturn x"


def test_never_read_without_effect_is_dropped() -> None:
    assert inlined("__temp_0 = [[], a]\nreturn x") == "return x"
    assert inlined("if a:\n    __temp_0 = []\nreturn x") == "if a:\n    pass\nreturn x"
