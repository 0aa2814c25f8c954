"""Inputs for the execution check of the decompiler corpus.

A corpus module decorates a callable definition with ``@cases(...)`` to say how to call it. The
decorator only records; it returns the function unchanged, so the decompiled text (which carries
no decorators) and the original are the same kind of object and can be called the same way.

Each argument of ``cases`` is one call: a tuple of positional arguments, a dict of keyword
arguments, or a ``call(*args, **kwargs)`` for both.

On a class, ``cases`` takes ``probe=`` instead: a function that receives the class and returns
plain data; the execution check runs it on the original class and on the class rebuilt from the
decompiled class body.
"""
from typing import Any, Callable, Dict, List, Optional, Tuple


class Call:
    """One set of arguments for a recorded callable."""

    def __init__(self, args: Tuple[Any, ...] = (), kwargs: Optional[Dict[str, Any]] = None) -> None:
        self.args = tuple(args)
        self.kwargs = dict(kwargs or {})

    def __repr__(self) -> str:
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"({', '.join(parts)})"


def call(*args: Any, **kwargs: Any) -> Call:
    """Spell a call with keyword arguments: ``@cases(call(1, key=2))``."""
    return Call(args, kwargs)


class Entry:
    """A recorded definition: what to call and with which inputs."""

    def __init__(self, obj: Any, calls: List[Call], probe: Optional[Callable[[Any], Any]]) -> None:
        self.obj = obj
        self.calls = calls
        self.probe = probe

    @property
    def qualname(self) -> str:
        return self.obj.__qualname__


# module name -> entries in definition order
REGISTRY: Dict[str, List[Entry]] = {}


def _as_call(spec: Any) -> Call:
    if isinstance(spec, Call):
        return spec
    if isinstance(spec, tuple):
        return Call(spec)
    if isinstance(spec, dict):
        return Call((), spec)
    raise TypeError(f"a case is a tuple, a dict or call(...), not {spec!r}")


def cases(*specs: Any, probe: Optional[Callable[[Any], Any]] = None) -> Callable[[Any], Any]:
    """Record how to call the decorated function (or, with ``probe``, how to exercise a class)."""
    calls = [_as_call(s) for s in specs]

    def record(obj: Any) -> Any:
        if probe is None and not calls:
            calls.append(Call())
        REGISTRY.setdefault(obj.__module__, []).append(Entry(obj, calls, probe))
        return obj

    return record
