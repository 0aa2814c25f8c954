"""Code objects and the objects that own them: shared by the 0.20 API (`depyf.utils`,
`depyf.compat`) and the dump writer, so that none of them imports another for these."""
from __future__ import annotations

import functools
import types
from typing import Any, List

_MAX_UNWRAP = 100


def collect_all_code_objects(code: types.CodeType) -> List[types.CodeType]:
    """``code`` and every code object nested in its constants, depth first, each parent first."""
    out: List[types.CodeType] = []
    stack = [code]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(reversed([c for c in current.co_consts if isinstance(c, types.CodeType)]))
    return out


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
