"""The control-flow graph of one code object: blocks, edges, regions, dominators, loops.

`FlowGraph.of(bytecode)` is the graph of one decoded `Bytecode`, made once per bytecode and
kept on it. Each part (the jump tables, the blocks and their exits, the protected regions,
dominators, post-dominators, loops, source positions) is computed from the instructions on
first use and then kept; every number it keeps is an int or a tuple of them, nothing in it
changes once computed, and nothing in the instructions is touched.
"""
from bisect import bisect_left
from itertools import compress
from operator import attrgetter, not_
from types import CodeType
from typing import Any, Callable, Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple, TypeVar

from depyf.decompiler.graph import regions as rg
from depyf.decompiler.graph.blocks import Block, BlockTable, split_blocks
from depyf.decompiler.graph.dominators import DominatorTree, reversed_with_exit
from depyf.decompiler.graph.edges import Edge, EdgeKind
from depyf.decompiler.graph.flow import BLOCK_SETUPS, JUMPS_WHEN, SUBROUTINE_CALLS
from depyf.decompiler.graph.jumps import JumpIndex, SourceTable
from depyf.decompiler.graph.loops import Loop, find_loops
from depyf.decompiler.graph.positions import SourcePositions
from depyf.decompiler.graph.once import once
from depyf.decompiler.instructions import ENDS_FLOW, TERMINAL, Bytecode, Instr
from depyf.decompiler.versions import BytecodeVersion

_T = TypeVar("_T")

# The label post-dominator queries give the virtual exit every returning or raising block leads to.
EXIT = -1
_OPNAME = attrgetter("opname")
_TESTS = frozenset({"POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE"})


# How a block ends (`FlowGraph.exit_kinds`).
FALLS, JUMPS, BRANCHES, CALLS, LEAVES = range(5)


