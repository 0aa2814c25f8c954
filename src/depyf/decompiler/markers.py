"""Stack values that are not (yet) expressions.

The symbolic stack holds `nodes.Expr` objects. A few instructions push values that only become source
once a later instruction consumes them: the NULL of a call, a module being imported, a function
being made, the slots of an unpacking assignment. These markers subclass `Expr` so the stack stays
homogeneous, but the printer never sees them.
"""
from types import CodeType
from typing import Dict, List, Optional, Tuple

from depyf.decompiler import nodes as n


class Null(n.Expr):
    """The NULL pushed before (3.11, 3.12) or after (3.13) a callable."""
    __slots__ = ()


NULL = Null()


class ImportedModule(n.Expr):
    """The result of IMPORT_NAME, waiting to be stored or have names imported from it."""
    __slots__ = ("module", "level", "fromlist", "names", "attr_path", "lazy")

    def __init__(self, module: str, level: int, fromlist: Optional[tuple], lazy: bool = False) -> None:
        self.module = module
        self.level = level
        self.fromlist = fromlist
        self.lazy = lazy  # 3.15's `lazy import` (PEP 810)
        self.names: List[Tuple[str, Optional[str]]] = []
        self.attr_path: List[str] = []


class ImportedName(n.Expr):
    """The result of IMPORT_FROM: a name taken from a module being imported."""
    __slots__ = ("source", "name")

    def __init__(self, source: ImportedModule, name: str) -> None:
        self.source = source
        self.name = name


class MadeFunction(n.Expr):
    """A function object being made: its code and the expressions MAKE_FUNCTION consumed."""
    __slots__ = ("code", "defaults", "kwdefaults", "annotations", "closure", "type_params")

    def __init__(self, code: CodeType) -> None:
        self.code = code
        self.type_params: List["TypeParam"] = []
        self.defaults: Optional[n.Expr] = None
        self.kwdefaults: Optional[n.Expr] = None
        self.annotations: Optional[n.Expr] = None
        self.closure: Optional[n.Expr] = None


class ClassValue(n.Expr):
    """The result of `__build_class__(body, name, *bases, **keywords)`."""
    __slots__ = ("body", "name", "bases", "type_params")

    def __init__(self, body: MadeFunction, name: str, bases: List[n.Expr]) -> None:
        self.body = body
        self.name = name
        self.bases = bases
        self.type_params: List["TypeParam"] = []


class BuildClass(n.Expr):
    """`__build_class__` loaded for a class statement."""
    __slots__ = ()


class UnpackSlot(n.Expr):
    """One slot of UNPACK_SEQUENCE / UNPACK_EX, filled by the store that consumes it."""
    __slots__ = ("group", "position")

    def __init__(self, group: "UnpackGroup", position: int) -> None:
        self.group = group
        self.position = position


class UnpackGroup:
    """Targets of one unpacking, filled slot by slot; `star` is the index of a starred target."""
    __slots__ = ("value", "targets", "star", "parent", "filled")

    def __init__(self, value: n.Expr, count: int, star: int = -1,
                 parent: Optional[UnpackSlot] = None) -> None:
        self.value = value
        self.targets: List[Optional[n.Expr]] = [None] * count
        self.star = star
        self.parent = parent
        self.filled = 0

    def as_target(self) -> n.Tuple_:
        elts: List[n.Expr] = []
        for i, t in enumerate(self.targets):
            assert t is not None
            elts.append(n.Starred(t) if i == self.star else t)
        return n.Tuple_(elts)


class InplaceResult(n.Expr):
    """The result of an in-place operator, which becomes `target op= value` when stored back."""
    __slots__ = ("op", "target", "value")

    def __init__(self, op: str, target: n.Expr, value: n.Expr) -> None:
        self.op = op
        self.target = target
        self.value = value


class ExceptionValue(n.Expr):
    """The exception object on the stack at the start of an except handler."""
    __slots__ = ()


class WithExit(n.Expr):
    """The bound `__exit__` pushed by a with statement's setup."""
    __slots__ = ()


class ClearedLocal(n.Expr):
    """A local saved by LOAD_FAST_AND_CLEAR around an inlined comprehension (3.12+)."""
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class KwNames(n.Expr):
    """Keyword names for the next CALL (3.11-3.12 KW_NAMES, 3.13 a constant tuple)."""
    __slots__ = ("names",)

    def __init__(self, names: tuple) -> None:
        self.names = names


class Iterator(n.Expr):
    """GET_ITER / GET_AITER applied to an expression (the loop iterable)."""
    __slots__ = ("value", "is_async")

    def __init__(self, value: n.Expr, is_async: bool = False) -> None:
        self.value = value
        self.is_async = is_async


class AwaitedComprehension(n.Expr):
    """An async comprehension's coroutine being awaited by its caller (before 3.12)."""
    __slots__ = ("value",)

    def __init__(self, value: n.Expr) -> None:
        self.value = value


class CoroutineComprehension(n.Expr):
    """A list/set/dict comprehension compiled as a coroutine (it has `async for` or `await`),
    called but not yet awaited by its caller (before 3.12)."""
    __slots__ = ("value",)

    def __init__(self, value: n.Expr) -> None:
        self.value = value


