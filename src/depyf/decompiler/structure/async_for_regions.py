"""async for loops, found on the graph: one description for every version 3.8-3.15.

An async for asks the iterator for its next value (GET_ANEXT and the await of it) under the
protection of a handler, END_ASYNC_FOR, which ends the loop when that await raises
StopAsyncIteration; the body starts with the store of the target. The graph gives both
exception models as the same handler labels, so the loop is found alike:

| part | 3.8-3.10 | 3.11+ |
|---|---|---|
| `header` (the loop's head) | `SETUP_FINALLY end; GET_ANEXT; LOAD_CONST None; YIELD_FROM; POP_BLOCK` | `GET_ANEXT; LOAD_CONST None; SEND ...` (the await's SEND loop) |
| `end_async_for` | the SETUP_FINALLY's target | the handler of the table entry at GET_ANEXT (kind `asyncfor`) |
| `body_start` | past the POP_BLOCK | the SEND's target, past END_SEND (3.12+) |

Where the body ends, where a `break` goes and what comes after the loop are the reader's
(they depend on the loop's last jump back and the code around it). `async_for_at(graph, h)`
is made once per header and kept with the graph (`FlowGraph.kept_at`).
"""
from dataclasses import dataclass
from typing import Optional, Tuple, Union

from depyf.decompiler.graph.cfg import FlowGraph
from depyf.decompiler.structure.handler_kinds import handler_kind

_AWAIT_38 = ("GET_ANEXT", "LOAD_CONST", "YIELD_FROM", "POP_BLOCK")


@dataclass(frozen=True)
class AsyncForLoop:
    """The async for whose head is `header` (see the module's table)."""

    header: int
    end_async_for: int
    body_start: int


# (where and why the code at a header is no async for this reads: a reader fails there)
NotAnAsyncFor = Tuple[int, str]


def async_for_at(graph: FlowGraph, header: int) -> Union[AsyncForLoop, NotAnAsyncFor]:
    """The async for at `header` (3.8-3.10: its SETUP_FINALLY; 3.11+: its GET_ANEXT), or
    where and why there is none."""
    return graph.kept_at("async_for", header, _find)


def _find(graph: FlowGraph, h: int) -> Union[AsyncForLoop, NotAnAsyncFor]:
    if graph.version.has_exception_table:
        return _table_loop(graph, h)
    return _block_stack_loop(graph, h)


def _block_stack_loop(graph: FlowGraph, h: int) -> Union[AsyncForLoop, NotAnAsyncFor]:
    instrs = graph.instrs
    if not all(h + 1 + n < len(instrs) and instrs[h + 1 + n].opname == op for n, op in enumerate(_AWAIT_38)):
        return h, "unrecognised async for loop"
    handler = instrs[h].target
    if handler is None or handler >= len(instrs) or instrs[handler].opname != "END_ASYNC_FOR":
        return h, "async for loop without END_ASYNC_FOR"
    return AsyncForLoop(h, handler, h + 1 + len(_AWAIT_38))


def _table_loop(graph: FlowGraph, h: int) -> Union[AsyncForLoop, NotAnAsyncFor]:
    instrs = graph.instrs
    region = graph.region_at(h)
    if region is None or handler_kind(graph, region.handler) != "asyncfor":
        return h, "async for without END_ASYNC_FOR"
    send = _next_send(graph, h)
    if send is None:
        return h, "async for without the await of its next value"
    start = instrs[send].target
    assert start is not None
    if start < len(instrs) and instrs[start].opname == "END_SEND":
        start += 1
    return AsyncForLoop(h, region.handler, start)


def _next_send(graph: FlowGraph, h: int) -> Optional[int]:
    instrs = graph.instrs
    k = h + 1
    while k < len(instrs) and instrs[k].opname != "SEND":
        k += 1
    return k if k < len(instrs) else None