class FlowGraph:
    """The graph of one decoded `Bytecode`, made once per `Bytecode` (`FlowGraph.of` keeps it
    on the bytecode: every reading and retry of that code asks the same one) and built lazily:
    each part is computed from the instructions on first use and then kept, so a question costs
    only the parts it needs (the jump tables need one loop over the jumps, no blocks).

    Its core is a few tuples indexed by block number (`table` numbers the blocks in instruction
    order; a block's label is its first instruction): where each block's last instruction jumps
    (`jump_to`) and falls (`falls_to`) as block numbers or -1, how it ends (`exit_kinds`), its
    innermost protected region (`region_of_block`). The `Edge` objects and every analysis are
    made from those. Nothing in it changes once computed, and nothing in the instructions is
    touched."""

    def __init__(self, bytecode: Bytecode) -> None:
        self.bytecode = bytecode
        self.instrs: Sequence[Instr] = bytecode.instrs
        self.size = len(bytecode.instrs)
        self._jumps: Optional[JumpIndex] = None
        self._sources: Optional[SourceTable] = None
        self._kept: Dict[str, Any] = {}

    @classmethod
    def of(cls, bytecode: Bytecode) -> "FlowGraph":
        """The graph of `bytecode`, made on the first call and the same object afterwards."""
        graph = bytecode.graph
        if graph is None:
            graph = bytecode.graph = cls(bytecode)
        return graph

    def kept(self, key: str, make: Callable[["FlowGraph"], _T]) -> _T:
        """A fact derived from this graph by a module outside it (the structurer's
        `structure/`): made by `make(self)` on the first ask under `key`, then the same value."""
        kept = self._kept
        if key not in kept:
            kept[key] = make(self)
        return kept[key]

    def kept_at(self, key: str, index: int, make: Callable[["FlowGraph", int], _T]) -> _T:
        """The same for a fact of one instruction (a handler's clauses, its kind): made by
        `make(self, index)` on the first ask under `key` for `index`, then the same value."""
        facts: Dict[int, Any] = self.kept(key, lambda _: {})
        if index not in facts:
            facts[index] = make(self, index)
        return facts[index]

    @property
    def code(self) -> CodeType:
        return self.bytecode.code

    @property
    def version(self) -> BytecodeVersion:
        return self.bytecode.version

    # --- the core, each part on first use ---------------------------------------------------
    # (the jump index by hand: every reading asks for it, with the table made in its loop)

    @property
    def jumps(self) -> JumpIndex:
        jumps = self._jumps
        if jumps is None:
            jumps = self._take_jumps()[0]
        return jumps

    def _take_jumps(self) -> Tuple[JumpIndex, SourceTable]:
        jumps, sources = JumpIndex.with_sources(self.bytecode, _TESTS)
        self._jumps, self._sources = jumps, sources
        return jumps, sources

    @once
    def table(self) -> BlockTable:
        table_regions = self.bytecode.regions if self.version.has_exception_table else ()
        return split_blocks(self.instrs, self.jumps, rg.table_bounds(table_regions, self.size))

    @once
    def _exits(self) -> Tuple[Tuple[int, ...], Tuple[str, ...], Tuple[int, ...], Tuple[int, ...]]:
        """(exit_kinds, last_ops, jump_to, falls_to): one pass over the blocks, a few
        operations each (all a reachability question needs)."""
        instrs, size, table = self.instrs, self.size, self.table
        number = table.number
        kinds: List[int] = []
        last_ops: List[str] = []
        jump_to: List[int] = []
        falls_to: List[int] = []
        for end in table.ends:
            last = instrs[end - 1]
            name, target = last.opname, last.target
            last_ops.append(name)
            if target is None or name in BLOCK_SETUPS:
                kinds.append(LEAVES if name in ENDS_FLOW else FALLS)
                jump_to.append(-1)
                falls_to.append(number[end] if end < size and name not in ENDS_FLOW else -1)
                continue
            kinds.append(JUMPS if name == "JUMP" else CALLS if name in SUBROUTINE_CALLS else BRANCHES)
            jump_to.append(number[target] if target < size else -1)
            falls_to.append(number[end] if end < size and name != "JUMP" else -1)
        return tuple(kinds), tuple(last_ops), tuple(jump_to), tuple(falls_to)

    @property
    def exit_kinds(self) -> Tuple[int, ...]:
        return self._exits[0]

    @property
    def last_ops(self) -> Tuple[str, ...]:
        return self._exits[1]

    @property
    def jump_to(self) -> Tuple[int, ...]:
        return self._exits[2]

    @property
    def falls_to(self) -> Tuple[int, ...]:
        return self._exits[3]

    @once
    def _protection(self) -> Tuple[Tuple[rg.ProtectedRegion, ...], Tuple[Tuple[int, ...], ...]]:
        bytecode, table = self.bytecode, self.table
        if self.version.has_exception_table:
            return rg.from_table(bytecode.regions, table), ()
        if BLOCK_SETUPS.isdisjoint(bytecode.opnames()):
            return (), ((),) * len(table)  # (no try, no with: most code)
        normal = [tuple(x for x in pair if x >= 0) for pair in zip(self.jump_to, self.falls_to)]
        return rg.from_block_stack(self.instrs, table, normal)

    @property
    def regions(self) -> Tuple[rg.ProtectedRegion, ...]:
        return self._protection[0]

    @property
    def block_stacks(self) -> Tuple[Tuple[int, ...], ...]:
        """3.8-3.10: per block number, the SETUP_* indices on the block stack at its entry
        (outermost first); empty for 3.11+."""
        return self._protection[1]

    @once
    def region_of_block(self) -> Tuple[int, ...]:
        """Per block number: its innermost region's number, or -1."""
        number = self.table.number
        region_of = [-1] * len(self.table)
        for k, region in enumerate(self.regions):
            for label in region.blocks:
                b = number[label]
                if region_of[b] < 0:
                    region_of[b] = k
        return tuple(region_of)

    @once
    def handler_blocks(self) -> Tuple[int, ...]:
        """Per block number, the number of the block its exceptions go to, or -1."""
        number = self.table.number
        handlers = [number[r.handler] for r in self.regions]
        return tuple(handlers[k] if k >= 0 else -1 for k in self.region_of_block)

    @once
    def out_edges(self) -> Tuple[Tuple[Edge, ...], ...]:
        """Per block number, its edges: the jump, the fall into the next block, the exception."""
        starts = self.table.starts
        normal, conditional, exception = EdgeKind.NORMAL, EdgeKind.CONDITIONAL, EdgeKind.EXCEPTION
        out: List[Tuple[Edge, ...]] = []
        for b, (kind, name, jt, ft, r) in enumerate(zip(self.exit_kinds, self.last_ops, self.jump_to,
                                                        self.falls_to, self.region_of_block)):
            label = starts[b]
            edges: List[Edge] = []
            if kind == BRANCHES:
                when = JUMPS_WHEN.get(name)
                if jt >= 0:
                    edges.append(Edge(label, starts[jt], conditional, True, when))
                if ft >= 0:
                    edges.append(Edge(label, starts[ft], conditional, False, None if when is None else not when))
            else:
                if jt >= 0:
                    edges.append(Edge(label, starts[jt], normal, True))
                if ft >= 0:
                    edges.append(Edge(label, starts[ft], normal))
            if r >= 0:
                region = self.regions[r]
                edges.append(Edge(label, region.handler, exception, False, None, region.depth, region.lasti))
            out.append(tuple(edges))
        return tuple(out)

    # --- blocks -------------------------------------------------------------------------------

    @property
    def blocks(self) -> Tuple[Block, ...]:
        return self.table.blocks

    def block_at(self, index: int) -> Block:
        """The block holding instruction `index`."""
        return self.table.blocks[self.table.number_of(index)]

    def block(self, label: int) -> Block:
        return self.table.blocks[self.table.number_of_label(label)]

    def successors(self, label: int, exceptions: bool = True) -> Tuple[Edge, ...]:
        edges = self.out_edges[self.table.number_of_label(label)]
        return edges if exceptions else tuple(e for e in edges if e.kind is not EdgeKind.EXCEPTION)

    def predecessors(self, label: int, exceptions: bool = True) -> Tuple[Edge, ...]:
        edges = self.in_edges[self.table.number_of_label(label)]
        return edges if exceptions else tuple(e for e in edges if e.kind is not EdgeKind.EXCEPTION)

    @once
    def in_edges(self) -> Tuple[Tuple[Edge, ...], ...]:
        """Per block number, the edges into it (taken on first use)."""
        number = self.table.number_of
        incoming: List[List[Edge]] = [[] for _ in self.table.blocks]
        for edges in self.out_edges:
            for e in edges:
                incoming[number(e.target)].append(e)
        return tuple(map(tuple, incoming))

    def edges(self) -> Iterable[Edge]:
        for edges in self.out_edges:
            yield from edges

    # --- jumps --------------------------------------------------------------------------------

    def jump_sources(self, index: int) -> Tuple[int, ...]:
        """The instructions that jump to `index` (its handler's SETUP_* included, 3.8-3.10)."""
        return self.jump_table.get(index, ())

    @property
    def jump_table(self) -> SourceTable:
        """Target -> the jumps to it, in order: read-only, made with `jumps` in its loop and
        shared by every reading of this code (`CodeBuilder.jump_sources`)."""
        table = self._sources
        if table is None:
            table = self._take_jumps()[1]
        return table

    # --- exceptions ---------------------------------------------------------------------------

    def region_at(self, index: int) -> Optional[rg.ProtectedRegion]:
        """The innermost protected region around instruction `index`, or None."""
        number = self.region_of_block[self.table.number_of(index)]
        return self.regions[number] if number >= 0 else None

    def handlers(self) -> FrozenSet[int]:
        return frozenset(r.handler for r in self.regions)

    # --- reachability -------------------------------------------------------------------------

    def reachable(self, starts: Sequence[int] = (0,), exceptions: bool = True) -> FrozenSet[int]:
        """The labels of the blocks a path from the blocks labelled `starts` reaches (by normal,
        conditional and, with `exceptions`, exception edges)."""
        labels = self.table.starts
        return frozenset(labels[b] for b in self._reached(starts, exceptions))

    def _reached(self, starts: Sequence[int], exceptions: bool) -> List[int]:
        if not self.table.starts:
            return []
        number = self.table.number_of_label
        seen = [False] * len(self.table)
        work = [number(s) for s in starts]
        for b in work:
            seen[b] = True
        found = list(work)
        jump_to, falls_to = self.jump_to, self.falls_to
        handler = self.handler_blocks if exceptions and self.regions else None
        while work:
            b = work.pop()
            for s in (jump_to[b], falls_to[b], handler[b] if handler is not None else -1):
                if s >= 0 and not seen[s]:
                    seen[s] = True
                    work.append(s)
                    found.append(s)
        return found

    def reachable_instructions(self, starts: Sequence[int] = (0,), exceptions: bool = True) -> FrozenSet[int]:
        """The instructions of the blocks `reachable` finds."""
        found: List[int] = []
        table = self.table
        for b in self._reached(starts, exceptions):
            found.extend(range(table.starts[b], table.ends[b]))
        return frozenset(found)

    def unreachable_instructions(self, starts: Sequence[int] = (0,), exceptions: bool = True) -> FrozenSet[int]:
        """The instructions of the blocks `reachable` does not find (dead code: usually none,
        so this costs a walk over the blocks, not over the instructions)."""
        seen = [False] * len(self.table)
        for b in self._reached(starts, exceptions):
            seen[b] = True
        found: List[int] = []
        table = self.table
        for b, reached in enumerate(seen):
            if not reached:
                found.extend(range(table.starts[b], table.ends[b]))
        return frozenset(found)

    def handler_only_instructions(self) -> Set[int]:
        """The instructions no path from the start reaches without an exception (3.11+: the
        handler code), where an `async for`'s GET_ANEXT also leads on to its END_ASYNC_FOR: the
        loop's normal exit, which only the exception table names. A new set each call.

        (Walked over straight runs, not blocks: from where a run starts to the next jump or
        return/raise, found by bisection in the sorted ends; the builder asks this of every
        code object with handlers before it reads it, and the block table costs more.)"""
        size, instrs = self.size, self.instrs
        if not size:
            return set()
        exits = self._async_for_exits() if "GET_ANEXT" in self.bytecode.opnames() else {}
        ends = set(self.jumps.indices)
        ends.update(compress(range(size), map(TERMINAL.__contains__, map(_OPNAME, instrs))))
        ends.update(exits)
        stops = sorted(ends)
        last = len(stops)
        reached = bytearray(size)
        work = [0]
        while work:
            k = work.pop()
            if k >= size or reached[k]:
                continue  # (a run through k was walked: it goes on to the same end)
            i = bisect_left(stops, k)
            e = stops[i] if i < last else size - 1
            reached[k:e + 1] = b"\x01" * (e + 1 - k)
            ins = instrs[e]
            name = ins.opname
            if name in TERMINAL:
                continue
            if ins.target is not None:
                work.append(ins.target)
                if name != "JUMP":
                    work.append(e + 1)
                continue
            work.append(e + 1)
            work.extend(exits.get(e, ()))
        return set(compress(range(size), map(not_, reached)))

    def _async_for_exits(self) -> Dict[int, Tuple[int, ...]]:
        """A GET_ANEXT's index -> the END_ASYNC_FOR that the first exception-table entry around
        it (with a handler inside the code) leads to, if any."""
        instrs, size = self.instrs, self.size
        out: Dict[int, Tuple[int, ...]] = {}
        for ins in instrs:
            if ins.opname != "GET_ANEXT":
                continue
            k = ins.index
            out[k] = ()
            for region in self.bytecode.regions:
                if region.start <= k < region.end and region.handler < size:
                    if instrs[region.handler].opname == "END_ASYNC_FOR":
                        out[k] = (region.handler,)
                    break
        return out

    # --- dominators ---------------------------------------------------------------------------

    @once
    def _numbered(self) -> Tuple[Tuple[Tuple[int, ...], ...], Tuple[Tuple[int, ...], ...]]:
        """Every edge's and the normal edges' successors, as block numbers."""
        normal = tuple(tuple(x for x in pair if x >= 0) for pair in zip(self.jump_to, self.falls_to))
        handler = self.handler_blocks
        every = tuple(succ + (handler[b],) if handler[b] >= 0 else succ for b, succ in enumerate(normal))
        return every, normal

    @once
    def dominator_tree(self) -> DominatorTree:
        """Over every edge (a handler is dominated by the code that enters its protected region)."""
        every, _ = self._numbered
        return DominatorTree.build(every, 0) if every else DominatorTree(0, (), (), ())

    @once
    def post_dominator_tree(self) -> DominatorTree:
        """Over the normal edges, from a virtual exit (number len(blocks)) that every block with no
        normal successor leads to. Blocks that never reach an exit (an endless loop) have none."""
        _, normal = self._numbered
        exits = [b for b, succ in enumerate(normal) if not succ]
        return DominatorTree.build(reversed_with_exit(normal, exits), len(normal))

    def idom(self, label: int) -> Optional[int]:
        parent = self.dominator_tree.idom[self.table.number_of_label(label)]
        return None if parent is None else self.table.blocks[parent].start

    def dominates(self, a: int, b: int) -> bool:
        number = self.table.number_of_label
        return self.dominator_tree.dominates(number(a), number(b))

    def dominators(self, label: int) -> Tuple[int, ...]:
        """The labels of the blocks that dominate `label`, from itself up to the entry."""
        blocks = self.table.blocks
        return tuple(blocks[b].start for b in self.dominator_tree.dominators(self.table.number_of_label(label)))

    def ipdom(self, label: int) -> Optional[int]:
        """The immediate post-dominator's label, `EXIT` for the virtual exit, None where no exit
        is reached."""
        parent = self.post_dominator_tree.idom[self.table.number_of_label(label)]
        if parent is None:
            return None
        return EXIT if parent == len(self.table) else self.table.starts[parent]

    def post_dominates(self, a: int, b: int) -> bool:
        number = self.table.number_of_label
        return self.post_dominator_tree.dominates(number(a), number(b))

    # --- loops --------------------------------------------------------------------------------

    @once
    def loops(self) -> Tuple[Loop, ...]:
        every, normal = self._numbered
        predecessors: List[List[int]] = [[] for _ in every]
        for b, succ in enumerate(every):
            for s in succ:
                predecessors[s].append(b)
        return find_loops(normal, predecessors, self.dominator_tree, self.table.starts)

    def loop_of(self, label: int) -> Optional[Loop]:
        """The innermost loop whose body holds the block `label`."""
        inside = [loop for loop in self.loops if label in loop.body]
        return max(inside, key=lambda loop: loop.depth) if inside else None

    # --- source positions ---------------------------------------------------------------------

    @once
    def positions(self) -> SourcePositions:
        return SourcePositions.of(self.code, self.version)
