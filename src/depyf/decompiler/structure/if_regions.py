"""The if statement's region, from the graph: its body, its else part and where they join.

For a conditional jump, the if statement it ends is two arms (the block it falls into, the
block it jumps to) and their join, the follow node of structural analysis: the immediate
post-dominator of the test's block inside the enclosing loop body, where the ways an arm leaves
abruptly (`break`, `continue`, `return`, `raise`) do not count as joins. Asked in three steps,
each only when the one before finds no join:

1. post-dominators over the blocks the test reaches inside the innermost loop, whose only exit
   is the loop's next iteration (an edge to its header): a `break`, `return` or `raise` is a
   dead end, so an arm made only of those joins nothing;
2. the same with every way out of the scope an exit (outside loops the returns are the only
   ends: the function's last return is a join like any other);
3. where the arms still meet only at the exit, the layout decides, as the compiler lays an if
   statement out: the body first, then the else part that the body jumps over (a forward jump
   from the body past the false target, to a block inside the scope), else no else part and
   the statement goes on at the jump's target.

Nothing here reads the builder's state: the answer is a fact of the decoded code, the same for
every reading of it. `IfRegion` and `Arm` are frozen.
"""
from dataclasses import dataclass
from enum import Enum
from weakref import WeakKeyDictionary
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

from depyf.decompiler.graph.breaks import breaks_out_of_body
from depyf.decompiler.graph.cfg import BRANCHES, FlowGraph
from depyf.decompiler.graph.dominators import DominatorTree, reversed_with_exit
from depyf.decompiler.graph.loops import Loop


class Way(Enum):
    """How an arm of an if statement leaves."""

    JOIN = "join"          # it falls (or jumps) to the statement's join
    BREAK = "break"        # it leaves the innermost loop
    CONTINUE = "continue"  # it jumps back to the innermost loop's header
    RETURN = "return"
    RAISE = "raise"


_RETURNS = frozenset({"RETURN_VALUE", "RETURN_CONST"})
_RAISES = frozenset({"RAISE_VARARGS", "RERAISE"})
# How a part that a value's test jumps to starts: dropping what the test left on the stack (a
# chained comparison's cleanup), which no statement's else part does.
_STACK_CLEANUP = frozenset({"POP_TOP", "SWAP", "ROT_TWO", "COPY", "DUP_TOP"})


@dataclass(frozen=True)
class Arm:
    """One arm of an if statement: `start` (its first instruction), `blocks` (the labels of the
    blocks it runs, sorted; handler code not included: normal edges only), `end` (where the
    run of its blocks laid one after the other from `start` ends: the arm's range is [start,
    end)) and the ways it leaves (`ways`)."""

    start: int
    blocks: Tuple[int, ...]
    end: int
    ways: FrozenSet[Way]

    @property
    def leaves(self) -> bool:
        """Does it never reach the join (every way out a break, continue, return or raise)?"""
        return Way.JOIN not in self.ways


@dataclass(frozen=True)
class IfRegion:
    """The if statement a conditional jump (`test`, the last jump of its condition) ends.

    `body`: the arm the test falls into; `orelse`: the arm it jumps to where that is an else
    part, None where the jump goes straight to the join; `join`: where both go on (the first
    instruction of the follow block), None where no arm reaches one; `loop`: the header of the
    innermost loop around the test, None outside loops; `step`: which step found the join
    (1, 2: post-dominators; 3: the layout; 0: none)."""

    test: int
    body: Arm
    orelse: Optional[Arm]
    join: Optional[int]
    loop: Optional[int]
    step: int

    @property
    def body_end(self) -> int:
        """Where the body's range ends: the else part's start, else the join."""
        if self.orelse is not None:
            return self.orelse.start
        return self.join if self.join is not None else self.body.end

    @property
    def else_end(self) -> Optional[int]:
        """Where the else part's range ends (the join; the arm's own end where there is none)."""
        if self.orelse is None:
            return None
        return self.join if self.join is not None else self.orelse.end


