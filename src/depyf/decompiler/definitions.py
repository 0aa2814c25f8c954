"""Functions, lambdas, classes, comprehensions, generators and coroutines.

Nested code objects are decompiled recursively through `decompile_nested`. Comprehensions become
expressions whichever way the interpreter compiled them: a separate code object called with the
iterator (3.8-3.11) or a loop inlined into the enclosing function (3.12+).
"""
from types import CodeType
from typing import Dict, List, Optional, Tuple

from depyf.decompiler import deferred_annotations as da
from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.code_check import is_source_name
from depyf.decompiler.errors import DecompilationError
from depyf.decompiler.instructions import Instr
from depyf.decompiler.generics import is_generic_wrapper
from depyf.decompiler.markers import ClassValue
from depyf.decompiler.signature import CO_FUTURE_ANNOTATIONS, parameters, postponed_annotation

# Callees whose call is a definition or comprehension, not a call (`make_call`).
_SPECIAL_CALLEES = (m.MadeFunction, m.BuildClass)
# Arguments passed on as they are: a function or class stays a marker until it is stored.
_PASSED_ON = (m.MadeFunction, ClassValue)
_new = object.__new__  # (the commonest nodes made without their __init__: one call fewer)

COMPREHENSION_NAMES = {"<listcomp>": "list", "<setcomp>": "set", "<dictcomp>": "dict", "<genexpr>": "gen"}
CO_COROUTINE = 0x80
CO_ASYNC_GENERATOR = 0x200
CO_ITERABLE_COROUTINE = 0x100


class CompAppend(n.Stmt):
    """LIST_APPEND / SET_ADD / MAP_ADD inside a comprehension loop."""
    __slots__ = ("acc", "elt", "value")

    def __init__(self, acc: n.Expr, elt: n.Expr, value: Optional[n.Expr] = None) -> None:
        self.acc = acc
        self.elt = elt
        self.value = value


# The item of a loop that yields each item of `x` for 3.15's `(*x for ...)` (no source name).
UNPACKED = ".unpacked"


def _is_unpacked(e: n.Expr) -> bool:
    return isinstance(e, n.Name) and e.id == UNPACKED


