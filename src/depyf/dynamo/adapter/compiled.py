"""What torch.compile hands back and makes: the wrappers around a compiled function or module,
the FX graph modules it captured, and how Dynamo names the code it generates.
"""
from __future__ import annotations

import contextlib
import types
from typing import Any, Callable, List, Optional, Tuple

from depyf.dynamo.adapter.entries import cache_entries
from depyf.dynamo.adapter.torch_import import _module, _torch


def unwrap_compiled(obj: Any) -> Tuple[Callable[..., Any], Optional[Any]]:
    """Return ``(function, bound_self)`` for whatever the user passed to ``dump_src``.

    Accepts what ``torch.compile`` returned (a wrapper function or an ``OptimizedModule``), the
    original function, a bound method, or an ``nn.Module`` (its ``forward``).
    """
    torch = _torch()
    bound_self = None
    seen = 0
    while seen < 16:
        seen += 1
        orig_mod = getattr(obj, "_orig_mod", None)
        if orig_mod is not None and isinstance(obj, torch.nn.Module):
            obj = orig_mod
            continue
        orig = obj.__dict__.get("_torchdynamo_orig_callable") if hasattr(obj, "__dict__") else None
        if orig is not None and orig is not obj:
            obj = orig
            continue
        if isinstance(obj, torch.nn.Module):
            bound_self = obj
            obj = type(obj).forward
            continue
        if isinstance(obj, types.MethodType):
            bound_self = obj.__self__
            obj = obj.__func__
            continue
        break
    if not hasattr(obj, "__code__"):
        raise TypeError(f"depyf cannot find the code of {obj!r}: expected a function, method or module")
    return obj, bound_self


def is_compile_wrapper(obj: Any) -> bool:
    """Whether ``obj`` is what ``torch.compile`` returned (a wrapper function or an OptimizedModule)."""
    return hasattr(obj, "_torchdynamo_orig_callable") or (hasattr(obj, "_orig_mod") and hasattr(obj, "dynamo_ctx"))


def compiled_wrappers(obj: Any) -> List[Callable[..., Any]]:
    """Functions of torch's own that ``torch.compile(obj)`` may have compiled instead of the
    user's code, which has no cache entries then: for a module, torch 2.5+ compiles a small
    wrapper that calls its ``forward`` (``torch/_dynamo/external_utils.py``'s ``inner``) and
    inlines the forward into the graphs. Found by following the wrappers torch installed; the
    ones that hold cache entries are returned, outermost first."""
    found: List[Callable[..., Any]] = []
    seen = set()
    stack = [obj]
    while stack and len(seen) < 32:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        code = getattr(current, "__code__", None)
        if isinstance(code, types.CodeType) and cache_entries(code):
            found.append(current)
        own = getattr(current, "__dict__", None)
        nexts = [own.get("forward")] if isinstance(own, dict) else []  # OptimizedModule.forward
        nexts += [getattr(current, "_torchdynamo_orig_callable", None), getattr(current, "__wrapped__", None)]
        stack.extend(reversed([n for n in nexts if n is not None]))
    if not found and _is_module_or_method(obj):
        # The original module (or its forward) keeps no link to the wrapper torch made for it,
        # but every wrapper shares one code object, and the cache entries hang off the code.
        wrapper = module_call_wrapper()
        if wrapper is not None and cache_entries(wrapper.__code__):
            found.append(wrapper)
    return found


def _is_module_or_method(obj: Any) -> bool:
    nn = _module("torch.nn")
    module_type = getattr(nn, "Module", None)
    if module_type is None:
        return False
    return isinstance(obj, module_type) or isinstance(getattr(obj, "__self__", None), module_type)


def module_call_wrapper() -> Optional[Callable[..., Any]]:
    """A function on the code of the wrapper ``torch.compile(module)`` compiles (torch 2.5+:
    ``external_utils.wrap_inline``'s ``inner``, which calls the module), or None. Its cache
    entries serve every module compiled this way: the guards tell them apart by the type of
    ``L['fn']``, the module."""
    external_utils = _module("torch._dynamo.external_utils")
    wrap_inline = getattr(external_utils, "wrap_inline", None)
    if wrap_inline is None:
        return None
    try:
        return wrap_inline(lambda *args, **kwargs: None)  # a fresh wrapper: the same code object
    except Exception:
        return None


