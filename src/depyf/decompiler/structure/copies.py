"""Code the compiler copies: two instruction ranges told alike.

The compiler copies finally bodies onto every way out of a try, small exit blocks into the
branches that jump to them, and the with-exit call onto each way out of a with body; the
readers tell a copy from code of its own by comparing it with the original.
"""
from typing import Sequence, Tuple

from depyf.decompiler.instructions import Instr


def same_code(instrs: Sequence[Instr], a: Tuple[int, int], b: Tuple[int, int]) -> bool:
    """Are the instructions [a) and [b) alike: the same operations on the same values, their
    jumps to the same targets (a copy of a block, as the compiler copies finally bodies)?"""
    (s1, e1), (s2, e2) = a, b
    if e1 - s1 != e2 - s2:
        return False
    for x, y in zip(instrs[s1:e1], instrs[s2:e2]):
        if x.opname != y.opname or (x.argval != y.argval and not x.is_jump):
            return False
        if x.is_jump and x.target != y.target:
            return False
    return True
