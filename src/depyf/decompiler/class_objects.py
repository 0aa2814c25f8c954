"""A class object, whose body code is gone, rebuilt from its members: its bases, type parameters,
annotations, methods (with the decorators that rebuild them) and literal attributes.
"""

import __future__
import builtins
import sys
import types
from typing import Any, Dict, List, Optional, Tuple

from depyf.decompiler.code_check import check_code, comment_text, is_source_name
from depyf.decompiler.errors import DecompilationError
from depyf.decompiler.mangling import demangle, demangled_code, private_prefix
from depyf.decompiler.printer import Printer
from depyf.decompiler.signature import postponed_annotation
from depyf.decompiler.versions import host
from depyf.decompiler.body_tidy import CLASS_BOOKKEEPING
from depyf.decompiler.code_text import Decompiler
from depyf.decompiler.fallback_text import fallback_text
from depyf.decompiler.runtime_values import is_typing_generic, literal_expr, runtime_type_params, value_expr
from depyf.decompiler.unwrapping import describe, unwrap


# What the interpreter adds to every class's namespace, not something its body wrote.
_CLASS_OBJECT_BOOKKEEPING = CLASS_BOOKKEEPING | {"__doc__", "__dict__", "__weakref__", "__type_params__",
                                                  "__annotations__"}


_DEFERRED_ANNOTATION_MEMBERS = frozenset({"__annotate_func__", "__annotations_cache__"})


def decompile_class_object(cls: type, indent: int, name: Optional[str], on_error: str = "raise") -> str:
    """A class object has no body code left; rebuild its body from its members."""
    printer = Printer(indent, host().dedents_docstrings, host().fstring_expressions_any_quotes)
    lines: List[str] = []
    type_params = runtime_type_params(cls, printer)
    # `class C[T]` adds typing.Generic to the bases itself.
    bases = [b for b in cls.__bases__ if b is not object and not (type_params and is_typing_generic(b))]
    base_names = [b.__qualname__ if b.__module__ == "builtins" else b.__name__ for b in bases]
    class_name = name or cls.__name__
    # (a class object's names are whatever was set: none may reach the text unless source spells it)
    for written in [class_name] + base_names:
        if not all(is_source_name(part) for part in str(written).split(".")):
            raise DecompilationError(f"the name {written!r} cannot be written in source",
                                     function=describe(cls), python_version=host().key)
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
        literal = literal_expr(cls.__dict__[key]) if key in cls.__dict__ else None
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
        if key in annotated and literal_expr(value) is not None:
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
        literal = literal_expr(value)
        if key not in _CLASS_OBJECT_BOOKKEEPING and literal is not None:
            lines.append(f"{unit}{member} = {printer.expr(literal)}")
            body += 1
    if body == 0 and not (cls.__doc__ and "__doc__" in cls.__dict__):
        lines.append(unit + "pass")
    return "\n".join(lines) + "\n"


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
    return {k: printer.expr(postponed_annotation(value_expr(v, env), postponed))
            for k, v in own.items() if is_source_name(k)}


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


def _decompile_member(fn: types.FunctionType, class_name: str, name: Optional[str], on_error: str,
                      indent: int) -> str:
    """A function of a class, printed inside it: private names as written (`self.__x`)."""
    try:
        code, fn = unwrap(fn)
        check_code(code, host())  # (before `code.replace`, which reads co_code)
        code = demangled_code(code, class_name)
        return Decompiler(code, host(), indent).definition_text(fn, name)
    except DecompilationError as error:
        if on_error == "raise":
            raise
        return fallback_text(fn, error, name, indent)
