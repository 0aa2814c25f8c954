"""The control-flow graph (depyf.decompiler.graph) on hand-written functions and a stdlib sample.

The assertions are about the source construct, so the same ones hold on every version: "the
loop's body holds the if", "the handler's region covers the try body", "the code after an if
post-dominates both branches". Where a version lays a construct out differently (a while test
copied to the bottom, a finally body copied onto each way out), the graph still has to say so.
"""
from __future__ import annotations

import dis
import sys
import types
from contextlib import contextmanager
from typing import Callable, Dict, Iterator, List, Optional, Set

import pytest

from depyf.decompiler import passes
from depyf.decompiler.graph import EXIT, EdgeKind, FlowGraph
from depyf.decompiler.graph.breaks import stray_break
from depyf.decompiler.instructions import Bytecode, decode
from depyf.decompiler.versions import host, host_is

from .stdlib_sample import MODULES, module_path
from .support import compiled_definition

# The stdlib sample's modules and a few with more try/with/async/loop shapes.
GRAPH_MODULES = MODULES + ("contextlib", "asyncio/tasks", "tarfile", "argparse", "shutil", "inspect")

VERSION = host()


# --- helpers ----------------------------------------------------------------------------------

class Read:
    """A function's decoded bytecode and graph, with lookups by the names its source calls."""

    def __init__(self, code: types.CodeType) -> None:
        self.code = code
        self.bytecode: Bytecode = decode(code, VERSION)
        self.graph = FlowGraph.of(self.bytecode)

    def load(self, name: str) -> int:
        """The index of the (first) instruction that loads the global `name`."""
        for ins in self.bytecode.instrs:
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and ins.argval == name:
                return ins.index
        raise LookupError(name)

    def block(self, name: str) -> int:
        """The label of the block that loads `name`."""
        return self.graph.block_at(self.load(name)).label

    def normal_reach(self, start: int) -> Set[int]:
        return set(self.graph.reachable([start], exceptions=False))

    def handler_code_ops(self, handler: int) -> Set[str]:
        instrs = self.bytecode.instrs
        return {instrs[k].opname for k in self.graph.reachable_instructions([handler], exceptions=False)}


def read(source: str, name: str = "f") -> Read:
    return Read(compiled_definition(source, name))


@contextmanager
def shallow_stack(frames: int = 60) -> Iterator[None]:
    """Run with little room for recursion: code that recursed once per block would fail."""
    depth = 0
    frame = sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def check_shape(g: FlowGraph, bytecode: Bytecode) -> None:
    """Properties every graph has: blocks tile the instructions, jump targets lead blocks, the
    edges agree in both directions, the dominator trees are consistent."""
    size = len(bytecode.instrs)
    blocks = g.blocks
    assert (blocks[0].start if blocks else 0) == 0
    assert (blocks[-1].end if blocks else 0) == size
    for a, b in zip(blocks, blocks[1:]):
        assert a.end == b.start and a.start < a.end
    labels = {b.label for b in blocks}
    for ins in bytecode.instrs:
        assert g.block_at(ins.index).start <= ins.index < g.block_at(ins.index).end
        if ins.target is not None and ins.target < size:
            assert ins.target in labels, f"jump target {ins.target} leads no block"
    out = {(e.source, e.target, e.kind) for e in g.edges()}
    into = {(e.source, e.target, e.kind) for b in blocks for e in g.predecessors(b.label)}
    assert out == into
    tree = g.dominator_tree
    for b in range(len(blocks)):
        if not tree.reached(b):
            continue
        parent = tree.idom[b]
        assert (parent is None) == (b == 0)
        if parent is not None:
            assert tree.dominates(parent, b) and not tree.dominates(b, parent)
    number = g.table.number_of
    for e in g.edges():
        u, v = number(e.source), number(e.target)
        if tree.reached(u) and v != 0:
            # (the immediate dominator of a block dominates each of its predecessors)
            assert tree.dominates(tree.idom[v], u)
    for loop in g.loops:
        for label in loop.body:
            assert g.dominates(loop.header, label)
        for latch in loop.latches:
            assert latch in loop.body


def naive_dominators(g: FlowGraph) -> Dict[int, Set[int]]:
    """Dominator sets by the textbook fixed point over every edge (for small graphs)."""
    labels = [b.label for b in g.blocks]
    reached = g.reachable([0])
    dom = {b: set(reached) for b in labels if b in reached}
    dom[0] = {0}
    changed = True
    while changed:
        changed = False
        for b in labels:
            if b == 0 or b not in reached:
                continue
            preds = [e.source for e in g.predecessors(b) if e.source in reached]
            new = set.intersection(*(dom[p] for p in preds)) | {b} if preds else {b}
            if new != dom[b]:
                dom[b], changed = new, True
    return dom


