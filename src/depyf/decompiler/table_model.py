"""What the 3.11+ exception-table mixins share: `_BREAK` (a handler exit that leaves the loop),
the forward jumps, the sizes of the exit blocks the compiler copies, and the shapes of
constructs read from the bytecode.
"""
from typing import List, NamedTuple, Optional, Set, Tuple

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


class _MovedTail(NamedTuple):
    """A straight stretch of code that only handlers reach, which 3.12+ laid past the range
    being read (`TableHandlerTails._moved_tail_at`)."""
    start: int  # its first instruction, where the handler goes on
    last: int  # its last instruction (the end of what it reaches straight on)
    flow: Set[int]  # what it reaches from `start` on, with the handler code of statements in it
    context: Tuple[int, ...]  # the handlers of the try and with statements around it, innermost first
    at_exit: int  # `start` past the NOPs of the line the exit call of a with around it starts
    with_handler: Optional[int]  # that with's handler, where the stretch begins with its exit call


class _FinallyClose(NamedTuple):
    """How the handler's copy of a 3.11+ finally body ends (`TableFinally._finally_close`)."""
    closing: Optional[int]  # its closing RERAISE, None where the body never ends or is left by breaks
    reraise: int  # where the finally body's handler code ends (the cleanup, or past the body)
    raising_last: bool  # the body's last branch raises, laid after the closing re-raise (3.12+)


class _FinallyShape(NamedTuple):
    """Where the finally body of a 3.11+ try/finally lies (`TableFinally._finally_shape`)."""
    final_start: int  # the handler's copy of the finally body: [final_start, final_end)
    final_end: int
    closing: Optional[int]  # its closing RERAISE (see `_FinallyClose`)
    raising_last: bool  # the body's last branch raises, laid after the closing re-raise (3.12+)
    clause_ends: List[int]  # 3.11: copies of the closing re-raise ending the clauses of a try in it