class TypeParam(n.Expr):
    """A PEP 695 type parameter being made: `T`, `T: bound`, `*Ts`, `**P`, with a 3.13 default."""
    __slots__ = ("name", "star", "bound", "default")

    def __init__(self, name: str, star: str = "", bound: Optional[n.Expr] = None) -> None:
        self.name = name
        self.star = star
        self.bound = bound
        self.default: Optional[n.Expr] = None


class TypeAliasValue(n.Expr):
    """The value of a `type X[params] = value` statement (INTRINSIC_TYPEALIAS)."""
    __slots__ = ("name", "params", "value")

    def __init__(self, name: str, params: List["TypeParam"], value: n.Expr) -> None:
        self.name = name
        self.params = params
        self.value = value


class Sentinel(n.Expr):
    """Any other internal value (loop state, return addresses); `what` says which."""
    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        self.what = what


MARKER_TYPES = (Null, ClassValue, TypeParam, TypeAliasValue, AwaitedComprehension, CoroutineComprehension, ImportedModule, ImportedName, MadeFunction, BuildClass, UnpackSlot, InplaceResult,
                ExceptionValue, WithExit, ClearedLocal, KwNames, Iterator, Sentinel)

Scope = Dict[str, n.Expr]


class EndOfFinallyCopy(n.Stmt):
    """Where a branch of a finally body reaches a copy of the body's closing RERAISE (3.10+ copy
    it into the branches of a last `if`): the rest of the body is the other branch
    (`fold_end_copies`). Never printed."""
    __slots__ = ()


def fold_end_copies(stmts: List[n.Stmt]) -> List[n.Stmt]:
    """`if c: A <end>` + B  ->  `if c: A else: B`, and a trailing `<end>` dropped (also at the end
    of the else part of a last if)."""
    out: List[n.Stmt] = []
    for k, stmt in enumerate(stmts):
        if isinstance(stmt, EndOfFinallyCopy) and k == len(stmts) - 1:
            break
        if isinstance(stmt, n.If) and not stmt.orelse and _ends_at_copy(stmt.body):
            rest = fold_end_copies(stmts[k + 1:])
            body = fold_end_copies(stmt.body)
            tail = len(rest)
            if 0 < tail < len(body) and all(_same_node(x, y) for x, y in zip(body[-tail:], rest)):
                # 3.12+ copy a small block that ends the finally body (`x = 1` and the re-raise)
                # into each jump to it: `if c: A; x = 1 <end>` + `x = 1` is `if c: A` + `x = 1`.
                out.append(n.If(stmt.test, body[:-tail], []))
                return out + rest
            out.append(n.If(stmt.test, body, rest))
            return out
        if isinstance(stmt, n.If) and stmt.orelse and isinstance(stmt.orelse[-1], EndOfFinallyCopy) \
                and all(isinstance(after, EndOfFinallyCopy) for after in stmts[k + 1:]):
            # `if c: A else: B <end>` last (maybe with the body's own way to the end after it):
            # both branches end where the block does.
            out.append(n.If(stmt.test, fold_end_copies(stmt.body), fold_end_copies(stmt.orelse)))
            return out
        if isinstance(stmt, n.If) and k == len(stmts) - 1:
            # (the branches of the last statement end where the block ends)
            out.append(n.If(stmt.test, fold_end_copies(stmt.body), fold_end_copies(stmt.orelse)))
            return out
        if isinstance(stmt, n.Try) and not stmt.finalbody and all(isinstance(after, EndOfFinallyCopy)
                                                                    for after in stmts[k + 1:]):
            # A try statement that ends the finally body: the branches of its parts that reach
            # the copied re-raise end that statement (`finally: try: if c: A else: B / except
            # E: pass`, 3.10+).
            handlers = [n.ExceptHandler(h.type, h.name, fold_end_copies(h.body)) for h in stmt.handlers]
            out.append(n.Try(fold_end_copies(stmt.body), handlers, fold_end_copies(stmt.orelse), [],
                             stmt.star, stmt.else_kept))
            return out
        out.append(stmt)
    return out


def _ends_at_copy(stmts: List[n.Stmt]) -> bool:
    """Does every way through `stmts` end at a copy of the closing re-raise?

    Also `if c: (if m: A <end>)`: the copy after A shows that the inner if is the last statement
    of its finally body path; the inner test jumps straight to the body's end (3.11+), which the
    if read as falling out of its branch."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, EndOfFinallyCopy):
        return True
    return isinstance(last, n.If) and _ends_at_copy(last.body) and (not last.orelse or _ends_at_copy(last.orelse))


def has_end_copies(stmts: List[n.Stmt]) -> bool:
    """Is an `EndOfFinallyCopy` left anywhere in `stmts` (one that folding could not place)?"""
    for stmt in stmts:
        if isinstance(stmt, EndOfFinallyCopy):
            return True
        if any(has_end_copies(block) for block in n.nested_blocks(stmt)):
            return True
    return False


def _same_node(a: object, b: object) -> bool:
    """Are two statements or expressions the same tree (same node types, same fields)?"""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same_node(x, y) for x, y in zip(a, b))  # type: ignore[arg-type]
    if isinstance(a, (n.Expr, n.Stmt)):
        slots = [name for cls in type(a).__mro__ for name in getattr(cls, "__slots__", ())]
        return all(_same_node(getattr(a, name, None), getattr(b, name, None)) for name in slots)
    return a is b or (a == b and repr(a) == repr(b))  # (-0.0 is not 0.0)
