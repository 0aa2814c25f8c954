"""Canonicalization passes: the rewrite helper on any version, each 3.14 pass on 3.14+."""
from __future__ import annotations

import sys
from typing import List, Tuple

import pytest

from depyf.decompiler.instructions import decode
from depyf.decompiler.passes import read
from depyf.decompiler.passes.rewrite import copy_instr, rewrite
from depyf.decompiler.versions import TABLED, _shared

HOST = _shared(*sys.version_info[:2]) if sys.version_info[:2] in TABLED else None
on_314 = pytest.mark.skipif(sys.version_info[:2] < (3, 14) or HOST is None, reason="3.14+ bytecode")


def _code(source: str):
    return next(c for c in compile(source, "<sample>", "exec").co_consts if hasattr(c, "co_code"))


def _shape(source: str) -> List[Tuple[str, object]]:
    return [(i.opname, i.argval) for i in read(_code(source), HOST).instrs]


@pytest.mark.skipif(HOST is None, reason="no tables for this interpreter")
def test_rewrite_renumbers_jumps_and_leaves_the_input_alone() -> None:
    bytecode = decode(_code("def f(a):\n    while a:\n        a = a - 1\n    return a\n"), HOST)
    before = [(i.index, i.opname, i.target) for i in bytecode.instrs]
    back = next(k for k, i in enumerate(bytecode.instrs) if i.target is not None and i.target < k)
    head = bytecode.instrs[back].target
    removed = head + 1  # (an instruction inside the loop, after its head)
    out = rewrite(bytecode, {removed: [], back: [copy_instr(bytecode.instrs[back])]})
    assert [(i.index, i.opname, i.target) for i in bytecode.instrs] == before
    assert len(out.instrs) == len(bytecode.instrs) - 1
    assert [i.index for i in out.instrs] == list(range(len(out.instrs)))
    assert out.instrs[back - 1].target == head  # (the head lies before the removed one)
    for region in out.regions:
        assert 0 <= region.start < region.end <= len(out.instrs)


@on_314
def test_with_reads_as_before_with() -> None:
    shape = _shape("def f(m, g):\n    with m as v:\n        return g(v)\n")
    names = [name for name, _ in shape]
    assert "LOAD_SPECIAL" not in names and names.count("BEFORE_WITH") == 1
    assert ("CALL", 2) in shape and ("CALL", 3) not in shape
    assert ("SWAP", 3) not in shape


@on_314
def test_a_call_with_three_nones_stays() -> None:
    assert ("CALL", 3) in _shape("def f(g):\n    g(None, None, None)\n")


@on_314
def test_call_ex_kwargs_bit() -> None:
    calls = [val for name, val in _shape("def f(g, a, k):\n    g(*a)\n    g(*a, **k)\n") if name == "CALL_FUNCTION_EX"]
    assert calls == [0, 1]


@on_314
def test_builtin_genexpr_guard_is_gone() -> None:
    names = [name for name, _ in _shape("def f(xs):\n    return all(x for x in xs)\n")]
    assert "LOAD_COMMON_CONSTANT" not in names and "FOR_ITER" not in names
