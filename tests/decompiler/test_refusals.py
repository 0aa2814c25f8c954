"""Shapes the decompiler must read right or refuse with a `DecompilationError`, never misread.

A `while True:` whose body never loops compiles like straight code with forward jumps: its
`break`s are jumps past the code after a try in its body, and no jump back shows the loop. Where
the reading cannot tell it, it refuses (3.11+: a jump past the try's else part); 3.8/3.9 keep
the loop in the block stack. A `break` that ends an else part while the if body goes on after
it skips that code: read inside a `while True:` around the if statement, or refused."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

import pytest

import depyf
from depyf import DecompilationError
from depyf.decompiler.versions import host

VERSION = host()

NEVER_LOOPING = '''
def f(k, fail):
    log = []
    while True:
        try:
            if k == 2:
                log.append(1)
                break
            if fail:
                raise ValueError(k)
        except ValueError:
            break
        raise KeyError(2)
    log.append(3)
    return log
'''

IF_BREAK_FIRST = '''
def f(k, fail):
    log = []
    turns = 0
    while True:
        turns += 1
        if turns > 1:
            break
        try:
            if k == 2:
                log.append(1)
                break
        except ValueError:
            break
        raise KeyError(2)
    log.append(3)
    return log
'''

INPUTS = [(2, False), (0, False), (0, True)]


def _outcome(func: Callable[..., Any], args: Tuple[Any, ...]) -> Tuple[Any, ...]:
    try:
        return ("returned", func(*args))
    except Exception as exc:  # (the program's own raise)
        return ("raised", type(exc).__name__)


def _function(source: str) -> Callable[..., Any]:
    namespace: Dict[str, Any] = {}
    exec(compile(source, "<refusals>", "exec"), namespace)
    return namespace["f"]


# 3.10 keeps no block for the loop and drops its `break`'s jump back: still misread there.
_MISREAD = pytest.mark.xfail(VERSION.copies_exit_blocks and not VERSION.has_exception_table, strict=True,
                             reason="3.10 reads the never-looping loop as an if (known, docs/fuzzing.md)")


@_MISREAD
@pytest.mark.parametrize("source", [NEVER_LOOPING, IF_BREAK_FIRST], ids=["try-break", "if-break-first"])
def test_never_looping_while_is_read_right_or_refused(source: str) -> None:
    # (refused, naming where: 3.11/3.12 a jump past the try's else part, 3.13+ the loop's jump
    # back, which belongs to no construct read)
    _assert_read_right_or_refused(source, INPUTS)


def _assert_read_right_or_refused(source: str, inputs: List[Tuple[Any, ...]]) -> None:
    """The decompiled `f` behaves as the original on every input, or the decompiler refuses
    it with an error that names where."""
    original = _function(source)
    try:
        text = depyf.decompile(original)
    except DecompilationError as error:
        assert "cannot decompile in f at offset" in str(error)
        return
    rebuilt = _function(text)
    for args in inputs:
        assert _outcome(rebuilt, args) == _outcome(original, args), text


# A `break` ending an else part, the rest of the if body after it: 3.11 lays the try's handler
# code between the body's jump over the else part and the else part; a finally body's copy
# runs between the `break` and its jump.
ELSE_PART_BREAKS = {
    "handler-code-before-else": '''
def f(n, k):
    log = []
    w = 0
    while w < 3:
        w += 1
        if w > n:
            try:
                log.append(2)
            except ValueError:
                log.append(4)
                raise
        else:
            break
        raise ValueError(6)
    else:
        log.append(7)
    return log
''',
    "finally-copy-after-break": '''
def f(n, k):
    log = []
    w = 0
    while True:
        w += 1
        if w > 2:
            break
        try:
            log.append(1)
            if n + k > 0:
                log.append(2)
            else:
                log.append(4)
                break
        finally:
            log.append(5)
        raise ValueError(6)
    return log
''',
    "loop-else-break": '''
def f(n, k):
    log = []
    w2 = 0
    while w2 < 3:
        w2 += 1
        w3 = 0
        while w3 < n:
            w3 += 1
            log.append(3)
            break
        else:
            log.append(4)
            break
        return log
    log.append(5)
    return log
''',
}

# 3.8/3.9 keep the inner loop's jump back (dead): its else part's `break` ends a loop's else
# part, not an if's, and is still read as that part's way on.
_LOOP_ELSE_MISREAD = pytest.mark.xfail(not VERSION.copies_exit_blocks and not VERSION.has_exception_table,
                                       strict=True, reason="3.8/3.9 read the else part's break as its way on")


@pytest.mark.parametrize("name", [pytest.param(name, marks=_LOOP_ELSE_MISREAD) if name == "loop-else-break" else name
                                  for name in sorted(ELSE_PART_BREAKS)])
def test_else_part_break_is_read_right_or_refused(name: str) -> None:
    _assert_read_right_or_refused(ELSE_PART_BREAKS[name], [(0, 0), (1, 0), (2, 0), (0, 1), (3, 1)])
