"""Deferred annotations (PEP 649/749, Python 3.14+): the annotations back where they were written.

From 3.14 the compiler moves annotations into a generated function, `__annotate__(format)`:
- a function's is attached to it (`SET_FUNCTION_ATTRIBUTE` annotate) and returns a dict display;
- a class body stores one as `__annotate_func__` (a module as `__annotate__`), which fills a dict
  one annotation at a time. An annotation that runs only on some paths (every one in a module,
  those under an `if`/`try`/loop in a class) gets an index: the body adds the index to the set
  `__conditional_annotations__` where the annotation stood, and the function checks the set.
  The body keeps only the value of `x: int = 1` (`x = 1`); a bare `y: int` leaves nothing there.

This module reads the generated function's decompiled statements back into its entries, and puts
each entry into the body as an annotated assignment: at its index's mark, else at the first later
plain store of its name, else (a bare annotation) before the next placed one, in source order.
"""
from typing import Dict, List, Optional, Set, Tuple

from depyf.decompiler import nodes as n
from depyf.decompiler.errors import DecompilationError

# The compiler's names: the generated function, what a class body stores it as, the index set.
ANNOTATE = "__annotate__"
STORED_AS = frozenset({"__annotate__", "__annotate_func__"})
CONDITIONAL_SET = "__conditional_annotations__"


class Entry:
    """One annotation of the generated function: `name: annotation`, `index` if conditional."""
    __slots__ = ("name", "annotation", "index")

    def __init__(self, name: str, annotation: n.Expr, index: Optional[int]) -> None:
        self.name = name
        self.annotation = annotation
        self.index = index


class AnnotationMark(n.Stmt):
    """The body's record that conditional annotation `index` ran here (`SET_ADD` to the set)."""
    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


class AnnotationsDefined(n.Stmt):
    """A class or module body stored its generated `__annotate__`: these are its entries."""
    __slots__ = ("entries",)

    def __init__(self, entries: List[Entry]) -> None:
        self.entries = entries


def is_annotate_code(code: object) -> bool:
    return getattr(code, "co_name", None) == ANNOTATE and getattr(code, "co_varnames", ())[:1] == ("format",) \
        and getattr(code, "co_argcount", 0) == 1


def _is_guard(s: n.Stmt) -> bool:
    """`if format > 2: raise NotImplementedError` (only the VALUE and FORWARDREF formats are
    computed by the generated code; the others are left to `annotationlib`)."""
    return isinstance(s, n.If) and not s.orelse and isinstance(s.test, n.Compare) \
        and isinstance(s.test.left, n.Name) and s.test.left.id.startswith("format") \
        and len(s.body) == 1 and isinstance(s.body[0], n.Raise)


def _key(e: Optional[n.Expr]) -> Optional[str]:
    return e.value if isinstance(e, n.Const) and isinstance(e.value, str) else None


def _condition_index(test: n.Expr) -> Optional[int]:
    """`k in __conditional_annotations__` -> k."""
    if isinstance(test, n.Compare) and len(test.ops) == 1 and test.ops[0] == "in" \
            and isinstance(test.left, n.Const) and type(test.left.value) is int \
            and isinstance(test.comparators[0], n.Name) and test.comparators[0].id == CONDITIONAL_SET:
        return test.left.value
    return None


def _item_store(s: n.Stmt, mapping: n.Expr) -> Optional[Tuple[str, n.Expr]]:
    """`mapping['name'] = annotation`, where `mapping` is the dict being filled."""
    if isinstance(s, n.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], n.Subscript):
        target = s.targets[0]
        same = target.value is mapping or (isinstance(mapping, n.Name) and isinstance(target.value, n.Name)
                                           and target.value.id == mapping.id)
        name = _key(target.index)
        if same and name is not None:
            return name, s.value
    return None


def read_entries(stmts: List[n.Stmt]) -> Optional[List[Entry]]:
    """The entries of a generated `__annotate__`'s statements, or None where they are not
    shaped as the compiler makes them."""
    if not stmts or not _is_guard(stmts[0]):
        return None
    rest = stmts[1:]
    if len(rest) == 1 and isinstance(rest[0], n.Return) and isinstance(rest[0].value, n.Dict_):
        shown = rest[0].value
        names = [_key(k) for k in shown.keys]
        if any(k is None for k in names):
            return None
        return [Entry(k, v, None) for k, v in zip(names, shown.values)]
    if not rest or not isinstance(rest[-1], n.Return):
        return None
    mapping = rest[-1].value
    body = rest[:-1]
    if body and isinstance(body[0], n.Assign) and isinstance(mapping, n.Name) \
            and _stores_name(body[0], mapping.id) and isinstance(body[0].value, n.Dict_) and not body[0].value.keys:
        body = body[1:]  # (read with a temporary: `t = {}` ... `return t`)
    entries: List[Entry] = []
    for s in body:
        index = None
        if isinstance(s, n.If) and not s.orelse and len(s.body) == 1:
            index = _condition_index(s.test)
            s = s.body[0] if index is not None else s
        item = _item_store(s, mapping)
        if item is None:
            return None
        entries.append(Entry(item[0], item[1], index))
    return entries


