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


on_315 = pytest.mark.skipif(HOST is None or not HOST.keeps_iterators_in_two_slots, reason="3.15 bytecode")


def _raw_shape(source: str) -> List[Tuple[str, object]]:
    return [(i.opname, i.argval) for i in decode(_code(source), HOST).instrs]


@on_315
def test_ways_out_of_nested_loops_pop_one_slot_per_loop() -> None:
    source = ("def f(xs, ys):\n    for x in xs:\n        for y in ys:\n            if y:\n"
              "                return y\n            if x:\n                break\n    return 0\n")
    raw, shape = _raw_shape(source), _shape(source)
    assert raw.count(("SWAP", 3)) == 2 and ("SWAP", 3) not in shape  # (the return's value under each pair)
    assert shape.count(("SWAP", 2)) == 2
    names = [name for name, _ in shape]
    # 3.14: the return pops the two iterators, the break one, each exhausted loop its own
    assert names.count("POP_TOP") == [name for name, _ in raw].count("POP_TOP") - 3
    assert ("GET_ITER", 0) in raw and all(val is None for name, val in shape if name == "GET_ITER")


@on_315
def test_comprehension_appends_count_one_slot_less() -> None:
    assert ("LIST_APPEND", 3) in _raw_shape("def f(xs):\n    return [x for x in xs]\n")
    assert ("LIST_APPEND", 2) in _shape("def f(xs):\n    return [x for x in xs]\n")
    assert ("MAP_ADD", 2) in _shape("def f(xs):\n    return {x: 1 for x in xs}\n")


@on_315
def test_await_and_yield_from_send_without_the_null() -> None:
    awaits = _shape("async def f(a):\n    return await a\n")
    assert "PUSH_NULL" not in [name for name, _ in awaits]
    assert [name for name, _ in awaits][:4] == ["LOAD_FAST", "GET_AWAITABLE", "LOAD_CONST", "SEND"]
    delegates = [name for name, _ in _shape("def f(g):\n    yield from g\n")]
    assert "GET_YIELD_FROM_ITER" in delegates and "GET_ITER" not in delegates


@on_315
def test_handler_depths_leave_out_the_extra_slots() -> None:
    code = _code("def f(xs, g):\n    for x in xs:\n        try:\n            g(x)\n        except E:\n"
                 "            return x\n")
    raw, out = decode(code, HOST), read(code, HOST)
    assert [r.depth for r in out.regions] == [r.depth - 1 if r.depth else 0 for r in raw.regions]


@on_315
def test_a_stack_it_cannot_follow_is_left_as_it_was() -> None:
    from depyf.decompiler.instructions import Bytecode
    from depyf.decompiler.passes import two_slot_iterators
    bytecode = decode(_code("def f(xs):\n    for x in xs:\n        return x\n"), HOST)
    get_iter = next(k for k, i in enumerate(bytecode.instrs) if i.opname == "GET_ITER")
    # (the iterable's load gone: GET_ITER would pop an empty stack)
    broken = Bytecode(bytecode.code, HOST, bytecode.instrs[get_iter:], [], {}, None)
    assert two_slot_iterators.canonicalize(broken) is broken


@on_315
def test_stack_effect_formulas_agree_with_dis() -> None:
    import dis
    from depyf.decompiler.instructions import make_instr
    from depyf.decompiler.passes.stack_effects import BY_ARGUMENT, effect
    for name in BY_ARGUMENT:
        for arg in list(range(20)) + [256, 257, 0x203]:
            if name == "UNPACK_EX" or arg < 256:
                ins = make_instr(0, name, name, arg, arg)
                assert effect(HOST, ins) == dis.stack_effect(dis.opmap[name], arg), (name, arg)
    for name, number in dis.opmap.items():
        if number < 256 and name in HOST.tables["stack_effects"]:
            arg = 0 if number >= dis.HAVE_ARGUMENT else None
            expected = dis.stack_effect(number, arg) if arg is not None else dis.stack_effect(number)
            assert effect(HOST, make_instr(0, name, name, arg, arg)) == expected, name


@on_315
def test_jumps_to_a_break_keep_landing_on_its_first_instruction() -> None:
    # (the body ends in the test: it jumps to the break's POP_TOPs, over the jump back)
    code = _code("def f(xs, g):\n    for x in xs:\n        g(x)\n        if g(x):\n            break\n    return 1\n")
    raw, out = decode(code, HOST), read(code, HOST)
    assert len(out.instrs) == len(raw.instrs) - 1  # (one POP_TOP of the break's two)
    landed = [(raw.instrs[i.target].offset, i.target_offset) for i in raw.instrs if i.target is not None]
    assert [(out.instrs[i.target].offset, i.target_offset) for i in out.instrs if i.target is not None] == landed


def _jumps(source: str) -> List[Tuple[int, str, int]]:
    """(index, opname, target) of the jumps of the first function in `source`, canonicalized."""
    return [(k, i.opname, i.target) for k, i in enumerate(read(_code(source), HOST).instrs) if i.target is not None]


