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


def fold_copied_returns(stmts: List[n.Stmt]) -> None:
    """`if c: A; return x` then `B` then `return x`  ->  `if c: A` / `else: B` then `return x`,
    when the if body's return is a copy of the one that ends the statements (and so on inwards).

    3.12+ copy a small exit block (`return x`) into each branch that reaches it; the copies keep
    the line of the original, so a branch's `return` on the line of the last one is one of them
    (a `return` written in the branch has its own line). Falling off the branch reaches that
    return next, so dropping the copy keeps the meaning, and the code after an if whose body
    returns is its else part. Written out, the returns compile to other jumps when the compiler
    left the original in the middle (3.13 from 7 nested ifs, the innermost body jumping to it).
    A branch that is nothing but the return keeps it, and so does the body of an if with no else
    part: with no jump to the return, its body would fall into the one the test jumps to (a
    `match` statement's case, whose failing test jumps to its own copy, reads so)."""
    for stmt in stmts:
        if isinstance(stmt, n.If):  # (not into a try or with: a return there runs exit code
            fold_copied_returns(stmt.body)  # first, whose line it may carry)
            fold_copied_returns(stmt.orelse)
    if len(stmts) > 1 and isinstance(stmts[-1], n.Return) and stmts[-1].line is not None:
        head = stmts[:-1]
        _fold_before(head, stmts[-1])
        stmts[:-1] = head
        if isinstance(stmts[-2], n.Try) and not stmts[-2].finalbody and not stmts[-2].star:
            _fold_into_handlers(stmts[-2], stmts[-1])


def _fold_into_handlers(stmt: n.Try, original: n.Return) -> None:
    """Drop the copies of `original` that end handlers of the try statement right before it.

    A handler that falls off its end jumps past the try statement, here to `return x`, which
    the compiler copies in place of the jump, after the handler's POP_EXCEPT (and a named
    handler's `e = None; del e`). The copy keeps the line of `return x`; a return written in the
    handler has its own (and on 3.14, which has no RETURN_CONST, other bytes: the value is loaded
    before POP_EXCEPT). Falling off the handler reaches the same return, so dropping the copy
    keeps the meaning."""
    for handler in stmt.handlers:
        body = handler.body
        while body and _same_return(body[-1], original):
            body.pop()
        if body:
            _fold_before(body, original)
        else:
            body.append(n.Pass())


def _fold_before(stmts: List[n.Stmt], original: n.Return) -> None:
    """Fold the copies of `original` in `stmts`, whose falling off reaches `original`."""
    while len(stmts) > 1 and _same_return(stmts[-1], original):
        stmts.pop()
    for k in range(len(stmts) - 1, -1, -1):
        s = stmts[k]
        if not isinstance(s, n.If):
            continue
        if k == len(stmts) - 1:
            if not s.orelse:
                # (`if c: A; return x` then `return x`: the test jumps to the one, the body to a
                # copy, which stays; an if before it may end in a copy of its own, the jump over
                # its else part: `if a: ...; return x` / `if d: B` / `return x`)
                continue
            _fold_before(s.body, original)
            _fold_before(s.orelse, original)
        elif not s.orelse and len(s.body) > 1 and _same_return(s.body[-1], original):
            s.orelse = stmts[k + 1:]
            del stmts[k + 1:]
            s.body.pop()
            _fold_before(s.body, original)
            _fold_before(s.orelse, original)
        break


def _same_return(stmt: n.Stmt, original: n.Return) -> bool:
    if not isinstance(stmt, n.Return) or stmt.line != original.line or stmt.jumped_to != original.jumped_to:
        return False
    a, b = stmt.value, original.value
    if isinstance(a, n.Name) and isinstance(b, n.Name):
        return a.id == b.id
    return isinstance(a, n.Const) and isinstance(b, n.Const) and type(a.value) is type(b.value) \
        and a.value == b.value


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
