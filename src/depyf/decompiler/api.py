"""`decompile(obj)`: the decompiler's front door.

Finds the code object behind whatever the user passed, decompiles it with `CodeBuilder`, tidies the
statements (implicit returns, docstrings, class-body bookkeeping) and prints them.
"""
import __future__
import builtins
import functools
import re
import sys
import types
from operator import attrgetter
from types import CodeType
from typing import Any, Dict, List, Optional, Set, Tuple, Union

from depyf.decompiler import nodes as n
from depyf.decompiler.builder import CodeBuilder
from depyf.decompiler.control import fold_tail_into_else
from depyf.decompiler.exception_table import drop_copied_returns, fold_falling_tail_into_else
from depyf.decompiler.deep_stack import call_deep
from depyf.decompiler.definitions import COMPREHENSION_NAMES, CO_ASYNC_GENERATOR, CO_COROUTINE
from depyf.decompiler.code_check import check_code, comment_text, is_source_name, safe_identifier
from depyf.decompiler.errors import DecompilationError, NeedsTemporaries, internal_error, naming_function
from depyf.decompiler.generics import GENERIC_WRAPPER_PREFIX
from depyf.decompiler.instructions import ENDS_FLOW, Bytecode, decode
from depyf.decompiler.passes import lay_out, read
from depyf.decompiler.passes.resume_layout import relayout
from depyf.decompiler.mangling import CO_OPTIMIZED, demangle, demangled_code, private_prefix
from depyf.decompiler.printer import Printer
from depyf.decompiler import deferred_annotations as da
from depyf.decompiler import markers as m
from depyf.decompiler.deferred_annotations import place_annotations
from depyf.decompiler.signature import CO_FUTURE_ANNOTATIONS, parameters, postponed_annotation
from depyf.decompiler.temporaries import inline_single_use
from depyf.decompiler.tidy import assert_false_for_assertion_raises, bare_returns_in_procedures, fold_copied_returns, \
    lift_needless_else
from depyf.decompiler.versions import RUNNING, BytecodeVersion, host

_CLASS_BOOKKEEPING = {"__module__", "__qualname__", "__firstlineno__", "__static_attributes__", "__type_params__"}
# What the interpreter adds to every class's namespace, not something its body wrote.
_CLASS_OBJECT_BOOKKEEPING = _CLASS_BOOKKEEPING | {"__doc__", "__dict__", "__weakref__", "__type_params__",
                                                  "__annotations__"}
_DEFERRED_ANNOTATION_MEMBERS = frozenset({"__annotate_func__", "__annotations_cache__"})
_MAX_WRAPPERS = 100
# Flags of code that may suspend (generator, coroutine, iterable coroutine, async generator), and
# the instructions that suspend it.
_SUSPENDING = 0x20 | 0x80 | 0x100 | 0x200
_YIELDS = frozenset({"YIELD_VALUE", "YIELD_FROM", "SEND", "GET_YIELD_FROM_ITER"})


def decompile(obj: Any, *, on_error: str = "raise", name: Optional[str] = None, indent: int = 4,
              rewritten: bool = False) -> str:
    """Decompile a function, method, lambda, class, code object or callable wrapper to source.

    `on_error="raise"` raises `DecompilationError`; `on_error="comment"` never raises and returns
    valid source whose undecompilable part is shown as disassembly in comments.
    `rewritten=True` says the bytecode was made by a tool, not compiled from source (Dynamo's
    transformed code): values that stay on the stack across statements are then kept in named
    temporaries from the start, instead of after a first reading as source has failed. The text
    is the same, except that a name evaluated only to be dropped is not written as a statement.
    """
    if on_error not in ("raise", "comment"):
        raise ValueError("on_error must be 'raise' or 'comment'")
    try:
        host()  # an interpreter without opcode tables: one plain line, whatever the object
    except DecompilationError as unsupported:
        if on_error == "raise":
            raise
        return _fallback_text(obj, unsupported, name, indent)

    def run() -> str:
        return _decompile(obj, name, indent, rewritten, on_error)

    try:
        try:
            text = run()
            nested_too_deeply = False
        except RecursionError:
            nested_too_deeply = True  # (the deep call is made outside this handler's frame)
        if nested_too_deeply:
            text = call_deep(run)  # code nested deeper than the default recursion limit allows
        if on_error == "comment":
            problem = _compile_problem(text, deep_is_fine=True)
            if problem is not None:
                # (a bug of the reading: the text is wrong, so it is shown as failed)
                raise DecompilationError(f"internal error: the decompiled text does not compile ({problem})",
                                         function=_describe(obj), python_version=RUNNING)
        return text
    except DecompilationError as raised:
        error = naming_function(raised, _describe(obj), RUNNING)
        if on_error == "raise":
            if error is raised:
                raise
            raise error from raised.__cause__
        return _fallback_text(obj, error, name, indent)
    except RecursionError:
        error = DecompilationError("nested too deeply", function=_describe(obj),
                                   python_version=RUNNING)
        if on_error == "raise":
            raise error from None
        return _fallback_text(obj, error, name, indent)
    except (Exception, MemoryError) as exc:
        # Nothing but DecompilationError leaves `decompile`: an exception from inside is a bug of
        # the decompiler on this input, reported as such (`error.internal`, the cause kept).
        error = internal_error(exc, _describe(obj), RUNNING)
        if on_error == "raise":
            raise error from exc
        return _fallback_text(obj, error, name, indent)