def handler_chain(g: FlowGraph, index: int) -> List[int]:
    """The handlers an exception at `index` passes through: its region's handler, then the
    handler of the region around that handler's code, and so on."""
    chain: List[int] = []
    region = g.region_at(index)
    while region is not None and region.handler not in chain:
        chain.append(region.handler)
        region = g.region_at(region.handler)
    return chain


# --- if / else --------------------------------------------------------------------------------

IF_ELSE = """
def f(a):
    if a:
        yes()
    else:
        no()
    after()
    again()
"""


def test_if_else_blocks_edges_and_dominators() -> None:
    r = read(IF_ELSE)
    g = r.graph
    check_shape(g, r.bytecode)
    yes, no, after = r.block("yes"), r.block("no"), r.block("after")
    assert len({yes, no, after}) == 3
    test = g.idom(yes)
    assert test is not None and g.idom(no) == test and g.idom(after) == test
    # the test's two conditional edges: truth True goes to `yes`, False to `no`
    cond = [e for e in g.successors(test) if e.kind is EdgeKind.CONDITIONAL]
    assert len(cond) == 2 and {e.jumps for e in cond} == {True, False}
    by_truth = {e.when: e.target for e in cond}
    assert by_truth == {True: yes, False: no}
    assert not g.dominates(yes, after) and not g.dominates(no, after)
    assert g.post_dominates(after, yes) and g.post_dominates(after, no) and g.post_dominates(after, test)
    assert g.ipdom(yes) == after and g.ipdom(no) == after
    assert g.loops == ()
    assert set(g.dominators(after)) == {after, test} | ({0} if test != 0 else set())
    assert g.regions == () or VERSION.has_exception_table  # (3.11+: only a generator's wrapper)


# --- loops ------------------------------------------------------------------------------------

WHILE = """
def f(n):
    i = 0
    while i < n:
        if i == 3:
            break
        if i == 1:
            i += 2
            continue
        body(i)
        i += 1
    else:
        done()
    after()
    again()
"""

FOR = """
def f(xs):
    for x in xs:
        if x:
            continue
        if x is None:
            break
        body(x)
    else:
        done()
    after()
    again()
"""


def outermost_loops(g: FlowGraph) -> list:
    return [loop for loop in g.loops if loop.parent is None]


def test_while_with_break_continue_else() -> None:
    r = read(WHILE)
    g = r.graph
    check_shape(g, r.bytecode)
    loops = outermost_loops(g)
    assert len(loops) == 1
    loop = loops[0]
    assert r.block("body") in loop.body
    for name in ("done", "after"):
        assert r.block(name) not in loop.body
    # the tests of both ifs are in the body: the blocks that branch inside it
    branching = [b for b in loop.body if any(e.kind is EdgeKind.CONDITIONAL for e in g.successors(b))]
    assert len(branching) >= 2
    assert loop.exits and all(target not in loop.body for _, target in loop.exits)
    assert g.post_dominates(r.block("after"), r.block("body"))


def test_for_with_break_continue_else() -> None:
    r = read(FOR)
    g = r.graph
    check_shape(g, r.bytecode)
    assert len(g.loops) == 1
    loop = g.loops[0]
    header = g.block(loop.header)
    assert r.bytecode.instrs[header.last].opname == "FOR_ITER"
    assert r.block("body") in loop.body
    assert r.block("done") not in loop.body and r.block("after") not in loop.body
    # `continue` and the body's end both go back to the FOR_ITER
    assert len(loop.latches) >= 2
    assert any(source == loop.header for source, _ in loop.exits)
    assert g.dominates(loop.header, r.block("body"))
    # the break skips the else part: `done` does not post-dominate the body
    assert not g.post_dominates(r.block("done"), r.block("body"))
    assert g.post_dominates(r.block("after"), r.block("body"))