def innermost_fn(fn: Any) -> Any:
    eval_frame = _module("torch._dynamo.eval_frame")
    inner = getattr(eval_frame, "innermost_fn", None)
    try:
        return inner(fn) if inner else fn
    except Exception:
        return fn


def is_graph_module(obj: Any) -> bool:
    fx = _module("torch.fx")
    return fx is not None and isinstance(obj, fx.GraphModule)


def graph_code(gm: Any) -> str:
    """The Python source of a GraphModule's ``forward``."""
    return str(gm.code)


def graph_backend_id(gm: Any) -> Optional[str]:
    meta = getattr(gm, "meta", None) or {}
    value = meta.get("backend_id")
    return str(value) if value else None


def graph_compile_reason(gm: Any) -> Optional[Tuple[str, bool, List[str]]]:
    """``(reason, is_graph_break, user_stack_lines)`` Dynamo recorded for a captured graph."""
    reason = getattr(gm, "compile_subgraph_reason", None)
    if reason is None:
        return None
    stack = []
    for frame in getattr(reason, "user_stack", None) or []:
        with contextlib.suppress(Exception):
            stack.append(f"{frame.filename}:{frame.lineno} in {frame.name}: {(frame.line or '').strip()}")
    return str(getattr(reason, "reason", reason)), bool(getattr(reason, "graph_break", False)), stack


def dig_artifacts(obj: Any, max_depth: int = 10) -> Tuple[List[Any], List[str]]:
    """Find the GraphModules and Inductor sources a compiled callable still holds.

    torch keeps them in closures of its runtime wrappers (AOTAutograd) and in attributes
    (``CompiledFxGraph.source_code``); which ones depends on the backend and the torch release, so
    this walks the object graph rather than naming attributes.
    """
    torch = _torch()
    graphs: List[Any] = []
    sources: List[str] = []
    seen = set()
    stack: List[Tuple[Any, int]] = [(obj, 0)]
    while stack:
        cur, depth = stack.pop()
        if id(cur) in seen or depth > max_depth:
            continue
        seen.add(id(cur))
        if is_graph_module(cur):
            graphs.append(cur)
            continue
        if isinstance(cur, (int, float, str, bytes, bool, type(None), type, types.ModuleType, torch.Tensor)):
            continue
        src = getattr(cur, "source_code", None) if type(cur).__name__ == "CompiledFxGraph" else None
        if isinstance(src, str):
            sources.append(src)
            continue
        children: List[Any] = []
        closure = getattr(cur, "__closure__", None)
        if closure:
            for cell in closure:
                with contextlib.suppress(ValueError):
                    children.append(cell.cell_contents)
        for attr in ("__wrapped__", "__self__", "func"):
            if attr in ("__self__",) and isinstance(cur, types.BuiltinFunctionType):
                continue
            with contextlib.suppress(Exception):
                if hasattr(cur, attr):
                    children.append(getattr(cur, attr))
        d = getattr(cur, "__dict__", None)
        if isinstance(d, dict) and not isinstance(cur, types.FunctionType):
            children.extend(list(d.values())[:64])
        elif isinstance(d, dict):
            children.extend(v for k, v in d.items() if not k.startswith("__"))
        if isinstance(cur, (list, tuple)):
            children.extend(cur[:32])
        for child in reversed(children):
            stack.append((child, depth + 1))
    return graphs, sources


def source_can_match(new_code: types.CodeType) -> bool:
    """Whether plain source can compile to exactly Dynamo's transformed code.

    Since 2.9 Dynamo loads the graph function, then calls ``record_pregraph_bytecode_enter``
    before the graph's arguments are evaluated; no Python expression evaluates in that order, so a
    bytecode-equal recompilation is impossible and not worth attempting.
    """
    return "record_pregraph_bytecode_enter" not in new_code.co_names


def is_resume_code(code: types.CodeType) -> bool:
    """Whether ``code`` is a resume function Dynamo synthesized (named after the 2.3+ prefix)."""
    return code.co_name.startswith(("torch_dynamo_resume_in_", "resume_in_", "<resume in"))


def is_dynamo_generated_name(name: str) -> bool:
    return name.startswith("__compiled_fn") or name.startswith("__resume_at_")