class _Scope:
    """The blocks (by number) a test reaches by normal edges inside its innermost loop, and the
    way each edge out of them leaves."""

    def __init__(self, graph: FlowGraph, first: int, loop: Optional[Loop], body: Optional[FrozenSet[int]]) -> None:
        self.graph = graph
        self.header = graph.table.number_of_label(loop.header) if loop is not None else -1
        self.body = body
        # The blocks that only jump back to the header are one place, the loop's next iteration
        # (3.8-3.10 send an if body's jump over its else part straight to the head, while the
        # else part falls into the closing jump): the last of them stands for all.
        pure = [b for b in sorted(self.body or ()) if self._jumps_back_only(b)]
        self.next_turn = pure[-1] if pure else -1
        self.same = {b: self.next_turn for b in pure}
        self.nodes: List[int] = []
        self.inner: List[Tuple[int, ...]] = []   # per local node: successors inside, as local numbers
        self.ways: List[Tuple[Way, ...]] = []    # per local node: the abrupt ways it leaves by
        self.local: Dict[int, int] = {first: 0}  # block number -> local number
        self.nodes.append(first)
        edges: Dict[int, Tuple[List[int], Tuple[Way, ...]]] = {}
        work = [first]
        while work:
            b = work.pop()
            inside, ways = edges[b] = self._edges(b)
            for s in inside:
                if s not in self.local:
                    self.local[s] = len(self.nodes)
                    self.nodes.append(s)
                    work.append(s)
        for b in self.nodes:  # (numbered now: the successors as local numbers)
            inside, ways = edges[b]
            self.inner.append(tuple(self.local[s] for s in inside))
            self.ways.append(ways)

    def _edges(self, b: int) -> Tuple[List[int], Tuple[Way, ...]]:
        graph = self.graph
        inside: List[int] = []
        ways: List[Way] = []
        targets = [s for s in (graph.jump_to[b], graph.falls_to[b]) if s >= 0]
        if not targets:
            name = graph.last_ops[b]
            ways.append(Way.RAISE if name in _RAISES else Way.RETURN)
        for s in targets:
            if s == self.header:
                ways.append(Way.CONTINUE)
            elif self.body is not None and s not in self.body:
                ways.append(Way.BREAK)
            else:
                inside.append(self.same.get(s, s))
        return inside, tuple(ways)

    def _jumps_back_only(self, b: int) -> bool:
        graph = self.graph
        return graph.table.ends[b] - graph.table.starts[b] == 1 and graph.last_ops[b] == "JUMP" \
            and graph.jump_to[b] == self.header

    def join(self, root: int, ends: FrozenSet[Way]) -> Tuple[bool, Optional[int]]:
        """(does `root` reach an end, its immediate post-dominator (a block number; None for
        the virtual exit)), with the nodes that leave by one of `ends` leading to the exit and
        the other abrupt ways dead ends."""
        size = len(self.nodes)
        exits = [k for k in range(size) if any(w in ends for w in self.ways[k])]
        tree = DominatorTree.build(reversed_with_exit(self.inner, exits), size)
        k = self.local[root]
        if not tree.reached(k):
            return False, None
        parent = tree.idom[k]
        return True, (None if parent is None or parent == size else self.nodes[parent])

    def arm(self, entry: int, stop: Set[int]) -> Tuple[Set[int], Set[Way]]:
        """The nodes reached from `entry` (a block number) without passing `stop`, and how they
        leave (JOIN for an edge into `stop`)."""
        seen: Set[int] = set()
        ways: Set[Way] = set()
        work = [entry] if entry not in stop else []
        if entry in stop:
            ways.add(Way.JOIN)
        seen.update(work)
        while work:
            b = work.pop()
            k = self.local[b]
            ways.update(self.ways[k])
            for s in self.inner[k]:
                node = self.nodes[s]
                if node in stop:
                    ways.add(Way.JOIN)
                elif node not in seen:
                    seen.add(node)
                    work.append(node)
        return seen, ways


