"""The control-flow graph of one code object: blocks, edges, regions, dominators, loops.

`FlowGraph.of(bytecode)` takes a snapshot of the decoded instructions' flow (every number it
keeps is an int or a tuple of them) and answers questions about it; nothing in it changes after
construction and nothing in the instructions is touched. The parts only some readers need
(dominators, post-dominators, loops, source positions) are computed on first use, from the
snapshot, and then kept.
"""
from dataclasses import dataclass, field
from functools import cached_property
from types import CodeType
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

from depyf.decompiler.graph import regions as rg
from depyf.decompiler.graph.blocks import Block, BlockTable, split_blocks
from depyf.decompiler.graph.dominators import DominatorTree, reversed_with_exit
from depyf.decompiler.graph.edges import Edge, EdgeKind
from depyf.decompiler.graph.flow import BLOCK_SETUPS, JUMPS_WHEN, SUBROUTINE_CALLS, falls_through
from depyf.decompiler.graph.jumps import JumpIndex
from depyf.decompiler.graph.loops import Loop, find_loops
from depyf.decompiler.graph.positions import SourcePositions
from depyf.decompiler.instructions import Bytecode, Instr
from depyf.decompiler.versions import BytecodeVersion

# The label post-dominator queries give the virtual exit every returning or raising block leads to.
EXIT = -1
_TESTS = frozenset({"POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE"})


