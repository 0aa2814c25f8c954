"""Helpers depyf 0.20 offered as ``depyf.utils`` (no torch here).

    get_function_signature(code, overwite_fn_name=None)  -> "def name(params):\\n"
    collect_all_code_objects(code)                       -> [code, nested code objects...]
    safe_create_directory(path)                          makedirs, safe when processes race
    get_code_owner(fn)                                   the object whose __code__ can be set
    decompile_ensure(fn, overwite_fn_name=None)          source that never raises
"""
from __future__ import annotations

import os
import types
from typing import Any, Optional

from depyf.code_walk import collect_all_code_objects, get_code_owner

__all__ = ["get_function_signature", "collect_all_code_objects", "safe_create_directory", "get_code_owner",
           "decompile_ensure"]

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


def safe_create_directory(path: str) -> None:
    """Create ``path`` (and its parents); another process creating it at the same time is fine."""
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        if not os.path.isdir(path):
            raise


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
