"""Put single-use temporaries back into the expression that uses them.

Code that keeps values on the stack across statements (Dynamo's) is read with named temporaries
(`builder.spill_value`): `__temp_0 = f.attr` then `x = (t := __temp_0)()`. Where a temporary is
used once, by the statement right after its assignment, and is the very first value that
statement evaluates, writing the expression in its place evaluates exactly the same things in the
same order: `x = (t := f.attr)()`. Every other temporary stays as it is.
"""
import re
from typing import Any, Dict, Iterator, List, Optional, Set

from depyf.decompiler import nodes as n

TEMP_PREFIX = "__temp_"

# Yielded in evaluation order where the order is not known (a lambda body, a comprehension, text
# kept verbatim): the search for the first value evaluated stops there.
_UNKNOWN = n.Raw("<unknown>")


_TEMP_NAME = re.compile(r"\b" + TEMP_PREFIX + r"\d+\b")


def inline_single_use(stmts: List[n.Stmt], plain_locals: Set[str], text: Optional[str] = None) -> None:
    """Inline, in place, every temporary of `stmts` (and the blocks inside) that qualifies.

    `plain_locals`: the function's local variables that no other code can see (not cells); a
    `del` of one of them may be stepped over. `text`: `stmts` already printed, if at hand: the
    temporaries are then counted in it (much faster than walking the tree; a string that
    happened to contain such a name would only make a count higher, and keep the temporary)."""
    counts: Dict[str, int] = {}
    if text is not None:
        for found in _TEMP_NAME.finditer(text):
            counts[found.group()] = counts.get(found.group(), 0) + 1
    else:
        for node in _walk(stmts):
            if isinstance(node, n.Name) and node.id.startswith(TEMP_PREFIX):
                counts[node.id] = counts.get(node.id, 0) + 1
    if counts:
        _inline_in_blocks(stmts, counts, plain_locals)


def _inline_in_blocks(stmts: List[n.Stmt], counts: Dict[str, int], plain_locals: Set[str]) -> None:
    for stmt in stmts:
        for block in n.nested_blocks(stmt):
            _inline_in_blocks(block, counts, plain_locals)
    k = len(stmts) - 1
    while k >= 0:
        name = _temporary_assigned(stmts[k])
        if name is not None and counts.get(name) == 1:
            # never read (a value Dynamo left on the stack at the end): an expression statement,
            # or nothing where evaluating it has no effect
            value = stmts[k].value  # type: ignore[attr-defined]
            if n.has_no_effect(value):
                del stmts[k]
            else:
                stmts[k] = n.ExprStmt(value)
        elif name is not None and counts.get(name) == 2:  # one assignment, one use
            value = stmts[k].value  # type: ignore[attr-defined]
            user = _next_evaluating(stmts, k + 1, value, plain_locals)
            if user is not None:
                use = _first_evaluated(stmts[user])
                if isinstance(use, n.Name) and use.id == name and _replace(stmts[user], use, value):
                    del stmts[k]
        k -= 1


def _next_evaluating(stmts: List[n.Stmt], k: int, value: n.Expr, plain_locals: Set[str]) -> Optional[int]:
    """The index of the first statement from `k` on that evaluates something, stepping over
    `del name` statements of plain locals that `value` does not read (no code `value` runs can
    see them, so evaluating it after the `del` computes the same)."""
    read: Optional[Set[str]] = None
    while k < len(stmts):
        stmt = stmts[k]
        if not isinstance(stmt, n.Delete):
            return k
        if read is None:  # (only worked out when a `del` is in the way)
            read = {node.id for node in _walk([n.ExprStmt(value)]) if isinstance(node, n.Name)}
        if not all(isinstance(t, n.Name) and t.id in plain_locals and t.id not in read for t in stmt.targets):
            return None
        k += 1
    return None