def _loop_blocks(graph: FlowGraph, loop: Loop) -> FrozenSet[int]:
    """The loop's blocks (by number): its natural body, and the blocks its header dominates
    that the code where the loop goes on (its follow) does not lead to without passing the
    header. A tail the compiler copied into the body (3.10+: the code after the loop written
    out after a `break`'s test, a `return` after the last `continue`) reaches no jump back, so
    the natural body leaves it out; it is the body's code all the same. The follow: where the
    header's own test leaves, else the exit most edges of the body take (the later one of a
    tie: the code after a `while True:` loop is laid after the tails in its body). (A test in
    the header that leaves to code laid before the last jump back is the body's first if
    statement, not the loop's test.)"""
    number = graph.table.number_of_label
    body = set(map(number, loop.body))
    header = number(loop.header)
    last_latch = max(number(u) for u in loop.latches)
    exits = [number(v) for u, v in loop.exits if u == loop.header and number(v) > last_latch] \
        or [number(v) for _, v in loop.exits]
    if not exits:
        return frozenset(body)
    counts: Dict[int, int] = {}
    for v in exits:
        counts[v] = counts.get(v, 0) + 1
    follow = max(counts, key=lambda v: (counts[v], v))
    after = {follow}
    work = [follow]
    jump_to, falls_to = graph.jump_to, graph.falls_to
    while work:
        b = work.pop()
        for s in (jump_to[b], falls_to[b]):
            if s >= 0 and s != header and s not in after:
                after.add(s)
                work.append(s)
    tree = graph.dominator_tree
    body.update(b for b in range(header + 1, len(graph.table))
                if b not in body and b not in after and tree.dominates(header, b))
    return frozenset(body)


# graph -> each loop's blocks (`_loop_blocks`), made on the first question about that graph
_LOOP_BLOCKS: "WeakKeyDictionary[FlowGraph, Tuple[FrozenSet[int], ...]]" = WeakKeyDictionary()


def _innermost_loop(graph: FlowGraph, b: int) -> Tuple[Optional[Loop], Optional[FrozenSet[int]]]:
    """The innermost loop whose blocks (`_loop_blocks`, copied tails included) hold block `b`,
    with those blocks."""
    bodies = _LOOP_BLOCKS.get(graph)
    if bodies is None:
        bodies = _LOOP_BLOCKS[graph] = tuple(_loop_blocks(graph, loop) for loop in graph.loops)
    inside = [k for k, body in enumerate(bodies) if b in body]
    if not inside:
        return None, None
    k = max(inside, key=lambda k: (graph.loops[k].depth, -len(bodies[k])))
    return graph.loops[k], bodies[k]


def if_region(graph: FlowGraph, jump: int) -> IfRegion:
    """The if statement that the conditional jump at instruction `jump` ends (see the module).
    A ValueError where `jump` is no conditional jump ending its block."""
    table = graph.table
    b = table.number_of(jump)
    if table.ends[b] - 1 != jump or graph.exit_kinds[b] != BRANCHES or graph.falls_to[b] < 0:
        raise ValueError(f"instruction {jump} is no conditional jump")
    loop, blocks = _innermost_loop(graph, b)
    scope = _Scope(graph, b, loop, blocks)
    fall, taken = graph.falls_to[b], graph.jump_to[b]
    header = scope.header if loop is not None else None
    if fall in scope.same:
        # (`if t: continue`: the body is a jump back and nothing else)
        body = Arm(table.starts[fall], (table.starts[fall],), table.ends[fall], frozenset({Way.CONTINUE}))
        return IfRegion(jump, body, None, table.starts[taken], _label(graph, header), 0)
    taken = scope.same.get(taken, taken)
    join, step = _find_join(scope, b, fall, taken)
    return _region(scope, jump, fall, taken, join, header, step)


def _find_join(scope: _Scope, b: int, fall: int, taken: int) -> Tuple[Optional[int], int]:
    """(the join as a block number or None, the step that found it)."""
    if taken not in scope.local or taken == b:
        return fall, 0
    if fall not in scope.local:
        return taken, 0  # (the jump itself is the `break` / `continue`: the statement goes on at the fall)
    for step, ends in ((1, frozenset({Way.CONTINUE})), (2, frozenset(Way))):
        # (a join at the body's start means the jumped-to arm only leaves, laid after the
        # body: the layout tells whether that arm is an else part or the code after the if)
        reached, join = scope.join(b, ends)
        if join is not None and join != fall:
            return join, step
        if reached:
            break  # (the arms meet only at the exit: the layout decides)
    # (the body laid before the false target; a jump from it past the target goes over the else part)
    reached, _ = scope.arm(fall, {taken, b})
    body = [k for k in reached if k < taken]
    past = [scope.nodes[s] for k in body for s in scope.inner[scope.local[k]] if scope.nodes[s] > taken]
    if past:
        return min(past), 3
    if body and all(w is Way.CONTINUE for k in body for w in scope.ways[scope.local[k]]) \
            and not scope.arm(taken, {b})[1] - {Way.CONTINUE} \
            and not _written_continue(scope, list(range(fall, taken))):
        # (both arms end the iteration, the body by its own jump back: `if t: ...` / `else: ...`
        # ending the loop body, whose if part 3.8-3.10 send straight to the head; no join)
        return None, 3
    return taken, 3


