"""How many values a decoded instruction adds to the stack (negative: removes), for the passes
that follow the stack. From the version's table (`stack_effects`, 3.15+: the instructions whose
effect is one number) and, for the few whose effect depends on the argument, a formula here.
"""
from typing import Callable, Dict, Optional

from depyf.decompiler.instructions import SPLIT_RAW, Instr
from depyf.decompiler.versions import BytecodeVersion

# name -> effect as a function of the raw argument (checked against `dis.stack_effect` on 3.15
# by tests/decompiler/test_passes.py).
BY_ARGUMENT: Dict[str, Callable[[int], int]] = {
    "BUILD_LIST": lambda n: 1 - n,
    "BUILD_SET": lambda n: 1 - n,
    "BUILD_TUPLE": lambda n: 1 - n,
    "BUILD_STRING": lambda n: 1 - n,
    "BUILD_SLICE": lambda n: 1 - n,
    "BUILD_MAP": lambda n: 1 - 2 * n,
    "BUILD_INTERPOLATION": lambda n: -1 - (n & 1),  # (bit 0: with a format spec)
    "CALL": lambda n: -1 - n,
    "CALL_KW": lambda n: -2 - n,
    "RAISE_VARARGS": lambda n: -n,
    "UNPACK_SEQUENCE": lambda n: n - 1,
    "UNPACK_EX": lambda n: (n & 0xFF) + (n >> 8),  # (the names before and after the star)
    "LOAD_GLOBAL": lambda n: 1 + (n & 1),  # (bit 0: and a NULL)
    "LOAD_ATTR": lambda n: n & 1,  # (bit 0: a method and its self, or NULL)
    "LOAD_SUPER_ATTR": lambda n: -2 + (n & 1),
}


def effect(version: BytecodeVersion, ins: Instr) -> Optional[int]:
    """The stack effect of `ins` (the same whether or not it jumps), or None if unknown."""
    name = ins.opname if ins.raw_opname in SPLIT_RAW else ins.raw_opname
    found = version.tables.get("stack_effects", {}).get(name)
    if found is not None:
        return found
    formula = BY_ARGUMENT.get(name)
    if formula is None or ins.arg is None:
        return None
    return formula(ins.arg)
