"""What a decoded body holds that its source did not write, found and dropped: implicit returns,
the stored docstring, `global`/`nonlocal` declarations read from the scope, and the bookkeeping
the compiler adds to a class body.
"""

import types
from operator import attrgetter
from types import CodeType
from typing import List, Optional, Set

from depyf.decompiler import nodes as n
from depyf.decompiler.errors import DecompilationError
from depyf.decompiler.instructions import ENDS_FLOW, Bytecode
from depyf.decompiler import deferred_annotations as da
from depyf.decompiler.signature import CO_FUTURE_ANNOTATIONS
from depyf.decompiler.versions import BytecodeVersion


CLASS_BOOKKEEPING = {"__module__", "__qualname__", "__firstlineno__", "__static_attributes__", "__type_params__"}


# Flags of code that may suspend (generator, coroutine, iterable coroutine, async generator), and
# the instructions that suspend it.
SUSPENDING = 0x20 | 0x80 | 0x100 | 0x200


YIELDS = frozenset({"YIELD_VALUE", "YIELD_FROM", "SEND", "GET_YIELD_FROM_ITER"})


def check_async_generator_returns(bytecode: Bytecode, qualname: str) -> None:
    """An async generator returns nothing (`return x` there does not compile): flags that say
    async generator over code that returns a value are not the compiler's."""
    instrs = bytecode.instrs
    for k, ins in enumerate(instrs):
        if ins.opname == "RETURN_VALUE" and not (k and instrs[k - 1].opname == "LOAD_CONST"
                                                 and instrs[k - 1].argval is None):
            raise DecompilationError("an async generator that returns a value", function=qualname,
                                     offset=ins.offset, opname=ins.raw_opname,
                                     python_version=bytecode.version.key)


def is_none(e: Optional[n.Expr]) -> bool:
    return e is None or (isinstance(e, n.Const) and e.value is None)


def returned_expression(stmts: List[n.Stmt]) -> Optional[n.Expr]:
    """The one expression that `stmts` return, if they are nothing but returns under tests.

    A conditional expression in return position compiles like an if statement whose branches
    both return (the compiler copies the return into each branch), so a lambda's body may read
    as `if c: return a` + `return b`.
    """
    if not stmts:
        return None
    first = stmts[0]
    if len(stmts) == 1 and isinstance(first, n.Return):
        return first.value
    if isinstance(first, n.If) and first.body:
        rest = first.orelse + stmts[1:] if not first.orelse or len(stmts) == 1 else None
        body = returned_expression(first.body)
        orelse = returned_expression(rest) if rest else None
        if body is not None and orelse is not None:
            return n.IfExp(first.test, body, orelse)
    return None


def ends_in_dead_return_none(bytecode: Bytecode) -> bool:
    instrs = bytecode.instrs
    if len(instrs) < 3:
        return False
    load, ret, before = instrs[-2], instrs[-1], instrs[-3]
    return (load.opname == "LOAD_CONST" and load.argval is None and ret.opname == "RETURN_VALUE"
            and before.opname in ENDS_FLOW
            and not any(ins.target == load.index for ins in instrs))