def _decompile(obj: Any, name: Optional[str], indent: int, rewritten: bool, on_error: str) -> str:
    target = _unwrap(obj)
    if isinstance(target, type):
        return _decompile_class_object(target, indent, name, on_error)
    code, fn = target
    check_code(code, host())  # (before `code.replace`, which reads co_code)
    owner = _owner_class_name(fn) if not rewritten else None
    if owner is not None:
        code = demangled_code(code, owner)  # `self.__x` as written, not `self._C__x`
    return Decompiler(code, host(), indent, rewritten).definition_text(fn, name)


def _compile_problem(text: str, deep_is_fine: bool = False) -> Optional[str]:
    """Why `text` does not compile, or None. (Compiling runs nothing.) `deep_is_fine`: text too
    deep for the compiler from this far down the stack is not counted (it came from code that
    compiled)."""
    try:
        compile(text, "<decompiled>", "exec", dont_inherit=True)
    except (RecursionError, MemoryError) as exc:
        return None if deep_is_fine else f"{type(exc).__name__}: {exc}"
    except (SyntaxError, ValueError, OverflowError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


class DecompiledFunction:
    """A function's statement tree as the decompiler read it (`node`), with the printer that
    prints it: tools may rewrite the tree (`nodes.py` types) and print the result."""

    def __init__(self, node: n.FunctionDef, printer: Printer) -> None:
        self.node = node
        self.printer = printer

    def text(self) -> str:
        lines: List[str] = []
        self.printer.stmt(self.node, 0, lines)
        return "\n".join(lines) + "\n"


def decompile_function(code: CodeType, *, name: Optional[str] = None, indent: int = 4,
                       rewritten: bool = False) -> DecompiledFunction:
    """The statement tree of a function's code object, unprinted (`decompile` prints it);
    raises `DecompilationError` where the code cannot be read. `rewritten`: as in `decompile`."""
    if not isinstance(code, CodeType):
        raise TypeError(f"expected a code object, got {type(code).__name__}")
    try:
        decompiler = Decompiler(code, host(), indent, rewritten)
        return DecompiledFunction(decompiler.definition_node(None, name), decompiler.printer)
    except DecompilationError:
        raise
    except RecursionError:
        raise DecompilationError("nested too deeply", function=_describe(code), python_version=RUNNING) from None
    except (Exception, MemoryError) as exc:  # (the same contract as `decompile`: one exception type)
        raise internal_error(exc, _describe(code), RUNNING) from exc


class Decompiler:
    """Decompiles one code object and, recursively, the code objects nested in it."""

    def __init__(self, code: CodeType, version: BytecodeVersion, indent: int = 4, rewritten: bool = False) -> None:
        self.code = code
        self.version = version
        self.printer = Printer(indent, version.dedents_docstrings, version.fstring_expressions_any_quotes)
        self.rewritten = rewritten  # tool-made bytecode: read it with temporaries from the start

    # --- bodies ----------------------------------------------------------------------------

    def body(self, code: CodeType, lambda_body: bool = False, class_body: bool = False,
             comprehension: bool = False) -> Union[List[n.Stmt], n.Expr]:
        qualname = getattr(code, "co_qualname", code.co_name)
        if class_body:
            check_code(code, self.version)  # (before `code.replace`, which reads co_code)
            code = demangled_code(code, code.co_name)  # the body of `class C` is named C
        bytecode = decoded = read(code, self.version)
        if code.co_flags & CO_ASYNC_GENERATOR:
            _check_async_generator_returns(bytecode, qualname)
        elif not code.co_flags & _SUSPENDING and not _YIELDS.isdisjoint(bytecode.opnames()):
            # (a yield makes a generator: code whose flags say otherwise is no compiler's)
            raise DecompilationError("a yield in code that is not a generator", function=qualname,
                                     python_version=self.version.key)
        if self.rewritten and self.version.has_exception_table:
            bytecode = relayout(bytecode)
        else:
            bytecode = lay_out(bytecode)
        builder = CodeBuilder(bytecode, self.body, qualname, self.printer, spill_mode=self.rewritten)
        try:
            stmts = builder.run()
        except NeedsTemporaries:
            builder = CodeBuilder(bytecode, self.body, qualname, self.printer, spill_mode=True)
            stmts = builder.run()
        except DecompilationError:
            # Not shaped like a compiler's output: maybe tool-made code with unreachable parts.
            if self.rewritten or not self.version.has_exception_table:
                raise
            relaid = self._read_relaid(decoded, qualname)
            if relaid is None:
                raise
            builder, stmts = relaid
        if self.version.defers_annotations and (class_body or code.co_name == "<module>"):
            place_annotations(stmts)  # (3.14+: from the generated `__annotate__`)
        if builder.temp_count:
            inline_single_use(stmts, set(code.co_varnames) - set(code.co_cellvars), self._text_of(stmts))
        if self.version.handler_code_at_end:
            lift_needless_else(stmts)
        if self.version.copies_exits_with_line_numbers:
            fold_copied_returns(stmts)
        if builder.loaded_assertion_error:
            # (a nested definition's own reading has already rewritten its statements)
            assert_false_for_assertion_raises(stmts)
        if not (class_body or lambda_body or comprehension) and code.co_flags & CO_OPTIMIZED:
            bare_returns_in_procedures(stmts)  # (a lambda's `None` is its value, not a return)
        if comprehension:
            return self._comprehension(code, stmts, builder)
        if lambda_body:
            value = _returned_expression(stmts)
            if value is not None:
                return value
            if code.co_flags & 0x20:  # generator lambda: `lambda: (yield x)`
                values = [s.value for s in stmts if isinstance(s, n.ExprStmt)]
                if len(values) == 1:
                    return values[0]
            raise DecompilationError("lambda body is not a single expression", function=qualname,
                                     python_version=self.version.key)
        if class_body:
            return self._tidy_class_body(stmts)
        return self._tidy_function_body(code, stmts, bytecode, builder.read_last_return)

    def _read_relaid(self, decoded: Bytecode, qualname: str) -> Optional[Tuple[CodeBuilder, List[n.Stmt]]]:
        """Read code that failed as laid out, re-ordered (`relayout`): first with for loops
        followed by their exits (a resume function jumps into a loop), then, if that reading
        fails too, with the blocks in their old order after the loop. None: nothing to re-order."""
        for follow_loop_exits in (True, False):
            # (the failed reading left `decoded` as the decoder made it: it re-points jumps only
            # in its own view, `CodeBuilder.redirect`)
            moved = relayout(decoded, follow_loop_exits)
            if moved is decoded:
                return None
            builder = CodeBuilder(moved, self.body, qualname, self.printer, spill_mode=True)
            try:
                return builder, builder.run()
            except DecompilationError:
                if not follow_loop_exits:
                    raise
        raise AssertionError("unreachable")

    def _text_of(self, stmts: List[n.Stmt]) -> Optional[str]:
        """`stmts` printed, or None where something in them cannot be printed yet."""
        try:
            return "\n".join(self.printer.block(stmts, 0))
        except (TypeError, DecompilationError):
            return None

    def _comprehension(self, code: CodeType, stmts: List[n.Stmt], builder: CodeBuilder) -> n.Expr:
        kind = COMPREHENSION_NAMES[code.co_name]
        if sum(1 for ins in builder.instrs if ins.argval == ".0" and ins.opname == "LOAD_FAST") > 1:
            # (the compiler loads its iterator once, to start the loop: `.0` anywhere else
            # would be printed as if source could name it)
            raise DecompilationError("a comprehension that uses its iterator twice", function=code.co_name,
                                     python_version=self.version.key)
        if kind == "gen":
            loops = [s for s in stmts if isinstance(s, n.For)]
            if loops:
                found = builder.comprehension_from_loop(loops[0])
                if found is not None:
                    return found[1]
        else:
            for s in stmts:
                if isinstance(s, n.Return) and isinstance(s.value, n.ComprehensionExpr):
                    return s.value
        raise DecompilationError("comprehension body has an unexpected shape", function=code.co_name,
                                 python_version=self.version.key)

    def _tidy_function_body(self, code: CodeType, stmts: List[n.Stmt], bytecode: Bytecode,
                            read_last_return: bool) -> List[n.Stmt]:
        if code.co_name == "<module>":
            _strip_returns(stmts)  # copies of the module's implicit return; `return` is invalid there
            if _has_return(stmts):  # (one that returns a value: no module's source has it)
                raise DecompilationError("module code that returns a value", function=code.co_name,
                                         python_version=self.version.key)
            if stmts and isinstance(stmts[0], n.Assign) and len(stmts[0].targets) == 1 \
                    and isinstance(stmts[0].targets[0], n.Name) and stmts[0].targets[0].id == "__doc__" \
                    and isinstance(stmts[0].value, n.Const) and type(stmts[0].value.value) is str:
                # (a module's docstring compiles to this store: the text keeps the line count)
                stmts[0] = n.ExprStmt(stmts[0].value)
        if self.version.copies_exit_blocks:
            fold_falling_tail_into_else(stmts)
            drop_copied_returns(stmts)  # copies of the implicit return in branches that fall off the end
        dead_return = _ends_in_dead_return_none(bytecode)
        # Where the body ends in a compound statement that does not fall through (`while True:`,
        # a try statement), the compiler's unreachable `return None` may have been read as one.
        # One reached by two ways was written out (3.10+ copies an implicit one to each way).
        if stmts and isinstance(stmts[-1], n.Return) and _is_none(stmts[-1].value) \
                and (not dead_return or read_last_return) \
                and not (self.version.copies_exit_blocks and stmts[-1].jumped_to):
            stmts.pop()
        elif dead_return and bytecode.instrs[-3].opname != "RAISE_VARARGS":
            # The compiler of 3.8/3.9 appends `return None` unless the last statement returns;
            # an unreachable one means the source ended in a compound statement (or in a plain
            # `raise`, which is no return either: that says nothing).
            fold_tail_into_else(stmts)
        if self.version.defers_annotations and da.is_annotate_code(code):
            da.name_filled_dict(stmts, set(code.co_names + code.co_varnames + code.co_freevars))
        declarations = _scope_declarations(code, bytecode, nested=code is not self.code)
        stmts[0:0] = declarations
        if code.co_flags & (CO_GENERATOR | CO_ASYNC_GENERATOR) and not _yields(bytecode):
            stmts.append(_dead_yield())
        doc = _docstring(code, bytecode, self.version)
        if doc is not None:
            stmts.insert(0, n.ExprStmt(n.Const(doc)))
        return stmts

    def _tidy_class_body(self, stmts: List[n.Stmt]) -> List[n.Stmt]:
        _strip_returns(stmts, class_body=True)  # copies of the body's implicit return; `return` is invalid there
        if _has_return(stmts):
            raise DecompilationError("a class body that returns a value", python_version=self.version.key)
        tidy: List[n.Stmt] = []
        for s in stmts:
            if isinstance(s, n.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], n.Name):
                target = s.targets[0].id
                if target in _CLASS_BOOKKEEPING:
                    continue
                if target == "__doc__" and isinstance(s.value, n.Const):
                    tidy.append(n.ExprStmt(s.value))
                    continue
                if target == "__classcell__" or _is_classdict_bookkeeping(target, s.value):
                    continue
            if isinstance(s, n.Return):
                continue
            tidy.append(s)
        return tidy

    # --- whole definitions -----------------------------------------------------------------

    def definition_text(self, fn: Optional[types.FunctionType], name: Optional[str]) -> str:
        code = self.code
        if fn is None and name is None and code.co_name.startswith(GENERIC_WRAPPER_PREFIX):
            return self._generic_definition_text(code)
        if code.co_name == "<module>" or (fn is None and code.co_name.startswith("<") and
                                          code.co_name not in ("<lambda>",) + tuple(COMPREHENSION_NAMES)
                                          and name is None):
            stmts = self.body(code)
            assert isinstance(stmts, list)
            return "\n".join(self.printer.block(stmts, 0)) + "\n"
        if code.co_name == "<lambda>" and name is None:
            body = self.body(code, lambda_body=True)
            assert isinstance(body, n.Expr)
            params = self._params(code, fn)
            return self.printer.expr(n.Lambda(params, body)) + "\n"
        if code.co_name in COMPREHENSION_NAMES and name is None:
            expr = self.body(code, comprehension=True)
            assert isinstance(expr, n.Expr)
            return self.printer.expr(expr) + "\n"
        lines: List[str] = []
        self.printer.stmt(self.definition_node(fn, name), 0, lines)
        return "\n".join(lines) + "\n"

    def _generic_definition_text(self, wrapper: CodeType) -> str:
        """`<generic parameters of NAME>` on its own: the `def NAME[...]`, `class NAME[...]` or
        `type NAME[...]` statement it makes (what its body does is run the definition and return
        it, so read alone it would be a meaningless `return`)."""
        qualname = getattr(wrapper, "co_qualname", wrapper.co_name)
        builder = CodeBuilder(read(wrapper, self.version), self.body, qualname, self.printer)
        value = builder.generic_definition(m.MadeFunction(wrapper), [])
        if isinstance(value, m.MadeFunction):
            # Defaults are evaluated by the caller and passed in (`.defaults`, `.kwdefaults`):
            # like any bare code object's, they are not in this code.
            passed = wrapper.co_varnames[:wrapper.co_argcount]
            if isinstance(value.defaults, n.Name) and value.defaults.id in passed:
                value.defaults = None
            if isinstance(value.kwdefaults, n.Name) and value.kwdefaults.id in passed:
                value.kwdefaults = None
        name = wrapper.co_name[len(GENERIC_WRAPPER_PREFIX):-1]
        stmt = builder.definition_statement(value, n.Name(name))
        if stmt is None:
            raise DecompilationError(f"a type-parameter scope that does not make {name!r}", function=qualname,
                                     python_version=self.version.key)
        lines: List[str] = []
        self.printer.stmt(stmt, 0, lines)
        return "\n".join(lines) + "\n"

    def definition_node(self, fn: Optional[types.FunctionType], name: Optional[str]) -> n.FunctionDef:
        """The statement tree of `def name(...)` for this code object (a function's, not a
        module's, lambda's or comprehension's)."""
        code = self.code
        stmts = self.body(code)
        assert isinstance(stmts, list)
        returns = None
        deferred = self._deferred_annotations(fn) if fn is not None else None
        if deferred is not None:
            returns = deferred.get("return")
        elif fn is not None:
            ann = getattr(fn, "__annotations__", None) or {}
            if "return" in ann:
                returns = postponed_annotation(_value_expr(ann["return"], fn.__globals__), _postponed(code))
        is_async = bool(code.co_flags & (CO_COROUTINE | CO_ASYNC_GENERATOR))
        def_name = safe_identifier(name or code.co_name)
        type_params = _runtime_type_params(fn, self.printer) if fn is not None else ""
        return n.FunctionDef(def_name, self._params(code, fn), stmts, (), is_async, returns, type_params)

    def _params(self, code: CodeType, fn: Optional[types.FunctionType]) -> str:
        if fn is None:
            return parameters(code, self.printer.expr)
        env = getattr(fn, "__globals__", {})
        defaults = [_value_expr(v, env) for v in (fn.__defaults__ or ())]
        kwdefaults = {k: _value_expr(v, env) for k, v in (fn.__kwdefaults__ or {}).items()}
        deferred = self._deferred_annotations(fn)
        if deferred is not None:
            annotations = {k: v for k, v in deferred.items() if k != "return"}
        else:
            annotations = {k: postponed_annotation(_value_expr(v, env), _postponed(code))
                           for k, v in (getattr(fn, "__annotations__", None) or {}).items() if k != "return"}
        return parameters(code, self.printer.expr, defaults, kwdefaults, annotations)

    def _deferred_annotations(self, obj: Any) -> Optional[Dict[str, n.Expr]]:
        """3.14+: a function's or class's annotations as written, read from its generated
        `__annotate__` (`__annotations__` would evaluate them: a forward reference raises), only
        those whose statements ran; None where the object has no such function."""
        annotate = obj.__dict__.get("__annotate_func__") if isinstance(obj, type) else getattr(obj, "__annotate__", None)
        if not (self.version.defers_annotations and isinstance(annotate, types.FunctionType)
                and da.is_annotate_code(annotate.__code__)):
            return None
        code = annotate.__code__
        body = self.body(code)
        entries = da.read_entries(body) if isinstance(body, list) else None
        if entries is None and getattr(annotate, "__module__", None) != getattr(obj, "__module__", None):
            # Another module's hand-written `__annotate__` (dataclasses gives the `__init__` it
            # makes one that reads the class's): no annotation is written in this code, and
            # calling it would run code, which decompiling never does.
            return {}
        if entries is None:
            raise DecompilationError("an __annotate__ function not shaped as the compiler makes them",
                                     function=_describe(obj), python_version=self.version.key)
        ran = _conditional_annotations_ran(annotate)
        postponed = _postponed(code)
        return {e.name: postponed_annotation(e.annotation, postponed)
                for e in entries if e.index is None or e.index in ran}


