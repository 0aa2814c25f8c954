"""with / async with found on the graph (depyf.decompiler.structure.with_regions), on the
running version's own compiled code.

The assertions are about the source: "the body calls g and not h", "the manager's suppressed
exception goes on to the call after the with", "a return in the body leaves through an exit call
of its own". They hold on every version 3.8-3.15, whatever the layout."""
from __future__ import annotations

import types
from typing import List

import pytest

from depyf.decompiler import passes
from depyf.decompiler.graph import FlowGraph
from depyf.decompiler.instructions import Bytecode
from depyf.decompiler.structure.with_regions import WithStatement, WithTable, with_table
from depyf.decompiler.versions import host

from .stdlib_sample import MODULES, module_path
from .support import compiled_definition

VERSION = host()


class Read:
    """A function's canonical bytecode (what the rules read) and its with table."""

    def __init__(self, source: str, name: str = "f") -> None:
        self.bytecode: Bytecode = passes.read(compiled_definition(source, name), VERSION)
        self.graph = FlowGraph.of(self.bytecode)
        self.table: WithTable = with_table(self.graph)

    def load(self, name: str) -> int:
        for ins in self.bytecode.instrs:
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_FAST") and ins.argval == name:
                return ins.index
        raise LookupError(name)

    def calls(self, name: str) -> List[int]:
        return [ins.index for ins in self.bytecode.instrs
                if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and ins.argval == name]

    def statement_of(self, manager: str) -> WithStatement:
        """The with statement whose manager is the local `manager` (its load right before the setup)."""
        k = self.load(manager)
        found = [s for s in self.table.statements if k < s.setup <= k + 1]
        assert len(found) == 1, (manager, self.table.statements)
        return found[0]

    def in_body(self, statement: WithStatement, name: str) -> bool:
        """Is a call of `name` protected by `statement`'s handler, innermost?"""
        return any(statement.region.covers(k) for k in self.calls(name))

    def goes_on_to_call(self, statement: WithStatement, name: str) -> bool:
        """After a suppressed exception, does the statement go on to the call of `name` (the
        code after the with, or the copy of it 3.12+ lay with the handler)?"""
        way_on = statement.handler.goes_to if statement.handler.goes_to is not None else statement.handler.way_on
        instrs = self.bytecode.instrs
        k = way_on
        while k is not None and k < len(instrs) and instrs[k].opname in ("NOP", "JUMP"):
            k = instrs[k].target if instrs[k].opname == "JUMP" else k + 1
        return k is not None and k in self.calls(name)


def test_the_table_is_kept_with_the_graph() -> None:
    read = Read("def f(a):\n    with a:\n        g()\n")
    assert with_table(read.graph) is read.table


def test_no_with() -> None:
    read = Read("def f(a):\n    return a\n")
    assert read.table.statements == () and read.table.exit_calls == ()


def test_plain_with() -> None:
    read = Read("""
        def f(a):
            with a as x:
                g(x)
            h()
    """)
    (w,) = read.table.statements
    assert not w.is_async
    assert read.in_body(w, "g") and not read.in_body(w, "h")
    assert read.table.at_setup(w.setup) is w and read.table.by_handler(w.handler.start) is w
    assert w.body_start == w.setup + 1
    exit_ = w.normal_exit
    assert exit_ is not None and exit_.owner == w.setup
    assert exit_ in w.exits and read.table.exit_call_at(exit_.start) is exit_
    # the handler's way on after a suppressed exception is the code after the with
    assert w.handler.start < w.handler.end
    assert read.goes_on_to_call(w, "h")


def test_async_with() -> None:
    read = Read("""
        async def f(a):
            async with a as y:
                g(y)
            h()
    """)
    (w,) = read.table.statements
    assert w.is_async and read.in_body(w, "g") and not read.in_body(w, "h")
    assert w.body_start > w.setup
    assert w.normal_exit is not None and w.normal_exit.owner == w.setup


