"""The loops of a code object (depyf.decompiler.structure.loop_regions), on the running
version's own compiled code, laid out as the rules read it.

The assertions are about the source: "the body calls g, the code after the loop does not",
"a `continue` in an except clause is the only way back", "an await is no loop". Where a layout
habit of some versions decides (the 3.10+ bottom copy of a while test, the 3.11+ exception
table), the expectation asks the capability of versions.py that names it."""
from __future__ import annotations

import dataclasses
import types
from typing import Iterator, List

import pytest

from depyf.decompiler import passes
from depyf.decompiler.builder import CodeBuilder
from depyf.decompiler.control_model import COND_JUMPS
from depyf.decompiler.instructions import Bytecode
from depyf.decompiler.printer import Printer
from depyf.decompiler.structure.loop_regions import LoopRegion, LoopTable, loop_table
from depyf.decompiler.versions import host

from .stdlib_sample import MODULES, module_path
from .support import compiled_definition, first_load_of, loads_of

VERSION = host()


def _reader(code: types.CodeType) -> CodeBuilder:
    """The builder the rules read `code` with (it prepares its loops as it starts)."""
    bytecode: Bytecode = passes.lay_out(passes.read(code, VERSION))
    return CodeBuilder(bytecode, lambda *a, **k: [], code.co_name, Printer())


class Read:
    """A function's loops, as the builder that reads it finds them."""

    def __init__(self, source: str, name: str = "f") -> None:
        self.builder = _reader(compiled_definition(source, name))
        self.instrs = self.builder.instrs
        self.table: LoopTable = loop_table(self.builder.graph, self.builder)

    def calls(self, name: str) -> List[int]:
        return loads_of(self.instrs, name)

    def call(self, name: str) -> int:
        return first_load_of(self.instrs, name)

    def only_region(self) -> LoopRegion:
        assert len(self.table.regions) == 1, self.table.regions
        return next(iter(self.table.regions.values()))

    def region_holding(self, name: str) -> LoopRegion:
        """The innermost loop whose body holds the call of `name`."""
        k = self.call(name)
        around = [r for r in self.table.regions.values() if r.header <= k <= r.last]
        assert around, name
        return max(around, key=lambda r: r.header)

    def holds(self, region: LoopRegion, name: str) -> bool:
        return all(region.header <= k <= region.last for k in self.calls(name))


def test_straight_code_has_no_loops():
    r = Read("""
        def f(a):
            if a:
                return g(a)
            return h()
    """)
    assert not r.table.regions and not r.table.handler_closed
    assert r.builder.loop_end == {}


def test_for_loop_body_runs_to_the_loop_exit():
    r = Read("""
        def f(xs):
            for x in xs:
                use(x)
            after()
    """)
    loop = r.only_region()
    assert r.instrs[loop.header].opname == "FOR_ITER"
    assert r.holds(loop, "use") and not r.holds(loop, "after")
    assert not loop.other_headers and not loop.closed_by_handler and loop.overrun is None


def test_for_loop_that_always_leaves_is_still_a_loop():
    r = Read("""
        def f(xs):
            for x in xs:
                return use(x)
            after()
    """)
    loop = r.only_region()
    assert r.holds(loop, "use") and not r.holds(loop, "after")


def test_while_loop_holds_its_body_not_what_follows():
    r = Read("""
        def f():
            while test():
                body()
            after()
    """)
    loop = r.only_region()
    assert r.holds(loop, "body") and not r.holds(loop, "after")


def test_nested_loops_nest():
    r = Read("""
        def f(rows):
            for row in rows:
                while more(row):
                    inner(row)
                outer(row)
            after()
    """)
    assert len(r.table.regions) == 2
    inner, outer = r.region_holding("inner"), r.region_holding("outer")
    assert outer.header < inner.header <= inner.last <= outer.last
    assert not r.holds(inner, "outer") and r.holds(outer, "inner")


def test_continue_in_a_tested_while_is_one_loop():
    r = Read("""
        def f():
            while a() and b():
                if c():
                    continue
                d()
            after()
    """)
    # (3.10+ copy the test to the bottom: `continue` jumps to the top test, the bottom copy to
    # the body, two headers merged into one loop)
    loop = r.region_holding("d")
    assert r.holds(loop, "c") and not r.holds(loop, "after")
    assert len(r.table.regions) == 1
    if VERSION.while_condition_duplicated:
        assert loop.header < min(loop.other_headers) <= loop.last


def test_a_continue_in_an_except_clause_alone_closes_the_loop():
    r = Read("""
        def f():
            while True:
                try:
                    return get()
                except E:
                    continue
    """)
    loop = r.only_region()
    assert r.holds(loop, "get")
    # (3.11+: the jump back lies in handler code, which only an exception reaches)
    assert loop.closed_by_handler == VERSION.has_exception_table
    assert (loop.header in r.table.handler_closed) == VERSION.has_exception_table