# --- helpers ------------------------------------------------------------------------------------

def _check_async_generator_returns(bytecode: Bytecode, qualname: str) -> None:
    """An async generator returns nothing (`return x` there does not compile): flags that say
    async generator over code that returns a value are not the compiler's."""
    instrs = bytecode.instrs
    for k, ins in enumerate(instrs):
        if ins.opname == "RETURN_VALUE" and not (k and instrs[k - 1].opname == "LOAD_CONST"
                                                 and instrs[k - 1].argval is None):
            raise DecompilationError("an async generator that returns a value", function=qualname,
                                     offset=ins.offset, opname=ins.raw_opname,
                                     python_version=bytecode.version.key)


def _is_none(e: Optional[n.Expr]) -> bool:
    return e is None or (isinstance(e, n.Const) and e.value is None)


def _returned_expression(stmts: List[n.Stmt]) -> Optional[n.Expr]:
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
        body = _returned_expression(first.body)
        orelse = _returned_expression(rest) if rest else None
        if body is not None and orelse is not None:
            return n.IfExp(first.test, body, orelse)
    return None


def _ends_in_dead_return_none(bytecode: Bytecode) -> bool:
    instrs = bytecode.instrs
    if len(instrs) < 3:
        return False
    load, ret, before = instrs[-2], instrs[-1], instrs[-3]
    return (load.opname == "LOAD_CONST" and load.argval is None and ret.opname == "RETURN_VALUE"
            and before.opname in ENDS_FLOW
            and not any(ins.target == load.index for ins in instrs))