def _temporary_assigned(stmt: n.Stmt) -> Optional[str]:
    if isinstance(stmt, n.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
        if isinstance(target, n.Name) and target.id.startswith(TEMP_PREFIX):
            return target.id
    return None


# --- evaluation order ---------------------------------------------------------------------------


def _first_evaluated(stmt: n.Stmt) -> Optional[n.Expr]:
    """The first name or constant `stmt` evaluates, when that is known."""
    for leaf in _statement_order(stmt):
        return None if leaf is _UNKNOWN else leaf
    return None


def _statement_order(stmt: n.Stmt) -> Iterator[n.Expr]:
    if isinstance(stmt, n.Assign):
        yield from _order(stmt.value)
        for target in stmt.targets:
            yield from _target_order(target)
    elif isinstance(stmt, (n.ExprStmt, n.Return)):
        if stmt.value is not None:
            yield from _order(stmt.value)
    elif isinstance(stmt, n.If):
        yield from _order(stmt.test)
    else:
        yield _UNKNOWN


def _target_order(target: n.Expr) -> Iterator[n.Expr]:
    """What storing into `target` evaluates (a plain name evaluates nothing)."""
    if isinstance(target, n.Attribute):
        yield from _order(target.value)
    elif isinstance(target, n.Subscript):
        yield from _order(target.value)
        yield from _order(target.index)
    elif isinstance(target, (n.Tuple_, n.List_)):
        for elt in target.elts:
            yield from _target_order(elt)
    elif isinstance(target, n.Starred):
        yield from _target_order(target.value)
    elif not isinstance(target, n.Name):
        yield _UNKNOWN


def _order(e: Optional[n.Expr]) -> Iterator[n.Expr]:
    """The names and constants `e` evaluates, in the order Python evaluates them."""
    if e is None:
        return
    t = type(e)
    if t is n.Name or t is n.Const:
        yield e
    elif t is n.Attribute or t is n.Starred or t is n.DoubleStarred or t is n.Keyword \
            or t is n.Await or t is n.Yield or t is n.YieldFrom or t is n.NamedExpr:
        yield from _order(e.value)  # type: ignore[attr-defined]
    elif t is n.Call:
        yield from _order(e.func)  # type: ignore[attr-defined]
        for arg in e.args:  # type: ignore[attr-defined]
            yield from _order(arg)
    elif t is n.Subscript:
        yield from _order(e.value)  # type: ignore[attr-defined]
        yield from _order(e.index)  # type: ignore[attr-defined]
    elif t is n.Slice:
        for part in (e.lower, e.upper, e.step):  # type: ignore[attr-defined]
            yield from _order(part)
    elif t is n.BinOp:
        yield from _order(e.left)  # type: ignore[attr-defined]
        yield from _order(e.right)  # type: ignore[attr-defined]
    elif t is n.UnaryOp:
        yield from _order(e.operand)  # type: ignore[attr-defined]
    elif t is n.BoolOp:
        yield from _order(e.values[0])  # type: ignore[attr-defined]
        yield _UNKNOWN  # (the other operands may not be evaluated at all)
    elif t is n.Compare:
        yield from _order(e.left)  # type: ignore[attr-defined]
        yield from _order(e.comparators[0])  # type: ignore[attr-defined]
        yield _UNKNOWN
    elif t is n.IfExp:
        yield from _order(e.test)  # type: ignore[attr-defined]
        yield _UNKNOWN
    elif t is n.Tuple_ or t is n.List_ or t is n.Set_:
        for elt in e.elts:  # type: ignore[attr-defined]
            yield from _order(elt)
    elif t is n.Dict_:
        for key, value in zip(e.keys, e.values):  # type: ignore[attr-defined]
            yield from _order(key)
            yield from _order(value)
    else:
        yield _UNKNOWN


# --- tree plumbing ------------------------------------------------------------------------------


_NODE_TYPES = (n.Expr, n.Stmt, n.ExceptHandler, n.MatchCase)
_SLOTS: Dict[type, tuple] = {}


def _children(node: Any) -> Iterator[Any]:
    kind = type(node)
    slots = _SLOTS.get(kind)
    if slots is None:
        slots = _SLOTS[kind] = tuple(getattr(kind, "__slots__", ()))
    for slot in slots:
        value = getattr(node, slot, None)
        if type(value) is list or type(value) is tuple:
            for item in value:
                if isinstance(item, _NODE_TYPES):
                    yield item
        elif isinstance(value, _NODE_TYPES):
            yield value


def _is_node(value: Any) -> bool:
    return isinstance(value, _NODE_TYPES)


def _walk(stmts: List[n.Stmt]) -> Iterator[Any]:
    stack: List[Any] = list(stmts)
    while stack:
        node = stack.pop()
        yield node
        stack.extend(_children(node))


def _replace(root: Any, old: n.Expr, new: n.Expr) -> bool:
    """Put `new` where the node `old` (by identity) stands in `root`'s tree."""
    for slot in getattr(type(root), "__slots__", ()):
        value = getattr(root, slot, None)
        if value is old:
            setattr(root, slot, new)
            return True
        if isinstance(value, list):
            for k, item in enumerate(value):
                if item is old:
                    value[k] = new
                    return True
                if _is_node(item) and _replace(item, old, new):
                    return True
        elif isinstance(value, tuple):
            if any(item is old for item in value):
                setattr(root, slot, tuple(new if item is old else item for item in value))
                return True
            if any(_is_node(item) and _replace(item, old, new) for item in value):
                return True
        elif _is_node(value) and _replace(value, old, new):
            return True
    return False