def test_handler_code_after_a_closing_continue_is_the_loop_body():
    r = Read("""
        def f(values):
            while True:
                try:
                    v = int(values.pop())
                except ValueError:
                    if values:
                        continue
                    raise
                break
            for x in values:
                use(x)
    """)
    loop = r.region_holding("int")
    raises = [ins.index for ins in r.instrs if ins.opname == "RAISE_VARARGS"]
    # (3.12+ lay the handler code, the raise among it, at the end of the function)
    assert raises and all(loop.header <= k <= loop.last for k in raises) != VERSION.handler_code_at_end
    # (3.12+: a loop that only a handler's jump back closes reaches to that jump, at the end:
    # the for loop lies inside, and the loop rule clips the body where its normal flow ends)
    assert r.holds(loop, "use") == (loop.closed_by_handler and VERSION.handler_code_at_end)
    # The clause's `continue` is the last jump back where the dead one after the `break` is
    # removed (3.10); the raise and the chain's re-raise follow it. 3.8/3.9 keep that dead
    # jump, and 3.11+ read handler code from the exception table.
    runs_on = not VERSION.has_exception_table and not VERSION.removes_dead_code_to_label_only
    assert (loop.overrun is not None) == runs_on
    if runs_on:
        assert loop.overrun == loop.last + 1 and r.table.handler_overrun == {loop.header: loop.overrun}


def test_a_returning_block_after_the_last_continue_belongs_to_the_body():
    r = Read("""
        def f(events, block):
            while True:
                event = get()
                if event is None:
                    if block:
                        continue
                    return fail()
                use(event)
                return done()
    """)
    loop = r.only_region()
    # The body leaves for two places past the `continue`: the block that returns `fail()` is
    # the body's, the last one (`use`, `done`) the loop's way out.
    assert loop.returning_tail and r.table.returning_tails == {loop.header}
    assert r.holds(loop, "get") and r.holds(loop, "fail")
    assert not r.holds(loop, "use") and not r.holds(loop, "done")


def test_a_while_ending_a_loop_body_keeps_its_returning_tail():
    r = Read("""
        def f(items, n):
            for item in items:
                turns = 0
                while turns < 1:
                    turns += 1
                    if not check(n + turns):
                        continue
                    use(item)
                    return done()
            return fail()
    """)
    inner = r.region_holding("check")
    assert r.instrs[inner.header].opname != "FOR_ITER"  # (the while, inside the for loop)
    test = next(k for k in range(inner.header, len(r.instrs)) if r.instrs[k].opname in COND_JUMPS)
    leave = r.instrs[test + 1]
    back = r.instrs[test].target < inner.header  # (3.8/3.9: a conditional jump back)
    over = r.instrs[test].target == test + 2 and leave.opname == "JUMP" and leave.target < inner.header
    if not (back or over):
        pytest.skip("the while's test leaves by a jump forward here (or one laid after the loop)")
    # The while's test leaves by a jump back to the for loop's head (3.12/3.13: a jump over a
    # jump back), so the one exit forward, past its last `continue`, is the body's returning tail.
    assert r.holds(inner, "use") and r.holds(inner, "done")
    assert not r.holds(inner, "fail")


def test_yield_from_and_await_are_no_loops():
    r = Read("""
        def f():
            yield from g()
    """)
    assert not r.table.regions
    r = Read("""
        async def f():
            await g()
    """)
    assert not r.table.regions


def test_async_for_is_a_loop():
    r = Read("""
        async def f(xs):
            async for x in xs:
                use(x)
            after()
    """)
    loop = r.only_region()
    assert r.holds(loop, "use") and not r.holds(loop, "after")


def test_the_table_and_its_regions_are_frozen():
    r = Read("""
        def f(xs):
            for x in xs:
                use(x)
    """)
    loop = r.only_region()
    with pytest.raises(dataclasses.FrozenInstanceError):
        loop.last = 0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.table.handler_closed = frozenset()  # type: ignore[misc]
    with pytest.raises(TypeError):
        r.table.regions[loop.header] = loop  # type: ignore[index]
    with pytest.raises(TypeError):
        r.table.loop_end[loop.header] = 0  # type: ignore[index]


def test_the_builder_reads_the_tables_of_its_loops():
    r = Read("""
        def f(rows):
            for row in rows:
                while True:
                    if a(row):
                        continue
                    try:
                        return g(row)
                    except E:
                        continue
    """)
    table, builder = r.table, r.builder
    assert dict(builder.loop_end) == dict(table.loop_end) == {h: x.last for h, x in table.regions.items()}
    assert builder.handler_closed == table.handler_closed
    assert dict(builder.handler_overrun) == dict(table.handler_overrun)
    assert builder.returning_tails == table.returning_tails
    assert dict(builder.loop_extra_headers) == dict(table.extra_headers)


def _definitions(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _definitions(const)


@pytest.mark.parametrize("module", MODULES + ("contextlib", "tempfile", "shutil", "subprocess"))
def test_loops_of_the_standard_library_nest_or_are_apart(module):
    """On real code every loop lies in the code, its other headers inside it, and two loops are
    nested or apart: never overlapping (the overlap of 3.10+ tests is merged away)."""
    path = module_path(module)
    code = compile(path.read_text(encoding="utf-8"), str(path), "exec")
    seen = 0
    for definition in _definitions(code):
        builder = _reader(definition)
        regions = list(loop_table(builder.graph, builder).regions.values())
        seen += len(regions)
        for r in regions:
            assert 0 <= r.header <= r.last < len(builder.instrs), (definition.co_name, r)
            assert all(r.header < h <= r.last for h in r.other_headers), (definition.co_name, r)
            if r.overrun is not None:
                assert r.overrun == r.last + 1
        for a in regions:
            for b in regions:
                if a.header < b.header:
                    assert b.last <= a.last or b.header > a.last, (definition.co_name, a, b)
    assert seen > 0
