"""The decompiler's own small syntax tree.

`ast` is not used as the intermediate form: it changes between 3.8 and 3.13 and has no unparser on
3.8. These nodes carry only what the printer needs. Expressions and statements are plain classes
with slots; `printer.py` owns precedence and layout.
"""
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple


class Expr:
    __slots__ = ()


class Stmt:
    __slots__ = ()


# --- expressions ------------------------------------------------------------------------------

class Name(Expr):
    __slots__ = ("id",)

    def __init__(self, id: str) -> None:
        self.id = id


class Const(Expr):
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class Attribute(Expr):
    __slots__ = ("value", "attr")

    def __init__(self, value: Expr, attr: str) -> None:
        self.value = value
        self.attr = attr


class Subscript(Expr):
    __slots__ = ("value", "index")

    def __init__(self, value: Expr, index: Expr) -> None:
        self.value = value
        self.index = index


class Slice(Expr):
    __slots__ = ("lower", "upper", "step")

    def __init__(self, lower: Optional[Expr], upper: Optional[Expr], step: Optional[Expr] = None) -> None:
        self.lower = lower
        self.upper = upper
        self.step = step


class Starred(Expr):
    __slots__ = ("value",)

    def __init__(self, value: Expr) -> None:
        self.value = value


class DoubleStarred(Expr):
    """`**mapping` inside a call or a dict display."""
    __slots__ = ("value",)

    def __init__(self, value: Expr) -> None:
        self.value = value


class Keyword(Expr):
    __slots__ = ("name", "value")

    def __init__(self, name: str, value: Expr) -> None:
        self.name = name
        self.value = value


class Call(Expr):
    """`func(*args)`; args hold Expr, Starred, Keyword and DoubleStarred items in source order."""
    __slots__ = ("func", "args")

    def __init__(self, func: Expr, args: Sequence[Expr]) -> None:
        self.func = func
        self.args = list(args)


class BinOp(Expr):
    __slots__ = ("op", "left", "right")

    def __init__(self, op: str, left: Expr, right: Expr) -> None:
        self.op = op
        self.left = left
        self.right = right


class UnaryOp(Expr):
    __slots__ = ("op", "operand")

    def __init__(self, op: str, operand: Expr) -> None:
        self.op = op
        self.operand = operand


class BoolOp(Expr):
    __slots__ = ("op", "values")

    def __init__(self, op: str, values: Sequence[Expr]) -> None:
        self.op = op
        self.values = list(values)


# `not (a OP b)` as the compiler folds it, one comparison operator into the other.
NEGATED_COMPARISONS = {"is": "is not", "is not": "is", "in": "not in", "not in": "in"}


class Compare(Expr):
    __slots__ = ("left", "ops", "comparators", "fused", "keeps_not")

    def __init__(self, left: Expr, ops: Sequence[str], comparators: Sequence[Expr], fused: bool = False,
                 keeps_not: bool = False) -> None:
        self.left = left
        self.ops = list(ops)
        self.comparators = list(comparators)
        # `x is None` read from a 3.11+ POP_JUMP_IF_[NOT_]NONE: no IS_OP that a `not` could change
        self.fused = fused
        # an `is`/`in` comparison whose negation in a test is a `not` over it, not the opposite
        # comparison (3.14+: the compiler tests `not (a in b)` by `in` and the opposite jump)
        self.keeps_not = keeps_not


class IfExp(Expr):
    __slots__ = ("test", "body", "orelse")

    def __init__(self, test: Expr, body: Expr, orelse: Expr) -> None:
        self.test = test
        self.body = body
        self.orelse = orelse


class NamedExpr(Expr):
    __slots__ = ("target", "value")

    def __init__(self, target: Expr, value: Expr) -> None:
        self.target = target
        self.value = value


class Tuple_(Expr):
    __slots__ = ("elts",)

    def __init__(self, elts: Sequence[Expr]) -> None:
        self.elts = list(elts)


class List_(Expr):
    __slots__ = ("elts",)

    def __init__(self, elts: Sequence[Expr]) -> None:
        self.elts = list(elts)


class Set_(Expr):
    __slots__ = ("elts",)

    def __init__(self, elts: Sequence[Expr]) -> None:
        self.elts = list(elts)


