"""The process around a compilation: the user's stack when it started, what it cost (torch's
compilation metrics), the caches that would hide graphs, and the distributed rank.
"""
from __future__ import annotations

import contextlib
import functools
import os
import sys
import types
from typing import Any, Dict, Iterator, List, Optional, Tuple

from depyf.dynamo.adapter.torch_import import _module, _torch


# The depyf package (this file is depyf/dynamo/adapter/runtime.py): its frames are not the user's.
_DEPYF_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@functools.lru_cache(maxsize=1)
def _torch_dir() -> str:
    return os.path.dirname(os.path.abspath(_torch().__file__))


def _is_user_file(filename: str) -> bool:
    """Frames of torch, of depyf and of the interpreter's start-up machinery are not the user's."""
    if filename.startswith("<frozen") or os.path.basename(filename) == "runpy.py":
        return False
    path = os.path.abspath(filename)
    return not (path.startswith(_torch_dir() + os.sep) or path.startswith(_DEPYF_DIR + os.sep))


def user_stack(limit: int = 40) -> List[Tuple[str, int, str]]:
    """``(file, line, function)`` of the user's frames on the stack now, outermost first.

    Called when Dynamo starts compiling a frame: the frames above are the calls that led to the
    compilation (what tlparse shows as its stack trie). The innermost ``limit`` are kept."""
    frames: List[Tuple[str, int, str]] = []
    frame: Optional[types.FrameType] = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if _is_user_file(code.co_filename):
            frames.append((code.co_filename, int(frame.f_lineno or 0), code.co_name))
        frame = frame.f_back
    frames.reverse()
    return frames[-limit:]


def now_us() -> int:
    """The clock torch stamps its compilation metrics with (wall time, microseconds)."""
    import time

    return time.time_ns() // 1000


def _seconds(metrics: Any, us_name: str, s_name: str) -> Optional[float]:
    us = getattr(metrics, us_name, None)
    if isinstance(us, (int, float)) and not isinstance(us, bool):
        return us / 1e6
    s = getattr(metrics, s_name, None) if s_name else None
    if isinstance(s, (int, float)) and not isinstance(s, bool):
        return float(s)
    return None


def compilation_metrics_since(start_us: int) -> List[Dict[str, Any]]:
    """The compile times torch recorded (``torch._dynamo.utils.get_compilation_metrics``) for
    compilations that started at or after ``start_us``, one dict per record.

    Each dict: ``compile_id``, ``phase`` ("forward": the frame's compilation; "backward": the
    backward graph Inductor compiled lazily at the first backward call), ``start_us`` and
    cumulative seconds as torch measures them (each includes the stages below it):
    ``total_s`` (the whole frame, Dynamo and backend), ``backend_s`` (the backend call),
    ``aot_autograd_s``, ``inductor_s``, ``code_gen_s``; plus ``failure`` when it failed. A field
    torch did not record is None. torch keeps the last 64 records only."""
    utils = _module("torch._dynamo.utils")
    getter = getattr(utils, "get_compilation_metrics", None)
    if getter is None:
        return []
    try:
        records = list(getter())
    except Exception:
        return []
    out = []
    for m in records:
        start = getattr(m, "start_time_us", None)
        if not isinstance(start, int):
            start_s = getattr(m, "start_time", None)
            start = int(start_s * 1e6) if isinstance(start_s, (int, float)) else None
        if start is None or start < start_us or getattr(m, "compile_id", None) is None:
            continue
        if getattr(m, "is_runtime", False):
            continue  # runtime autotuning, not a compilation
        backward = getattr(m, "is_forward", None) is False
        total = (
            _seconds(m, "backward_cumulative_compile_time_us", "")
            if backward
            else _seconds(m, "dynamo_cumulative_compile_time_us", "entire_frame_compile_time_s")
        )
        failure = getattr(m, "fail_type", None)
        out.append(
            {
                "compile_id": str(m.compile_id),
                "phase": "backward" if backward else "forward",
                "start_us": start,
                "total_s": total,
                "backend_s": None if backward else _seconds(m, "", "backend_compile_time_s"),
                "aot_autograd_s": None if backward else _seconds(m, "aot_autograd_cumulative_compile_time_us", ""),
                "inductor_s": _seconds(m, "inductor_cumulative_compile_time_us", "inductor_compile_time_s"),
                "code_gen_s": _seconds(m, "inductor_code_gen_cumulative_compile_time_us", "code_gen_time_s"),
                "failure": f"{failure}: {getattr(m, 'fail_reason', '')}" if failure else None,
            }
        )
    return out


# The caches that let torch skip the work a dump shows: (config module, flag). Each is switched
# off by itself; the master switch `force_disable_caches` also disables Dynamo's profile-guided
# dynamic shapes (PGO) and makes torch warn "dynamo_pgo force disabled" on every run.
_CACHE_FLAGS = (
    ("torch._inductor.config", "fx_graph_cache"),
    ("torch._inductor.config", "fx_graph_remote_cache"),
    ("torch._functorch.config", "enable_autograd_cache"),
    ("torch._functorch.config", "enable_remote_autograd_cache"),
)


@contextlib.contextmanager
def caches_disabled() -> Iterator[None]:
    """Turn off the FX-graph and AOTAutograd caches so every graph hook fires."""
    saved = []
    for module_name, flag in _CACHE_FLAGS:
        config = _module(module_name)
        if config is None or not hasattr(config, flag):
            continue
        with contextlib.suppress(Exception):
            saved.append((config, flag, getattr(config, flag)))
            setattr(config, flag, False)
    inductor_config = _module("torch._inductor.config")
    if getattr(inductor_config, "fx_graph_cache", False) and hasattr(inductor_config, "force_disable_caches"):
        # An environment variable forces the cache on over our setting: only the master switch wins.
        saved.append((inductor_config, "force_disable_caches", inductor_config.force_disable_caches))
        inductor_config.force_disable_caches = True
    try:
        yield
    finally:
        for config, flag, old in reversed(saved):
            with contextlib.suppress(Exception):
                setattr(config, flag, old)


def distributed_rank() -> Optional[int]:
    """The rank of this process when torch.distributed is initialised, else None."""
    dist = _module("torch.distributed")
    with contextlib.suppress(Exception):
        if dist is not None and dist.is_available() and dist.is_initialized():
            return int(dist.get_rank())
    return None
