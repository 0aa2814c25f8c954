"""async for loops (depyf.decompiler.structure.async_for_regions), on the running version's own
compiled code: the assertions name the source ("the body stores x, then calls g"); where the
exception models differ, the expectation asks versions.py's `has_exception_table`."""
from __future__ import annotations

import dataclasses
import types
from typing import Iterator, List

import pytest

from depyf.decompiler import passes
from depyf.decompiler.graph import FlowGraph
from depyf.decompiler.structure.async_for_regions import AsyncForLoop, async_for_at
from depyf.decompiler.versions import host

from .support import compiled_definition, first_load_of

VERSION = host()

NESTED = """
    async def f():
        async for x in xs():
            g(x)
            async for y in ys():
                h(y)
        after()
"""


def _graph(code: types.CodeType) -> FlowGraph:
    return FlowGraph.of(passes.lay_out(passes.read(code, VERSION)))


def _headers(graph: FlowGraph) -> List[int]:
    """Where the async for loops of the code have their heads, by the versions' spelling."""
    anexts = [ins.index for ins in graph.instrs if ins.opname == "GET_ANEXT"]
    return anexts if VERSION.has_exception_table else [k - 1 for k in anexts]


def test_an_async_for_and_the_one_inside_it():
    graph = _graph(compiled_definition(NESTED))
    instrs = graph.instrs
    outer, inner = (async_for_at(graph, h) for h in _headers(graph))
    assert isinstance(outer, AsyncForLoop) and isinstance(inner, AsyncForLoop)
    for loop, target, call in ((outer, "x", "g"), (inner, "y", "h")):
        assert instrs[loop.end_async_for].opname == "END_ASYNC_FOR"
        # the body starts with the store of the target, before the code the body runs
        assert instrs[loop.body_start].opname.startswith("STORE_") and instrs[loop.body_start].argval == target
        assert loop.header < loop.body_start < first_load_of(instrs, call)
    assert outer.header < inner.header and outer.end_async_for != inner.end_async_for
    assert first_load_of(instrs, "after") > outer.body_start
    if not VERSION.has_exception_table:
        assert instrs[outer.header].opname == "SETUP_FINALLY" and instrs[outer.header].target == outer.end_async_for


def test_code_that_is_no_async_for():
    graph = _graph(compiled_definition(NESTED))
    at, reason = async_for_at(graph, first_load_of(graph.instrs, "after"))
    assert reason and 0 <= at < len(graph.instrs)


def test_made_once_and_frozen():
    graph = _graph(compiled_definition(NESTED))
    h = _headers(graph)[0]
    loop = async_for_at(graph, h)
    assert async_for_at(graph, h) is loop
    with pytest.raises(dataclasses.FrozenInstanceError):
        loop.body_start = 0  # type: ignore[union-attr,misc]


def _definitions(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _definitions(const)


def test_async_comprehensions_and_loops_in_try_and_with():
    """Every async for of a mixed sample is found, whatever holds it (a try, an async with, a
    comprehension inlined or not)."""
    source = """
async def f(ys):
    try:
        async for x in xs():
            g(x)
    except E:
        pass
    async with m:
        async for y in ys:
            if y:
                break
        else:
            h()
    return [z async for z in zs() if z], {k: v async for k, v in kv()}
"""
    seen = 0
    for code in _definitions(compile(source, "<test>", "exec")):
        graph = _graph(code)
        for h in _headers(graph):
            loop = async_for_at(graph, h)
            assert isinstance(loop, AsyncForLoop), (code.co_name, loop)
            assert graph.instrs[loop.end_async_for].opname == "END_ASYNC_FOR"
            seen += 1
    assert seen == 4