class Dict_(Expr):
    """Dict display; a key of None means `**value`."""
    __slots__ = ("keys", "values")

    def __init__(self, keys: Sequence[Optional[Expr]], values: Sequence[Expr]) -> None:
        self.keys = list(keys)
        self.values = list(values)


class FormattedValue(Expr):
    __slots__ = ("value", "conversion", "spec")

    def __init__(self, value: Expr, conversion: Optional[str], spec: Optional["JoinedStr"]) -> None:
        self.value = value
        self.conversion = conversion
        self.spec = spec


class JoinedStr(Expr):
    """An f-string; parts are `str` literals and FormattedValue nodes."""
    __slots__ = ("parts",)

    def __init__(self, parts: Sequence[Any]) -> None:
        self.parts = list(parts)


class Interpolation(Expr):
    """One replacement field of a template string (PEP 750). `expression` is the field's source
    text as the compiler stored it (the `Interpolation.expression` a program can read)."""
    __slots__ = ("value", "expression", "conversion", "spec")

    def __init__(self, value: Expr, expression: str, conversion: Optional[str],
                 spec: Optional["JoinedStr"]) -> None:
        self.value = value
        self.expression = expression
        self.conversion = conversion
        self.spec = spec


class TemplateStr(Expr):
    """A t-string; parts are `str` literals and Interpolation nodes, in source order."""
    __slots__ = ("parts",)

    def __init__(self, parts: Sequence[Any]) -> None:
        self.parts = list(parts)


class Lambda(Expr):
    __slots__ = ("params", "body")

    def __init__(self, params: str, body: Expr) -> None:
        self.params = params
        self.body = body


class Yield(Expr):
    __slots__ = ("value",)

    def __init__(self, value: Optional[Expr]) -> None:
        self.value = value


class YieldFrom(Expr):
    __slots__ = ("value",)

    def __init__(self, value: Expr) -> None:
        self.value = value


class Await(Expr):
    __slots__ = ("value",)

    def __init__(self, value: Expr) -> None:
        self.value = value


class Comprehension(Expr):
    """A comprehension clause: `for target in iter if cond...`."""
    __slots__ = ("target", "iter", "ifs", "is_async")

    def __init__(self, target: Expr, iter: Expr, ifs: Sequence[Expr], is_async: bool = False) -> None:
        self.target = target
        self.iter = iter
        self.ifs = list(ifs)
        self.is_async = is_async


class ComprehensionExpr(Expr):
    """List/set/dict comprehension or generator expression; `kind` is list, set, dict or gen."""
    __slots__ = ("kind", "elt", "value", "generators")

    def __init__(self, kind: str, elt: Expr, generators: Sequence[Comprehension],
                 value: Optional[Expr] = None) -> None:
        self.kind = kind
        self.elt = elt
        self.value = value
        self.generators = list(generators)


class Raw(Expr):
    """Text the printer writes as is, with a stated precedence (used for stand-ins)."""
    __slots__ = ("text", "prec")

    def __init__(self, text: str, prec: int = 100) -> None:
        self.text = text
        self.prec = prec


# --- statements -------------------------------------------------------------------------------

class Assign(Stmt):
    __slots__ = ("targets", "value")

    def __init__(self, targets: Sequence[Expr], value: Expr) -> None:
        self.targets = list(targets)
        self.value = value


class AugAssign(Stmt):
    __slots__ = ("target", "op", "value")

    def __init__(self, target: Expr, op: str, value: Expr) -> None:
        self.target = target
        self.op = op
        self.value = value


class AnnAssign(Stmt):
    __slots__ = ("target", "annotation", "value", "simple")

    def __init__(self, target: Expr, annotation: Expr, value: Optional[Expr], simple: bool = True) -> None:
        self.target = target
        self.annotation = annotation
        self.value = value
        self.simple = simple


class ExprStmt(Stmt):
    __slots__ = ("value",)

    def __init__(self, value: Expr) -> None:
        self.value = value


