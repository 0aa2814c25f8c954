"""What the 3.11+ exception-table mixins share: `_BREAK` (a handler exit that leaves the loop),
the forward jumps, and the sizes of the exit blocks the compiler copies.
"""
from depyf.decompiler.control import COND_JUMPS


_BREAK = -1  # a handler exit that leaves the enclosing loop


_FORWARD_JUMPS = COND_JUMPS | {"JUMP"}  # (`if c: A else: continue`: A jumps over the way out)

_MAX_RETURN_BLOCK = 8  # (the compiler copies only small exit blocks)
_MAX_COPIED_EXIT = 4  # (3.12+ copies an exit block of at most four instructions into each jump to it)