def returns_on_own_line(code: CodeType, bytecode: Bytecode, line: Optional[int]) -> bool:
    """Does `line` hold nothing but `return None` (the return and its copies), placed as the
    last statement of the body writes it? 3.12+ give a `return None` the compiler adds the line
    and place of the code before it (copied into each way that falls off the end, each copy
    takes that way's), so one with a line of its own was written, which the compiler keeps as
    one block (`try: g() / except E: if x: h()` then `return None` shares the block where the
    clause falls out; dropped, it was copied there). 3.12+ only (`co_positions`)."""
    if line is None:
        return False
    offsets = [range(start, end) for start, end, at in code.co_lines() if at == line]
    if not offsets:
        return False
    positions = list(code.co_positions())
    # The body's indentation: no instruction of the body starts left of its statements.
    indent = min((p[2] for p in positions if p[0] is not None and p[0] > code.co_firstlineno
                  and p[0] != line and p[2] is not None), default=None)
    for ins in bytecode.instrs:
        if not any(ins.offset in r for r in offsets):
            continue
        if ins.opname == "RETURN_VALUE":
            # (where it is: a bare `return` spans its 6 columns from the body's indentation,
            # `return None` puts the return at its `None`, 7 columns on; an implicit one takes
            # the place of a statement that left no code, `else: pass`, `if False:`)
            _, _, col, end_col = positions[ins.offset // 2]
            if col is None or end_col is None or indent is None \
                    or (end_col - col, col) not in ((6, indent), (4, indent + 7)):
                return False
        elif not (ins.opname == "LOAD_CONST" and ins.argval is None):
            return False
    return True


def _is_class_cell_return(e: Optional[n.Expr]) -> bool:
    """The value a class body that uses `__class__` returns: `(__classcell__ := __class__)`."""
    return isinstance(e, n.NamedExpr) and isinstance(e.target, n.Name) and e.target.id == "__classcell__"


def strip_returns(stmts: List[n.Stmt], class_body: bool = False, nested: bool = False) -> None:
    """Remove every `return None` from module-level code, recursively (and from a class body,
    the return of its class cell: 3.10+ copy that implicit return into each branch too).

    A branch that ended in such a return did not fall into the statements after it: those
    become its else part first.
    """
    def implicit(s: n.Stmt) -> bool:
        return isinstance(s, n.Return) and (is_none(s.value) or class_body and _is_class_cell_return(s.value))

    for k, s in enumerate(stmts):
        if isinstance(s, n.If) and not s.orelse and k < len(stmts) - 1 and s.body and implicit(s.body[-1]):
            s.orelse = stmts[k + 1:]
            del stmts[k + 1:]
            break
    stmts[:] = [s for s in stmts if not implicit(s)]
    while nested and class_body and stmts and _is_class_end_bookkeeping(stmts[-1]):
        stmts.pop()  # (3.13: `__static_attributes__ = (...)`, copied with the return)
    for s in stmts:
        for attr in ("body", "orelse", "finalbody"):
            inner = getattr(s, attr, None)
            if isinstance(inner, list) and not isinstance(s, (n.FunctionDef, n.ClassDef)):
                strip_returns(inner, class_body, True)
        for handler in getattr(s, "handlers", ()) or ():
            strip_returns(handler.body, class_body, True)
        for case in getattr(s, "cases", ()) or ():
            strip_returns(case.body, class_body, True)


def has_return(stmts: List[n.Stmt]) -> bool:
    """Is there a return statement in `stmts`, outside nested definitions?"""
    for s in stmts:
        if isinstance(s, n.Return):
            return True
        if isinstance(s, (n.FunctionDef, n.ClassDef)):
            continue
        for attr in ("body", "orelse", "finalbody"):
            inner = getattr(s, attr, None)
            if isinstance(inner, list) and has_return(inner):
                return True
        if any(has_return(h.body) for h in getattr(s, "handlers", ()) or ()):
            return True
        if any(has_return(c.body) for c in getattr(s, "cases", ()) or ()):
            return True
    return False


def is_classdict_bookkeeping(target: str, value: n.Expr) -> bool:
    """`__classdict__ = locals()` and `__classdictcell__ = __classdict__`: the compiler's, in a
    class body whose annotation scopes (3.12+ generics, 3.14+ annotations) read its namespace."""
    if target == "__classdict__":
        return isinstance(value, n.Call) and isinstance(value.func, n.Name) and value.func.id == "locals" \
            and not value.args
    return target == "__classdictcell__" and isinstance(value, n.Name) and value.id == "__classdict__"


def _is_class_end_bookkeeping(s: n.Stmt) -> bool:
    """A store the compiler adds at the end of a class body (and copies, with the implicit
    return, into each branch of a compound statement that ends it)."""
    return isinstance(s, n.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], n.Name) \
        and (s.targets[0].id in ("__static_attributes__", "__classcell__")
             or is_classdict_bookkeeping(s.targets[0].id, s.value))


CO_GENERATOR = 0x20


def dead_yield() -> n.Stmt:
    """`if False: yield`: the compiler drops the dead branch (with no trace when it ends the body)
    but the `yield` the symbol table saw in it still makes the function a generator."""
    return n.If(n.Const(False), [n.ExprStmt(n.Yield(None))], [])


def yields(bytecode: Bytecode) -> bool:
    """Whether any `yield` / `yield from` is left in the code (a generator's may all be dead:
    `while False: yield`)."""
    return any(ins.opname in ("YIELD_VALUE", "YIELD_FROM") for ins in bytecode.instrs)


