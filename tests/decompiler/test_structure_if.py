"""The if statement's region from the graph (depyf.decompiler.structure.if_regions), on real
compiled code of the running interpreter.

The assertions name source lines, not instruction indices, so the same ones hold on every
version: "the body holds `x = 1`", "the join is where `y` is loaded", "the else arm returns".
"""
from __future__ import annotations

import types
from typing import List, Optional

import pytest

from depyf.decompiler.control_model import COND_JUMPS
from depyf.decompiler.graph import FlowGraph
from depyf.decompiler.instructions import Bytecode, decode
from depyf.decompiler.structure.if_regions import IfRegion, Way, break_skipping_code, else_end_after, if_region
from depyf.decompiler.versions import host

from .support import compiled_definition

VERSION = host()


class Read:
    def __init__(self, source: str) -> None:
        self.bytecode: Bytecode = decode(compiled_definition(source), VERSION)
        self.graph = FlowGraph.of(self.bytecode)

    def load(self, name: str) -> int:
        """The first instruction that loads `name` (a global, or a local's first load)."""
        for ins in self.bytecode.instrs:
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_FAST", "LOAD_DEREF") and ins.argval == name:
                return ins.index
        raise LookupError(name)

    def test_after(self, name: str) -> int:
        """The first conditional jump after the load of `name` (the test of `if name:`)."""
        k = self.load(name)
        for ins in self.bytecode.instrs[k:]:
            if ins.opname in COND_JUMPS:
                return ins.index
        raise LookupError(name)

    def region(self, name: str) -> IfRegion:
        return if_region(self.graph, self.test_after(name))

    def block(self, name: str) -> int:
        return self.graph.block_at(self.load(name)).label


# An if/else whose arms join before three calls.
IF_ELSE_THEN_CALLS = """
    def f(a):
        if a:
            x = one()
        else:
            x = two()
        y = three(x)
        z = y(x)
        return z(y, x)
"""


def holds(r: Read, arm_blocks, name: str) -> bool:
    return r.block(name) in arm_blocks


def test_if_else_joins_after_both_arms():
    r = Read(IF_ELSE_THEN_CALLS)
    region = r.region("a")
    assert region.orelse is not None
    assert region.join == r.block("three")
    assert holds(r, region.body.blocks, "one") and not holds(r, region.body.blocks, "two")
    assert holds(r, region.orelse.blocks, "two")
    assert region.body.ways == {Way.JOIN} and region.orelse.ways == {Way.JOIN}
    assert region.body_end == region.orelse.start and region.else_end == region.join


def test_if_without_else_joins_at_its_false_target():
    r = Read("""
        def f(a):
            if a:
                one()
            two()
            y = three()
            return y(y)
    """)
    region = r.region("a")
    assert region.orelse is None
    assert region.join == r.block("two") == r.bytecode.instrs[region.test].target
    assert region.body.ways == {Way.JOIN}


def test_returning_body_has_no_else_part():
    # (a return is no join: the code after the if is where the statement goes on)
    r = Read("""
        def f(a):
            if a:
                return one()
            two()
            return three()
    """)
    region = r.region("a")
    assert region.orelse is None
    assert region.join == r.block("two")
    assert region.body.ways == {Way.RETURN}
    assert region.body.leaves


def test_raising_else_part_joins_where_the_body_goes():
    r = Read("""
        def f(a):
            if a:
                x = one()
            else:
                raise two()
            y = three(x)
            z = y(x)
            return z(y, x)
    """)
    region = r.region("a")
    assert region.orelse is not None and region.orelse.ways == {Way.RAISE}
    assert region.join == r.block("three")


def test_break_is_no_join_inside_a_loop():
    r = Read("""
        def f(xs):
            for x in xs:
                if x:
                    one()
                    break
                two()
            y = three()
            return y(y)
    """)
    region = r.region("x")
    assert region.loop is not None
    assert region.orelse is None
    assert region.join == r.block("two")
    assert Way.BREAK in region.body.ways and Way.JOIN not in region.body.ways


