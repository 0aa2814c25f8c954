"""Expressions for runtime values that a definition's text must spell: defaults, annotations,
type parameters and class attributes built of literals.
"""

import builtins
import re
import sys
from typing import Any, Dict, List, Optional

from depyf.decompiler import nodes as n
from depyf.decompiler.printer import Printer


def value_expr(value: Any, env: Dict[str, Any]) -> n.Expr:
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
        return n.Starred(value_expr(unpacked, env))  # `*args: *Ts` evaluates to `Unpack[Ts]`
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


def runtime_type_params(obj: Any, printer: Printer) -> str:
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
                text += ": " + printer.expr(n.Tuple_([value_expr(c, env) for c in constraints]))
            elif bound is not None:
                text += ": " + printer.expr(value_expr(bound, env))
            if getattr(param, "has_default", lambda: False)():
                text += " = " + printer.expr(value_expr(param.__default__, env))
        except NameError:
            pass  # a bound naming something not defined yet: the parameter without it
        parts.append(text)
    return ", ".join(parts)


def is_typing_generic(base: Any) -> bool:
    return getattr(base, "__module__", None) == "typing" and getattr(base, "__name__", None) == "Generic"


def literal_expr(value: Any) -> Optional[n.Expr]:
    """An expression for a class attribute built of literals (numbers, strings, containers)."""
    if value is None or value is Ellipsis or isinstance(value, (bool, int, float, complex, str, bytes)):
        return n.Const(value)
    items: List[n.Expr] = []
    if isinstance(value, (tuple, list, set, frozenset)):
        for v in (sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value):
            e = literal_expr(v)
            if e is None:
                return None
            items.append(e)
        if isinstance(value, tuple):
            return n.Tuple_(items) if type(value) is tuple else None
        if type(value) is list:
            return n.List_(items)
        return n.Set_(items) if type(value) is set and items else None
    if type(value) is dict:
        keys = [literal_expr(k) for k in value]
        values = [literal_expr(v) for v in value.values()]
        if any(e is None for e in keys + values):
            return None
        return n.Dict_(keys, values)
    return None