@on_314
def test_while_test_is_copied_to_the_bottom() -> None:
    source = "def f(a, b):\n    while a < b:\n        a += 1\n    return a\n"
    shape = _shape(source)
    assert [name for name, _ in shape].count("COMPARE_OP") == 2
    jumps = _jumps(source)
    back = [(k, t) for k, name, t in jumps if name == "JUMP" and t < k]
    test_exit = [t for k, name, t in jumps if name == "POP_JUMP_IF_FALSE"]
    # (the jump back goes to the body's start, past the test; both tests leave for one exit)
    assert len(back) == 1 and back[0][1] == jumps[0][0] + 1 and len(set(test_exit)) == 1


@on_314
def test_written_continue_still_goes_to_the_top() -> None:
    source = ("def f(a, b):\n    while a < b:\n        a += 1\n        if a == 3:\n            continue\n"
              "        b -= 1\n    return a\n")
    jumps = _jumps(source)
    back = [t for k, name, t in jumps if name == "JUMP" and t < k]
    body = jumps[0][0] + 1  # (after the test at the top)
    assert sorted(back) == [0, body]  # (the continue to the test, the bottom test to the body)


@on_314
def test_test_leaving_for_the_outer_head_jumps_forward() -> None:
    # fuzz seed 209: 3.14 tests `w < 3` by a jump over the jump back to `while True`
    source = ("def f(n):\n    w1 = 0\n    while True:\n        w1 += 1\n        if w1 > n:\n            break\n"
              "        w = 0\n        while w < 3:\n            w += 1\n    return w1\n")
    instrs = read(_code(source), HOST).instrs
    outer = min(i.target for k, i in enumerate(instrs) if i.opname == "JUMP" and i.target < k)
    for k, ins in enumerate(instrs):
        if ins.opname in ("POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE") and ins.target == k + 2:
            assert not (instrs[k + 1].opname == "JUMP" and instrs[k + 1].target == outer), "a test over a jump back"
    assert [i.opname for i in instrs].count("COMPARE_OP") == 3  # (w1 > n; w < 3 twice)


@pytest.mark.skipif(HOST is None, reason="no tables for this interpreter")
def test_rewrite_lays_code_ahead_of_an_index_outside_its_blocks() -> None:
    bytecode = decode(_code("def f(g):\n    try:\n        g()\n    except ValueError:\n        pass\n"), HOST)
    if not bytecode.regions:
        pytest.skip("no exception table before 3.11")
    region = bytecode.regions[0]
    at = region.handler
    added = copy_instr(bytecode.instrs[at - 1])
    out = rewrite(bytecode, {at: [added, bytecode.instrs[at]]}, ahead={at: 1})
    assert region.end <= at and out.regions[0].end == region.end  # (the try body ends before it)
    assert out.regions[0].handler == at + 1  # (the handler still starts at its own first instruction)
    assert out.instrs[at].offset == added.offset
    starting = [n for n, r in enumerate(bytecode.regions) if r.start == at]
    assert starting and all(out.regions[n].start == at + 1 for n in starting)  # (the handler's own regions)
    assert not any(r.start <= at < r.end for r in out.regions)  # (nothing holds the added code)


@on_314
def test_inner_while_true_break_jumps_forward_to_a_jump_back() -> None:
    # fuzz seed 618: the break of the inner loop is threaded to the outer `while True:` head
    source = ("def f(n, log):\n    while True:\n        n -= 1\n        if n < 0:\n            return log\n"
              "        j = 0\n        while True:\n            j += 1\n            if j > 2:\n                break\n"
              "            log.append(j)\n")
    raw, instrs = decode(_code(source), HOST).instrs, read(_code(source), HOST).instrs
    backs = [(k, i.target) for k, i in enumerate(instrs) if i.opname == "JUMP" and i.target < k]
    outer, inner = sorted({t for _, t in backs})
    inner_end = max(k for k, t in backs if t == inner)
    assert backs[-1] == (inner_end + 1, outer)  # (the outer body's end, after the inner loop)
    breaks = [k for k, i in enumerate(instrs) if i.opname == "JUMP" and i.target == inner_end + 1]
    assert len(breaks) == 1 and inner < breaks[0] < inner_end
    assert len(instrs) == len(raw) + 1


@on_314
def test_written_continue_gets_a_closing_jump_after_it() -> None:
    # fuzz seed 107: `if w > n: break` then a written `continue`, which the test jumps to
    written = ("def f(n, log):\n    w = 0\n    while True:\n        w += 1\n        if w > n:\n"
               "            break\n        continue\n    return log\n")
    jumps = _jumps(written)
    backs = [k for k, name, t in jumps if name == "JUMP" and t < k]
    assert len(backs) == 2 and backs[1] == backs[0] + 1  # (the written one, then the closing one)
    assert not any(t == backs[1] for _, _, t in jumps)  # (nothing reaches the closing one)
    implied = written.replace("        continue\n", "")
    assert len([k for k, name, t in _jumps(implied) if name == "JUMP" and t < k]) == 1
