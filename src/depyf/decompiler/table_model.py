"""What the 3.11+ exception-table mixins share: `_BREAK` (a handler exit that leaves the loop),
the forward jumps, the sizes of the exit blocks the compiler copies, and the shapes of
constructs read from the bytecode.
"""
from typing import List, NamedTuple, Optional, Set, Tuple

from depyf.decompiler import nodes as n
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


# An except clause as `table_clauses` reads it: (type, name, body start, body end).
_Clause = Tuple[Optional[n.Expr], Optional[str], int, int]
# A handler's way out: (clause body start, clause body end, the exit's index, where it goes
# (`_BREAK`: out of the loop)).
_HandlerExit = Tuple[int, int, int, int]


class _ExceptBodyEnd(NamedTuple):
    """Where the body of a 3.11+ try/except ends (`TableExcept._except_body_end`)."""
    body_end: int  # the end of the try body as read (past code it goes on to through copies, ...)
    before_inner: int  # ... before the way on of an inner try's clauses was added to it
    nested_exit: Optional[int]  # the exit of a nested handler that the body goes on through
    warm: Set[int]  # what normal flow reaches from the body's start (and from `nested_exit`)


class _ExceptClauses(NamedTuple):
    """The clauses of a 3.11+ try/except and their ways out (`TableExcept._except_clauses`)."""
    clauses: List[_Clause]
    exit_at: Optional[int]  # except*: where the handler's normal exit (the recombination) starts
    exits: List[_HandlerExit]


class _ExceptWayOut(NamedTuple):
    """Where a 3.11+ try/except goes on, as its jumps tell (`TableExcept._except_way_out`)."""
    way_on: Optional[int]  # the code after the try; None where it has no way on of its own
    handlers_to: Optional[int]  # where most handlers fall out to
    body_jump: Optional[int]  # where the body's jump over the handlers goes
    star_else: bool  # 3.11: the else part of an except*, laid after its handlers
    targets: List[int]  # where the handlers go on


class _ExceptElse(NamedTuple):
    """The else part of a 3.11+ try/except and how the statement ends (table_except_ends.py)."""
    way_on: Optional[int]  # the code after the try (None: a break, or no way on of its own)
    else_start: int  # the else part: [else_start, else_end)
    else_end: int
    cont: int  # where reading goes on after the statement
    falls_out: bool  # the handlers fall out to `way_on`: their jumps there are no statements
    leaves_to_bottom: bool  # a handler's jump to the loop's test at the bottom falls out too
    else_break: bool  # the else part ends in a `break`, read from the jump past the loop
    else_kept: bool  # the rest is the else part, as 3.13+ tells (`n.Try.else_kept`)
    loop_tail: Optional[int]  # 3.12+: the rest of the loop body, only the handlers reach it
    only_tail: Optional[Tuple[int, int]]  # 3.12+: the code after it, moved (`_handler_only_tail`)


class _AsyncForShape(NamedTuple):
    """Where the parts of a 3.11+ async for lie (`TableAsyncFor._async_for_shape`)."""
    exit_at: int  # END_ASYNC_FOR, the handler of the GET_ANEXT await's region
    start: int  # the body's first instruction (the target's store), past the SEND loop
    body_end: int  # the end of the body (past 3.12+ copies of exit blocks after the jump back)
    real_exit: int  # the code after END_ASYNC_FOR
    break_target: Optional[int]  # where the body's breaks go
    popped: Optional[Tuple[int, int]]  # 3.12+: a break that pops the iterator (`_popping_break`)
