"""Rewrites of the built tree that keep its meaning and read the way people write.

They run on a function's (or class or module's) statements after the builder is done.
"""
from typing import Dict, List

from depyf.decompiler import nodes as n
from depyf.decompiler.expressions import AssertionErrorName

# (not break/continue: at the end of a loop body a handler's `pass` reads as `continue`, and the
# source's `else` matters there)
_LEAVING = (n.Return, n.Raise)


def lift_needless_else(stmts: List[n.Stmt]) -> None:
    """`try: A / except: <always leaves> / else: B`  ->  `try: A / except: ... ` then `B`.

    When no handler can finish (each raises or returns), the `else` part runs
    exactly when it would run after the statement; without a `finally`, writing it after the
    statement means the same. That is how such code is usually written; from 3.12, where
    handler code is laid out after everything, it also gives back the original layout more often
    than not (before 3.12 the builder's reading of the layout is kept as it is)."""
    k = 0
    while k < len(stmts):
        stmt = stmts[k]
        for block in n.nested_blocks(stmt):
            lift_needless_else(block)
        if isinstance(stmt, n.Try) and stmt.orelse and not stmt.finalbody and stmt.handlers \
                and not getattr(stmt, "star", False) and not stmt.else_kept \
                and all(_always_leaves(h.body) for h in stmt.handlers):
            rest = stmt.orelse
            stmt.orelse = []
            stmts[k + 1:k + 1] = rest
        k += 1


def _always_leaves(stmts: List[n.Stmt]) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, _LEAVING):
        return True
    if isinstance(last, n.If):
        return _always_leaves(last.body) and _always_leaves(last.orelse)
    return False



def assert_false_for_assertion_raises(stmts: List[n.Stmt]) -> None:
    """`raise AssertionError(msg)` whose class came from LOAD_ASSERTION_ERROR (3.9+) and that no
    test guards is `assert False, msg`: the compiler drops the test of a false constant, and
    `raise AssertionError` would load the global name instead."""
    for k, stmt in enumerate(stmts):
        for block in n.nested_blocks(stmt):
            assert_false_for_assertion_raises(block)
        if not isinstance(stmt, n.Raise) or stmt.cause is not None:
            continue
        exc = stmt.exc
        if isinstance(exc, AssertionErrorName):
            stmts[k] = n.Assert(n.Const(False), None)
        elif isinstance(exc, n.Call) and isinstance(exc.func, AssertionErrorName) and len(exc.args) == 1 \
                and not isinstance(exc.args[0], (n.Starred, n.DoubleStarred, n.Keyword)):
            stmts[k] = n.Assert(n.Const(False), exc.args[0])


def bare_returns_in_procedures(stmts: List[n.Stmt]) -> None:
    """`return` for `return None` in a function that never returns a value: `return` and
    `return None` compile alike, and a procedure leaves early with a bare `return`. A function
    that returns values elsewhere keeps its explicit `return None`."""
    returns = _own_returns(stmts)
    if returns and all(r.value is None or (isinstance(r.value, n.Const) and r.value.value is None)
                       for r in returns):
        for r in returns:
            r.value = None


def _own_returns(stmts: List[n.Stmt]) -> List[n.Return]:
    """The return statements of this function, not of the functions and classes defined in it."""
    found: List[n.Return] = []
    pending = [stmts]
    # (this visits every statement of every function: what to do with one is looked up by its
    # class, and only statements with blocks are asked for them)
    steps = _RETURN_WALK
    while pending:
        for stmt in pending.pop():
            step = steps.get(type(stmt))
            if step is None:
                step = steps[type(stmt)] = _return_walk_step(type(stmt))
            if step is _FOUND:
                found.append(stmt)
            elif step is _DESCEND:
                pending.extend(n.nested_blocks(stmt))
    return found


_FOUND, _DESCEND, _PASS = "found", "descend", "pass"
_RETURN_WALK: Dict[type, str] = {}  # statement class -> what `_own_returns` does with one


def _return_walk_step(kind: type) -> str:
    if issubclass(kind, n.Return):
        return _FOUND
    if issubclass(kind, (n.FunctionDef, n.ClassDef)) or not n.block_fields(kind):
        return _PASS
    return _DESCEND