def _written_continue(scope: _Scope, blocks: List[int]) -> bool:
    """Does one of `blocks` end in a jump back with a line of its own (a written `continue`,
    where the compiler's jump over an else part has the line of the code before it)?"""
    graph = scope.graph
    instrs, positions = graph.instrs, graph.positions
    for k in blocks:
        last = graph.table.ends[k] - 1
        if graph.last_ops[k] == "JUMP" and last > 0 and graph.jump_to[k] in (scope.header, scope.next_turn):
            line = positions.line_at(instrs[last].offset)
            if line is not None and line != positions.line_at(instrs[last - 1].offset):
                return True
    return False


def _region(scope: _Scope, jump: int, fall: int, taken: int, join: Optional[int],
            header: Optional[int], step: int) -> IfRegion:
    graph = scope.graph
    starts = graph.table.starts
    stop = {join} if join is not None else set()
    if join == fall and fall != taken and step == 0:
        # (the jump leaves the scope, `if t: break` read as one jump: the body is the jump itself)
        body = Arm(jump, (), jump + 1, frozenset({_leaving_way(scope, taken)}))
        return IfRegion(jump, body, None, starts[fall], _label(graph, header), step)
    if fall not in scope.local:
        # (the fall leaves the scope: `if t: ...` whose false branch is the loop's exit or head)
        body = Arm(starts[fall], (), starts[fall], frozenset({_leaving_way(scope, fall)}))
        return IfRegion(jump, body, None, starts[taken], _label(graph, header), step)
    body = _arm(scope, fall, stop | {taken} if taken != join else stop)
    orelse = None if taken == join else _arm(scope, taken, stop)
    if orelse is not None and join is None and header is not None:
        last = graph.instrs[orelse.end - 1]
        if last.opname == "JUMP" and last.target == starts[header]:
            # (the jump back that closes the loop body is the loop's, not the else part's)
            orelse = Arm(orelse.start, orelse.blocks, orelse.end - 1, orelse.ways)
    return IfRegion(jump, body, orelse, starts[join] if join is not None else None, _label(graph, header), step)


def _leaving_way(scope: _Scope, target: int) -> Way:
    return Way.CONTINUE if target == scope.header else Way.BREAK


def _label(graph: FlowGraph, number: Optional[int]) -> Optional[int]:
    return None if number is None else graph.table.starts[number]


def _arm(scope: _Scope, entry: int, stop: Set[int]) -> Arm:
    graph = scope.graph
    table = graph.table
    nodes, ways = scope.arm(entry, stop)
    end = table.ends[entry]
    k = entry + 1
    while k in nodes:
        end = table.ends[k]
        k += 1
    return Arm(table.starts[entry], tuple(sorted(table.starts[x] for x in nodes)), end, frozenset(ways))


def else_part_skips_code(graph: FlowGraph, at: int, end: int) -> bool:
    """Is the jump at `at`, the last instruction of a range [.., end), past `end`, the end of an
    else part whose if statement goes on at `end`, or whose body does? The body's last jump,
    right before the else part, goes over it to `end`; the else part jumps elsewhere: a `break`
    of a loop that never jumps back (3.11+: no trace of it is left), or, where the graph's
    region of the test has the block at `end` in its body, to where the statement goes on
    after the rest of the body. Either way the jump skips the code at `end`; taken for the
    else part's way on, that code would run."""
    instrs = graph.instrs
    if instrs[at].opname != "JUMP" or at + 1 != end or instrs[at].target is None or instrs[at].target <= end:
        return False
    for src in graph.jump_sources(end):
        if src >= at or instrs[src].opname != "JUMP" \
                or instrs[graph.table.starts[graph.table.number_of(src)]].opname in _STACK_CLEANUP:
            continue  # (nor the jump of a condition's cleanup, which the body follows)
        start = _past_handler_code(graph, src + 1, at)
        if instrs[start].opname in _STACK_CLEANUP or not _own_line(graph, start, src):
            continue
        for j in graph.jump_sources(start):
            b = graph.table.number_of(j)
            if j >= src or graph.table.ends[b] - 1 != j or graph.exit_kinds[b] != BRANCHES \
                    or instrs[j].target != start:
                continue
            region = if_region(graph, j)
            orelse = region.orelse
            if orelse is not None and orelse.start == start and orelse.end == end \
                    and region.body.start <= src and (region.join == end or end in region.body.blocks):
                return True
    return False