def test_nested_loops_nest() -> None:
    depth = 15
    lines = ["def f(xs):"]
    for k in range(depth):
        lines.append("    " * (k + 1) + f"for x{k} in xs:")
    lines.append("    " * (depth + 1) + "inner()")
    lines.append("    after()")
    r = read("\n".join(lines) + "\n")
    g = r.graph
    check_shape(g, r.bytecode)
    assert len(g.loops) == depth
    assert sorted(loop.depth for loop in g.loops) == list(range(depth))
    inner = g.loop_of(r.block("inner"))
    assert inner is not None and inner.depth == depth - 1
    chain = 0
    while inner.parent is not None:
        outer = g.loops[inner.parent]
        assert inner.body < outer.body
        inner, chain = outer, chain + 1
    assert chain == depth - 1
    assert g.loop_of(r.block("after")) is None


def test_generator_loop() -> None:
    r = read("""
    def f(n):
        for i in range(n):
            yield i
        after()
    """)
    g = r.graph
    check_shape(g, r.bytecode)
    assert len(g.loops) == 1
    yields = [ins.index for ins in r.bytecode.instrs if ins.opname == "YIELD_VALUE"]
    assert yields and g.block_at(yields[0]).label in g.loops[0].body


def test_comprehension_loop() -> None:
    code = compiled_definition("""
    def f(xs):
        return [x * 2 for x in xs if x]
    """)
    # (3.12+ inline the comprehension into f; before, it is a code object of its own)
    reads = [Read(c) for c in [code] + [c for c in code.co_consts if isinstance(c, types.CodeType)]]
    looping = [r for r in reads if r.graph.loops]
    assert len(looping) == 1
    r = looping[0]
    check_shape(r.graph, r.bytecode)
    loop = r.graph.loops[0]
    assert r.bytecode.instrs[r.graph.block(loop.header).last].opname == "FOR_ITER"
    tests = [ins.index for ins in r.bytecode.instrs if ins.opname.startswith("POP_JUMP_IF")]
    assert tests and all(r.graph.block_at(k).label in loop.body for k in tests)
    appends = [ins.index for ins in r.bytecode.instrs if ins.opname == "LIST_APPEND"]
    assert appends and r.graph.block_at(appends[0]).label in loop.body


# --- exceptions -------------------------------------------------------------------------------

TRY = """
def f():
    try:
        try:
            body()
        except ValueError:
            recover()
    finally:
        cleanup()
    after()
    again()
"""


def test_nested_try_except_finally_regions() -> None:
    r = read(TRY)
    g = r.graph
    check_shape(g, r.bytecode)
    body, recover = r.load("body"), r.load("recover")
    inner = g.region_at(body)
    assert inner is not None and inner.covers(body)
    # the handler leads to the except clause, which only an exception reaches
    assert r.block("recover") in r.normal_reach(inner.handler)
    assert r.block("recover") not in r.normal_reach(0)
    assert r.block("recover") in g.reachable([0])
    assert g.dominates(r.block("body"), inner.handler)
    # the except clause is protected (through the clause's own cleanup, 3.11+) by the finally's
    # handler, whose code runs `cleanup`
    chain = handler_chain(g, recover)
    assert chain and inner.handler not in chain
    assert any("cleanup" in {r.bytecode.instrs[k].argval for k in g.reachable_instructions([h], False)}
               for h in chain)
    assert g.region_at(r.load("after")) is None
    for edge in g.edges():
        if edge.kind is EdgeKind.EXCEPTION:
            region = g.region_at(edge.source)
            assert region is not None and region.handler == edge.target
            if VERSION.has_exception_table:
                assert edge.depth is not None and edge.lasti is not None


def test_with_region() -> None:
    r = read("""
    def f():
        with cm() as c:
            use(c)
        after()
    """)
    g = r.graph
    check_shape(g, r.bytecode)
    region = g.region_at(r.load("use"))
    assert region is not None
    assert {"WITH_EXCEPT_START", "WITH_CLEANUP_START"} & r.handler_code_ops(region.handler)
    assert g.region_at(r.load("after")) is None
    assert g.dominates(r.block("use"), region.handler) or g.dominates(g.idom(r.block("use")), region.handler)


def test_async_with_region() -> None:
    r = read("""
    async def f():
        async with cm() as c:
            await use(c)
        after()
    """)
    g = r.graph
    check_shape(g, r.bytecode)
    region = g.region_at(r.load("use"))
    assert region is not None
    assert {"WITH_EXCEPT_START", "WITH_CLEANUP_START"} & r.handler_code_ops(region.handler)
    assert g.region_at(r.load("after")) is None or VERSION.has_exception_table and \
        g.region_at(r.load("after")).handler != region.handler


