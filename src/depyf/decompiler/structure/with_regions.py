"""with / async with, found on the graph: one description for every version 3.8-3.15.

A with statement is a setup instruction that enters the manager, a protected region (the body)
whose handler calls `__exit__` with the exception, and on every normal way out of the body a
copy of `__exit__(None, None, None)`. The graph gives both versions' exceptions as the same
`ProtectedRegion`s (3.11+ from the exception table, 3.8-3.10 lifted from the block stack), so
the statement is found alike; what differs is spelled by a few instruction sequences, chosen by
`versions.py` capabilities (`has_exception_table`, `uses_call_finally`).

| part | 3.8 | 3.9/3.10 | 3.11+ |
|---|---|---|---|
| setup | SETUP_WITH / SETUP_ASYNC_WITH (its target the handler) | the same | BEFORE_WITH / BEFORE_ASYNC_WITH (+ the await of `__aenter__`) |
| exit call | `POP_BLOCK; [ROT_TWO]; BEGIN_FINALLY; WITH_CLEANUP_START; [await]; WITH_CLEANUP_FINISH; POP_FINALLY 0`, or `POP_BLOCK; BEGIN_FINALLY` falling into the handler | `POP_BLOCK; [ROT_TWO]; LOAD_CONST None; DUP_TOP; DUP_TOP; CALL_FUNCTION 3; [await]; POP_TOP` | `[SWAP 2]; LOAD_CONST None x3; CALL 2; [await]; POP_TOP` |
| handler | `WITH_CLEANUP_START; [await]; WITH_CLEANUP_FINISH; END_FINALLY` | `WITH_EXCEPT_START; [await]; POP_JUMP_IF_TRUE s; RERAISE; s: POP_TOP x3; POP_EXCEPT; POP_TOP` | `PUSH_EXC_INFO; WITH_EXCEPT_START; [await]; [TO_BOOL]; POP_JUMP_IF_TRUE s; RERAISE 2; s: POP_TOP; POP_EXCEPT; POP_TOP; POP_TOP` |

`with_table(graph)` is made once per graph and kept with it (`FlowGraph.kept`): immutable
values, asked by the with rules (table_with.py, block_with.py, and the try rules that step over
a with's handler) instead of finding these parts while reading.
"""
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from depyf.decompiler.graph.cfg import FlowGraph
from depyf.decompiler.graph.regions import ProtectedRegion
from depyf.decompiler.instructions import Instr

_SETUPS = frozenset({"SETUP_WITH", "SETUP_ASYNC_WITH"})
_ENTERS = frozenset({"BEFORE_WITH", "BEFORE_ASYNC_WITH"})
_ASYNC = frozenset({"SETUP_ASYNC_WITH", "BEFORE_ASYNC_WITH"})
_AWAIT_38 = ("GET_AWAITABLE", "LOAD_CONST", "YIELD_FROM")
_CALL_39 = ("LOAD_CONST", "DUP_TOP", "DUP_TOP", "CALL_FUNCTION")
_CLEANUP_38 = ("BEGIN_FINALLY", "WITH_CLEANUP_START")
# (how far a handler's suppression test may lie from its start: the await of `__aexit__`)
_TEST_REACH = 16


@dataclass(frozen=True)
class ExitCall:
    """`__exit__(None, None, None)` on a normal way out of a with body: the instructions
    [start, end), stepped over as no source. `call`: where the call itself starts (`start` is one
    before it where a returned value is swapped under the exit first: SWAP 2 / ROT_TWO).
    `owner`: the setup of the with it leaves (the innermost with region around the code that
    leads there), None where none is found. 3.8's `POP_BLOCK; BEGIN_FINALLY` that falls into
    the handler (the handler is the normal exit too) has `into_handler`."""

    start: int
    call: int
    end: int
    owner: Optional[int]
    into_handler: bool = False