def _is_class_cell_return(e: Optional[n.Expr]) -> bool:
    """The value a class body that uses `__class__` returns: `(__classcell__ := __class__)`."""
    return isinstance(e, n.NamedExpr) and isinstance(e.target, n.Name) and e.target.id == "__classcell__"


def _strip_returns(stmts: List[n.Stmt], class_body: bool = False, nested: bool = False) -> None:
    """Remove every `return None` from module-level code, recursively (and from a class body,
    the return of its class cell: 3.10+ copy that implicit return into each branch too).

    A branch that ended in such a return did not fall into the statements after it: those
    become its else part first.
    """
    def implicit(s: n.Stmt) -> bool:
        return isinstance(s, n.Return) and (_is_none(s.value) or class_body and _is_class_cell_return(s.value))

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
                _strip_returns(inner, class_body, True)
        for handler in getattr(s, "handlers", ()) or ():
            _strip_returns(handler.body, class_body, True)
        for case in getattr(s, "cases", ()) or ():
            _strip_returns(case.body, class_body, True)


def _has_return(stmts: List[n.Stmt]) -> bool:
    """Is there a return statement in `stmts`, outside nested definitions?"""
    for s in stmts:
        if isinstance(s, n.Return):
            return True
        if isinstance(s, (n.FunctionDef, n.ClassDef)):
            continue
        for attr in ("body", "orelse", "finalbody"):
            inner = getattr(s, attr, None)
            if isinstance(inner, list) and _has_return(inner):
                return True
        if any(_has_return(h.body) for h in getattr(s, "handlers", ()) or ()):
            return True
        if any(_has_return(c.body) for c in getattr(s, "cases", ()) or ()):
            return True
    return False