def test_block_stack_is_lifted_into_regions() -> None:
    """3.8-3.10: each region comes from a SETUP_* and covers the code run before its POP_BLOCK;
    3.11+: the regions are the exception table's."""
    r = read(TRY)
    g = r.graph
    instrs = r.bytecode.instrs
    if VERSION.has_exception_table:
        assert all(region.setup is None for region in g.regions)
        return
    setups = [ins.index for ins in instrs if ins.opname == "SETUP_FINALLY"]
    assert len(setups) >= 2
    assert {region.setup for region in g.regions} == set(setups)
    for region in g.regions:
        assert region.handler == instrs[region.setup].target
        after_setup = g.block_at(region.setup + 1).label
        assert all(g.dominates(after_setup, label) for label in region.blocks)
        assert not any(instrs[k].opname == "POP_BLOCK" for start, end in region.spans for k in range(start, end - 1))


@pytest.mark.skipif(not VERSION.has_match_statement, reason="match is 3.10+")
def test_match_cases() -> None:
    r = read("""
    def f(x):
        match x:
            case 1:
                one()
            case [a, b]:
                two()
            case _:
                other()
        after()
        again()
    """)
    g = r.graph
    check_shape(g, r.bytecode)
    cases = [r.block(name) for name in ("one", "two", "other")]
    assert len(set(cases)) == 3
    for a in cases:
        for b in cases:
            assert a == b or not g.dominates(a, b)
        assert g.dominates(0, a)
        assert g.post_dominates(r.block("after"), a)
    assert g.loops == ()


# --- size: no recursion, nothing quadratic ------------------------------------------------------

def test_twenty_thousand_statements() -> None:
    source = "def f(x):\n" + "".join(f"    x = g{k % 7}(x)\n" for k in range(20000)) + \
        "    while x:\n        x -= 1\n    return x\n"
    code = compiled_definition(source)
    with shallow_stack():
        r = Read(code)
        g = r.graph
        assert len(g.dominator_tree.idom) == len(g.blocks)
        assert g.post_dominator_tree.reached(0)
        assert len(g.loops) == 1
    assert len(r.bytecode.instrs) > 60000
    assert sum(b.size for b in g.blocks) == len(r.bytecode.instrs)


def test_two_thousand_elifs() -> None:
    arms = "".join(f"    elif x == {k}:\n        y = h{k % 5}()\n" for k in range(1, 2000))
    source = "def f(x):\n    if x == 0:\n        y = h()\n" + arms + "    else:\n        y = 0\n    return y\n"
    code = compiled_definition(source)
    with shallow_stack():
        r = Read(code)
        g = r.graph
        check_shape(g, r.bytecode)
        depth = max(len(g.dominators(b.label)) for b in g.blocks)
        reached = g.reachable([0])
        # (every block reaches a return: 3.10+ copy `return y` into each arm)
        assert all(g.ipdom(b.label) is not None for b in g.blocks if b.label in reached and b.label != 0) \
            and g.ipdom(0) is not None
        assert EXIT in {g.ipdom(b.label) for b in g.blocks}
    assert depth >= 2000  # (each test is dominated by every test before it)


# --- source positions -------------------------------------------------------------------------

def test_lines_of_instructions() -> None:
    r = read("""
    def f(xs):
        while xs:
            if xs.pop():
                break
            use(xs)
        after()
        again()
    """)
    g = r.graph
    first = r.code.co_firstlineno
    use = r.bytecode.instrs[r.load("use")]
    assert g.positions.line_at(use.offset) == first + 4
    breaks = [ins for ins in r.bytecode.instrs if ins.opname == "JUMP" and g.positions.line_at(ins.offset) == first + 3]
    if VERSION.break_keeps_own_jump:
        assert breaks and g.positions.starts_line(breaks[0].offset)
    if VERSION.has_column_positions:
        line, _, column, _ = g.positions.position_at(use.offset)
        assert line == first + 4 and column is not None


# --- a stdlib sample ----------------------------------------------------------------------------

def stdlib_code_objects() -> List[types.CodeType]:
    found: List[types.CodeType] = []
    for name in GRAPH_MODULES:
        path = module_path(name)
        work = [compile(path.read_text(encoding="utf-8"), str(path), "exec")]
        while work:
            code = work.pop()
            found.append(code)
            work.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return found