class DefinitionRules:
    """Handlers for making functions and classes; mixed into `builder.CodeBuilder`."""

    # --- making functions -------------------------------------------------------------------

    def op_MAKE_FUNCTION(self, ins: Instr, i: int) -> None:
        if self.version.makes_function_with_qualname:
            self.pop()
        code = self.pop()
        if not (isinstance(code, n.Const) and isinstance(code.value, CodeType)):
            raise self.fail(ins, "a function made of something that is not code")
        inner, outer = code.value, self.bc.code
        if inner.co_freevars and not set(inner.co_freevars) <= set(outer.co_cellvars + outer.co_freevars):
            # (a function's free variables are its definer's cells: else `nonlocal x` with no x)
            raise self.fail(ins, "a function whose free variables its definer does not have")
        fn = m.MadeFunction(inner)
        flags = ins.arg or 0
        if flags & 0x08:
            fn.closure = self.pop()
        if flags & 0x04:
            fn.annotations = self.pop()
        if flags & 0x02:
            fn.kwdefaults = self.pop()
        if flags & 0x01:
            fn.defaults = self.pop()
        self.stack.append(fn)

    def op_SET_FUNCTION_ATTRIBUTE(self, ins: Instr, i: int) -> None:
        fn = self.pop()
        value = self.pop()
        assert isinstance(fn, m.MadeFunction)
        flag = ins.arg
        if flag == 0x08:
            fn.closure = value
        elif flag == 0x04:
            fn.annotations = value
        elif flag == 0x02:
            fn.kwdefaults = value
        elif flag == 0x01:
            fn.defaults = value
        elif flag == 0x10 and self.version.defers_annotations:
            fn.annotations = self.deferred_function_annotations(value, ins)
        else:
            raise self.fail(ins, "a function attribute no source sets")
        self.stack.append(fn)

    def deferred_annotations(self, annotate: n.Expr, ins: Optional[Instr]) -> List[da.Entry]:
        """The entries of a generated `__annotate__` function (3.14+)."""
        if not (isinstance(annotate, m.MadeFunction) and da.is_annotate_code(annotate.code)):
            raise self.fail(ins, "annotations computed by something that is not the compiler's __annotate__")
        entries = da.read_entries(self.decompile_nested(annotate.code))
        if entries is None:
            raise self.fail(ins, "an __annotate__ function not shaped as the compiler makes them")
        return entries

    def deferred_function_annotations(self, annotate: n.Expr, ins: Instr) -> n.Dict_:
        entries = self.deferred_annotations(annotate, ins)
        if any(e.index is not None for e in entries):
            raise self.fail(ins, "a function's annotations that depend on conditions")
        return da.annotations_dict(entries)

    def function_params(self, fn: m.MadeFunction) -> Tuple[str, Optional[n.Expr]]:
        defaults: List[n.Expr] = []
        if isinstance(fn.defaults, n.Tuple_):
            defaults = fn.defaults.elts
        elif isinstance(fn.defaults, n.Const) and isinstance(fn.defaults.value, tuple):
            defaults = [n.Const(v) for v in fn.defaults.value]
        kwdefaults: Dict[str, n.Expr] = {}
        if isinstance(fn.kwdefaults, n.Dict_):
            for k, v in zip(fn.kwdefaults.keys, fn.kwdefaults.values):
                if isinstance(k, n.Const):
                    kwdefaults[k.value] = v
        annotations: Dict[str, n.Expr] = {}
        ann = fn.annotations
        if isinstance(ann, n.Dict_):
            for k, v in zip(ann.keys, ann.values):
                if isinstance(k, n.Const):
                    annotations[k.value] = v
        elif isinstance(ann, n.Tuple_):
            for k, v in zip(ann.elts[0::2], ann.elts[1::2]):
                if isinstance(k, n.Const):
                    annotations[k.value] = v
        elif isinstance(ann, n.Const) and isinstance(ann.value, tuple):
            for k, v in zip(ann.value[0::2], ann.value[1::2]):
                annotations[k] = n.Const(v)
        postponed = bool(self.code.co_flags & CO_FUTURE_ANNOTATIONS)
        annotations = {k: postponed_annotation(v, postponed) for k, v in annotations.items()}
        returns = annotations.pop("return", None)
        text = parameters(fn.code, self.render, defaults, kwdefaults, annotations)
        return text, returns

    def function_expression(self, fn: m.MadeFunction) -> n.Expr:
        """A function used as a value: lambdas are expressions; anything else cannot be."""
        if fn.code.co_name == "<lambda>":
            params, _ = self.function_params(fn)
            body = self.decompile_nested(fn.code, lambda_body=True)
            return n.Lambda(params, body)
        if not is_source_name(fn.code.co_name):
            raise DecompilationError(f"a function named {fn.code.co_name!r} used as a value")
        return n.Raw(f"__function_{fn.code.co_name}__")

    def is_decorated(self, value: n.Call) -> bool:
        while isinstance(value, n.Call) and len(value.args) == 1:
            inner = value.args[0]
            if isinstance(inner, (m.MadeFunction, ClassValue)):
                return not (isinstance(inner, m.MadeFunction) and inner.code.co_name == "<lambda>")
            value = inner
        return False

    def definition_statement(self, value: n.Expr, target: n.Expr) -> Optional[n.Stmt]:
        decorators: List[n.Expr] = []
        while isinstance(value, n.Call) and len(value.args) == 1 and \
                isinstance(value.args[0], (n.Call, m.MadeFunction, ClassValue)):
            decorators.append(value.func)
            value = value.args[0]
        if not isinstance(target, n.Name):
            return None
        if isinstance(value, m.MadeFunction):
            if value.code.co_name != target.id:
                return None
            params, returns = self.function_params(value)
            body = self.decompile_nested(value.code)
            is_async = bool(value.code.co_flags & (CO_COROUTINE | CO_ASYNC_GENERATOR))
            return n.FunctionDef(target.id, params, body, decorators, is_async, returns,
                                 self.type_params_text(value.type_params))
        if isinstance(value, ClassValue):
            if value.name != target.id:
                return None
            body = self.decompile_nested(value.body.code, class_body=True)
            return n.ClassDef(value.name, value.bases, body, decorators, self.type_params_text(value.type_params))
        if isinstance(value, m.TypeAliasValue) and value.name == target.id and not decorators:
            return n.TypeAlias(value.name, self.type_params_text(value.params), value.value)
        return None

    # --- calls that are really definitions or comprehensions --------------------------------

    def make_call(self, callee: n.Expr, args: List[n.Expr]) -> n.Expr:
        if isinstance(callee, _SPECIAL_CALLEES):  # (rare: most calls are of a name or attribute)
            if is_generic_wrapper(callee):
                return self.generic_definition(callee, args)
            if isinstance(callee, m.BuildClass):
                body, name = args[0], args[1]
                assert isinstance(body, m.MadeFunction) and isinstance(name, n.Const)
                return ClassValue(body, name.value, args[2:])
            if isinstance(callee, m.MadeFunction) and callee.code.co_name in COMPREHENSION_NAMES and len(args) == 1:
                iterable = args[0]
                if isinstance(iterable, m.Iterator):
                    iterable = iterable.value
                return self.comprehension_call(callee, iterable)
        # A function or class passed on (a decorator call) stays a marker until it is stored.
        finish = self.finish_expr
        call = _new(n.Call)  # `n.Call(finish(callee), [...])`, its argument list already a new one
        call.func = finish(callee)
        call.args = [a if isinstance(a, _PASSED_ON) else finish(a) for a in args]
        return call

    def comprehension_call(self, fn: m.MadeFunction, iterable: n.Expr) -> n.Expr:
        expr = self.decompile_nested(fn.code, comprehension=True)
        assert isinstance(expr, n.ComprehensionExpr)
        first = expr.generators[0]
        if isinstance(first.iter, n.Name) and first.iter.id == ".0":
            first.iter = iterable
        if fn.code.co_flags & CO_COROUTINE and expr.kind != "gen":
            # `async for` or `await` anywhere in it: the caller awaits the call, the text does not.
            return m.CoroutineComprehension(expr)
        return expr

    # --- comprehension loops --------------------------------------------------------------------

    def _accumulator(self, kind: type) -> n.Expr:
        for value in reversed(self.stack):
            if type(value) is kind:
                return value
        raise IndexError("no comprehension accumulator")

    # A comprehension's loop iterator always sits above its accumulator, so these add to a
    # comprehension when the target is deeper than the top of the stack; with argument 1 they add
    # to a display being built (`[*a, x]`, `{*a, x}`): the element belongs in its text.

    def comprehension_item(self, kind: type, item: n.Expr) -> n.Stmt:
        """A comprehension's `*x` / `**x` item (3.15): added to the loop's accumulator."""
        return CompAppend(self._accumulator(kind), item)

    def op_LIST_APPEND(self, ins: Instr, i: int) -> None:
        elt = self.pop()
        if ins.arg == 1 and isinstance(self.stack[-1], n.List_):
            self.stack[-1].elts.append(elt)
            return
        self.emit(CompAppend(self._accumulator(n.List_), elt))

    def op_SET_ADD(self, ins: Instr, i: int) -> None:
        elt = self.pop()
        if ins.arg == 1 and self.version.defers_annotations and isinstance(self.stack[-1], n.Name) \
                and self.stack[-1].id == da.CONDITIONAL_SET and isinstance(elt, n.Const) and type(elt.value) is int:
            # `x: T` that runs only on some paths (3.14+): the body records its index here
            self.stack[-1] = m.Sentinel("conditional annotations")
            self.emit(da.AnnotationMark(elt.value))
            return
        if ins.arg == 1 and isinstance(self.stack[-1], n.Set_):
            self.stack[-1].elts.append(elt)
            return
        self.emit(CompAppend(self._accumulator(n.Set_), elt))

    def op_MAP_ADD(self, ins: Instr, i: int) -> None:
        value = self.pop()
        key = self.pop()
        if ins.arg == 1 and isinstance(self.stack[-1], n.Dict_):
            self.stack[-1].keys.append(key)
            self.stack[-1].values.append(value)
            return
        self.emit(CompAppend(self._accumulator(n.Dict_), key, value))

    def comprehension_from_loop(self, loop: n.For) -> Optional[Tuple[Optional[n.Expr], n.ComprehensionExpr]]:
        """If `loop` is the loop of a comprehension, the accumulator and the expression."""
        generators: List[n.Comprehension] = []
        node: n.Stmt = loop
        current: Optional[n.Comprehension] = None
        while True:
            if isinstance(node, n.For):
                current = n.Comprehension(node.target, node.iter, [], node.is_async)
                generators.append(current)
                body = node.body
            elif isinstance(node, n.If) and not node.orelse and current is not None:
                current.ifs.append(node.test)
                body = node.body
            else:
                break
            while len(body) >= 2 and current is not None:
                first = body[0]
                if isinstance(first, n.If) and first.body and isinstance(first.body[0], n.Continue) \
                        and not first.orelse:
                    # `if not c: continue` followed by the rest is a filter too.
                    current.ifs.append(_negate_for_filter(first.test))
                elif isinstance(first, n.If) and not first.orelse \
                        and (not first.body or len(first.body) == 1 and isinstance(first.body[0], n.Pass)):
                    # So is `if not c: pass`, the test of a filter that is always true (`if c or
                    # True`: the compiler drops the `True`, and `c` jumps on either way).
                    current.ifs.append(n.BoolOp("or", [_negate_for_filter(first.test), n.Const(True)]))
                elif isinstance(first, n.Assign) and len(first.targets) == 1:
                    # 3.9+ compiles a clause `for y in [E]` (or `(E,)`) after the first one to
                    # a plain `y = E`, with no loop.
                    current = n.Comprehension(first.targets[0], n.List_([first.value]), [])
                    generators.append(current)
                else:
                    break
                body = body[1:]
            if len(body) != 1:
                return None
            node = body[0]
        if isinstance(node, CompAppend):
            kind = {n.List_: "list", n.Set_: "set", n.Dict_: "dict"}[type(node.acc)]
            return node.acc, n.ComprehensionExpr(kind, node.elt, generators, node.value)
        if isinstance(node, n.ExprStmt) and isinstance(node.value, n.Yield) and node.value.value is not None:
            last = generators[-1]
            if _is_unpacked(node.value.value) and _is_unpacked(last.target) and not last.ifs and len(generators) > 1:
                generators.pop()  # (the loop over x of `*x`)
                return None, n.ComprehensionExpr("gen", n.Starred(last.iter), generators)
            return None, n.ComprehensionExpr("gen", node.value.value, generators)
        return None

    # --- generators and coroutines --------------------------------------------------------------

    def op_YIELD_VALUE(self, ins: Instr, i: int) -> None:
        value = self.pop()
        if isinstance(value, m.Sentinel) and value.what == "for-target" and self.for_targets \
                and self.version.unpacks_in_comprehensions:
            # 3.15's `(*x for ...)`: a loop over x yields each item, stored nowhere
            value = self.for_targets[-1] = n.Name(UNPACKED)
        self.stack.append(n.Yield(self.finish_expr(value)))

    def op_YIELD_FROM(self, ins: Instr, i: int) -> None:
        self.pop()  # the None sent in first
        self.stack.append(_awaited(self.pop()))

    def op_SEND(self, ins: Instr, i: int) -> int:
        self.pop()
        self.stack.append(_awaited(self.pop()))
        target = ins.target
        if target < len(self.instrs) and self.instrs[target].opname == "END_SEND":
            target += 1
        return target

    def op_END_SEND(self, ins: Instr, i: int) -> None:
        pass

    def op_ASYNC_GEN_WRAP(self, ins: Instr, i: int) -> None:
        pass  # 3.11 wraps the value an async generator yields; the source just yields it

    def op_GET_ANEXT(self, ins: Instr, i: int) -> None:
        self.stack.append(m.Sentinel("anext"))

    def op_END_FOR(self, ins: Instr, i: int) -> None:
        pass


def _awaited(source: n.Expr) -> n.Expr:
    """The value of `yield from source` / `await source` (SEND, YIELD_FROM)."""
    if isinstance(source, m.AwaitedComprehension):
        return source.value
    return source if isinstance(source, n.Await) else n.YieldFrom(source)


def _negate_for_filter(test: n.Expr) -> n.Expr:
    from depyf.decompiler.control import demorgan_not
    return demorgan_not(test)
