"""One exception model for every version: protected regions with their handlers.

3.11+ bytecode lists its protected ranges in the exception table (the decoder turns them into
`ExceptionRegion`s over instruction indices). 3.8-3.10 bytecode pushes a block at each
SETUP_FINALLY / SETUP_WITH / SETUP_ASYNC_WITH and pops it at POP_BLOCK (an exception pops it
too, on the way to the handler); here that block stack is simulated along the graph's normal
edges, and the code run while a SETUP's block is the innermost one is that SETUP's protected
region. Both end as the same `ProtectedRegion`s: a handler, the blocks it protects innermost,
and (where the bytecode records them) the depth and lasti the handler is entered with.
"""
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from depyf.decompiler.graph.blocks import BlockTable
from depyf.decompiler.graph.flow import BLOCK_POP, BLOCK_SETUPS
from depyf.decompiler.instructions import ExceptionRegion, Instr


@dataclass(frozen=True)
class ProtectedRegion:
    """Code whose exceptions go to `handler` (a block label), innermost.

    `blocks`: the labels of the blocks it protects, in order; `spans`: the same code as runs
    [start, end) of instruction indices. `setup`: the SETUP_* instruction that opened it (3.8-3.10),
    None for an exception-table entry. `depth`/`lasti`: from the exception table; None where the
    bytecode does not record them (the block stack)."""

    handler: int
    blocks: Tuple[int, ...]
    spans: Tuple[Tuple[int, int], ...]
    depth: Optional[int] = None
    lasti: Optional[bool] = None
    setup: Optional[int] = None

    def covers(self, index: int) -> bool:
        return any(start <= index < end for start, end in self.spans)


def table_bounds(regions: Sequence[ExceptionRegion], size: int) -> List[int]:
    """Where blocks must be cut so that each lies wholly inside or outside every table entry."""
    cuts: List[int] = []
    for region in regions:
        cuts += (region.start, region.end, region.handler)
    return [k for k in cuts if 0 <= k < size]


def from_table(regions: Sequence[ExceptionRegion], table: BlockTable) -> Tuple[ProtectedRegion, ...]:
    """The exception table's entries, one region per (handler, depth, lasti), in table order."""
    size = table.blocks[-1].end if table.blocks else 0
    grouped: Dict[Tuple[int, int, bool], List[Tuple[int, int]]] = {}
    for region in regions:
        if region.handler >= size:
            continue
        grouped.setdefault((region.handler, region.depth, region.lasti), []).append(
            (region.start, min(region.end, size)))
    out: List[ProtectedRegion] = []
    for (handler, depth, lasti), spans in grouped.items():
        labels: List[int] = []
        for start, end in spans:
            first = table.number_of(start)
            for block in table.blocks[first:]:
                if block.start >= end:
                    break
                labels.append(block.start)
        out.append(ProtectedRegion(handler, tuple(labels), _merged(spans), depth, lasti, None))
    return tuple(out)


def from_block_stack(instrs: Sequence[Instr], table: BlockTable,
                     normal_successors: Sequence[Tuple[int, ...]]) -> Tuple[Tuple[ProtectedRegion, ...], Tuple[Tuple[int, ...], ...]]:
    """The 3.8-3.10 block stack lifted into regions, and each block's stack on entry (the SETUP
    indices, outermost first; () where no path from the start reaches the block).

    Blocks end at every SETUP_* and POP_BLOCK (`flow.ends_block`), so the stack changes only
    between blocks. A block reached with two different stacks keeps the first one found (the
    compiler never makes such code)."""
    blocks = table.blocks
    stacks: List[Optional[Tuple[int, ...]]] = [None] * len(blocks)
    if not blocks:
        return (), ()
    stacks[0] = ()
    work = [0]
    while work:
        b = work.pop()
        stack = stacks[b]
        assert stack is not None
        last = instrs[blocks[b].last]
        out = stack
        if last.opname in BLOCK_SETUPS:
            out = stack + (blocks[b].last,)
            handler = last.target
            if handler is not None and handler < len(instrs):
                h = table.number_of(handler)
                if stacks[h] is None:
                    stacks[h] = stack  # (the exception popped the block on the way there)
                    work.append(h)
        elif last.opname == BLOCK_POP and stack:
            out = stack[:-1]
        for s in normal_successors[b]:
            if stacks[s] is None:
                stacks[s] = out
                work.append(s)
    protected: Dict[int, List[int]] = {}
    for b, stack in enumerate(stacks):
        if stack:
            protected.setdefault(stack[-1], []).append(b)
    regions: List[ProtectedRegion] = []
    for setup in sorted(protected):
        numbers = protected[setup]
        handler = instrs[setup].target
        assert handler is not None
        spans = _merged([(blocks[b].start, blocks[b].end) for b in numbers])
        regions.append(ProtectedRegion(handler, tuple(blocks[b].start for b in numbers), spans, None, None, setup))
    return tuple(regions), tuple(s if s is not None else () for s in stacks)


def _merged(spans: List[Tuple[int, int]]) -> Tuple[Tuple[int, int], ...]:
    """Sorted spans with touching ones joined."""
    out: List[Tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return tuple(out)
