"""The code object behind what a user passes to `decompile`: functions, methods, partials,
properties, generators, callable objects and their `__wrapped__` chains.
"""

import functools
import types
from types import CodeType
from typing import Any, Optional

from depyf.decompiler.errors import DecompilationError
from depyf.decompiler.versions import host


_MAX_WRAPPERS = 100


def unwrap(obj: Any) -> Any:
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
    raise DecompilationError(f"{describe(obj)} has no Python bytecode to decompile",
                             python_version=host().key)


def describe(obj: Any) -> str:
    name = getattr(obj, "__qualname__", None) or getattr(obj, "co_qualname", None) or getattr(obj, "co_name", None)
    return f"{type(obj).__name__} {name}" if name else f"object of type {type(obj).__name__}"


def owner_class_name(fn: Optional[types.FunctionType]) -> Optional[str]:
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
