"""Tool-made code laid out as a compiler would (`decompiler/relayout.py`), checked by running it.

Dynamo's resume functions jump into the middle of the code they continue: into a `with` block
they re-enter (3.11+) or into a `while` loop's body (3.12+). The decompiled text of each sample
in `dynamo_samples/` must compute what the code object computes, called with stand-in values.
"""
from __future__ import annotations

import marshal
import sys
import types
from pathlib import Path
from typing import Any, Callable, List

import pytest

import depyf

SAMPLES = Path(__file__).resolve().parent / "dynamo_samples"
VERSION = "py%d%d" % sys.version_info[:2]


def _load(stem: str) -> types.CodeType:
    path = SAMPLES / f"{stem}.{VERSION}.marshal"
    if not path.exists():
        pytest.skip(f"no sample {stem} for Python {sys.version_info[0]}.{sys.version_info[1]}")
    return marshal.loads(path.read_bytes())


def _both(code: types.CodeType, namespace: dict) -> "tuple[Callable[..., Any], Callable[..., Any]]":
    """The code object as a function, and the function its decompiled text defines."""
    original = types.FunctionType(code, dict(namespace))
    text = depyf.decompile(code, name="rebuilt", rewritten=True)
    scope = dict(namespace)
    exec(compile(text, "<rebuilt>", "exec"), scope)
    return original, scope["rebuilt"]


class Scalar(float):
    """Just enough of a tensor for `x * 0.5` and `x.abs().max().item()`."""

    def __mul__(self, other: float) -> "Scalar":
        return Scalar(float(self) * other)

    def abs(self) -> "Scalar":
        return Scalar(abs(float(self)))

    def max(self) -> "Scalar":
        return self

    def item(self) -> float:
        return float(self)


def test_jump_into_a_while_loop_runs_the_partial_iteration_first() -> None:
    original, rebuilt = _both(_load("while_break_original_1_torch_dynamo_resume_in_p_while_break_at_10"), {})
    for item in (0.05, 0.5, 3.0):
        for start in (1.0, 0.3):
            args = ([], [], item, Scalar(start), 2)
            assert rebuilt(*args) == original(*args)


def test_reentered_with_block_enters_and_exits_once() -> None:
    code = _load("no_grad_original_1_torch_dynamo_resume_in_break_in_no_grad_at_84")

    def run(fn: Callable[..., Any], fail: bool) -> List[Any]:
        events: List[Any] = []

        class Manager:
            def __init__(self, mode: bool) -> None:
                events.append(("made", mode))

            def __enter__(self) -> None:
                events.append("enter")

            def __exit__(self, *exc: Any) -> bool:
                events.append(("exit", exc[0]))
                return False

        y: Any = object() if fail else 41  # `y + 1` raises for an object()
        try:
            events.append(("result", fn([], [], Manager, "graph_break() result", y)))
        except TypeError as e:
            events.append(("raised", type(e)))
        return events

    original, rebuilt = _both(code, {})
    for fail in (False, True):
        assert run(rebuilt, fail) == run(original, fail)
