"""`Decompiler`: one code object read into statements and printed as its definition.

The reading is `CodeBuilder`'s (with the retries for tool-made code); the tidies that follow it
turn what the compiler added back into what the source wrote (`body_tidy`, `tidy`).
"""

import types
from types import CodeType
from typing import Any, Dict, List, Optional, Tuple, Union

from depyf.decompiler import nodes as n
from depyf.decompiler.builder import CodeBuilder
from depyf.decompiler.control import fold_tail_into_else
from depyf.decompiler.exception_table import drop_copied_returns, fold_falling_tail_into_else
from depyf.decompiler.definitions import COMPREHENSION_NAMES, CO_ASYNC_GENERATOR, CO_COROUTINE
from depyf.decompiler.code_check import check_code, safe_identifier
from depyf.decompiler.errors import DecompilationError, NeedsTemporaries
from depyf.decompiler.generics import GENERIC_WRAPPER_PREFIX
from depyf.decompiler.instructions import Bytecode
from depyf.decompiler.passes import lay_out, read
from depyf.decompiler.passes.resume_layout import relayout
from depyf.decompiler.mangling import CO_OPTIMIZED, demangled_code
from depyf.decompiler.printer import Printer
from depyf.decompiler import deferred_annotations as da
from depyf.decompiler import markers as m
from depyf.decompiler.deferred_annotations import place_annotations
from depyf.decompiler.signature import parameters, postponed_annotation
from depyf.decompiler.temporaries import inline_single_use
from depyf.decompiler.tidy import (
    assert_false_for_assertion_raises, bare_returns_in_procedures, fold_copied_returns,
    lift_needless_else,
)
from depyf.decompiler.versions import BytecodeVersion
from depyf.decompiler.body_tidy import (
    check_async_generator_returns, CLASS_BOOKKEEPING, CO_GENERATOR, conditional_annotations_ran,
    dead_yield, ends_in_dead_return_none, has_return, is_classdict_bookkeeping, is_none,
    returned_expression, returns_on_own_line, scope_declarations, stored_docstring, strip_returns, SUSPENDING,
    uses_postponed_annotations, YIELDS, yields,
)
from depyf.decompiler.runtime_values import runtime_type_params, value_expr
from depyf.decompiler.unwrapping import describe


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
            check_async_generator_returns(bytecode, qualname)
        elif not code.co_flags & SUSPENDING and not YIELDS.isdisjoint(bytecode.opnames()):
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
            value = returned_expression(stmts)
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
            strip_returns(stmts)  # copies of the module's implicit return; `return` is invalid there
            if has_return(stmts):  # (one that returns a value: no module's source has it)
                raise DecompilationError("module code that returns a value", function=code.co_name,
                                         python_version=self.version.key)
            if stmts and isinstance(stmts[0], n.Assign) and len(stmts[0].targets) == 1 \
                    and isinstance(stmts[0].targets[0], n.Name) and stmts[0].targets[0].id == "__doc__" \
                    and isinstance(stmts[0].value, n.Const) and type(stmts[0].value.value) is str:
                # (a module's docstring compiles to this store: the text keeps the line count)
                stmts[0] = n.ExprStmt(stmts[0].value)
        # (3.12+: a last `return None` with a line of its own was written, and stays; the
        # copies of it that end the branches before it go as those of an implicit one)
        # (not a body of nothing else: a docstring alone leaves the implicit one its line)
        written = len(stmts) > 1 and isinstance(stmts[-1], n.Return) and is_none(stmts[-1].value) \
            and self.version.copies_exits_with_line_numbers \
            and returns_on_own_line(code, bytecode, stmts[-1].line)
        if self.version.copies_exit_blocks:
            fold_falling_tail_into_else(stmts)
            last = stmts.pop() if written else None
            drop_copied_returns(stmts)  # copies of the implicit return in branches that fall off the end
            if last is not None:
                stmts.append(last)
        dead_return = ends_in_dead_return_none(bytecode)
        # Where the body ends in a compound statement that does not fall through (`while True:`,
        # a try statement), the compiler's unreachable `return None` may have been read as one.
        # One reached by two ways was written out (3.10+ copies an implicit one to each way).
        if stmts and isinstance(stmts[-1], n.Return) and is_none(stmts[-1].value) \
                and (not dead_return or read_last_return) \
                and not (self.version.copies_exit_blocks and stmts[-1].jumped_to) and not written:
            stmts.pop()
        elif dead_return and bytecode.instrs[-3].opname != "RAISE_VARARGS":
            # The compiler of 3.8/3.9 appends `return None` unless the last statement returns;
            # an unreachable one means the source ended in a compound statement (or in a plain
            # `raise`, which is no return either: that says nothing).
            fold_tail_into_else(stmts)
        if self.version.defers_annotations and da.is_annotate_code(code):
            da.name_filled_dict(stmts, set(code.co_names + code.co_varnames + code.co_freevars))
        declarations = scope_declarations(code, bytecode, nested=code is not self.code)
        stmts[0:0] = declarations
        if code.co_flags & (CO_GENERATOR | CO_ASYNC_GENERATOR) and not yields(bytecode):
            stmts.append(dead_yield())
        doc = stored_docstring(code, bytecode, self.version)
        if doc is not None:
            stmts.insert(0, n.ExprStmt(n.Const(doc)))
        return stmts

    def _tidy_class_body(self, stmts: List[n.Stmt]) -> List[n.Stmt]:
        strip_returns(stmts, class_body=True)  # copies of the body's implicit return; `return` is invalid there
        if has_return(stmts):
            raise DecompilationError("a class body that returns a value", python_version=self.version.key)
        tidy: List[n.Stmt] = []
        for s in stmts:
            if isinstance(s, n.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], n.Name):
                target = s.targets[0].id
                if target in CLASS_BOOKKEEPING:
                    continue
                if target == "__doc__" and isinstance(s.value, n.Const):
                    tidy.append(n.ExprStmt(s.value))
                    continue
                if target == "__classcell__" or is_classdict_bookkeeping(target, s.value):
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
                returns = postponed_annotation(value_expr(ann["return"], fn.__globals__), uses_postponed_annotations(code))
        is_async = bool(code.co_flags & (CO_COROUTINE | CO_ASYNC_GENERATOR))
        def_name = safe_identifier(name or code.co_name)
        type_params = runtime_type_params(fn, self.printer) if fn is not None else ""
        return n.FunctionDef(def_name, self._params(code, fn), stmts, (), is_async, returns, type_params)

    def _params(self, code: CodeType, fn: Optional[types.FunctionType]) -> str:
        if fn is None:
            return parameters(code, self.printer.expr)
        env = getattr(fn, "__globals__", {})
        defaults = [value_expr(v, env) for v in (fn.__defaults__ or ())]
        kwdefaults = {k: value_expr(v, env) for k, v in (fn.__kwdefaults__ or {}).items()}
        deferred = self._deferred_annotations(fn)
        if deferred is not None:
            annotations = {k: v for k, v in deferred.items() if k != "return"}
        else:
            annotations = {k: postponed_annotation(value_expr(v, env), uses_postponed_annotations(code))
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
                                     function=describe(obj), python_version=self.version.key)
        ran = conditional_annotations_ran(annotate)
        postponed = uses_postponed_annotations(code)
        return {e.name: postponed_annotation(e.annotation, postponed)
                for e in entries if e.index is None or e.index in ran}
