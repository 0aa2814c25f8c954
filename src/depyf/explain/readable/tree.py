"""Walking and rewriting the decompiler's statement tree (`depyf.decompiler.nodes`).

The readable-view passes need three things the tree does not say by itself: which names a piece of
code reads and which it stores (a `Name` node is either), every expression in load position (to
substitute one for another), and which constructs hide names from a plain walk (lambdas and
comprehensions have scopes of their own; `Raw` text is opaque). All of that lives here.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Dict, Iterator, List, Optional, Set

from depyf.decompiler import nodes as n

_NODE_TYPES = (n.Expr, n.Stmt, n.ExceptHandler, n.MatchCase)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def children(node: Any) -> Iterator[Any]:
    """The nodes directly inside `node`, in slot order (lists and tuples of nodes included)."""
    for slot in _slots(type(node)):
        value = getattr(node, slot, None)
        if isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, _NODE_TYPES):
                    yield item
                elif isinstance(item, tuple):  # `With.items`: (context, target or None)
                    yield from (part for part in item if isinstance(part, _NODE_TYPES))
        elif isinstance(value, _NODE_TYPES):
            yield value


def walk(root: Any) -> Iterator[Any]:
    """Every node under `root` (a node or a list of statements), `root`'s own included."""
    stack: List[Any] = list(root) if isinstance(root, list) else [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(children(node))


_SLOT_CACHE: Dict[type, tuple] = {}


def _slots(kind: type) -> tuple:
    slots = _SLOT_CACHE.get(kind)
    if slots is None:
        found: List[str] = []
        for klass in reversed(kind.__mro__):
            own = vars(klass).get("__slots__", ())
            found.extend((own,) if isinstance(own, str) else own)
        slots = _SLOT_CACHE[kind] = tuple(found)
    return slots


# --- names read and stored ----------------------------------------------------------------------


def store_targets(stmt: n.Stmt) -> List[n.Expr]:
    """The assignment targets of one statement itself (nested blocks not included)."""
    if isinstance(stmt, n.Assign):
        return list(stmt.targets)
    if isinstance(stmt, (n.AugAssign, n.AnnAssign)):
        return [stmt.target]
    if isinstance(stmt, n.For):
        return [stmt.target]
    if isinstance(stmt, n.With):
        return [target for _, target in stmt.items if target is not None]
    return []


def _target_names(target: Any) -> Iterator[n.Name]:
    """The names a target binds: itself, or those inside a tuple, list or starred target."""
    pending = [target]
    while pending:
        target = pending.pop()
        if isinstance(target, n.Name):
            yield target
        elif isinstance(target, (n.Tuple_, n.List_)):
            pending.extend(reversed(target.elts))
        elif isinstance(target, n.Starred):
            pending.append(target.value)


def _bound_targets(node: Any, comprehensions: bool) -> Iterator[n.Name]:
    """The `Name` nodes that `node` itself binds: its assignment, `del` and walrus targets (and a
    comprehension's loop target, when asked)."""
    targets: List[Any] = []
    if isinstance(node, n.Stmt):
        targets.extend(store_targets(node))
        if isinstance(node, n.Delete):
            targets.extend(node.targets)
    elif isinstance(node, n.NamedExpr) or (comprehensions and isinstance(node, n.Comprehension)):
        targets.append(node.target)
    for target in targets:
        yield from _target_names(target)


def stored_names(root: Any) -> Dict[str, int]:
    """How many times each plain name is bound under `root`: assignments, walrus targets, loop
    and `with` targets, `del`, except-as names, nested definitions and imports."""
    counts: Dict[str, int] = {}

    def bump(name: str) -> None:
        counts[name] = counts.get(name, 0) + 1

    for node in walk(root):
        for name in _bound_targets(node, comprehensions=False):
            bump(name.id)
        if isinstance(node, (n.FunctionDef, n.ClassDef)):
            bump(node.name)
        elif isinstance(node, (n.Import, n.ImportFrom)):
            for dotted, alias in node.names:
                bump(alias or dotted.split(".")[0])
        elif isinstance(node, n.ExceptHandler) and node.name:
            bump(node.name)
    return counts


def read_names(root: Any) -> Dict[str, int]:
    """How many times each plain name is read under `root` (a name in `Raw` text, a lambda or a
    comprehension counts as read, so that nothing is taken for unused when it might not be)."""
    counts: Dict[str, int] = {}
    stored = _store_positions(root)
    for node in walk(root):
        if isinstance(node, n.Name) and id(node) not in stored:
            counts[node.id] = counts.get(node.id, 0) + 1
        elif isinstance(node, n.Raw):
            for word in _IDENT.findall(node.text):
                counts[word] = counts.get(word, 0) + 1
        elif isinstance(node, n.Lambda):
            for word in _IDENT.findall(node.params):
                counts[word] = counts.get(word, 0) + 1
    return counts


def _store_positions(root: Any) -> Set[int]:
    """The ids of the `Name` nodes under `root` that are bound, not read."""
    return {id(name) for node in walk(root) for name in _bound_targets(node, comprehensions=True)}


def has_hidden_scope(root: Any) -> bool:
    """Whether `root` holds code whose names a plain walk cannot place: a lambda, a
    comprehension, a nested definition, `Raw` text, or a node outside `nodes.py` (a decompiler
    marker)."""
    for node in walk(root):
        if isinstance(node, (n.Lambda, n.ComprehensionExpr, n.FunctionDef, n.ClassDef, n.Raw)):
            return True
        if type(node).__module__ != n.__name__:
            return True
    return False


# --- rewriting expressions in load position -------------------------------------------------------


Rewrite = Callable[[n.Expr], Optional[n.Expr]]


def rewrite_loads(stmt: n.Stmt, rewrite: Rewrite) -> None:
    """Apply `rewrite` to every expression that `stmt` evaluates (not to the names it binds),
    outermost first: where `rewrite` returns a node, that node replaces the expression and is
    not looked into again. Nested blocks are not entered (the caller walks them)."""
    for slot in _slots(type(stmt)):
        if slot in ("body", "orelse", "finalbody", "handlers", "cases"):
            continue
        value = getattr(stmt, slot, None)
        if slot in ("target", "targets"):  # (in every statement class, these are bound)
            for target in value if isinstance(value, list) else [value]:
                _rewrite_target(target, rewrite)
        elif slot == "items" and isinstance(stmt, n.With):
            stmt.items = [(_rewrite_expr(ctx, rewrite), target) for ctx, target in stmt.items]
            for _, target in stmt.items:
                if target is not None:
                    _rewrite_target(target, rewrite)
        elif isinstance(value, n.Expr):
            setattr(stmt, slot, _rewrite_expr(value, rewrite))


def _rewrite_target(target: n.Expr, rewrite: Rewrite) -> None:
    """The loads inside a binding target: the object of `a.b = ...`, and of `a[i] = ...` with i."""
    if isinstance(target, n.Attribute):
        target.value = _rewrite_expr(target.value, rewrite)
    elif isinstance(target, n.Subscript):
        target.value = _rewrite_expr(target.value, rewrite)
        target.index = _rewrite_expr(target.index, rewrite)
    elif isinstance(target, (n.Tuple_, n.List_)):
        for elt in target.elts:
            _rewrite_target(elt, rewrite)
    elif isinstance(target, n.Starred):
        _rewrite_target(target.value, rewrite)


def _rewrite_expr(e: Any, rewrite: Rewrite) -> Any:
    if not isinstance(e, n.Expr):
        return e
    new = rewrite(e)
    if new is not None:
        return new
    if isinstance(e, (n.Lambda, n.ComprehensionExpr)):
        return e  # a scope of its own: callers check `has_hidden_scope` before substituting
    for slot in _slots(type(e)):
        value = getattr(e, slot, None)
        if isinstance(e, n.NamedExpr) and slot == "target":
            continue
        if isinstance(value, n.Expr):
            setattr(e, slot, _rewrite_expr(value, rewrite))
        elif isinstance(value, list):
            setattr(e, slot, [_rewrite_expr(v, rewrite) if isinstance(v, n.Expr) else v for v in value])
    return e


def substitute_names(stmt: n.Stmt, mapping: Dict[str, n.Expr]) -> None:
    """Replace reads of the names in `mapping` inside `stmt` (its own expressions only) by copies
    of the expressions they map to."""
    if not mapping:
        return
    rewrite_loads(stmt, lambda e: copy_expr(mapping[e.id]) if isinstance(e, n.Name) and e.id in mapping else None)


def copy_expr(e: Any) -> Any:
    """A copy of a tree: an expression, a statement, or a list of either."""
    return _copy(e)


def _copy(value: Any) -> Any:
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_copy(v) for v in value)
    if not isinstance(value, _NODE_TYPES):
        return value
    kind = type(value)
    clone = kind.__new__(kind)
    for slot in _slots(kind):
        if hasattr(value, slot):
            setattr(clone, slot, _copy(getattr(value, slot)))
    return clone


def unshare(func: n.FunctionDef) -> None:
    """Give every position in `func` a node of its own: the decompiler uses one `Name` object
    for a temporary's binding and its reads, and the passes tell positions apart by identity."""
    func.body = _copy(func.body)


def blocks_of(stmts: List[n.Stmt]) -> Iterator[List[n.Stmt]]:
    """`stmts` and every statement list nested in it, outermost first."""
    stack = [stmts]
    while stack:
        block = stack.pop()
        yield block
        for stmt in block:
            if isinstance(stmt, (n.FunctionDef, n.ClassDef)):
                continue  # another scope
            stack.extend(n.nested_blocks(stmt))


def ends_flow(stmts: List[n.Stmt]) -> bool:
    """Whether control never falls off the end of `stmts` (it ends in a return or raise)."""
    return bool(stmts) and isinstance(stmts[-1], (n.Return, n.Raise))
