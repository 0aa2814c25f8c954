"""PEP 695 type parameters (3.12+): `def f[T](...)`, `class C[T]:`, `type X[T] = ...`.

The compiler wraps a generic definition in a function, `<generic parameters of NAME>`, that makes
the type parameters, then the function, class or alias, and is called at once. Running that
function's code gives the definition with its parameters attached; the statement that stores the
call's result prints it with brackets. Bounds, constraints and defaults are lazily evaluated
one-expression functions.
"""
from types import CodeType
from typing import Any, Dict, List, Optional

from depyf.decompiler import deferred_annotations as da
from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.errors import DecompilationError
from depyf.decompiler.instructions import Instr
from depyf.decompiler.passes import read

GENERIC_WRAPPER_PREFIX = "<generic parameters of "
_STAR = {"INTRINSIC_TYPEVAR": "", "INTRINSIC_TYPEVARTUPLE": "*", "INTRINSIC_PARAMSPEC": "**"}
_PARAM_STORES = ("STORE_FAST", "STORE_DEREF", "STORE_NAME")


def is_generic_wrapper(value: Any) -> bool:
    return isinstance(value, m.MadeFunction) and value.code.co_name.startswith(GENERIC_WRAPPER_PREFIX)


class GenericRules:
    """Handlers for type parameters; mixed into `builder.CodeBuilder`."""

    def generic_intrinsic(self, ins: Instr, i: int) -> Optional[int]:
        """CALL_INTRINSIC_1 for type parameters, generic bases and type aliases."""
        what = ins.argval
        if what in _STAR:
            name = self.pop()
            assert isinstance(name, n.Const)
            self.stack.append(m.TypeParam(name.value, _STAR[what]))
            return self._after_param(i)
        if what == "INTRINSIC_SUBSCRIPT_GENERIC":
            self.pop()
            self.stack.append(m.Sentinel("generic-base"))  # Generic[*params], implied by the brackets
            return None
        if what == "INTRINSIC_TYPEALIAS":
            parts = self.pop()
            assert isinstance(parts, n.Tuple_) and len(parts.elts) == 3
            name, params, value = parts.elts
            assert isinstance(name, n.Const) and isinstance(value, m.MadeFunction)
            self.stack.append(m.TypeAliasValue(name.value, _params(params), self.lazy_expression(value)))
            return None
        raise self.fail(ins, f"unsupported intrinsic {what}")

    def op_CALL_INTRINSIC_2(self, ins: Instr, i: int) -> Optional[int]:
        what = ins.argval
        second = self.pop()
        first = self.pop()
        if what in ("INTRINSIC_TYPEVAR_WITH_BOUND", "INTRINSIC_TYPEVAR_WITH_CONSTRAINTS"):
            assert isinstance(first, n.Const) and isinstance(second, m.MadeFunction)
            self.stack.append(m.TypeParam(first.value, "", self.lazy_expression(second)))
            return self._after_param(i)
        if what == "INTRINSIC_SET_TYPEPARAM_DEFAULT":
            assert isinstance(first, m.TypeParam) and isinstance(second, m.MadeFunction)
            first.default = self.lazy_expression(second)
            self.stack.append(first)
            return self._after_param(i)
        if what == "INTRINSIC_SET_FUNCTION_TYPE_PARAMS":
            assert isinstance(first, m.MadeFunction)
            first.type_params = _params(second)
            self.stack.append(first)
            return None
        raise self.fail(ins, f"unsupported intrinsic {what}")

    def _after_param(self, i: int) -> Optional[int]:
        """Skip the `COPY 1; STORE T` that binds a finished parameter to its name in the wrapper."""
        instrs = self.instrs
        if i + 2 < len(instrs) and instrs[i + 1].opname == "COPY" and instrs[i + 1].arg == 1 \
                and instrs[i + 2].opname in _PARAM_STORES:
            return i + 3
        return None

    def lazy_expression(self, fn: m.MadeFunction) -> n.Expr:
        """The expression a lazily evaluated bound, default or alias value returns."""
        code = fn.code
        if self.version.defers_annotations and code.co_argcount == 1 and code.co_varnames[:1] == (".format",):
            return self._formatted_lazy_expression(code)
        value = self.decompile_nested(code, lambda_body=True)
        assert isinstance(value, n.Expr)
        return value

    def _formatted_lazy_expression(self, code: CodeType) -> n.Expr:
        """3.14+ (PEP 649): the function takes a `.format` and starts with the guard of a
        generated `__annotate__`; read with that parameter renamed, it is the guard and a return."""
        taken = set(code.co_names + code.co_varnames + code.co_freevars + code.co_cellvars)
        name = next(c for c in ("format", "format_", "format__") + tuple(f"format{k}" for k in range(len(taken) + 1))
                    if c not in taken)
        stmts = self.decompile_nested(code.replace(co_varnames=(name,) + code.co_varnames[1:]))
        if len(stmts) == 2 and isinstance(stmts[1], n.Return) and stmts[1].value is not None \
                and da.read_entries([stmts[0], n.Return(n.Dict_([], []))]) == []:
            return stmts[1].value
        raise DecompilationError(f"a lazily evaluated value of {code.co_name!r} not shaped as the compiler makes them")

    def generic_definition(self, wrapper: m.MadeFunction, args: List[n.Expr]) -> n.Expr:
        """Run `<generic parameters of NAME>`: the function, class or alias it makes."""
        code = wrapper.code
        builder = type(self)(read(code, self.version), self.decompile_nested,
                             getattr(code, "co_qualname", code.co_name), self.printer)
        try:
            builder.run_range(0, len(builder.instrs) - 1, [])
            stack = builder.last_stack
        finally:
            self.printer.resolve = self.finish_expr
        if builder.instrs[-1].opname != "RETURN_VALUE" or len(stack) != 1:
            raise self.fail(builder.instrs[-1], "unrecognised generic definition")
        value = stack[0]
        # Defaults are computed outside the wrapper and passed to it (`.defaults`, `.kwdefaults`).
        passed: Dict[str, n.Expr] = dict(zip(code.co_varnames[:code.co_argcount], args))
        if isinstance(value, m.MadeFunction):
            value.defaults = _passed(value.defaults, passed)
            value.kwdefaults = _passed(value.kwdefaults, passed)
        elif isinstance(value, m.ClassValue):
            value.bases = [b for b in value.bases if not _is_generic_base(b)]
            value.type_params = _params(builder.hidden_locals.get(".type_params", n.Const(None)))
        elif not isinstance(value, m.TypeAliasValue):
            raise self.fail(builder.instrs[-1], "unrecognised generic definition")
        return value

    def type_params_text(self, params: List[m.TypeParam]) -> str:
        parts = []
        for p in params:
            text = p.star + p.name
            if p.bound is not None:
                text += ": " + self.render(p.bound)
            if p.default is not None:
                text += " = " + self.render(p.default)
            parts.append(text)
        return ", ".join(parts)


def _params(value: n.Expr) -> List[m.TypeParam]:
    if isinstance(value, n.Tuple_) and all(isinstance(p, m.TypeParam) for p in value.elts):
        return list(value.elts)  # type: ignore[arg-type]
    if isinstance(value, n.Const) and value.value is None:
        return []
    raise AssertionError("type parameters expected")


def _passed(value: Optional[n.Expr], passed: Dict[str, n.Expr]) -> Optional[n.Expr]:
    if isinstance(value, n.Name) and value.id in passed:
        return passed[value.id]
    return value


def _is_generic_base(value: n.Expr) -> bool:
    return (isinstance(value, m.Sentinel) and value.what == "generic-base") or \
        (isinstance(value, n.Name) and value.id == ".generic_base")
