"""Basic blocks over the decoded instructions.

A block is a maximal run of instructions entered only at its first one and left only after its
last one. It is labelled by the index of its first instruction: a label never changes, and the
instructions are never touched to make one.
"""
from bisect import bisect_right
from dataclasses import dataclass
from typing import Iterable, List, Sequence, Tuple

from depyf.decompiler.graph.flow import ends_block
from depyf.decompiler.instructions import Instr


@dataclass(frozen=True)
class Block:
    """The instructions [start, end) of one basic block; `label` is `start`."""

    start: int
    end: int

    @property
    def label(self) -> int:
        return self.start

    @property
    def last(self) -> int:
        return self.end - 1

    def __contains__(self, index: object) -> bool:
        return isinstance(index, int) and self.start <= index < self.end

    def __len__(self) -> int:
        return self.end - self.start


@dataclass(frozen=True)
class BlockTable:
    """The blocks of one code object, in instruction order, and where each instruction lies."""

    blocks: Tuple[Block, ...]
    starts: Tuple[int, ...]

    def number_of(self, index: int) -> int:
        """The position in `blocks` of the block holding instruction `index` (O(log n))."""
        if not self.starts or index < 0 or index >= self.blocks[-1].end:
            raise IndexError(f"instruction {index} is in no block")
        return bisect_right(self.starts, index) - 1

    def number_of_label(self, label: int) -> int:
        number = self.number_of(label)
        if self.starts[number] != label:
            raise KeyError(f"{label} is no block's label")
        return number


def leaders(instrs: Sequence[Instr], jumps: Iterable[Instr], extra: Iterable[int] = ()) -> List[int]:
    """The first instructions of the blocks, sorted: the start, every jump target, every
    instruction after one that ends a block, and `extra` (the bounds of protected ranges)."""
    size = len(instrs)
    found = {0} if size else set()
    for ins in jumps:
        found.add(ins.target)
    for k in _block_ends(instrs):
        found.add(k + 1)
    found.update(extra)
    return sorted(k for k in found if 0 <= k < size)


def _block_ends(instrs: Sequence[Instr]) -> List[int]:
    return [k for k, ins in enumerate(instrs) if ends_block(ins)]


def split_blocks(instrs: Sequence[Instr], jumps: Iterable[Instr], extra: Iterable[int] = ()) -> BlockTable:
    starts = leaders(instrs, jumps, extra)
    ends = starts[1:] + [len(instrs)]
    return BlockTable(tuple(Block(s, e) for s, e in zip(starts, ends)), tuple(starts))
