"""Tool-made code laid out as a compiler would (`passes/resume_layout.py`), checked by running it,
and the pass `loop_exits_after_loops` on compiler-made code.

Dynamo's resume functions jump into the middle of the code they continue: into a `with` block
they re-enter (3.11+) or into a `while` loop's body (3.12+). The decompiled text of each sample
in `dynamo_samples/` must compute what the code object computes, called with stand-in values.
"""
from __future__ import annotations

import marshal
import sys
import types
from pathlib import Path
from typing import Any, Callable, List, Set

import pytest

import depyf
from depyf.decompiler.graph import FlowGraph
from depyf.decompiler.instructions import ENDS_FLOW, Bytecode, Instr
from depyf.decompiler.passes import lay_out, read
from depyf.decompiler.passes import resume_layout as rl
from depyf.decompiler.passes.loop_exits_after_loops import exits_after_loops
from depyf.decompiler.passes.reorder import regions_by_instruction
from depyf.decompiler.versions import TABLED, _shared

SAMPLES = Path(__file__).resolve().parent / "dynamo_samples"
VERSION = "py%d%d" % sys.version_info[:2]
HOST = _shared(*sys.version_info[:2]) if sys.version_info[:2] in TABLED else None


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


# --- the graph's reachability and blocks against the instruction walks relayout.py made ---------

def _walked_reachable(instrs: List[Instr], handler_of: List[Any]) -> Set[int]:
    """relayout.py's own walk: falling through, jumping, entering an instruction's handler."""
    seen: Set[int] = set()
    work = [0] if instrs else []
    while work:
        k = work.pop()
        if k in seen or k >= len(instrs):
            continue
        seen.add(k)
        ins = instrs[k]
        if ins.opname not in ENDS_FLOW:
            work.append(k + 1)
        if ins.target is not None:
            work.append(ins.target)
        if handler_of[k] is not None:
            work.append(handler_of[k].handler)
    return seen


def _walked_blocks(bytecode: Bytecode, live: Set[int]) -> List[List[int]]:
    """relayout.py's own blocks: the live instructions cut at the targets of live jumps, after
    live jumps and ends of the flow, at region bounds and where dead code lies between."""
    instrs = bytecode.instrs
    leaders = {0}
    for k in live:
        if instrs[k].target is not None:
            leaders.add(instrs[k].target)
        if instrs[k].opname in ENDS_FLOW or instrs[k].target is not None:
            leaders.add(k + 1)
    for region in bytecode.regions:
        leaders.update((region.start, region.end, region.handler))
    blocks: List[List[int]] = []
    for k in range(len(instrs)):
        if k in live:
            if k in leaders or not blocks or blocks[-1][-1] != k - 1:
                blocks.append([])
            blocks[-1].append(k)
    return blocks


def _codes(code: types.CodeType) -> List[types.CodeType]:
    found = [code]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found.extend(_codes(const))
    return found


@pytest.mark.skipif(HOST is None or not HOST.has_exception_table, reason="3.11+ bytecode with tables")
def test_graph_block_order_is_the_old_walks_on_the_samples() -> None:
    """On every sample (and the code nested in it), laid out as `relayout` does, the graph finds
    the live code the old walk found, and its blocks give the same order, both ways of ordering
    a for loop's exit."""
    samples = sorted(SAMPLES.glob(f"*.{VERSION}.marshal"))
    if not samples:
        pytest.skip(f"no samples for Python {sys.version_info[0]}.{sys.version_info[1]}")
    relaid = 0
    for path in samples:
        for code in _codes(marshal.loads(path.read_bytes())):
            bytecode = rl._peel_jump_into_loop(exits_after_loops(read(code, HOST)))
            handler_of = regions_by_instruction(bytecode)
            live = rl._live(bytecode)
            assert live == _walked_reachable(bytecode.instrs, handler_of), (path.name, code.co_name)
            if len(live) == len(bytecode.instrs):
                continue
            instrs, rejoined = rl._rejoin_suppressed_paths(bytecode.instrs, bytecode.regions, live)
            if rejoined:
                bytecode = Bytecode(bytecode.code, bytecode.version, instrs, bytecode.regions)
                live = rl._live(bytecode)
                assert live == _walked_reachable(instrs, handler_of)
            walked = _walked_blocks(bytecode, set(live))
            graphed = rl.live_blocks(bytecode, live)
            assert [k for block in graphed for k in block] == [k for block in walked for k in block]
            for follow in (True, False):
                assert rl._thread_jumps(instrs, graphed, live, rejoined, follow) == \
                    rl._thread_jumps(instrs, walked, live, rejoined, follow), (path.name, code.co_name, follow)
            relaid += 1
    assert relaid  # (the samples hold resume functions with code no path reaches)


# --- loop_exits_after_loops on compiler-made code ----------------------------------------------

_RAISE_IN_LOOP = "def f(a):\n    while a < 10:\n        try:\n            raise ValueError\n" \
    "        except ValueError:\n            a += 1\n    return a\n"


@pytest.mark.skipif(HOST is None or not HOST.handler_code_at_end, reason="3.12+ lay handler code at the end")
def test_exit_code_inside_a_loops_span_moves_after_its_last_jump_back() -> None:
    """The loop goes on only through its except clause: 3.12+ lay the bottom test after the
    handler, so `return a` lies inside the loop's span until the pass moves it after the loop."""
    code = next(c for c in compile(_RAISE_IN_LOOP, "<sample>", "exec").co_consts if hasattr(c, "co_code"))
    bytecode = read(code, HOST)
    before = [(i.index, i.opname, i.target) for i in bytecode.instrs]

    def return_after_last_jump_back(instrs: List[Instr]) -> bool:
        last_back = max(k for k, i in enumerate(instrs) if i.opname == "JUMP" and i.target is not None
                        and i.target < k)
        returns = [k for k, i in enumerate(instrs) if i.opname in ("RETURN_VALUE", "RETURN_CONST")]
        return min(returns) > last_back

    laid = lay_out(bytecode)
    assert laid is not bytecode and not return_after_last_jump_back(bytecode.instrs)
    assert return_after_last_jump_back(laid.instrs)
    assert [(i.index, i.opname, i.target) for i in bytecode.instrs] == before  # (the input as it was)
    assert FlowGraph.of(laid).reachable_instructions() == frozenset(range(len(laid.instrs)))
    scope: dict = {}
    exec(compile(depyf.decompile(code), "<rebuilt>", "exec"), scope)
    assert [scope["f"](a) for a in (0, 5, 12)] == [10, 10, 12]


def test_code_with_nothing_to_move_is_kept() -> None:
    if HOST is None:
        pytest.skip("no tables for this interpreter")
    code = next(c for c in compile("def f(a):\n    while a:\n        a -= 1\n    return a\n", "<s>", "exec")
                .co_consts if hasattr(c, "co_code"))
    bytecode = read(code, HOST)
    assert lay_out(bytecode) is bytecode
    if HOST.has_exception_table:
        assert rl.relayout(bytecode) is bytecode