@dataclass(frozen=True)
class WithHandler:
    """The handler of a with body: it calls `__exit__` with the exception. [start, end) is its
    own code; `test` the jump taken when `__exit__` suppressed it (None on 3.8, whose
    END_FINALLY decides), `suppressed` where that path's pops start, and `way_on` where the
    statement goes on after a suppressed exception (past the pops: the code there, or a JUMP
    whose target is `goes_to`). `cleanup`: 3.11+'s `COPY 3; POP_EXCEPT; RERAISE 1` that the
    handler's own exceptions go to, where it is laid."""

    start: int
    test: Optional[int]
    suppressed: int
    way_on: Optional[int]
    end: int
    goes_to: Optional[int]
    cleanup: Optional[Tuple[int, int]]


@dataclass(frozen=True)
class WithStatement:
    """One with (or async with) statement: `setup` enters it, the body starts at `body_start`
    and is the code of `region` (its spans), `handler` is its exceptional exit and `exits` the
    copies of its normal exit, in order. `normal_exit`: the exit call the body's last protected
    instruction falls into, None where it leaves otherwise (a return, a break, a raise)."""

    setup: int
    is_async: bool
    body_start: int
    region: ProtectedRegion
    handler: WithHandler
    exits: Tuple[ExitCall, ...]

    @property
    def protected_end(self) -> int:
        """Past the last instruction the with's handler protects (the body's start where it
        protects nothing: a with in code that no path reaches)."""
        return self.region.spans[-1][1] if self.region.spans else self.body_start

    @property
    def normal_exit(self) -> Optional[ExitCall]:
        end = self.protected_end
        return next((e for e in self.exits if e.start == end), None)


@dataclass(frozen=True)
class WithTable:
    """The with statements of one code object, and every exit call, by where they start."""

    statements: Tuple[WithStatement, ...]
    exit_calls: Tuple[ExitCall, ...]
    _by_setup: Mapping[int, WithStatement] = field(repr=False, compare=False)
    _by_handler: Mapping[int, WithStatement] = field(repr=False, compare=False)
    _by_start: Mapping[int, ExitCall] = field(repr=False, compare=False)

    def at_setup(self, index: int) -> Optional[WithStatement]:
        return self._by_setup.get(index)

    def by_handler(self, handler: int) -> Optional[WithStatement]:
        return self._by_handler.get(handler)

    def exit_call_at(self, start: int) -> Optional[ExitCall]:
        return self._by_start.get(start)

    def in_range(self, start: int, end: int) -> Tuple[WithStatement, ...]:
        """The with statements entered in [start, end), in order."""
        return tuple(s for s in self.statements if start <= s.setup < end)

    def last_in(self, start: int, end: int) -> Optional[WithStatement]:
        """The last with statement of the range [start, end) that no other with of the range
        holds: where the range's last statement is a with, that one."""
        found = self.in_range(start, end)
        outer = [s for s in found if not any(o.setup < s.setup < o.protected_end for o in found)]
        return outer[-1] if outer else None

    def handlers_in(self, start: int, end: int) -> Tuple[WithStatement, ...]:
        """The with statements whose handler starts in [start, end), by where it starts."""
        return tuple(sorted((s for s in self.statements if start <= s.handler.start < end),
                            key=lambda s: s.handler.start))

    def suppressed_path_ends_at(self, index: int) -> bool:
        """3.9+: does a with handler's way after a suppressed exception (its pops) end right
        before `index`?"""
        return any(s.handler.test is not None and s.handler.way_on == index for s in self.statements)

    def handler_way_on(self, handler: int) -> Optional[int]:
        """Where the with whose handler starts at `handler` goes on after a suppressed exception."""
        statement = self._by_handler.get(handler)
        return statement.handler.way_on if statement is not None else None


def with_table(graph: FlowGraph) -> WithTable:
    """The with statements of `graph`'s code (made on first use, then kept with the graph)."""
    return graph.kept("with_table", _find)


