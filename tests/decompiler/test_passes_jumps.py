"""The passes that re-point or respell jumps a reading used to change in its own view: the bytecode
before and after, on the versions where each is on, and left alone where it is off."""
from __future__ import annotations

import sys
from typing import List, Tuple

import pytest

from depyf.decompiler.instructions import Bytecode, decode
from depyf.decompiler.passes import chain_none_tests, read
from depyf.decompiler.versions import TABLED, _shared

HOST = _shared(*sys.version_info[:2]) if sys.version_info[:2] in TABLED else None
tabled = pytest.mark.skipif(HOST is None, reason="no tables for this interpreter")


def _code(source: str):
    return next(c for c in compile(source, "<sample>", "exec").co_consts if hasattr(c, "co_code"))


def _ops(bytecode: Bytecode) -> List[Tuple[str, object]]:
    return [(i.opname, i.argval if i.target is None else None) for i in bytecode.instrs]


def _names(bytecode: Bytecode) -> List[str]:
    return [i.opname for i in bytecode.instrs]


_FUSED = ("POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE")
_CHAIN_TEST = "def f(a, b):\n    if a < b is None:\n        return 1\n    return 2\n"
_CHAIN_ASSERT = "def f(a, b):\n    assert a is b is not None\n"


@tabled
@pytest.mark.parametrize("source", [_CHAIN_TEST, _CHAIN_ASSERT])
def test_chain_none_test_on_only_where_none_tests_fuse(source: str) -> None:
    raw = decode(_code(source), HOST)
    fused = [name for name in _names(raw) if name in _FUSED]
    assert bool(fused) == HOST.fuses_none_tests_into_jumps
    if not fused:
        assert chain_none_tests.canonicalize(raw) is raw


@tabled
def test_chain_ending_in_is_none_tests_as_written() -> None:
    if not HOST.fuses_none_tests_into_jumps:
        pytest.skip("3.11+ bytecode")
    raw, out = decode(_code(_CHAIN_TEST), HOST), read(_code(_CHAIN_TEST), HOST)
    assert not set(_names(out)) & set(_FUSED) and len(out.instrs) == len(raw.instrs) + 2
    k = next(k for k, ins in enumerate(raw.instrs) if ins.opname in _FUSED)
    fused = raw.instrs[k]  # (POP_JUMP_IF_NOT_NONE: the chain is false where b is not None)
    assert fused.opname == "POP_JUMP_IF_NOT_NONE"
    assert _ops(out)[k:k + 3] == [("LOAD_CONST", None), ("IS_OP", 0), ("POP_JUMP_IF_FALSE", None)]
    assert out.instrs[k + 2].target == fused.target + 2  # (the same code: renumbered)
    assert _ops(out)[:k] == _ops(raw)[:k]
    assert raw.instrs[k] is fused and fused.opname in _FUSED  # (the decoded code left as it was)


@tabled
def test_chain_whose_jump_holds_jumps_over_the_raise() -> None:
    if not HOST.fuses_none_tests_into_jumps:
        pytest.skip("3.11+ bytecode")
    out = read(_code(_CHAIN_ASSERT), HOST)
    k = next(k for k, ins in enumerate(out.instrs) if ins.opname == "IS_OP" and out.instrs[k - 1].argval is None
             and out.instrs[k - 1].opname == "LOAD_CONST")
    # (it falls into the raise, as a failing first link's cleanup does: the jump is when true)
    assert _ops(out)[k:k + 2] == [("IS_OP", 1), ("POP_JUMP_IF_TRUE", None)]
    assert out.instrs[out.instrs[k + 1].target].opname != "LOAD_ASSERTION_ERROR"


@tabled
def test_a_lone_is_none_test_stays_fused() -> None:
    source = "def f(a):\n    if a is None:\n        return 1\n    return 2\n"
    raw, out = decode(_code(source), HOST), read(_code(source), HOST)
    assert [name for name in _names(out) if name in _FUSED] == [name for name in _names(raw) if name in _FUSED]


_FINALLY_AND = "def f(a, b):\n    try:\n        g()\n    finally:\n        if a and b:\n            h()\n"


def _reraises(bytecode: Bytecode) -> List[int]:
    return [k for k, ins in enumerate(bytecode.instrs) if ins.opname == "RERAISE" and ins.arg == 0]


def _jumps_to(bytecode: Bytecode, targets: List[int]) -> List[int]:
    return [k for k, ins in enumerate(bytecode.instrs) if ins.target in targets and ins.opname.startswith("POP_JUMP")]


@tabled
def test_finally_reraise_copies_on_only_where_exit_blocks_are_copied() -> None:
    raw = decode(_code(_FINALLY_AND), HOST)
    out = read(_code(_FINALLY_AND), HOST)
    ends = _reraises(raw)
    # (the exceptional copy of the body: one re-raise `h()` falls into, one for each test's jump)
    copied = len(ends) >= 3 and all(ends[-1] - k == len(ends) - 1 - n for n, k in enumerate(ends[-3:]))
    assert copied == HOST.copies_closing_reraises
    if not HOST.copies_closing_reraises:
        assert [(i.opname, i.target) for i in out.instrs] == [(i.opname, i.target) for i in raw.instrs]


@tabled
def test_finally_tests_jump_to_the_closing_reraise() -> None:
    if not HOST.copies_closing_reraises:
        pytest.skip("3.10+ bytecode")
    raw, out = decode(_code(_FINALLY_AND), HOST), read(_code(_FINALLY_AND), HOST)
    fall, first, last = _reraises(raw)[-3:]
    assert len(_jumps_to(raw, [first])) == 1 and len(_jumps_to(raw, [last])) == 1
    shift = len(out.instrs) - len(raw.instrs)  # (0: the pass only re-points jumps)
    assert shift == 0
    # both tests of the exceptional copy now jump to the last re-raise; its copies stay, unreached
    assert _jumps_to(out, [first]) == [] and len(_jumps_to(out, [last])) == 2
    assert [out.instrs[k].opname for k in (fall, first, last)] == ["RERAISE"] * 3
    from depyf.decompiler.graph import FlowGraph
    assert first in FlowGraph.of(out).unreachable_instructions()
    # (nothing else changed: the copy on the normal way out keeps its jumps to the returns after it)
    changed = [k for k, (x, y) in enumerate(zip(raw.instrs, out.instrs)) if (x.opname, x.target) != (y.opname, y.target)]
    assert changed == _jumps_to(raw, [first])


@tabled
def test_an_except_clauses_reraise_is_left_alone() -> None:
    source = "def f(a, b):\n    try:\n        g()\n    except E:\n        if a and b:\n            h()\n"
    raw, out = decode(_code(source), HOST), read(_code(source), HOST)
    assert [(i.opname, i.target) for i in out.instrs] == [(i.opname, i.target) for i in raw.instrs]
