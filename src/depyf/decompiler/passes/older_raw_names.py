"""3.14's renamed and unfused instructions under the raw names 3.13 gives them (capability
`spells_loads_anew`).

A few rules tell apart two compiler spellings of one construct by the raw instruction: 3.12/3.13
return a constant by one RETURN_CONST (the decoder splits it into LOAD_CONST and RETURN_VALUE, both
with that raw name) unless a jump lands on the return, and 3.13 fuses two local loads of one
basic block into LOAD_FAST_LOAD_FAST. 3.14 has no RETURN_CONST (a constant return is LOAD_CONST or
LOAD_SMALL_INT, then RETURN_VALUE) and spells the loads LOAD_FAST_BORROW(_LOAD_FAST_BORROW). This
pass gives those instructions 3.13's raw names: a constant load right before a RETURN_VALUE that
no jump and no exception region boundary separates from it is a RETURN_CONST.
"""
from typing import List, Optional

from depyf.decompiler.instructions import Bytecode, ExceptionRegion
from depyf.decompiler.passes.rewrite import Edits, copy_instr, rewrite

_RAW = {"LOAD_FAST_BORROW": "LOAD_FAST", "LOAD_FAST_BORROW_LOAD_FAST_BORROW": "LOAD_FAST_LOAD_FAST",
        "LOAD_SMALL_INT": "LOAD_CONST"}


def canonicalize(bytecode: Bytecode) -> Bytecode:
    instrs = bytecode.instrs
    targets = {i.target for i in instrs if i.target is not None}
    region_at = _region_at(bytecode.regions, len(instrs))
    edits: Edits = {}
    for k, ins in enumerate(instrs):
        raw = ins.raw_opname
        if ins.opname == "RETURN_VALUE" and k > 0 and instrs[k - 1].opname == "LOAD_CONST" \
                and k not in targets and region_at[k] is region_at[k - 1]:
            edits[k - 1] = [copy_instr(instrs[k - 1], raw_opname="RETURN_CONST")]
            edits[k] = [copy_instr(ins, raw_opname="RETURN_CONST")]
        elif raw in _RAW and k not in edits:
            edits[k] = [copy_instr(ins, raw_opname=_RAW[raw])]
        elif raw == "LOAD_COMMON_CONSTANT" and ins.opname == "LOAD_CONST" and k not in edits:
            edits[k] = [copy_instr(ins, raw_opname="LOAD_CONST")]
    return rewrite(bytecode, edits)


def _region_at(regions: List[ExceptionRegion], size: int) -> List[Optional[ExceptionRegion]]:
    found: List[Optional[ExceptionRegion]] = [None] * size
    for region in regions:
        for k in range(region.start, min(region.end, size)):
            found[k] = region
    return found