@dataclass(frozen=True)
class FlowGraph:
    code: CodeType
    version: BytecodeVersion
    size: int
    jumps: JumpIndex
    table: BlockTable
    out_edges: Tuple[Tuple[Edge, ...], ...]  # per block number
    in_edges: Tuple[Tuple[Edge, ...], ...]
    regions: Tuple[rg.ProtectedRegion, ...]
    region_of_block: Tuple[int, ...]  # per block number: its innermost region's number, or -1
    # 3.8-3.10: per block number, the SETUP_* indices on the block stack at its entry (outermost
    # first); empty for 3.11+.
    block_stacks: Tuple[Tuple[int, ...], ...] = field(default=())

    @classmethod
    def of(cls, bytecode: Bytecode) -> "FlowGraph":
        instrs, version = bytecode.instrs, bytecode.version
        jumps = JumpIndex.of(bytecode, _TESTS)
        jumping = [instrs[k] for k in jumps.indices]
        table_regions = bytecode.regions if version.has_exception_table else ()
        table = split_blocks(instrs, jumping, rg.table_bounds(table_regions, len(instrs)))
        out = [_normal_edges(instrs, table, b) for b in range(len(table.blocks))]
        if version.has_exception_table:
            regions, stacks = rg.from_table(table_regions, table), ()
        else:
            regions, stacks = rg.from_block_stack(instrs, table, [tuple(table.number_of(e.target) for e in edges)
                                                                  for edges in out])
        region_of = [-1] * len(table.blocks)
        for number, region in enumerate(regions):
            for label in region.blocks:
                b = table.number_of(label)
                if region_of[b] < 0:
                    region_of[b] = number
                    out[b] = out[b] + (Edge(label, region.handler, EdgeKind.EXCEPTION, False, None,
                                            region.depth, region.lasti),)
        incoming: List[List[Edge]] = [[] for _ in table.blocks]
        for edges in out:
            for e in edges:
                incoming[table.number_of(e.target)].append(e)
        return cls(bytecode.code, version, len(instrs), jumps, table, tuple(out),
                   tuple(tuple(e) for e in incoming), regions, tuple(region_of), stacks)

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

    def edges(self) -> Iterable[Edge]:
        for edges in self.out_edges:
            yield from edges

    # --- jumps --------------------------------------------------------------------------------

    def jump_sources(self, index: int) -> Tuple[int, ...]:
        """The instructions that jump to `index` (its handler's SETUP_* included, 3.8-3.10)."""
        return tuple(self._sources.get(index, ()))

    @cached_property
    def _sources(self) -> Dict[int, List[int]]:
        return self.jumps.sources()

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
        if not self.table.blocks:
            return frozenset()
        number_of = self.table.number_of_label
        seen = [False] * len(self.table.blocks)
        work = [number_of(s) for s in starts]
        for b in work:
            seen[b] = True
        out_edges, number = self.out_edges, self.table.number_of
        while work:
            b = work.pop()
            for e in out_edges[b]:
                if exceptions or e.kind is not EdgeKind.EXCEPTION:
                    s = number(e.target)
                    if not seen[s]:
                        seen[s] = True
                        work.append(s)
        blocks = self.table.blocks
        return frozenset(blocks[b].start for b in range(len(blocks)) if seen[b])

    def reachable_instructions(self, starts: Sequence[int] = (0,), exceptions: bool = True) -> FrozenSet[int]:
        found: List[int] = []
        for label in self.reachable(starts, exceptions):
            block = self.block(label)
            found.extend(range(block.start, block.end))
        return frozenset(found)

    # --- dominators ---------------------------------------------------------------------------

    @cached_property
    def _numbered(self) -> Tuple[Tuple[Tuple[int, ...], ...], Tuple[Tuple[int, ...], ...]]:
        """Every edge's and the normal edges' successors, as block numbers."""
        number = self.table.number_of
        every = tuple(tuple(number(e.target) for e in edges) for edges in self.out_edges)
        normal = tuple(tuple(number(e.target) for e in edges if e.kind is not EdgeKind.EXCEPTION)
                       for edges in self.out_edges)
        return every, normal

    @cached_property
    def dominator_tree(self) -> DominatorTree:
        """Over every edge (a handler is dominated by the code that enters its protected region)."""
        every, _ = self._numbered
        return DominatorTree.build(every, 0) if every else DominatorTree(0, (), (), ())

    @cached_property
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
        return EXIT if parent == len(self.table.blocks) else self.table.blocks[parent].start

    def post_dominates(self, a: int, b: int) -> bool:
        number = self.table.number_of_label
        return self.post_dominator_tree.dominates(number(a), number(b))

    # --- loops --------------------------------------------------------------------------------

    @cached_property
    def loops(self) -> Tuple[Loop, ...]:
        every, normal = self._numbered
        predecessors: List[List[int]] = [[] for _ in every]
        for b, succ in enumerate(every):
            for s in succ:
                predecessors[s].append(b)
        labels = tuple(block.start for block in self.table.blocks)
        return find_loops(normal, predecessors, self.dominator_tree, labels)

    def loop_of(self, label: int) -> Optional[Loop]:
        """The innermost loop whose body holds the block `label`."""
        inside = [loop for loop in self.loops if label in loop.body]
        return max(inside, key=lambda loop: loop.depth) if inside else None

    # --- source positions ---------------------------------------------------------------------

    @cached_property
    def positions(self) -> SourcePositions:
        return SourcePositions.of(self.code, self.version)


def _normal_edges(instrs: Sequence[Instr], table: BlockTable, b: int) -> Tuple[Edge, ...]:
    block = table.blocks[b]
    last = instrs[block.last]
    nxt = block.end
    size = len(instrs)
    label = block.start
    target = last.target
    edges: List[Edge] = []
    if target is None or last.opname in BLOCK_SETUPS:
        if falls_through(last) and nxt < size:
            edges.append(Edge(label, nxt, EdgeKind.NORMAL))
    elif last.opname == "JUMP" or last.opname in SUBROUTINE_CALLS:
        if target < size:
            edges.append(Edge(label, target, EdgeKind.NORMAL, True))
        if last.opname in SUBROUTINE_CALLS and nxt < size:
            edges.append(Edge(label, nxt, EdgeKind.NORMAL))  # (where the finally body returns to)
    else:
        when = JUMPS_WHEN.get(last.opname)
        if target < size:
            edges.append(Edge(label, target, EdgeKind.CONDITIONAL, True, when))
        if nxt < size:
            edges.append(Edge(label, nxt, EdgeKind.CONDITIONAL, False, None if when is None else not when))
    return tuple(edges)
