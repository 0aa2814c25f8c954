"""Dynamo's cache entries on a code object: each entry's transformed code, compile id and guard
manager, the guards' leaves as text, and the global state those guards read.
"""
from __future__ import annotations

import contextlib
import functools
import linecache
import os
import re
import sys
import types
from typing import Any, Dict, List

from depyf.dynamo.adapter.torch_import import TorchFeatureMissing, _module, _torch


def cache_entries(code: types.CodeType) -> List[Any]:
    """Dynamo's cache entries for ``code``, most recently used first (as torch checks them)."""
    eval_frame = _module("torch._dynamo.eval_frame")
    getter = getattr(eval_frame, "_debug_get_cache_entry_list", None)
    if getter is None:
        raise TorchFeatureMissing("torch._dynamo.eval_frame._debug_get_cache_entry_list is missing")
    try:
        entries = list(getter(code))
    except Exception:
        return []
    # An entry without code (torch 2.13 keeps them for frames it decided to run as they are,
    # such as a resume function with nothing to compile) has nothing to explain.
    return [e for e in entries if isinstance(getattr(e, "code", None), types.CodeType)]


def entry_code(entry: Any) -> types.CodeType:
    return entry.code


def entry_compile_id(entry: Any) -> str:
    cid = getattr(entry, "compile_id", None)
    return str(cid) if cid is not None else "?"


def entry_guard_manager(entry: Any) -> Any:
    """The guard object of a cache entry (``guard_manager`` since 2.6, ``check_fn`` before)."""
    for name in ("guard_manager", "check_fn"):
        gm = getattr(entry, name, None)
        if gm is not None:
            return gm
    return None


def guard_verdict(guard_manager: Any, f_locals: Dict[str, Any]) -> bool:
    """torch's own verdict for ``f_locals`` (used by tests to check our rendering)."""
    if hasattr(guard_manager, "check"):
        return bool(guard_manager.check(f_locals))
    return bool(guard_manager(f_locals))


class LeafGuard:
    """One guard as torch describes it: its kind and its description strings."""

    __slots__ = ("kind", "parts", "source")

    def __init__(self, kind: str, parts: List[str], source: str) -> None:
        self.kind = kind
        self.parts = parts
        self.source = source


def guard_leaves(guard_manager: Any) -> List[LeafGuard]:
    """Flatten a guard tree into leaf guards, in the order torch checks them (roughly)."""
    out: List[LeafGuard] = []
    root = getattr(guard_manager, "root", None)
    if root is None or not hasattr(root, "get_leaf_guards"):
        for part in getattr(guard_manager, "code_parts", None) or []:
            out.append(LeafGuard("CODE_PART", [str(part)], ""))
        return out

    def leaves_of(mgr: Any) -> None:
        try:
            source = str(mgr.get_source())
        except Exception:
            source = ""
        for leaf in mgr.get_leaf_guards():
            try:
                parts = [whole_locations(str(p)) for p in leaf.verbose_code_parts()]
            except Exception:
                parts = []
            out.append(LeafGuard(type(leaf).__name__, parts, source))
        for child in mgr.get_child_managers():
            leaves_of(child)
        kv = getattr(mgr, "get_key_value_managers", None)
        if kv is not None:
            try:
                pairs = kv().values()
            except Exception:
                pairs = []
            for key_mgr, value_mgr in pairs:
                if key_mgr is not None:
                    leaves_of(key_mgr)
                if value_mgr is not None:
                    leaves_of(value_mgr)

    leaves_of(root)
    epilogue = getattr(root, "get_epilogue_lambda_guards", None)
    if epilogue is not None:
        for leaf in epilogue():
            out.append(LeafGuard(type(leaf).__name__, [str(p) for p in leaf.verbose_code_parts()], ""))
    return out


_LOCATION = re.compile(r"# (?P<path>[^\s#:]+\.py):(?P<line>\d+) in ")


def whole_locations(text: str) -> str:
    """Guard descriptions name where each guard came from, as `# path.py:12 in fn`. torch
    shortens paths relative to its own folder, and for a file outside it drops one character
    too many (`# ork/main/train.py` for `/work/main/train.py`): put back the whole path."""
    if ".py:" not in text:
        return text
    return _LOCATION.sub(lambda m: "# " + _whole_path(m.group("path")) + ":" + m.group("line") + " in ", text)


@functools.lru_cache(maxsize=256)
def _whole_path(short: str) -> str:
    if os.path.isabs(short):
        return short
    base = os.path.dirname(os.path.dirname(os.path.abspath(_torch().utils._traceback.__file__)))
    if os.path.exists(os.path.join(base, short)):
        return short  # one of torch's own files, shortened on purpose
    known = [getattr(m, "__file__", None) for m in list(sys.modules.values())] + list(linecache.cache)
    for full in known:
        if not isinstance(full, str) or not full.endswith(short) or len(full) == len(short):
            continue
        with contextlib.suppress(ValueError):
            # torch cut `len(commonpath) + 1` characters off the front
            if len(os.path.commonpath([full, base])) + 1 == len(full) - len(short):
                return full
    return short


def dispatch_key_text(tensor: Any) -> str:
    """The dispatch-key set of a tensor, in the form guard descriptions print it."""
    torch = _torch()
    getter = getattr(torch._C, "_dispatch_keys", None)
    if getter is None:
        return ""
    keys = getter(tensor)
    # Guards compare the set as the dispatcher sees it: with this thread's local includes added
    # and excludes removed (BackendSelect is included, Autocast keys excluded by default).
    include = getattr(torch._C, "_dispatch_tls_local_include_set", None)
    exclude = getattr(torch._C, "_dispatch_tls_local_exclude_set", None)
    with contextlib.suppress(Exception):
        if include is not None and exclude is not None:
            keys = (keys | include()) - exclude()
    return str(keys)


def global_state_snapshot() -> Dict[str, Any]:
    """The parts of torch's global state that Dynamo's GLOBAL_STATE guard compares."""
    torch = _torch()
    state: Dict[str, Any] = {"grad_mode": torch.is_grad_enabled()}
    with contextlib.suppress(Exception):
        state["deterministic_algorithms"] = torch.are_deterministic_algorithms_enabled()
    with contextlib.suppress(Exception):
        state["num_threads"] = torch.get_num_threads()
    with contextlib.suppress(Exception):
        state["torch_function"] = torch._C._is_torch_function_enabled()
    with contextlib.suppress(Exception):
        state["torch_function_all_disabled"] = torch._C._is_torch_function_all_disabled()
    return state


def torch_function_mode_stack_len() -> int:
    torch = _torch()
    getter = getattr(torch._C, "_len_torch_function_stack", None)
    return int(getter()) if getter is not None else 0


def utils_device_module() -> Any:
    return _module("torch.utils._device")