def test_nested_and_multiple_items() -> None:
    read = Read("""
        def f(a, b, c):
            with a, b:
                g()
            with c:
                with a:
                    k()
                m()
    """)
    assert len(read.table.statements) == 4
    a, b = read.statement_of("a"), read.statement_of("b")
    assert a.region.covers(b.setup) and read.in_body(b, "g") and not read.in_body(a, "g")
    assert b.handler.start != a.handler.start
    c = read.table.statements[2]
    inner = read.table.statements[3]
    assert read.in_body(c, "m") and not read.in_body(inner, "m") and read.in_body(inner, "k")
    # each exit call leaves the innermost with around the code leading to it
    owners = {e.owner for e in read.table.exit_calls}
    assert {s.setup for s in read.table.statements} <= owners


def test_return_in_body_leaves_by_its_own_exit() -> None:
    read = Read("""
        def f(a, x):
            with a:
                if x:
                    return g()
                h()
            m()
    """)
    (w,) = read.table.statements
    assert len(w.exits) == 2
    instrs = read.bytecode.instrs
    returning = [e for e in w.exits if any(instrs[k].opname == "RETURN_VALUE" for k in range(e.end, e.end + 2))]
    assert returning and returning[0].start < returning[0].call  # (the value swapped under the exit)


@pytest.mark.parametrize("leave", ["break", "continue", "return"])
def test_with_in_loop(leave: str) -> None:
    read = Read(f"""
        def f(a, xs):
            for x in xs:
                with a:
                    if x:
                        {leave}
                    g()
            h()
    """)
    (w,) = read.table.statements
    assert read.in_body(w, "g") and not read.in_body(w, "h")
    # one exit call on the way out by `leave`, one at the body's end
    assert len(w.exits) == 2 and all(e.owner == w.setup for e in w.exits)
    assert len({e.end for e in w.exits}) == 2
    assert w.handler.way_on is not None


def test_suppressing_manager_goes_on_after_the_with() -> None:
    read = Read("""
        def f(a):
            with a:
                raise E
            h()
    """)
    (w,) = read.table.statements
    # (the body never ends normally: 3.8 keeps the dead `POP_BLOCK; BEGIN_FINALLY` after the raise)
    dead = read.graph.unreachable_instructions()
    assert all(e.start in dead for e in w.exits)
    assert read.goes_on_to_call(w, "h")


def test_with_in_try() -> None:
    read = Read("""
        def f(a):
            try:
                with a:
                    g()
            except E:
                h()
    """)
    (w,) = read.table.statements
    assert read.in_body(w, "g") and not read.in_body(w, "h")
    around = read.graph.region_at(w.setup)
    assert around is not None and around.handler != w.handler.start
    assert read.table.handlers_in(0, len(read.bytecode.instrs)) == (w,)
    assert read.table.in_range(0, w.setup) == () and read.table.in_range(w.setup, w.setup + 1) == (w,)


def _codes(code: types.CodeType):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


@pytest.mark.parametrize("module", MODULES + ("contextlib", "tempfile", "shutil", "subprocess"))
def test_stdlib_withs_found(module: str) -> None:
    """Every with setup of the sample has its statement, and every exit call after a reached
    body an owner among them."""
    path = module_path(module)
    top = compile(path.read_text(encoding="utf-8"), str(path), "exec")
    for code in _codes(top):
        bytecode = passes.read(code, VERSION)
        graph = FlowGraph.of(bytecode)
        table = with_table(graph)
        enters = {"BEFORE_WITH", "BEFORE_ASYNC_WITH"} if VERSION.has_exception_table \
            else {"SETUP_WITH", "SETUP_ASYNC_WITH"}
        setups = [ins.index for ins in bytecode.instrs if ins.opname in enters]
        assert [s.setup for s in table.statements] == setups, code
        dead = graph.unreachable_instructions()
        known = {s.setup for s in table.statements}
        for call in table.exit_calls:
            assert call.owner in known or call.start in dead or call.start - 1 in dead, (code, call)


def test_last_with_of_a_range() -> None:
    """The last statement of an if body, a with holding another: the outer one."""
    read = Read("""
        def f(a, b, c):
            if c:
                g()
                with a:
                    with b:
                        return k()
            m()
    """)
    outer, inner = read.statement_of("a"), read.statement_of("b")
    start, end = read.calls("g")[0], read.calls("m")[0]
    assert read.table.last_in(start, end) is outer
    assert read.table.last_in(inner.setup, end) is inner
    assert read.table.last_in(end, end + 1) is None
