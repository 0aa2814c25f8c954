"""Lay the instructions of a `Bytecode` out in a new order, keeping every jump and exception
region right: the shared step of the passes that move blocks (`loop_exits_after_loops`,
`resume_layout`).

An order is a list of old instruction indices. Each instruction is copied (the decoded ones are
never changed) with its jump target renumbered, and keeps the exception region it had: the new
exception table is made from each instruction's old region, neighbours with the same handler
merged. 3.11+ regions do not overlap, so one region per instruction says all there is.
"""
from typing import Callable, Dict, List, Optional

from depyf.decompiler.instructions import Bytecode, ExceptionRegion, Instr, make_instr

# Per instruction, the exception region covering it, or None.
RegionOf = List[Optional[ExceptionRegion]]


def regions_by_instruction(bytecode: Bytecode) -> RegionOf:
    """The exception region covering each instruction (3.11+ regions do not overlap)."""
    covering: RegionOf = [None] * len(bytecode.instrs)
    for region in bytecode.regions:
        for k in range(region.start, min(region.end, len(covering))):
            covering[k] = region
    return covering


def clone(src: Instr, index: int, target: Optional[int]) -> Instr:
    """A new instruction like `src` at position `index`, jumping to `target` (a new index)."""
    ins = make_instr(src.offset, src.opname, src.raw_opname, src.arg, src.argval, src.flag, src.line)
    ins.index = index
    if target is not None:
        ins.target = ins.argval = target
    return ins


def new_jump(src: Instr, index: int, target: int, line: Optional[int]) -> Instr:
    """A `JUMP` at `src`'s offset, placed at `index`, to `target` (a new index)."""
    jump = make_instr(src.offset, "JUMP", "JUMP_FORWARD", 0, target, False, line)
    jump.index, jump.target = index, target
    return jump


def reordered(bytecode: Bytecode, order: List[int], alias: Dict[int, int], region_of: RegionOf,
              jumps_after: Optional[Dict[int, int]] = None) -> Bytecode:
    """`bytecode` with its instructions in `order`; a target left out goes to its alias.
    `jumps_after` maps an instruction to the one a new, unprotected jump after it goes to (one
    that fell into it before)."""
    old = bytecode.instrs
    jumps_after = jumps_after or {}
    layout: List[Optional[int]] = []  # old indices, None for a new jump
    for k in order:
        layout.append(k)
        if k in jumps_after:
            layout.append(None)
    new_index = {k: i for i, k in enumerate(layout) if k is not None}
    instrs: List[Instr] = []
    raw = bytecode.raw_targets
    raw_targets: Dict[int, int] = {}
    for i, k in enumerate(layout):
        if k is None:
            before = layout[i - 1]
            assert before is not None
            goes_to = jumps_after[before]
            instrs.append(new_jump(old[before], i, new_index[goes_to], None))
            raw_targets[i] = old[goes_to].offset
            continue
        target = old[k].target
        if target is not None:
            target = new_index[alias.get(target, target)]
        instrs.append(clone(old[k], i, target))
        if k in raw:
            raw_targets[i] = old[alias[old[k].target]].offset if old[k].target in alias else raw[k]
    regions = regions_in_order(list(range(len(layout))), [None if k is None else region_of[k] for k in layout],
                               lambda handler: new_index[handler])
    return Bytecode(bytecode.code, bytecode.version, instrs, regions, raw_targets)


def regions_in_order(order: List[int], region_of: RegionOf, handler_at: Callable[[int], int]) -> List[ExceptionRegion]:
    """The exception regions of instructions laid out in `order`: each keeps its old region,
    runs of neighbours with the same handler merged; `handler_at` says where a handler went."""
    regions: List[ExceptionRegion] = []
    for i, k in enumerate(order):
        region = region_of[k]
        if region is None:
            continue
        handler = handler_at(region.handler)
        last = regions[-1] if regions else None
        if last is not None and last.end == i and last.handler == handler and last.depth == region.depth \
                and last.lasti == region.lasti:
            last.end = i + 1  # (a region made here, not one of the input's)
        else:
            regions.append(ExceptionRegion(i, i + 1, handler, region.depth, region.lasti))
    return regions


def moved_target(target: int, new_index: Dict[int, int], old: List[Instr]) -> int:
    """Where an old target went; a target that was dropped (a jump to the next instruction
    removed) continues at the next kept instruction."""
    while target not in new_index and target < len(old):
        target += 1
    return new_index.get(target, len(new_index))