def _find(graph: FlowGraph) -> WithTable:
    instrs = graph.instrs
    table_model = graph.version.has_exception_table
    names = graph.bytecode.opnames()
    if (_ENTERS if table_model else _SETUPS).isdisjoint(names):
        empty: Mapping = MappingProxyType({})
        return WithTable((), (), empty, empty, empty)
    calls = _exit_calls(graph)
    found: List[Tuple[int, bool, int, ProtectedRegion, WithHandler]] = []
    for i, ins in enumerate(instrs):
        if ins.opname in (_ENTERS if table_model else _SETUPS):
            statement = _statement(graph, i)
            if statement is not None:
                found.append(statement)
    by_owner: Dict[int, List[ExitCall]] = {}
    for call in calls:
        if call.owner is not None:
            by_owner.setdefault(call.owner, []).append(call)
    statements = tuple(WithStatement(i, is_async, start, region, handler, tuple(by_owner.get(i, ())))
                       for i, is_async, start, region, handler in found)
    return WithTable(statements, calls,
                     MappingProxyType({s.setup: s for s in statements}),
                     MappingProxyType({s.handler.start: s for s in statements}),
                     MappingProxyType({c.start: c for c in calls}))


def _statement(graph: FlowGraph, i: int) -> Optional[Tuple[int, bool, int, ProtectedRegion, WithHandler]]:
    """(setup, async, body start, region, handler) of the with entered at `i`, or None where
    the code there is no with this reads (no region, a handler of another shape)."""
    instrs = graph.instrs
    ins = instrs[i]
    if graph.version.has_exception_table:
        start = _body_start(instrs, i)
        if start >= len(instrs):
            return None
        region = graph.region_at(start)
        if region is None:
            return None
    else:
        start = i + 1
        region = next((r for r in graph.regions if r.setup == i), None)
        target = ins.target
        if region is None and target is not None:
            # (a with in code no path reaches, which 3.8/3.9 keep: the block stack never gets
            # there, so the region protects nothing)
            region = ProtectedRegion(target, (), (), None, None, i)
        if region is None:
            return None
    handler = _handler(graph, region.handler)
    if handler is None:
        return None
    return i, ins.opname in _ASYNC, start, region, handler


def _body_start(instrs: Sequence[Instr], i: int) -> int:
    """3.11+: the first instruction of the body of the with entered at `i` (past an async
    with's await of `__aenter__`: its SEND's target, past END_SEND)."""
    if instrs[i].opname == "BEFORE_WITH":
        return i + 1
    k = i + 1
    while k < len(instrs) and instrs[k].opname != "SEND":
        k += 1
    if k >= len(instrs):
        return i + 1
    start = instrs[k].target
    assert start is not None
    if start < len(instrs) and instrs[start].opname == "END_SEND":
        start += 1
    return start


def _ops_at(instrs: Sequence[Instr], k: int, ops: Sequence[str]) -> bool:
    return k + len(ops) <= len(instrs) and all(instrs[k + n].opname == op for n, op in enumerate(ops))


def _handler(graph: FlowGraph, h: int) -> Optional[WithHandler]:
    """The handler at `h` as a with's, or None where it is no with handler."""
    instrs = graph.instrs
    table_model = graph.version.has_exception_table
    size = len(instrs)
    if h >= size:
        return None
    op = instrs[h].opname
    if op == "WITH_CLEANUP_START":  # 3.8: the exit decides in END_FINALLY
        k = h + 1 + (3 if _ops_at(instrs, h + 1, _AWAIT_38) else 0)
        if not _ops_at(instrs, k, ("WITH_CLEANUP_FINISH", "END_FINALLY")):
            return None
        end = k + 2
        return WithHandler(h, None, k + 1, end if end < size else None, end, None, None)
    first = h + 1 if table_model else h
    if not (table_model and op == "PUSH_EXC_INFO" or not table_model) \
            or first >= size or instrs[first].opname != "WITH_EXCEPT_START":
        return None
    test = first + 1
    while test < size and test < h + _TEST_REACH and instrs[test].opname != "POP_JUMP_IF_TRUE":
        test += 1
    if test >= size or instrs[test].opname != "POP_JUMP_IF_TRUE":
        return None
    s = instrs[test].target
    assert s is not None
    pops = ("POP_TOP", "POP_EXCEPT", "POP_TOP", "POP_TOP") if table_model \
        else ("POP_TOP", "POP_TOP", "POP_TOP", "POP_EXCEPT", "POP_TOP")
    if not _ops_at(instrs, s, pops):
        return None
    way_on = s + len(pops)
    cleanup = None
    around = graph.region_at(h) if table_model else None
    if around is not None and _ops_at(instrs, around.handler, ("COPY", "POP_EXCEPT", "RERAISE")):
        cleanup = (around.handler, around.handler + 3)
    goes_to = None
    if way_on < size and instrs[way_on].opname == "JUMP":
        goes_to = instrs[way_on].target
    return WithHandler(h, test, s, way_on if way_on < size else None, way_on, goes_to, cleanup)


