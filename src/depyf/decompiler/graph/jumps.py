"""The jumps of one code object, taken once: which instructions jump, where, and from where.

This is the part of the graph that every reading needs (the builder asks "which jumps lie in
this range" and "which instructions jump here" all the time), so it is built eagerly and only
from the jumps: a few in ten instructions.
"""
from bisect import bisect_left
from types import MappingProxyType
from typing import Dict, FrozenSet, List, Mapping, NamedTuple, Sequence, Tuple

from depyf.decompiler.graph.flow import BLOCK_SETUPS, SUBROUTINE_CALLS
from depyf.decompiler.instructions import Bytecode, Instr



_new = tuple.__new__  # (a named tuple made without its generated __new__: one call fewer)

# Target -> the jumps to it, in order: read-only (a mapping proxy over tuples), one per graph,
# shared by every reading of its code (no rule records a jump of its own there).
SourceTable = Mapping[int, Tuple[int, ...]]


class JumpIndex(NamedTuple):
    """`indices[k]` jumps to `targets[k]` (indices in order); `conditional`: the indices of the
    jumps that test a value (the POP_JUMP_IF_* family); `backward`: of the jumps back (to
    themselves or before); `iterations`: of the FOR_ITERs that jump forward (to their loop's
    exit). All in order."""

    # (a named tuple: the builder makes one for every code object it reads)

    indices: Tuple[int, ...]
    targets: Tuple[int, ...]
    conditional: Tuple[int, ...]
    backward: Tuple[int, ...]
    iterations: Tuple[int, ...]

    @classmethod
    def of(cls, bytecode: Bytecode, tests: FrozenSet[str]) -> "JumpIndex":
        """`tests`: the opnames counted as `conditional`."""
        return cls.with_sources(bytecode, tests)[0]

    @classmethod
    def with_sources(cls, bytecode: Bytecode, tests: FrozenSet[str]) -> "Tuple[JumpIndex, SourceTable]":
        """The index and, made in the same pass, the `SourceTable` (the builder takes both for
        every code object it reads: one loop over the jumps, as before the graph)."""
        jumping: Sequence[Instr] = bytecode.jumps if bytecode.jumps is not None else \
            [ins for ins in bytecode.instrs if ins.target is not None]
        # (one loop over the jumps, a few in ten instructions, as cheap per code object as the
        # builder's own loop was: every reading asks for this)
        indices: List[int] = []
        targets: List[int] = []
        conditional: List[int] = []
        backward: List[int] = []
        iterations: List[int] = []
        sources: Dict[int, Tuple[int, ...]] = {}
        for ins in jumping:
            k, t = ins.index, ins.target
            indices.append(k)
            targets.append(t)
            got = sources.get(t)
            # (most targets have one or two jumps: a new tuple per jump costs less than a list
            # per target turned into a tuple afterwards)
            sources[t] = (k,) if got is None else got + (k,)
            if ins.opname in tests:
                conditional.append(k)
            if t <= k:
                backward.append(k)
            elif ins.opname == "FOR_ITER":
                iterations.append(k)
        index = _new(cls, (tuple(indices), tuple(targets), tuple(conditional), tuple(backward), tuple(iterations)))
        return index, MappingProxyType(sources)

    def between(self, start: int, end: int) -> Tuple[int, ...]:
        """The jumps among the instructions [start, end), in order (O(log n) to find them)."""
        indices = self.indices
        return indices[bisect_left(indices, start):bisect_left(indices, end)]


def is_handler_jump(opname: str) -> bool:
    """A 3.8-3.10 SETUP_*'s target is its handler, entered by an exception, and 3.8's CALL_FINALLY
    calls a finally body that comes back: neither is a plain jump of the normal flow."""
    return opname in BLOCK_SETUPS or opname in SUBROUTINE_CALLS
