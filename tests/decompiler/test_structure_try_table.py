"""The try statements of 3.11+ code (depyf.decompiler.structure.try_table), read from the
running version's own exception table: the assertions name the source ("the with inside the
try", "the finally around the except"), never one version's instruction numbers."""
from __future__ import annotations

import dataclasses
import types
from typing import Iterator

import pytest

from depyf.decompiler import passes
from depyf.decompiler.graph import FlowGraph
from depyf.decompiler.structure.try_table import TryTable, try_table
from depyf.decompiler.versions import host

from .stdlib_sample import module_path
from .support import compiled_definition, first_load_of

VERSION = host()
pytestmark = pytest.mark.skipif(not VERSION.has_exception_table, reason="the 3.11+ exception table")


class Table:
    def __init__(self, source: str, name: str = "f") -> None:
        code = compiled_definition(source, name)
        self.graph = FlowGraph.of(passes.lay_out(passes.read(code, VERSION)))
        self.instrs = self.graph.instrs
        self.table: TryTable = try_table(self.graph)

    def call(self, name: str) -> int:
        return first_load_of(self.instrs, name)

    def kinds_around(self, name: str):
        return [self.table.kinds[t] for t in self.table.chain(self.call(name))]


def test_a_try_starts_at_its_first_protected_instruction():
    t = Table("""
        def f():
            before()
            try:
                g()
            except E:
                h()
    """)
    (start, handlers), = t.table.try_starts.items()
    (handler,) = handlers
    assert t.table.kinds[handler] == "except"
    assert start <= t.call("g") and start > t.call("before")
    assert t.table.first_protected[handler] == start
    assert t.kinds_around("g") == ["except"]
    # (the clause's own code is protected by the cleanup that restores the previous
    # exception: no statement encloses it)
    assert t.table.chain(t.call("h")) == ()
    assert t.table.chain(t.call("before")) == ()


def test_statements_enclose_each_other_innermost_first():
    t = Table("""
        def f():
            try:
                with m:
                    g()
            finally:
                done()
    """)
    assert t.kinds_around("g") == ["with", "finally"]


def test_tries_starting_together_are_listed_outermost_first():
    t = Table("""
        def f():
            try:
                try:
                    g()
                except E:
                    h()
            finally:
                done()
    """)
    starts = [ts for ts in t.table.try_starts.values() if len(ts) == 2]
    assert len(starts) == 1
    outer, inner = starts[0]
    assert (t.table.kinds[outer], t.table.kinds[inner]) == ("finally", "except")
    assert t.table.handler_chain(inner)[:1] == (inner,)


def test_the_table_is_made_once_and_frozen():
    t = Table("def f():\n try:\n  g()\n except E:\n  pass\n")
    assert try_table(t.graph) is t.table
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.table.kinds = {}  # type: ignore[misc]
    with pytest.raises(TypeError):
        t.table.kinds[0] = "except"  # type: ignore[index]


def _definitions(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _definitions(const)


@pytest.mark.parametrize("module", ("contextlib", "tempfile", "shutil", "subprocess", "argparse"))
def test_the_tries_of_the_standard_library(module):
    """Each try starts where the statements enclosing it first include it, at or before the
    first instruction its own entries protect, and is a try's handler."""
    path = module_path(module)
    seen = 0
    for definition in _definitions(compile(path.read_text(encoding="utf-8"), str(path), "exec")):
        graph = FlowGraph.of(passes.lay_out(passes.read(definition, VERSION)))
        table = try_table(graph)
        for start, handlers in table.try_starts.items():
            chain = table.chain(start)
            assert [t for t in chain if t in handlers] == list(reversed(handlers)), (definition.co_name, start)
            for t in handlers:
                seen += 1
                assert table.kinds[t] in ("except", "finally", "star")
                assert start <= table.first_protected[t], (definition.co_name, t)
                assert table.handler_chain(t)[0] == t
    assert seen > 0