def _exit_calls(graph: FlowGraph) -> Tuple[ExitCall, ...]:
    """Every `__exit__(None, None, None)` sequence of the code, with the with it leaves."""
    instrs = graph.instrs
    out: List[ExitCall] = []
    table_model = graph.version.has_exception_table
    for k, ins in enumerate(instrs):
        if table_model:
            call = _table_exit_call(graph, k) if ins.opname == "LOAD_CONST" else None
        elif graph.version.uses_call_finally:
            call = _exit_call_38(graph, k) if ins.opname == "BEGIN_FINALLY" else None
        else:
            call = _exit_call_39(graph, k) if ins.opname == "LOAD_CONST" else None
        if call is not None:
            out.append(call)
    return tuple(out)


def _past_await(instrs: Sequence[Instr], end: int) -> Optional[int]:
    """3.11+: past the await of an `__aexit__` call at `end` (its SEND's target, END_SEND), or
    `end` where no await follows; None where the SEND is missing."""
    size = len(instrs)
    if end >= size or instrs[end].opname != "GET_AWAITABLE":
        return end
    j = end
    while j < size and instrs[j].opname != "SEND":
        j += 1
    if j >= size:
        return None
    past = instrs[j].target
    assert past is not None
    if past < size and instrs[past].opname == "END_SEND":
        past += 1
    return past


def _table_exit_call(graph: FlowGraph, k: int) -> Optional[ExitCall]:
    """3.11+: `[SWAP 2]; LOAD_CONST None x3; CALL 2; [await]; POP_TOP [; SWAP 2; POP_EXCEPT]` at `k`."""
    instrs = graph.instrs
    size = len(instrs)
    if not (k + 4 < size and all(instrs[k + n].opname == "LOAD_CONST" and instrs[k + n].argval is None
                                 for n in range(3))
            and instrs[k + 3].opname == "CALL" and instrs[k + 3].arg == 2):
        return None
    end = _past_await(instrs, k + 4)
    if end is None or end >= size or instrs[end].opname != "POP_TOP":
        return None
    first = k - 1 if k >= 1 and instrs[k - 1].opname == "SWAP" and instrs[k - 1].arg == 2 else k
    last = end + 1
    if first < k and last + 1 < size and instrs[last].opname == "SWAP" and instrs[last].arg == 2 \
            and instrs[last + 1].opname == "POP_EXCEPT":
        # (a return from a with inside an except clause puts the value back below the exception
        # the clause restores)
        last += 1
    return ExitCall(first, k, last, _table_owner(graph, first))


def _table_owner(graph: FlowGraph, first: int) -> Optional[int]:
    """3.11+: the with whose body leads to the exit call at `first` (the exit call itself lies
    outside it): the first with handler on the handler chain of the instruction falling into it
    or of a jump to it. (A `return` inside a try inside the with loads its value under the
    try's protection: the try's handler, then that handler's cleanup, are protected by the with.)"""
    instrs = graph.instrs
    sources = list(graph.jump_sources(first))
    if first > 0 and instrs[first - 1].opname not in ("JUMP", "RETURN_VALUE", "RETURN_CONST", "RERAISE",
                                                       "RAISE_VARARGS"):
        sources.insert(0, first - 1)
    for src in sources:
        region = graph.region_at(src)
        seen = set()
        while region is not None and region.handler not in seen:
            setup = _enter_of(graph, region)
            if setup is not None:
                return setup
            seen.add(region.handler)
            region = graph.region_at(region.handler) if region.handler < graph.size else None
    return None