def _is_classdict_bookkeeping(target: str, value: n.Expr) -> bool:
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
             or _is_classdict_bookkeeping(s.targets[0].id, s.value))


CO_GENERATOR = 0x20

def _dead_yield() -> n.Stmt:
    """`if False: yield`: the compiler drops the dead branch (with no trace when it ends the body)
    but the `yield` the symbol table saw in it still makes the function a generator."""
    return n.If(n.Const(False), [n.ExprStmt(n.Yield(None))], [])


def _yields(bytecode: Bytecode) -> bool:
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


def _scope_declarations(code: CodeType, bytecode: Bytecode, nested: bool) -> List[n.Stmt]:
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


def _docstring(code: CodeType, bytecode: Bytecode, version: BytecodeVersion) -> Optional[str]:
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


def _value_expr(value: Any, env: Dict[str, Any]) -> n.Expr:
    """An expression for a runtime value (a default or an annotation)."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)) or value is Ellipsis:
        return n.Const(value)
    if isinstance(value, tuple) and all(isinstance(v, (bool, int, float, str, bytes, type(None))) for v in value):
        return n.Const(value)
    for key, candidate in env.items():
        if candidate is value:
            return n.Name(key)
    name = getattr(value, "__name__", None)
    if isinstance(name, str) and getattr(builtins, name, None) is value:
        return n.Name(name)
    unpacked = _unpacked_type_arguments(value)
    if unpacked is not None:
        return n.Starred(_value_expr(unpacked, env))  # `*args: *Ts` evaluates to `Unpack[Ts]`
    alias = _generic_alias_expr(value)
    if alias is not None:
        return alias
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None)
    if isinstance(module, str) and isinstance(qualname, str) and "<" not in qualname:
        return n.Raw(f"{module}.{qualname}" if module != "builtins" else qualname)
    text = repr(value)
    try:
        compile(text, "<repr>", "eval")
        return n.Raw(text)
    except SyntaxError:
        # No expression spells this object: `...` keeps the signature valid Python.
        return n.Const(Ellipsis)


def _unpacked_type_arguments(value: Any) -> Any:
    """X of `typing.Unpack[X]` (what a starred annotation evaluates to), else None."""
    origin = getattr(value, "__origin__", None)
    args = getattr(value, "__args__", None)
    if getattr(origin, "_name", None) == "Unpack" and getattr(origin, "__module__", None) == "typing" \
            and isinstance(args, tuple) and len(args) == 1:
        return args[0]
    return None


_NONE_TYPE_WORD = re.compile(r"(?<![\w.])NoneType\b")


def _generic_alias_expr(value: Any) -> Optional[n.Expr]:
    """`list[int]`, `typing.Optional[str]`, `*tuple[int, ...]`: a subscripted generic as its repr
    spells it (its `__name__` is its origin's, so the name alone would drop the arguments)."""
    if getattr(value, "__origin__", None) is None or not isinstance(getattr(value, "__args__", None), tuple):
        return None
    text = repr(value)
    star = text.startswith("*")  # an unpacked `*tuple[...]` (3.11+)
    if star:
        text = text[1:]
    if getattr(value, "__module__", None) == "typing":
        # typing stores a `None` argument as NoneType, a name no scope defines (3.8 prints
        # `typing.Union[int, NoneType]` for `Optional[int]`); `None` subscripts to the same alias.
        text = _NONE_TYPE_WORD.sub("None", text)
    try:
        compile(text, "<repr>", "eval")
    except SyntaxError:
        return None
    return n.Starred(n.Raw(text)) if star else n.Raw(text)


def _unwrap(obj: Any) -> Any:
    """(code, function or None) behind `obj`, or a class."""
    for _ in range(_MAX_WRAPPERS):
        if isinstance(obj, CodeType):
            return obj, None
        if isinstance(obj, types.FunctionType):
            wrapped = getattr(obj, "__wrapped__", None)
            if wrapped is not None and callable(wrapped):
                obj = wrapped
                continue
            return obj.__code__, obj
        if isinstance(obj, (types.MethodType, staticmethod, classmethod)):
            obj = obj.__func__
            continue
        if isinstance(obj, functools.partial):
            obj = obj.func
            continue
        if isinstance(obj, property):
            obj = obj.fget
            continue
        if isinstance(obj, (types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType)):
            code = getattr(obj, "gi_code", None) or getattr(obj, "cr_code", None) or getattr(obj, "ag_code", None)
            return code, None
        if isinstance(obj, type):
            return obj
        if isinstance(obj, (types.BuiltinFunctionType, types.BuiltinMethodType, types.ModuleType)) \
                or obj is None or isinstance(obj, (int, float, str, bytes, list, dict, tuple, set)):
            break
        wrapped = getattr(obj, "__wrapped__", None)
        if wrapped is not None:
            obj = wrapped
            continue
        call = getattr(type(obj), "__call__", None)
        if isinstance(call, types.FunctionType):
            obj = call
            continue
        func = getattr(obj, "__func__", None)
        if func is not None:
            obj = func
            continue
        break
    raise DecompilationError(f"{_describe(obj)} has no Python bytecode to decompile",
                             python_version=host().key)


def _describe(obj: Any) -> str:
    name = getattr(obj, "__qualname__", None) or getattr(obj, "co_qualname", None) or getattr(obj, "co_name", None)
    return f"{type(obj).__name__} {name}" if name else f"object of type {type(obj).__name__}"


def _decompile_class_object(cls: type, indent: int, name: Optional[str], on_error: str = "raise") -> str:
    """A class object has no body code left; rebuild its body from its members."""
    printer = Printer(indent, host().dedents_docstrings, host().fstring_expressions_any_quotes)
    lines: List[str] = []
    type_params = _runtime_type_params(cls, printer)
    # `class C[T]` adds typing.Generic to the bases itself.
    bases = [b for b in cls.__bases__ if b is not object and not (type_params and _is_typing_generic(b))]
    base_names = [b.__qualname__ if b.__module__ == "builtins" else b.__name__ for b in bases]
    class_name = name or cls.__name__
    # (a class object's names are whatever was set: none may reach the text unless source spells it)
    for written in [class_name] + base_names:
        if not all(is_source_name(part) for part in str(written).split(".")):
            raise DecompilationError(f"the name {written!r} cannot be written in source",
                                     function=_describe(cls), python_version=host().key)
    base_text = "(" + ", ".join(base_names) + ")" if bases else ""
    generic = f"[{type_params}]" if type_params else ""
    lines.append(f"class {class_name}{generic}{base_text}:")
    unit = " " * indent
    if cls.__doc__ and "__doc__" in cls.__dict__:
        lines.extend(printer.docstring(cls.__doc__, unit))
    prefix = private_prefix(cls.__name__)
    body = 0
    annotated = _class_annotations(cls, printer)
    for key, annotation in annotated.items():
        literal = _literal_expr(cls.__dict__[key]) if key in cls.__dict__ else None
        value_text = "" if literal is None else " = " + printer.expr(literal)
        lines.append(f"{unit}{demangle(key, prefix) if prefix else key}: {annotation}{value_text}")
        body += 1
    for key, value in cls.__dict__.items():
        if not is_source_name(key):
            # (set with setattr: no statement of a class body makes it)
            lines.append(f"{unit}# a member named {comment_text(repr(key))} cannot be written in source")
            continue
        member = demangle(key, prefix) if prefix else key
        if key in _DEFERRED_ANNOTATION_MEMBERS:
            continue  # (3.14+: the generated annotations, printed above, and their cache)
        if key in annotated and _literal_expr(value) is not None:
            continue  # printed with its annotation
        decorated = _member_functions(member, value)
        for decorator, fn in decorated:
            # (a lambda stored as a member is printed as the def of that name, not a bare expression)
            named = decorator or fn.__code__.co_name == "<lambda>"
            text = _decompile_member(fn, cls.__name__, member if named else None, on_error, indent)
            if decorator:
                lines.append(unit + "@" + decorator)
            lines.extend(unit + line if line else line for line in text.rstrip("\n").split("\n"))
            body += 1
        if decorated:
            continue
        literal = _literal_expr(value)
        if key not in _CLASS_OBJECT_BOOKKEEPING and literal is not None:
            lines.append(f"{unit}{member} = {printer.expr(literal)}")
            body += 1
    if body == 0 and not (cls.__doc__ and "__doc__" in cls.__dict__):
        lines.append(unit + "pass")
    return "\n".join(lines) + "\n"


def _conditional_annotations_ran(annotate: types.FunctionType) -> Set[int]:
    """The indices in the set of conditional annotations a generated `__annotate__` closes over."""
    names = annotate.__code__.co_freevars
    if da.CONDITIONAL_SET not in names or not annotate.__closure__:
        return set()
    try:
        ran = annotate.__closure__[names.index(da.CONDITIONAL_SET)].cell_contents
    except ValueError:  # (an empty cell)
        return set()
    return {k for k in ran if type(k) is int} if isinstance(ran, set) else set()


def _class_annotations(cls: type, printer: Printer) -> Dict[str, str]:
    """The class body's own annotations (`x: int`), as text by name; dataclasses depend on them."""
    annotate = cls.__dict__.get("__annotate_func__")
    if isinstance(annotate, types.FunctionType):
        deferred = Decompiler(annotate.__code__, host(), len(printer.unit))._deferred_annotations(cls)
        if deferred is not None:
            return {k: printer.expr(v) for k, v in deferred.items() if is_source_name(k)}
    own = cls.__dict__.get("__annotations__")
    if not isinstance(own, dict):
        return {}
    env = vars(sys.modules.get(cls.__module__, builtins))
    # (the class body's own code is gone; its module's `annotations` name tells PEP 563 apart)
    postponed = env.get("annotations") is getattr(__future__, "annotations", None)
    return {k: printer.expr(postponed_annotation(_value_expr(v, env), postponed))
            for k, v in own.items() if is_source_name(k)}


def _postponed(code: CodeType) -> bool:
    """Was `code` compiled under `from __future__ import annotations`?"""
    return bool(code.co_flags & CO_FUTURE_ANNOTATIONS)


def _runtime_type_params(obj: Any, printer: Printer) -> str:
    """The text between the brackets of `def f[...]` / `class C[...]` from `__type_params__`."""
    parts: List[str] = []
    for param in getattr(obj, "__type_params__", None) or ():
        kind = type(param).__name__
        text = {"TypeVarTuple": "*", "ParamSpec": "**"}.get(kind, "") + param.__name__
        env = getattr(obj, "__globals__", None) or vars(sys.modules.get(getattr(obj, "__module__", ""), builtins))
        try:
            constraints = getattr(param, "__constraints__", ())
            bound = getattr(param, "__bound__", None)
            if constraints:
                text += ": " + printer.expr(n.Tuple_([_value_expr(c, env) for c in constraints]))
            elif bound is not None:
                text += ": " + printer.expr(_value_expr(bound, env))
            if getattr(param, "has_default", lambda: False)():
                text += " = " + printer.expr(_value_expr(param.__default__, env))
        except NameError:
            pass  # a bound naming something not defined yet: the parameter without it
        parts.append(text)
    return ", ".join(parts)


def _is_typing_generic(base: Any) -> bool:
    return getattr(base, "__module__", None) == "typing" and getattr(base, "__name__", None) == "Generic"


def _member_functions(member: str, value: Any) -> List[Tuple[Optional[str], types.FunctionType]]:
    """The functions a class member is made of, each with the decorator that rebuilds it.

    A property is its getter, then its setter and deleter as `@name.setter` / `@name.deleter`:
    dropping them would leave a read-only attribute.
    """
    if isinstance(value, staticmethod) and isinstance(value.__func__, types.FunctionType):
        return [("staticmethod", value.__func__)]
    if isinstance(value, classmethod) and isinstance(value.__func__, types.FunctionType):
        return [("classmethod", value.__func__)]
    if isinstance(value, property):
        parts = [("property", value.fget), (f"{member}.setter", value.fset), (f"{member}.deleter", value.fdel)]
        if not isinstance(value.fget, types.FunctionType):
            return []
        return [(d, f) for d, f in parts if isinstance(f, types.FunctionType)]
    if isinstance(value, types.FunctionType):
        return [(None, value)]
    return []


def _owner_class_name(fn: Optional[types.FunctionType]) -> Optional[str]:
    """The class whose body defines this function object (its private names are mangled with
    it), from the qualified name: `C.m` and `f.<locals>.C.m` are methods of C; `f.<locals>.g` is
    not. A bare code object keeps its names as stored: its text may be placed anywhere (the dump
    writes resume functions at module level, where `self.__x` would not be mangled again)."""
    qualname = getattr(fn, "__qualname__", None) if isinstance(fn, types.FunctionType) else None
    if not qualname:
        return None
    parts = qualname.split(".")
    if len(parts) < 2 or parts[-2] == "<locals>" or not parts[-2].isidentifier():
        return None
    return parts[-2]


def _decompile_member(fn: types.FunctionType, class_name: str, name: Optional[str], on_error: str,
                      indent: int) -> str:
    """A function of a class, printed inside it: private names as written (`self.__x`)."""
    try:
        code, fn = _unwrap(fn)
        check_code(code, host())  # (before `code.replace`, which reads co_code)
        code = demangled_code(code, class_name)
        return Decompiler(code, host(), indent).definition_text(fn, name)
    except DecompilationError as error:
        if on_error == "raise":
            raise
        return _fallback_text(fn, error, name, indent)


def _literal_expr(value: Any) -> Optional[n.Expr]:
    """An expression for a class attribute built of literals (numbers, strings, containers)."""
    if value is None or value is Ellipsis or isinstance(value, (bool, int, float, complex, str, bytes)):
        return n.Const(value)
    items: List[n.Expr] = []
    if isinstance(value, (tuple, list, set, frozenset)):
        for v in (sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value):
            e = _literal_expr(v)
            if e is None:
                return None
            items.append(e)
        if isinstance(value, tuple):
            return n.Tuple_(items) if type(value) is tuple else None
        if type(value) is list:
            return n.List_(items)
        return n.Set_(items) if type(value) is set and items else None
    if type(value) is dict:
        keys = [_literal_expr(k) for k in value]
        values = [_literal_expr(v) for v in value.values()]
        if any(e is None for e in keys + values):
            return None
        return n.Dict_(keys, values)
    return None


def _fallback_text(obj: Any, error: DecompilationError, name: Optional[str], indent: int) -> str:
    """Valid source that shows why and where decompilation failed, with the disassembly.

    Everything taken from the code object is checked or escaped: its names may be anything
    (`<lambda>`, a keyword, a line break that would end a comment and start a line of code)."""
    comment = "# depyf could not decompile this code: " + comment_text(str(error))
    try:
        text = _fallback_definition(obj, error, name, indent, comment)
    except (Exception, RecursionError, MemoryError):  # (the fallback of the fallback: a comment)
        return comment + "\n"
    return text if _compile_problem(text) is None else comment + "\n"


def _fallback_definition(obj: Any, error: DecompilationError, name: Optional[str], indent: int,
                         comment: str) -> str:
    unit = " " * indent
    try:
        target = _unwrap(obj)
    except DecompilationError:
        return comment + "\n"
    if isinstance(target, type):
        return comment + "\n"
    code = target[0]
    def_name = safe_identifier(name or (code.co_name if isinstance(code.co_name, str) else "_"))
    lines = [f"def {def_name}({_fallback_parameters(code)}):", unit + comment, unit + "# disassembly:"]
    try:
        for ins in decode(code, host()).instrs:
            arg = "" if ins.arg is None else " " + (f"-> {ins.target}" if ins.target is not None else repr(ins.argval))
            lines.append(unit + "#   " + comment_text(f"{ins.index:4d} {ins.raw_opname}{arg}"[:200]))
    except DecompilationError as decode_error:
        lines.append(unit + "#   " + comment_text(f"(the bytecode cannot be decoded: {decode_error})"))
    lines.append(f"{unit}raise NotImplementedError({str(error)!r})")
    return "\n".join(lines) + "\n"


def _fallback_parameters(code: CodeType) -> str:
    """The parameters as the code declares them, where they are names source can spell (a
    comprehension's `.0`, a duplicate or a keyword are not): else `*args, **kwargs`."""
    try:
        text = parameters(code, Printer().expr)
        compile(f"def _({text}): pass", "<parameters>", "exec", dont_inherit=True)
        return text
    except (Exception, RecursionError, MemoryError):
        return "*args, **kwargs"
