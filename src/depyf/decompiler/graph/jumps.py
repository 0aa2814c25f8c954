"""The jumps of one code object, taken once: which instructions jump, where, and from where.

This is the part of the graph that every reading needs (the builder asks "which jumps lie in
this range" and "which instructions jump here" all the time), so it is built eagerly and only
from the jumps: a few in ten instructions.
"""
from bisect import bisect_left
from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

from depyf.decompiler.graph.flow import BLOCK_SETUPS, SUBROUTINE_CALLS
from depyf.decompiler.instructions import Bytecode, Instr


@dataclass(frozen=True)
class JumpIndex:
    """`indices[k]` jumps to `targets[k]` (indices in order); `conditional`: the indices of the
    jumps that test a value (the POP_JUMP_IF_* family), in order."""

    indices: Tuple[int, ...]
    targets: Tuple[int, ...]
    conditional: Tuple[int, ...]

    @classmethod
    def of(cls, bytecode: Bytecode, tests: frozenset) -> "JumpIndex":
        """`tests`: the opnames counted as `conditional`."""
        jumping: Sequence[Instr] = bytecode.jumps if bytecode.jumps is not None else \
            [ins for ins in bytecode.instrs if ins.target is not None]
        return cls(tuple(ins.index for ins in jumping), tuple(ins.target for ins in jumping),
                   tuple(ins.index for ins in jumping if ins.opname in tests))

    def between(self, start: int, end: int) -> Tuple[int, ...]:
        """The jumps among the instructions [start, end), in order (O(log n) to find them)."""
        indices = self.indices
        return indices[bisect_left(indices, start):bisect_left(indices, end)]

    def sources(self) -> Dict[int, List[int]]:
        """Target -> the jumps to it, in order: a fresh table each call (a reader that re-points
        jumps as it goes keeps its own copy up to date; the index itself never changes)."""
        table: Dict[int, List[int]] = {}
        for k, t in zip(self.indices, self.targets):
            if t in table:
                table[t].append(k)
            else:
                table[t] = [k]
        return table


def is_handler_jump(opname: str) -> bool:
    """A 3.8-3.10 SETUP_*'s target is its handler, entered by an exception, and 3.8's CALL_FINALLY
    calls a finally body that comes back: neither is a plain jump of the normal flow."""
    return opname in BLOCK_SETUPS or opname in SUBROUTINE_CALLS
