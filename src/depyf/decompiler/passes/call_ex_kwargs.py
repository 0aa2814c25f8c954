"""3.14's CALL_FUNCTION_EX, in the spelling of 3.13 (capability `call_ex_pushes_null_kwargs`).

3.13's CALL_FUNCTION_EX says by its argument's low bit whether a mapping of keyword arguments is
on the stack. 3.14's takes no argument: the compiler pushes NULL in place of a missing mapping
(`PUSH_NULL; CALL_FUNCTION_EX`). This pass writes `CALL_FUNCTION_EX 0` for that pair and
`CALL_FUNCTION_EX 1` for a call that has the mapping.
"""
from depyf.decompiler.instructions import Bytecode
from depyf.decompiler.passes.rewrite import Edits, copy_instr, rewrite


def canonicalize(bytecode: Bytecode) -> Bytecode:
    if "CALL_FUNCTION_EX" not in bytecode.opnames():
        return bytecode
    instrs = bytecode.instrs
    targets = {i.target for i in instrs if i.target is not None}
    edits: Edits = {}
    for k, ins in enumerate(instrs):
        if ins.opname != "CALL_FUNCTION_EX":
            continue
        if k > 0 and instrs[k - 1].opname == "PUSH_NULL" and k not in targets and k - 1 not in targets:
            edits[k - 1] = []
            edits[k] = [copy_instr(ins, arg=0, argval=0)]
        else:
            edits[k] = [copy_instr(ins, arg=1, argval=1)]
    return rewrite(bytecode, edits)