def _past_handler_code(graph: FlowGraph, k: int, stop: int) -> int:
    """The first instruction from `k` (up to `stop`) that normal flow reaches: 3.11 lays an
    inner try's handler code inline, between an if body's jump over its else part and the else
    part."""
    if not graph.bytecode.regions or graph.jump_sources(k):
        return k
    handler_only = graph.kept("handler_only_instructions", FlowGraph.handler_only_instructions)
    while k < stop and k in handler_only:
        k += 1
    return k


def _own_line(graph: FlowGraph, start: int, before: int) -> bool:
    """Does the part at `start` begin a line, another than that of the jump over it at
    `before`? An else part is statements of their own; the parts of a condition (a conditional
    expression or chained comparison among its tests) have the condition's line."""
    positions, instrs = graph.positions, graph.instrs
    line = positions.line_at(instrs[start].offset)
    return line is not None and positions.starts_line(instrs[start].offset) \
        and line != positions.line_at(instrs[before].offset)


def skipping_jumps(graph: FlowGraph) -> FrozenSet[int]:
    """Every jump of the code that ends an else part and skips code (`else_part_skips_code`),
    found once per graph: most code has none, and then no if statement asks further."""
    def find(graph: FlowGraph) -> FrozenSet[int]:
        instrs = graph.instrs
        return frozenset(k for k in graph.jumps.indices if instrs[k].opname == "JUMP" and k + 1 < graph.size
                         and else_part_skips_code(graph, k, k + 1))
    return graph.kept("skipping_jumps", find)


def break_skipping_code(graph: FlowGraph, test: int, join: int) -> Optional[int]:
    """The first jump to `join` from the arms of the if statement whose test jumps at `test`
    (the code it reaches without passing `join`, under no loop of that code), that skips code
    which is no other branch's (`else_part_skips_code`): a `break` of a loop that never jumps
    back, whose exit is `join`. None when there is none."""
    skipping = skipping_jumps(graph)
    for src in sorted(graph.jump_sources(join)):
        if test < src < join and src in skipping and breaks_out_of_body(graph, test, join, src):
            return src
    return None


def else_end_after(graph: FlowGraph, body_end: int) -> Optional[int]:
    """Where the else part ends of the if statement whose body's range ends at `body_end` (its
    else part starts there, or right after the jump over it at `body_end`); None where no if
    statement's else part starts there (by the tests that jump to it)."""
    instrs = graph.instrs
    for start in (body_end, body_end + 1):
        for j in graph.jump_sources(start):
            if j >= body_end or graph.exit_kinds[graph.table.number_of(j)] != BRANCHES \
                    or graph.table.ends[graph.table.number_of(j)] - 1 != j or instrs[j].target != start:
                continue
            region = if_region(graph, j)
            if region.orelse is not None and region.orelse.start == start:
                return region.else_end
    return None


def in_exact_else_part(graph: FlowGraph, at: int, end: int) -> bool:
    """Is instruction `at` inside the else part of an if statement whose body jumps over it
    right to `end`, the end of the range being read (the statement goes on there, so a jump from
    the else part past `end` is no way out of it)? The else part starts between that jump and
    `at`, where the if's test jumps; the graph's region of that test has it as its else part
    (holding `at`: not the dead jump 3.8/3.9 keep after its last raise) and the jump in its
    body."""
    instrs, table = graph.instrs, graph.table
    for src in graph.jump_sources(end):
        if src >= at or instrs[src].opname != "JUMP":
            continue
        for start in range(src + 1, at + 1):
            for j in graph.jump_sources(start):
                b = table.number_of(j)
                if j >= src or table.ends[b] - 1 != j or graph.exit_kinds[b] != BRANCHES \
                        or instrs[j].target != start:
                    continue
                region = if_region(graph, j)
                orelse = region.orelse
                if orelse is not None and orelse.start == start and region.else_end == end \
                        and region.body.start <= src \
                        and (at < orelse.end or graph.block_at(at).label in orelse.blocks):
                    return True
    return False
