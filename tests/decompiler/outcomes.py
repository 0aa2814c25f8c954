"""Run a corpus callable on recorded inputs and reduce what happened to comparable data.

Plain functions give their return value; generators the list of what they yielded and returned;
coroutines and async generators are driven by a tiny loop that records every value they suspend
with. An exception becomes (type name, args), so a raise compares equal to the same raise.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, List, Tuple

# enough for every corpus function; a decompiled loop that runs away stops here
MAX_STEPS = 10_000


def _exception(exc: BaseException) -> Tuple[str, str, Tuple[Any, ...]]:
    return ("raised", type(exc).__name__, exc.args)


def _drive(awaitable: Any, trace: List[Any]) -> Any:
    """Run a coroutine (or an async generator's step) to completion, sending back step numbers."""
    value = None
    for _ in range(MAX_STEPS):
        try:
            suspended = awaitable.send(value)
        except StopIteration as stop:
            return stop.value
        trace.append(suspended)
        value = len(trace)
    raise RuntimeError("coroutine did not finish")


def _generator(gen: Any) -> List[Any]:
    out: List[Any] = []
    for _ in range(MAX_STEPS):
        try:
            out.append(next(gen))
        except StopIteration as stop:
            out.append(("returned", stop.value))
            return out
        except Exception as exc:
            out.append(_exception(exc))
            return out
    raise RuntimeError("generator did not finish")


def _async_generator(agen: Any) -> List[Any]:
    out: List[Any] = []
    trace: List[Any] = []
    for _ in range(MAX_STEPS):
        try:
            out.append(_drive(agen.__anext__(), trace))
        except StopAsyncIteration:
            out.append("stopped")
            break
        except Exception as exc:
            out.append(_exception(exc))
            break
    return [out, trace]


def outcome(fn: Callable[..., Any], args: Tuple[Any, ...], kwargs: dict) -> Any:
    """What calling `fn(*args, **kwargs)` does, as data."""
    try:
        if inspect.isasyncgenfunction(fn):
            return ("async generator", _async_generator(fn(*args, **kwargs)))
        if inspect.iscoroutinefunction(fn):
            trace: List[Any] = []
            result = _drive(fn(*args, **kwargs), trace)
            return ("coroutine", result, trace)
        if inspect.isgeneratorfunction(fn):
            return ("generator", _generator(fn(*args, **kwargs)))
        return ("returned", fn(*args, **kwargs))
    except Exception as exc:
        return _exception(exc)
