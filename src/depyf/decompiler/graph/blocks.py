"""Basic blocks over the decoded instructions.

A block is a maximal run of instructions entered only at its first one and left only after its
last one. It is labelled by the index of its first instruction: a label never changes, and the
instructions are never touched to make one.
"""
from bisect import bisect_right
from dataclasses import dataclass
from itertools import compress
from operator import attrgetter
from typing import Dict, Iterable, List, NamedTuple, Sequence, Tuple

from depyf.decompiler.graph.flow import BLOCK_POP
from depyf.decompiler.graph.jumps import JumpIndex
from depyf.decompiler.graph.once import once
from depyf.decompiler.instructions import ENDS_FLOW, Instr

# What ends a block besides a jump (`flow.ends_block`, by name: one set lookup per instruction).
_ENDS_BY_NAME = ENDS_FLOW | {BLOCK_POP}
_OPNAME = attrgetter("opname")
_NEXT = (1).__add__


class Block(NamedTuple):
    """The instructions [start, end) of one basic block; `label` is `start`. (A named tuple:
    immutable, and cheap to make once per block.)"""

    start: int
    end: int

    @property
    def label(self) -> int:
        return self.start

    @property
    def last(self) -> int:
        return self.end - 1

    def holds(self, index: int) -> bool:
        return self.start <= index < self.end

    @property
    def size(self) -> int:
        return self.end - self.start


@dataclass(frozen=True)
class BlockTable:
    """The blocks of one code object, in instruction order, and where each instruction lies:
    block k is [starts[k], ends[k]). (`blocks`, the same as `Block`s, is made on first use.)"""

    starts: Tuple[int, ...]
    ends: Tuple[int, ...]

    def __len__(self) -> int:
        return len(self.starts)

    @once
    def blocks(self) -> Tuple[Block, ...]:
        return tuple(map(Block, self.starts, self.ends))

    @once
    def number(self) -> Dict[int, int]:
        """Label -> block number."""
        return {start: k for k, start in enumerate(self.starts)}

    def number_of(self, index: int) -> int:
        """The number of the block holding instruction `index` (O(log n))."""
        if not self.starts or index < 0 or index >= self.ends[-1]:
            raise IndexError(f"instruction {index} is in no block")
        return bisect_right(self.starts, index) - 1

    def number_of_label(self, label: int) -> int:
        number = self.number.get(label)
        if number is None:
            raise KeyError(f"{label} is no block's label")
        return number


def leaders(instrs: Sequence[Instr], jumps: JumpIndex, extra: Iterable[int] = ()) -> List[int]:
    """The first instructions of the blocks, sorted: the start, every jump target, every
    instruction after one that ends a block, and `extra` (the bounds of protected ranges)."""
    size = len(instrs)
    if not size:
        return []
    # (sets filled by C loops only: map and compress find the instructions after one that
    # ends a block by name, where a test of each instruction in Python cost most of the graph)
    found = {0}
    found.update(jumps.targets)
    found.update(map(_NEXT, jumps.indices))
    found.update(compress(range(1, size + 1), map(_ENDS_BY_NAME.__contains__, map(_OPNAME, instrs))))
    found.update(extra)
    found.discard(size)
    starts = sorted(found)
    if starts[0] < 0 or starts[-1] >= size:
        starts = [k for k in starts if 0 <= k < size]
    return starts


def split_blocks(instrs: Sequence[Instr], jumps: JumpIndex, extra: Iterable[int] = ()) -> BlockTable:
    starts = leaders(instrs, jumps, extra)
    return BlockTable(tuple(starts), tuple(starts[1:]) + ((len(instrs),) if starts else ()))