class Return(Stmt):
    """`jumped_to`: a `return <constant>` that other code jumps to (3.10+ would have copied an
    implicit one there instead, so it was written out). `line`: the line of its RETURN_VALUE
    (copies of one exit block keep the line of the original, 3.12+: `tidy.fold_copied_returns`)."""
    __slots__ = ("value", "jumped_to", "line")

    def __init__(self, value: Optional[Expr], jumped_to: bool = False, line: Optional[int] = None) -> None:
        self.value = value
        self.jumped_to = jumped_to
        self.line = line


class Delete(Stmt):
    __slots__ = ("targets",)

    def __init__(self, targets: Sequence[Expr]) -> None:
        self.targets = list(targets)


class Global(Stmt):
    __slots__ = ("names",)

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)


class Nonlocal(Stmt):
    __slots__ = ("names",)

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)


class Assert(Stmt):
    __slots__ = ("test", "msg")

    def __init__(self, test: Expr, msg: Optional[Expr]) -> None:
        self.test = test
        self.msg = msg


class Raise(Stmt):
    __slots__ = ("exc", "cause")

    def __init__(self, exc: Optional[Expr], cause: Optional[Expr] = None) -> None:
        self.exc = exc
        self.cause = cause


class Import(Stmt):
    """`import a.b as c`; names are (dotted name, alias or None); `lazy import` (3.15+)."""
    __slots__ = ("names", "lazy")

    def __init__(self, names: Sequence[Tuple[str, Optional[str]]], lazy: bool = False) -> None:
        self.names = list(names)
        self.lazy = lazy


class ImportFrom(Stmt):
    __slots__ = ("module", "names", "level", "lazy")

    def __init__(self, module: str, names: Sequence[Tuple[str, Optional[str]]], level: int,
                 lazy: bool = False) -> None:
        self.module = module
        self.names = list(names)
        self.level = level
        self.lazy = lazy


class Pass(Stmt):
    __slots__ = ()


class Break(Stmt):
    __slots__ = ()


class Continue(Stmt):
    """`required`: a jump of its own that the compiler would not have made for the end of the
    loop body (one landing apart from the loop's own jump back, on the `while` line's NOP, or
    any continue of a 3.10+ while loop, whose closing jump keeps its line): never implied."""
    __slots__ = ("required",)

    def __init__(self, required: bool = False) -> None:
        self.required = required


class If(Stmt):
    __slots__ = ("test", "body", "orelse")

    def __init__(self, test: Expr, body: List[Stmt], orelse: List[Stmt]) -> None:
        self.test = test
        self.body = body
        self.orelse = orelse


class While(Stmt):
    __slots__ = ("test", "body", "orelse")

    def __init__(self, test: Expr, body: List[Stmt], orelse: List[Stmt]) -> None:
        self.test = test
        self.body = body
        self.orelse = orelse


class For(Stmt):
    __slots__ = ("target", "iter", "body", "orelse", "is_async")

    def __init__(self, target: Expr, iter: Expr, body: List[Stmt], orelse: List[Stmt],
                 is_async: bool = False) -> None:
        self.target = target
        self.iter = iter
        self.body = body
        self.orelse = orelse
        self.is_async = is_async


class ExceptHandler:
    __slots__ = ("type", "name", "body")

    def __init__(self, type: Optional[Expr], name: Optional[str], body: List[Stmt]) -> None:
        self.type = type
        self.name = name
        self.body = body


class Try(Stmt):
    """`else_kept`: the layout shows that the else part is one (tidying must not move it out)."""
    __slots__ = ("body", "handlers", "orelse", "finalbody", "star", "else_kept")

    def __init__(self, body: List[Stmt], handlers: List[ExceptHandler], orelse: List[Stmt],
                 finalbody: List[Stmt], star: bool = False, else_kept: bool = False) -> None:
        self.body = body
        self.handlers = handlers
        self.orelse = orelse
        self.finalbody = finalbody
        self.star = star
        self.else_kept = else_kept


class With(Stmt):
    """`with a as x, b:`; items are (context expression, target or None)."""
    __slots__ = ("items", "body", "is_async")

    def __init__(self, items: List[Tuple[Expr, Optional[Expr]]], body: List[Stmt], is_async: bool = False) -> None:
        self.items = items
        self.body = body
        self.is_async = is_async


