"""What the 3.11+ exception-table mixins share: `_BREAK` (a handler exit that leaves the loop),
the forward jumps, the sizes of the exit blocks the compiler copies, and the shapes of
constructs read from the bytecode.
"""
from typing import NamedTuple, Optional, Set

from depyf.decompiler.control import COND_JUMPS


_BREAK = -1  # a handler exit that leaves the enclosing loop


_FORWARD_JUMPS = COND_JUMPS | {"JUMP"}  # (`if c: A else: continue`: A jumps over the way out)

_MAX_RETURN_BLOCK = 8  # (the compiler copies only small exit blocks)
_MAX_COPIED_EXIT = 4  # (3.12+ copies an exit block of at most four instructions into each jump to it)


class _WithShape(NamedTuple):
    """Where the parts of a 3.11+ with statement lie (`TableWith._with_shape`)."""
    handler: int  # the with's exception handler (PUSH_EXC_INFO; the `__exit__` call with the exception)
    warm: Set[int]  # what the body's normal flow reaches from its start
    after: Optional[int]  # where the handler goes on when the exit swallows the exception
    span_end: int  # the end of the handler's code
    protected_end: int  # the end of the body the handler protects (a return read into it)
    body_end: int  # the end of the body as read (past code only an inner handler goes on to, ...)
