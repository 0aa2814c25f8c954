"""Helpers depyf 0.20 offered as ``depyf.utils`` (no torch here).

    get_function_signature(code, overwite_fn_name=None)  -> "def name(params):\\n"
    collect_all_code_objects(code)                       -> [code, nested code objects...]
    safe_create_directory(path)                          makedirs, safe when processes race
    get_code_owner(fn)                                   the object whose __code__ can be set
    decompile_ensure(fn, overwite_fn_name=None)          source that never raises
"""
from __future__ import annotations

import functools
import os
import types
from typing import Any, List, Optional

__all__ = ["get_function_signature", "collect_all_code_objects", "safe_create_directory", "get_code_owner",
           "decompile_ensure"]

_MAX_UNWRAP = 100


def _comprehension_argument(param: str) -> str:
    stars = len(param) - len(param.lstrip("*"))
    name = param[stars:]
    return param[:stars] + ("comp_arg_" + name[1:] if name.startswith(".") else name)


def get_function_signature(code_obj: types.CodeType, overwite_fn_name: Optional[str] = None, *,
                           overwrite_fn_name: Optional[str] = None) -> str:
    """The ``def`` line of ``code_obj``, newline included: ``def f(a, b, *args, **kwargs):\\n``.

    Parameters come from the code object alone (no defaults, no annotations: a code object has
    none). A comprehension's implicit ``.0`` parameter is written ``comp_arg_0`` as 0.20 did. Unlike
    0.20, keyword-only parameters follow ``*`` (or ``*args``) and positional-only ones precede ``/``,
    so the line means what the code does, and a name that is not an identifier (``<lambda>``,
    ``<resume in f>``) is made one.
    """
    from depyf.compat import _identifier, _resolve_name
    from depyf.decompiler.signature import parameters

    params = ", ".join(_comprehension_argument(p) for p in parameters(code_obj, str).split(", ") if p)
    name = _resolve_name(overwite_fn_name, overwrite_fn_name)
    return f"def {_identifier(name if name is not None else code_obj.co_name)}({params}):\n"


def collect_all_code_objects(code: types.CodeType) -> List[types.CodeType]:
    """``code`` and every code object nested in its constants, depth first, each parent first."""
    out: List[types.CodeType] = []
    stack = [code]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(reversed([c for c in current.co_consts if isinstance(c, types.CodeType)]))
    return out


def safe_create_directory(path: str) -> None:
    """Create ``path`` (and its parents); another process creating it at the same time is fine."""
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        if not os.path.isdir(path):
            raise


def get_code_owner(fn: Any) -> Any:
    """The object that owns the code ``fn`` runs: setting ``owner.__code__`` changes what runs.

    Follows bound methods (``__func__``), decorators that set ``__wrapped__`` (``functools.wraps``,
    ``lru_cache``), ``functools.partial`` and callable objects (their class's ``__call__``). A bound
    method's ``__code__`` cannot be set, its function's can.
    """
    for _ in range(_MAX_UNWRAP):
        if hasattr(fn, "__func__"):
            fn = fn.__func__
        elif hasattr(fn, "__wrapped__"):
            fn = fn.__wrapped__
        elif isinstance(fn, functools.partial):
            fn = fn.func
        elif hasattr(fn, "__call__") and hasattr(fn.__call__, "__func__"):
            fn = fn.__call__.__func__
        else:
            return fn
    raise ValueError(f"{fn!r}: more than {_MAX_UNWRAP} wrappers, or a cycle of them")


def decompile_ensure(fn: Any, overwite_fn_name: Optional[str] = None, *,
                     overwrite_fn_name: Optional[str] = None) -> str:
    """``Decompiler(fn).decompile(...)``, or, when that fails, the ``def`` line with the body
    ``'Failed to decompile.'`` (never raises)."""
    from depyf.compat import Decompiler, _identifier, _resolve_name

    name = _resolve_name(overwite_fn_name, overwrite_fn_name)
    try:
        return Decompiler(fn).decompile(overwite_fn_name=name)
    except Exception:  # the point of this helper: a text, whatever went wrong
        try:
            code = fn if isinstance(fn, types.CodeType) else getattr(get_code_owner(fn), "__code__", None)
        except Exception:
            code = None
        if not isinstance(code, types.CodeType):
            return f"def {_identifier(name or getattr(fn, '__name__', 'unknown'))}():\n    'Failed to decompile.'\n"
        return get_function_signature(code, overwite_fn_name=name) + "    'Failed to decompile.'\n"