def _table_handlers(code: types.CodeType, bytecode: Bytecode) -> Dict[int, tuple]:
    """3.11+: instruction index -> (handler index, depth, lasti) as dis reads the table."""
    instrs = bytecode.instrs
    offsets = [ins.offset for ins in instrs]

    def index_at(offset: int) -> int:
        return next((ins.index for ins in instrs if ins.offset >= offset), len(instrs))

    out: Dict[int, tuple] = {}
    for entry in dis.Bytecode(code).exception_entries:
        handler = index_at(entry.target)
        for k, offset in enumerate(offsets):
            if entry.start <= offset < entry.end and k not in out:
                out[k] = (handler, entry.depth, entry.lasti)
    return out


def test_stdlib_sample_properties() -> None:
    codes = stdlib_code_objects()
    assert len(codes) > 800
    small_checked = 0
    for code in codes:
        bytecode = decode(code, VERSION)
        g = FlowGraph.of(bytecode)
        check_shape(g, bytecode)
        if len(g.blocks) <= 60:
            small_checked += 1
            naive = naive_dominators(g)
            for label, dom in naive.items():
                assert set(g.dominators(label)) == dom, (code.co_name, label)
        if VERSION.has_exception_table:
            expected = _table_handlers(code, bytecode)
            for ins in bytecode.instrs:
                region = g.region_at(ins.index)
                got = (region.handler, region.depth, region.lasti) if region is not None else None
                want = expected.get(ins.index)
                if want is not None and want[0] >= len(bytecode.instrs):
                    want = None  # (a handler past the code: nothing to enter)
                assert got == want, (code.co_name, ins, got, want)
        else:
            for region in g.regions:
                assert bytecode.instrs[region.setup].target == region.handler
                after_setup = g.block_at(region.setup + 1).label
                assert all(g.dominates(after_setup, label) for label in region.blocks), code.co_name
    assert small_checked > 100


# --- the graph as the builder's query service --------------------------------------------------

def _walked_jump_tables(bytecode: Bytecode) -> tuple:
    """The jump tables as a loop over every instruction finds them (what the builder took
    before the graph served them)."""
    indices, conditional, backward, iterations = [], [], [], []
    sources: Dict[int, List[int]] = {}
    for ins in bytecode.instrs:
        t = ins.target
        if t is None:
            continue
        indices.append(ins.index)
        sources.setdefault(t, []).append(ins.index)
        if ins.opname.startswith("POP_JUMP_IF_"):
            conditional.append(ins.index)
        if t <= ins.index:
            backward.append(ins.index)
        elif ins.opname == "FOR_ITER":
            iterations.append(ins.index)
    return tuple(indices), tuple(conditional), tuple(backward), tuple(iterations), sources


def _walked_handler_only_code(bytecode: Bytecode) -> Set[int]:
    """The instructions an instruction-by-instruction walk from the start does not reach
    without exceptions (an `async for`'s GET_ANEXT going on to its END_ASYNC_FOR)."""
    instrs = bytecode.instrs
    seen: Set[int] = set()
    todo = [0]
    while todo:
        k = todo.pop()
        if k in seen or k >= len(instrs):
            continue
        seen.add(k)
        ins = instrs[k]
        if ins.opname in ("RETURN_VALUE", "RAISE_VARARGS", "RERAISE"):
            continue
        if ins.target is not None:
            todo.append(ins.target)
            if ins.opname != "JUMP":
                todo.append(k + 1)
            continue
        todo.append(k + 1)
        if ins.opname == "GET_ANEXT":
            for region in bytecode.regions:
                if region.start <= k < region.end and region.handler < len(instrs):
                    if instrs[region.handler].opname == "END_ASYNC_FOR":
                        todo.append(region.handler)
                    break
    return set(range(len(instrs))) - seen


ASYNC_FOR = """
async def f(xs):
    try:
        async for x in xs:
            if x:
                break
        else:
            g()
    except E:
        h()
    return [y async for y in xs]
"""


def test_jump_tables_and_handler_code_equal_the_walks() -> None:
    """On the code the builder reads (decoded and canonicalized), the graph's jump tables and
    handler-only code are what walking the instructions finds."""
    codes = stdlib_code_objects() + [compiled_definition(ASYNC_FOR)]
    with_handlers = 0
    for code in codes:
        bytecode = passes.read(code, VERSION)
        g = FlowGraph.of(bytecode)
        assert FlowGraph.of(bytecode) is g  # (one graph per bytecode)
        indices, conditional, backward, iterations, sources = _walked_jump_tables(bytecode)
        assert (g.jumps.indices, g.jumps.conditional, g.jumps.backward, g.jumps.iterations) == \
            (indices, conditional, backward, iterations), code.co_name
        table = g.jump_table
        assert table is g.jump_table and dict(table) == {t: tuple(s) for t, s in sources.items()}, code.co_name
        with pytest.raises(TypeError):
            table[0] = ()  # type: ignore[index]  # (read-only: every reading shares it)
        if bytecode.regions:
            with_handlers += 1
            assert g.handler_only_instructions() == _walked_handler_only_code(bytecode), code.co_name
    assert with_handlers > (50 if VERSION.has_exception_table else -1)


