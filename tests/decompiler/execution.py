"""The execution check, shared by the decompiler test and the corpus self-check.

A definition's text (decompiled, or the original source for the self-check) is executed in a
copy of its module's globals, so imports and helpers resolve, and called on the `@cases` inputs;
its outcomes must equal the original object's.
"""
from __future__ import annotations

import types
from pathlib import Path
from typing import Any, Callable, Dict, List

from . import support
from .outcomes import outcome

CALL_SECONDS = 5.0


def _fresh_original(fn: types.FunctionType, globals_: Dict[str, Any]) -> types.FunctionType:
    """The original function bound to its own copy of the module globals, so that functions
    which rebind globals start from the same state as the rebuilt copy."""
    copy = types.FunctionType(fn.__code__, globals_, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = dict(fn.__kwdefaults__) if fn.__kwdefaults__ else None
    return copy



class DecompileFailed(Exception):
    """The decompiler refused a corpus definition (loudly), so nothing could be executed.

    Known gaps of the execution check expect this exception unless their reason says the gap is
    a silent wrong result: a reading that changes from a loud error into wrong code then fails
    the run instead of passing as the same expected failure."""


def execution_mismatches(path: Path, index: int, to_text: Callable[[Any], str]) -> List[str]:
    """Every way the rebuilt definition behaves differently from the original (empty: none)."""
    module = support.load_corpus_module(path)
    entry = support.registered(path)[index]
    base = dict(vars(module))
    text = to_text(entry.obj)
    filename = f"<rebuilt {entry.qualname}>"
    name = entry.obj.__name__

    def rebuild() -> Any:
        return support.exec_definition(text, dict(base), name, filename)

    try:
        rebuilt = rebuild()
    except Exception as exc:
        return [f"the text does not execute: {type(exc).__name__}: {exc}"]
    if entry.probe is not None:
        with support.deadline(CALL_SECONDS, entry.qualname):
            expected = outcome(entry.probe, (entry.obj,), {})
            got = outcome(entry.probe, (rebuilt,), {})
        return [] if got == expected else [f"probe {entry.probe.__name__}: original {expected!r}, rebuilt {got!r}"]
    problems = []
    for case in entry.calls:
        original = _fresh_original(entry.obj, dict(base))
        candidate = rebuild()
        with support.deadline(CALL_SECONDS, f"{entry.qualname}{case!r}"):
            expected = outcome(original, case.args, case.kwargs)
            got = outcome(candidate, case.args, case.kwargs)
        if got != expected:
            problems.append(f"call {entry.qualname}{case!r}: original {expected!r}, rebuilt {got!r}")
    return problems


def params() -> List[object]:
    """One pytest param per `@cases` entry of the corpus: (path, index), id `stem::qualname`."""
    from .known_gaps import param

    out = []
    for path in support.corpus_files():
        for index, entry in enumerate(support.registered(path)):
            out.append(param(f"{support.corpus_id(path)}::{entry.qualname}", path, index))
    return out