def test_elif_chain_nests_its_else_parts():
    r = Read("""
        def f(a, b):
            if a:
                one()
            elif b:
                two()
            else:
                three()
            four()
            y = five()
            return y(y)
    """)
    outer, inner = r.region("a"), r.region("b")
    assert outer.join == inner.join == r.block("four")
    assert outer.orelse is not None and holds(r, outer.orelse.blocks, "three")
    assert inner.orelse is not None and holds(r, inner.orelse.blocks, "three")
    assert not holds(r, inner.body.blocks, "one")


def test_and_condition_asked_at_its_last_jump():
    r = Read("""
        def f(a, b):
            if a and b:
                one()
            else:
                two()
            three()
            y = four()
            return y(y)
    """)
    region = r.region("b")
    assert region.join == r.block("three")
    assert region.orelse is not None and holds(r, region.orelse.blocks, "two")


def test_if_in_try_body_joins_inside_it():
    r = Read("""
        def f(a):
            try:
                if a:
                    one()
                else:
                    two()
                three()
            except E:
                four()
    """)
    region = r.region("a")
    assert region.join == r.block("three")


def test_else_end_after_names_the_else_part_of_a_body_end():
    r = Read(IF_ELSE_THEN_CALLS)
    region = r.region("a")
    assert else_end_after(r.graph, region.orelse.start) == region.else_end
    assert else_end_after(r.graph, r.load("three")) is None


def test_no_conditional_jump_is_refused():
    r = Read("""
        def f():
            return one()
    """)
    with pytest.raises(ValueError):
        if_region(r.graph, 0)


@pytest.mark.parametrize("module", ["textwrap", "shlex", "json/decoder"])
def test_every_test_of_a_stdlib_module_has_a_region(module):
    """Properties every answer has: arms start where the test's edges go, the else part
    starts where the test jumps, the join is a block label past the test."""
    from .stdlib_sample import module_path

    source = module_path(module).read_text(encoding="utf-8")
    codes: List[types.CodeType] = [compile(source, module, "exec")]
    while codes:
        code = codes.pop()
        codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        bytecode = decode(code, VERSION)
        graph = FlowGraph.of(bytecode)
        labels = {b.label for b in graph.blocks}
        for b in graph.blocks:
            ins = bytecode.instrs[b.last]
            if ins.opname not in COND_JUMPS or b.end >= len(bytecode.instrs):
                continue
            region = if_region(graph, b.last)
            join: Optional[int] = region.join
            assert join is None or join in labels
            if region.orelse is not None:
                assert region.orelse.start == ins.target
                assert region.body.start == b.end
                assert region.join != region.orelse.start


# A `while test:` that never jumps back: the inner else part's `break` skips `rest()`.
ELSE_PART_BREAK = """
    def f(n, w):
        log = []
        while w < 3:
            if n > 3:
                if n > 4:
                    first()
                else:
                    break
                rest()
                break
            else:
                return log
        else:
            other()
        after()
        return log
"""

# The same shape with no loop: every jump to the join ends an arm.
NESTED_IF_ELSE = """
    def f(n, w):
        if w < 3:
            if n > 3:
                if n > 4:
                    first()
                else:
                    second()
                rest()
            else:
                return w
        else:
            other()
        after()
"""


def test_break_skipping_code_finds_an_else_part_break():
    read = Read(ELSE_PART_BREAK)
    region = read.region("w")
    jump = break_skipping_code(read.graph, region.test, region.join)
    assert read.graph.block_at(read.load("other")).label < region.join == read.graph.block_at(read.load("after")).label
    if VERSION.copies_exit_blocks or VERSION.has_exception_table:
        assert jump is not None and read.bytecode.instrs[jump].target == region.join
    else:
        # (3.8/3.9 send the inner test straight past the loop: no jump ends the else part)
        assert jump is None


def test_break_skipping_code_finds_none_in_nested_if_else():
    read = Read(NESTED_IF_ELSE)
    for name in ("w", "n"):
        region = read.region(name)
        assert region.join is not None
        assert break_skipping_code(read.graph, region.test, region.join) is None