def name_filled_dict(stmts: List[n.Stmt], taken: Set[str]) -> None:
    """A class's or module's `__annotate__` fills the dict it returns while it stays on the
    stack: read alone, give it a name (`annotations = {}` ... `return annotations`), so that
    the text fills one dict, not a new display at each item."""
    if len(stmts) < 2 or not _is_guard(stmts[0]) or not isinstance(stmts[-1], n.Return) \
            or not isinstance(stmts[-1].value, n.Dict_) or stmts[-1].value.keys:
        return
    shared = stmts[-1].value
    name = next(c for c in ("annotations", "annotations_", "annotations__") + tuple(
        f"annotations{k}" for k in range(len(taken) + 1)) if c not in taken)
    uses = 0
    for s in stmts[1:-1]:
        inner = s.body[0] if isinstance(s, n.If) and len(s.body) == 1 else s
        if _item_store(inner, shared) is not None:
            inner.targets[0].value = n.Name(name)
            uses += 1
    if uses:
        stmts.insert(1, n.Assign([n.Name(name)], n.Dict_([], [])))
        stmts[-1].value = n.Name(name)


def annotations_dict(entries: List[Entry]) -> n.Dict_:
    """A function's annotations as the dict display that `function_params` reads."""
    return n.Dict_([n.Const(e.name) for e in entries], [e.annotation for e in entries])


def is_conditional_set_made(s: n.Stmt) -> bool:
    """`__conditional_annotations__ = set()`: the compiler's, not the source's."""
    return isinstance(s, n.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], n.Name) \
        and s.targets[0].id == CONDITIONAL_SET and isinstance(s.value, n.Set_) and not s.value.elts


def place_annotations(stmts: List[n.Stmt]) -> None:
    """Put the entries of the body's generated `__annotate__` where they were written."""
    defined = [s for s in stmts if isinstance(s, AnnotationsDefined)]
    stmts[:] = [s for s in stmts if not isinstance(s, AnnotationsDefined) and not is_conditional_set_made(s)]
    if len(defined) > 1:
        raise DecompilationError("a body that stores two generated __annotate__ functions")
    entries = defined[0].entries if defined else []
    by_index: Dict[int, Entry] = {e.index: e for e in entries if e.index is not None}
    anchors: Dict[int, n.Stmt] = {}  # index -> the statement of `stmts` that now holds it
    k = 0
    while k < len(stmts):
        for index, at in _resolve_marks(stmts, k, by_index):
            anchors[index] = stmts[at]
        k += 1
    if by_index:
        raise DecompilationError("a conditional annotation that the body never marks")
    _place_unconditional(stmts, entries, anchors)


def _resolve_marks(stmts: List[n.Stmt], k: int, by_index: Dict[int, Entry]) -> List[Tuple[int, int]]:
    """The marks in `stmts[k]` (recursively, in nested blocks), each made the annotated form of
    the store just before it or a bare annotation: (index, where in `stmts` it ended up)."""
    s = stmts[k]
    if not isinstance(s, AnnotationMark):
        found: List[Tuple[int, int]] = []
        for inner in n.nested_blocks(s):
            j = 0
            while j < len(inner):
                found += [(index, k) for index, _ in _resolve_marks(inner, j, by_index)]
                j += 1
        return found
    entry = by_index.pop(s.index, None)
    if entry is None:
        raise DecompilationError(f"a mark of conditional annotation {s.index}, which does not exist")
    if k and _stores_name(stmts[k - 1], entry.name):
        stmts[k - 1] = n.AnnAssign(stmts[k - 1].targets[0], entry.annotation, stmts[k - 1].value)
        del stmts[k]
        return [(s.index, k - 1)]
    stmts[k] = n.AnnAssign(n.Name(entry.name), entry.annotation, None)
    return [(s.index, k)]


def _stores_name(s: n.Stmt, name: str) -> bool:
    return isinstance(s, n.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], n.Name) \
        and s.targets[0].id == name


# What a class body starts with before its first statement (its docstring is `__doc__ = ...`).
_BODY_PREAMBLE = frozenset({"__module__", "__qualname__", "__firstlineno__", "__doc__"})


def _body_start(stmts: List[n.Stmt]) -> int:
    at = 0
    while at < len(stmts) and (any(_stores_name(stmts[at], name) for name in _BODY_PREAMBLE) or (
            at == 0 and isinstance(stmts[0], n.ExprStmt) and isinstance(stmts[0].value, n.Const)
            and isinstance(stmts[0].value.value, str))):
        at += 1
    return at


def _place_unconditional(stmts: List[n.Stmt], entries: List[Entry], anchors: Dict[int, n.Stmt]) -> None:
    """Entries without an index, in source order: the first plain store of the name after the
    previous entry becomes the annotated assignment; a bare one goes just before the next entry
    (a conditional one: the statement that holds its mark)."""
    at = _body_start(stmts)
    pending: List[Entry] = []
    for entry in entries:
        if entry.index is not None:
            found: Optional[int] = next(k for k in range(len(stmts)) if stmts[k] is anchors[entry.index])
        else:
            found = next((k for k in range(at, len(stmts)) if _stores_name(stmts[k], entry.name)), None)
        if found is None or found < at:
            if entry.index is None:
                pending.append(entry)
            continue
        for p in pending:  # bare ones written before this one
            stmts.insert(found, n.AnnAssign(n.Name(p.name), p.annotation, None))
            found += 1
        pending = []
        if entry.index is None:
            store = stmts[found]
            stmts[found] = n.AnnAssign(store.targets[0], entry.annotation, store.value)
        at = found + 1
    for p in pending:
        stmts.insert(at, n.AnnAssign(n.Name(p.name), p.annotation, None))
        at += 1