_SCOPE_OPS = frozenset({"STORE_GLOBAL", "DELETE_GLOBAL", "STORE_DEREF", "DELETE_DEREF"})


_ARGVAL = attrgetter("argval")


# Instructions that name a free variable. 3.13 reads a cell to pass on to a closure with LOAD_FAST.
_FREE_USES = frozenset({"LOAD_DEREF", "STORE_DEREF", "DELETE_DEREF", "LOAD_CLOSURE", "LOAD_CLASSDEREF",
                        "LOAD_FROM_DICT_OR_DEREF", "LOAD_FAST"})


# Free variables the compiler adds on its own (zero-argument `super()`, 3.12+ class scopes).
_IMPLICIT_FREE = frozenset({"__class__", "__classdict__", "__conditional_annotations__"})


def scope_declarations(code: CodeType, bytecode: Bytecode, nested: bool) -> List[n.Stmt]:
    """`global` / `nonlocal` statements the body needs: they leave no instruction of their own.

    A free variable no instruction names is declared only in a nested definition: the text of a
    code object read on its own has no enclosing function to bind it (Dynamo's code keeps such)."""
    if code.co_name == "<module>":
        return []
    globals_: List[str] = []
    nonlocals: List[str] = []
    # (most code stores no global or free variable)
    scoped = () if _SCOPE_OPS.isdisjoint(bytecode.opnames()) else bytecode.instrs
    for ins in scoped:
        if ins.opname not in _SCOPE_OPS:
            continue  # (most instructions: one set lookup)
        if ins.opname in ("STORE_GLOBAL", "DELETE_GLOBAL") and ins.argval not in globals_:
            globals_.append(ins.argval)
        elif ins.opname in ("STORE_DEREF", "DELETE_DEREF") and ins.argval in code.co_freevars \
                and ins.argval not in nonlocals and ins.argval != "__class__":
            nonlocals.append(ins.argval)
    if nested and any(name not in _IMPLICIT_FREE and name not in nonlocals for name in code.co_freevars):
        nonlocals.extend(_unused_free_variables(code, bytecode, nonlocals))
    out: List[n.Stmt] = []
    if globals_:
        out.append(n.Global(globals_))
    if nonlocals:
        out.append(n.Nonlocal(nonlocals))
    return out


def _unused_free_variables(code: CodeType, bytecode: Bytecode, declared: List[str]) -> List[str]:
    """Free variables no instruction names: only a `nonlocal` statement makes them (`def f():
    nonlocal a` that never touches `a` still turns the enclosing `a` into a cell)."""
    used = {ins.argval for ins in bytecode.instrs if ins.opname in _FREE_USES}
    return [name for name in code.co_freevars
            if name not in used and name not in declared and name not in _IMPLICIT_FREE]


_CO_HAS_DOCSTRING = 0x4000000  # (3.14+)


def stored_docstring(code: CodeType, bytecode: Bytecode, version: BytecodeVersion) -> Optional[str]:
    """The docstring the compiler stored as the first constant, if any."""
    consts = code.co_consts
    if not consts or not isinstance(consts[0], str):
        return None
    if code.co_name.startswith("<"):
        return None
    if version.flags_docstrings:
        return consts[0] if code.co_flags & _CO_HAS_DOCSTRING else None
    # Without a docstring the first constant is whatever the body used first; a docstring is never
    # loaded by the body, so a string constant that an instruction loads is not one.
    first = consts[0]
    if first not in map(_ARGVAL, bytecode.instrs):
        return first  # (no argument is even equal to it: one pass in C answers most cases)
    for ins in bytecode.instrs:
        if ins.opname == "LOAD_CONST" and ins.argval is first and ins.arg == 0:
            return None
    return first


def conditional_annotations_ran(annotate: types.FunctionType) -> Set[int]:
    """The indices in the set of conditional annotations a generated `__annotate__` closes over."""
    names = annotate.__code__.co_freevars
    if da.CONDITIONAL_SET not in names or not annotate.__closure__:
        return set()
    try:
        ran = annotate.__closure__[names.index(da.CONDITIONAL_SET)].cell_contents
    except ValueError:  # (an empty cell)
        return set()
    return {k for k in ran if type(k) is int} if isinstance(ran, set) else set()


def uses_postponed_annotations(code: CodeType) -> bool:
    """Was `code` compiled under `from __future__ import annotations`?"""
    return bool(code.co_flags & CO_FUTURE_ANNOTATIONS)