def _enter_of(graph: FlowGraph, region: ProtectedRegion) -> Optional[int]:
    """3.11+: the BEFORE_WITH / BEFORE_ASYNC_WITH whose body `region` protects (its handler a with
    handler), or None."""
    instrs = graph.instrs
    h = region.handler
    if h + 1 >= len(instrs) or instrs[h].opname != "PUSH_EXC_INFO" or instrs[h + 1].opname != "WITH_EXCEPT_START":
        return None
    first = region.spans[0][0]
    k = first - 1
    while k >= 0 and instrs[k].opname not in _ENTERS:
        k -= 1
        if k < first - 8:  # (an async with's await of `__aenter__` lies in between)
            return None
    return k if k >= 0 and _body_start(instrs, k) == first else None


def _popped_with(graph: FlowGraph, pop: int) -> Optional[int]:
    """3.8-3.10: the SETUP_WITH / SETUP_ASYNC_WITH whose block the POP_BLOCK at `pop` pops."""
    instrs = graph.instrs
    if pop < 0 or instrs[pop].opname != "POP_BLOCK":
        return None
    stacks = graph.block_stacks
    if not stacks:
        return None
    b = graph.table.number_of(pop)
    stack = stacks[b]
    # (the block of the POP_BLOCK starts with the stack it pops from)
    setup = stack[-1] if stack else None
    return setup if setup is not None and instrs[setup].opname in _SETUPS else None


def _exit_call_39(graph: FlowGraph, k: int) -> Optional[ExitCall]:
    """3.9/3.10: `POP_BLOCK; [ROT_TWO]; LOAD_CONST None; DUP_TOP; DUP_TOP; CALL_FUNCTION 3;
    [await]; POP_TOP` at `k`, the call's first instruction."""
    instrs = graph.instrs
    if not (_ops_at(instrs, k, _CALL_39) and instrs[k].argval is None):
        return None
    end = k + 4 + (3 if _ops_at(instrs, k + 4, _AWAIT_38) else 0)
    if end >= len(instrs) or instrs[end].opname != "POP_TOP":
        return None
    first = k - 1 if k >= 1 and instrs[k - 1].opname == "ROT_TWO" else k
    return ExitCall(first, k, end + 1, _popped_with(graph, first - 1))


def _exit_call_38(graph: FlowGraph, k: int) -> Optional[ExitCall]:
    """3.8: `POP_BLOCK; [ROT_TWO]; BEGIN_FINALLY; WITH_CLEANUP_START; [await]; WITH_CLEANUP_FINISH;
    POP_FINALLY 0` at `k` (the BEGIN_FINALLY), or `POP_BLOCK; BEGIN_FINALLY` falling into the
    with's handler (its owner the with of that handler, reached or not)."""
    instrs = graph.instrs
    if k >= 1 and instrs[k - 1].opname == "POP_BLOCK" and k + 1 < len(instrs) \
            and instrs[k + 1].opname == "WITH_CLEANUP_START":
        owner = next((j for j in graph.jump_sources(k + 1) if instrs[j].opname in _SETUPS), None)
        if owner is not None:
            return ExitCall(k, k, k + 1, owner, into_handler=True)
    first = k - 1 if k >= 1 and instrs[k - 1].opname == "ROT_TWO" else k
    owner = _popped_with(graph, first - 1)
    if owner is None or not _ops_at(instrs, k, _CLEANUP_38):
        return None
    j = k + 2 + (3 if _ops_at(instrs, k + 2, _AWAIT_38) else 0)
    if not _ops_at(instrs, j, ("WITH_CLEANUP_FINISH", "POP_FINALLY")):
        return None
    return ExitCall(first, k, j + 2, owner)