class FunctionDef(Stmt):
    """`type_params` is the text between the brackets of `def f[...]` (3.12+), or empty."""
    __slots__ = ("name", "params", "body", "decorators", "is_async", "returns", "type_params")

    def __init__(self, name: str, params: str, body: List[Stmt], decorators: Sequence[Expr] = (),
                 is_async: bool = False, returns: Optional[Expr] = None, type_params: str = "") -> None:
        self.name = name
        self.params = params
        self.body = body
        self.decorators = list(decorators)
        self.is_async = is_async
        self.returns = returns
        self.type_params = type_params


class ClassDef(Stmt):
    __slots__ = ("name", "bases", "body", "decorators", "type_params")

    def __init__(self, name: str, bases: Sequence[Expr], body: List[Stmt], decorators: Sequence[Expr] = (),
                 type_params: str = "") -> None:
        self.name = name
        self.bases = list(bases)
        self.body = body
        self.decorators = list(decorators)
        self.type_params = type_params


class TypeAlias(Stmt):
    """`type name[type_params] = value` (3.12+)."""
    __slots__ = ("name", "type_params", "value")

    def __init__(self, name: str, type_params: str, value: Expr) -> None:
        self.name = name
        self.type_params = type_params
        self.value = value


class MatchCase:
    __slots__ = ("pattern", "guard", "body")

    def __init__(self, pattern: str, guard: Optional[Expr], body: List[Stmt]) -> None:
        self.pattern = pattern
        self.guard = guard
        self.body = body


class Match(Stmt):
    __slots__ = ("subject", "cases")

    def __init__(self, subject: Expr, cases: List[MatchCase]) -> None:
        self.subject = subject
        self.cases = cases


class Comment(Stmt):
    """One or more comment lines (used for the disassembly of what could not be decompiled)."""
    __slots__ = ("lines",)

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = list(lines)


def nested_blocks(stmt: Stmt) -> List[List[Stmt]]:
    """The statement lists inside `stmt`: bodies, else and finally parts, handlers, match cases."""
    kind = type(stmt)
    fields = _BLOCK_FIELDS.get(kind)
    if fields is None:
        fields = block_fields(kind)
    if not fields:
        return _NO_BLOCKS  # (most statements: simple ones)
    found = []
    for field in fields:
        inner = getattr(stmt, field, None)
        if field in _CLAUSE_FIELDS:
            for clause in inner or ():
                found.append(clause.body)
        elif isinstance(inner, list):
            found.append(inner)
    return found


_NO_BLOCKS: List[List[Stmt]] = []  # (shared: the callers only read it)
_BLOCK_FIELD_NAMES = ("body", "orelse", "finalbody", "handlers", "cases")
_CLAUSE_FIELDS = frozenset({"handlers", "cases"})  # lists of clauses, each with a body
# Per statement class, the fields `nested_blocks` looks at (this runs for every statement of
# every tidy pass, so the class's slots are read once).
_BLOCK_FIELDS: Dict[type, Tuple[str, ...]] = {}


def block_fields(kind: type) -> Tuple[str, ...]:
    """The fields of the statement class `kind` that may hold statement lists (none: a simple
    statement)."""
    fields = _BLOCK_FIELDS.get(kind)
    if fields is None:
        fields = _BLOCK_FIELDS[kind] = _block_fields(kind)
    return fields


def _block_fields(kind: type) -> Tuple[str, ...]:
    slots: Set[str] = set()
    for klass in kind.__mro__:
        if klass is object:
            continue
        own = vars(klass).get("__slots__")
        if own is None:
            return _BLOCK_FIELD_NAMES  # instances with a __dict__: any field may be there
        slots.update((own,) if isinstance(own, str) else own)
    return tuple(f for f in _BLOCK_FIELD_NAMES if f in slots)


def has_no_effect(value: Expr) -> bool:
    """A name, a constant, or a list or tuple display of such: evaluating it only to drop the
    result does nothing (a name that might be unbound only matters to tool-made code, which
    drops values it has itself assigned)."""
    if isinstance(value, (Name, Const)):
        return True
    return isinstance(value, (List_, Tuple_)) and all(has_no_effect(e) for e in value.elts)
