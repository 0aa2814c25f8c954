"""Dynamo's own bytecode with its lines pointed into a dumped file (`remap_lines`): a tracer (what
pdb stops by) must see the lines of that file, wherever the file's `def` is relative to the
original function's first line. 3.14 reported lines before `co_firstlineno` wrongly (257, None),
so breakpoints in a dumped file above the original's line were never hit."""
from __future__ import annotations

import sys
from typing import List, Optional, Tuple

import pytest

from depyf.dynamo.debuggable import remap_lines

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="the 3.11+ location table")

# Stands in for a dumped file: comments, then the function, its statements spread out.
DUMPED = (
    "# header\n"
    "def g(a, b):\n"
    "    x = a + 1\n"
    "\n"
    "    y = b + 2\n"
    "    return x * y\n"
)


def _traced_lines(fn, code) -> List[Tuple[str, Optional[int]]]:
    seen: List[Tuple[str, Optional[int]]] = []

    def tracer(frame, event, arg):
        if frame.f_code is code:
            seen.append((event, frame.f_lineno))
            return tracer
        return None

    sys.settrace(tracer)
    try:
        fn(1, 2)
    finally:
        sys.settrace(None)
    return seen


def _blank_lines_before():
    def f(a, b):
        x = a + 1
        y = b + 2
        return x * y

    return f


@pytest.mark.parametrize("def_line", [2, 500], ids=["file_above_original", "file_below_original"])
def test_a_tracer_sees_the_dumped_files_lines(def_line: int) -> None:
    f = _blank_lines_before()
    source = "\n" * (def_line - 2) + DUMPED
    code = remap_lines(f.__code__, source, "/dumped/g.py", def_line)
    assert code is not None and code.co_code == f.__code__.co_code
    assert code.co_firstlineno == def_line
    f.__code__ = code
    lines = [line for event, line in _traced_lines(f, code) if event == "line"]
    # Every line is one of the function's in the file (the loads before the first store may
    # show the `def` line), and each statement's line is reached, in order.
    assert all(line is not None and def_line <= line <= def_line + 4 for line in lines), lines
    statements = [line for line in lines if line != def_line]
    assert statements == [def_line + 1, def_line + 3, def_line + 4], lines
    assert f(1, 2) == 8
