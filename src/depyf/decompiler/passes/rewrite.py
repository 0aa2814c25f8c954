"""Build a new `Bytecode` from an old one with some instructions replaced or removed.

Canonicalization passes describe their change as edits by old instruction index; this module makes
the new instruction list (fresh `Instr` objects: the decoded ones are never changed), renumbers
jump targets, exception regions and raw jump offsets, and leaves everything else as it was.
"""
from typing import Dict, List, Optional, Sequence, Tuple

from depyf.decompiler.instructions import Bytecode, ExceptionRegion, Instr, make_instr

# old index -> the instructions that take its place (an empty sequence removes it). A jump among
# them holds its target as an *old* index, unless `Placed` says otherwise.
Edits = Dict[int, Sequence[Instr]]
# An instruction among those that take the place of an old one: (old index, position among them).
Spot = Tuple[int, int]
# Jumps that go to a spot that no old index names (inside code a pass adds), and the old indices
# whose jumps go elsewhere: a jump's spot, or an old index, -> the spot it goes to.
Placed = Dict[object, Spot]


def copy_instr(src: Instr, **changes: object) -> Instr:
    """A new instruction like `src` (every field, the jump's too), with `changes` applied."""
    ins = make_instr(src.offset, src.opname, src.raw_opname, src.arg, src.argval, src.flag, src.line,
                     src.index)
    for name in ("target", "target_offset"):
        value = getattr(src, name)
        if value is not None:
            setattr(ins, name, value)
    for name, value in changes.items():
        setattr(ins, name, value)
    return ins


def rewrite(bytecode: Bytecode, edits: Edits, placed: Optional[Placed] = None, *,
            depths: Optional[Dict[int, int]] = None, ahead: Optional[Dict[int, int]] = None) -> Bytecode:
    """`bytecode` with `edits` applied; `bytecode` itself is left as it was.

    `placed` sends jumps elsewhere: the jump at a spot `(k, position)` to the spot it maps to, and
    any other jump to old index `k` (an int key) to the spot that maps to. `depths`: region
    index -> the stack depth that region's handler starts from, where it changes. `ahead`: old
    index -> how many of the instructions that take its place go in front of it, outside the
    regions that start there (a region that ends there ends before them) and before where the
    jumps and handlers that name it land: code laid between two blocks."""
    depths = depths or {}
    ahead = ahead or {}
    if not edits and not depths:
        return bytecode
    old = bytecode.instrs
    first_at: List[int] = []  # old index -> new index of the first instruction that replaces it
    new_at: List[int] = []  # old index -> new index of what replaces it (or of what follows)
    pieces: List[Instr] = []
    spots: List[Spot] = []
    for k, ins in enumerate(old):
        first_at.append(len(pieces))
        new_at.append(len(pieces) + ahead.get(k, 0))
        piece = edits.get(k, (ins,))
        pieces.extend(piece)
        spots.extend((k, position) for position in range(len(piece)))
    first_at.append(len(pieces))
    new_at.append(len(pieces))  # (the end: where a region that closes the code ends)
    placed = placed or {}
    instrs: List[Instr] = []
    raw_targets: Dict[int, int] = {}
    for k, ins in enumerate(pieces):
        target = ins.target
        moved = copy_instr(ins, index=k)
        if target is not None:
            spot = placed.get(spots[k], placed.get(target))
            if spot is None:
                moved.target = moved.argval = new_at[target]
                if ins.target_offset is not None:
                    raw_targets[k] = ins.target_offset
            else:
                moved.target = moved.argval = first_at[spot[0]] + spot[1]
                moved.target_offset = raw_targets[k] = pieces[moved.target].offset
        instrs.append(moved)
    regions = [ExceptionRegion(new_at[r.start], first_at[r.end], new_at[r.handler], depths.get(k, r.depth), r.lasti)
               for k, r in enumerate(bytecode.regions)]
    regions = [r for r in regions if r.start < r.end]
    return Bytecode(bytecode.code, bytecode.version, instrs, regions, raw_targets, None)


def replaced(src: Instr, opname: str, arg: Optional[int] = None, argval: object = None) -> Instr:
    """A new instruction at `src`'s offset that is `opname` (no jump)."""
    return make_instr(src.offset, opname, src.raw_opname, arg, argval, False, src.line, src.index)