def _loop_test(bytecode: Bytecode) -> tuple:
    """(fall, false target) of the first conditional jump: a while loop's test."""
    ins = next(i for i in bytecode.instrs if i.opname.startswith("POP_JUMP_IF_"))
    return ins.index + 1, ins.target


NEVER_BACK_BREAK_IN_CLAUSE = """
def f(k):
    w = 0
    while w < 1:
        w += 1
        try:
            g()
        except E:
            if k:
                break
        rest(1)  # (long enough not to be copied into the clause's way out)
        rest(2)
        return 1
    after(1)  # (more than a copied exit block: the break jumps here)
    after(2)
    return 2
"""

IF_TRY_LAST = """
def f(k):
    if k < 1:
        try:
            return g()
        except E:
            pass
    after(1)
    after(2)
    return 2
"""


def test_stray_break_of_a_loop_that_never_jumps_back() -> None:
    """An except clause's `break` past the rest of the body is found before the body is read;
    the clause's way out of a try that ends an if body is that if's own."""
    bytecode = passes.read(compiled_definition(NEVER_BACK_BREAK_IN_CLAUSE), VERSION)
    fall, false_target = _loop_test(bytecode)
    found = stray_break(FlowGraph.of(bytecode), fall, false_target)
    assert found is not None
    ins = bytecode.instrs[found]
    assert ins.opname == "JUMP" and ins.target == false_target
    bytecode = passes.read(compiled_definition(IF_TRY_LAST), VERSION)
    fall, false_target = _loop_test(bytecode)
    assert any(bytecode.instrs[s].opname == "JUMP" for s in FlowGraph.of(bytecode).jump_sources(false_target))
    assert stray_break(FlowGraph.of(bytecode), fall, false_target) is None


IF_BODY_LOOP_BREAKS = """
def f(k):
    if k < 1:
        while True:
            try:
                g()
            except E:
                break
            except F:
                pass
    after(1)
    after(2)
    return 2
"""

LOOP_AFTER_IF_RETURN = """
def f(k):
    if k < 1:
        return
    while len(k) > 1:
        try:
            g()
        except E:
            h()
        except F:
            break
    after(1)
    after(2)
"""


IF_BODY_NESTED_TRY = """
def f(k):
    if k < 1:
        try:
            return g()
        except E:
            try:
                h()
            except F:
                i()
    after(1)
    after(2)
    return 2
"""


@pytest.mark.parametrize("source", [IF_BODY_LOOP_BREAKS, LOOP_AFTER_IF_RETURN, IF_BODY_NESTED_TRY])
def test_no_stray_break_of_a_loop_in_or_after_the_body(source: str) -> None:
    """A clause's `break` of a loop inside the if body ends that loop where the if ends; a
    clause's jump back to a loop after the if (its false target) is not in the body at all; the
    way out of a try nested in an except clause is no other way out of the outer try."""
    bytecode = passes.read(compiled_definition(source), VERSION)
    fall, false_target = _loop_test(bytecode)
    assert stray_break(FlowGraph.of(bytecode), fall, false_target) is None


def test_facts_kept_with_the_graph_are_made_once() -> None:
    """`kept` / `kept_at`: a structure module's fact is made on the first ask, by its key (and
    instruction), and is the same value afterwards; other keys and instructions are apart."""
    g = FlowGraph.of(passes.read(compiled_definition("def f(x):\n    return x\n"), VERSION))
    made: List[object] = []

    def make(graph: FlowGraph, index: int) -> object:
        assert graph is g
        made.append(index)
        return object()

    first = g.kept_at("test-fact", 0, make)
    assert g.kept_at("test-fact", 0, make) is first
    assert g.kept_at("test-fact", 1, make) is not first
    assert g.kept_at("other-fact", 0, make) is not first
    assert made == [0, 1, 0]
    whole = g.kept("test-whole", lambda graph: [graph.size])
    assert g.kept("test-whole", lambda graph: []) is whole == [g.size]
