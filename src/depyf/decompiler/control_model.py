"""What the control-flow mixins share: the conditional jumps, `LoopInfo` (what `break`/`continue` mean
in one loop), the exception a value reading raises at a statement, and the negation helpers.
"""
from typing import List, NamedTuple, Optional, Set, Tuple

from depyf.decompiler import nodes as n
from depyf.decompiler.expressions import folds_under_not, negate
from depyf.decompiler.instructions import Instr


COND_JUMPS = frozenset({"POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE"})


def short_circuits_value(instrs: List[Instr], j: int) -> bool:
    """Is the conditional jump at `j` a value's `and`/`or` (3.12+: `COPY 1`, maybe TO_BOOL, the
    jump, POP_TOP)? It takes the left operand to where the value is used, no statement's way out."""
    ins = instrs[j]
    if ins.opname not in ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE") or j + 1 >= len(instrs) \
            or instrs[j + 1].opname != "POP_TOP":
        return False
    p = j - 1 if instrs[j - 1].opname != "TO_BOOL" else j - 2
    return p >= 0 and instrs[p].opname == "COPY" and instrs[p].arg == 1

# Instructions that end an expression where `parse_atom` runs: a statement (a store that is not
# a walrus, an expression statement's POP_TOP, a return or raise) or one it refuses outright.
_NOT_IN_ATOM = frozenset({
    "STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF", "STORE_ATTR", "STORE_SUBSCR",
    "DELETE_FAST", "DELETE_NAME", "DELETE_GLOBAL", "DELETE_DEREF", "DELETE_ATTR", "DELETE_SUBSCR",
    "POP_TOP", "RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE", "YIELD_VALUE",
    "SETUP_FINALLY", "SETUP_WITH"})


class StatementsInValue(Exception):
    """A value being read (`pure_mode`) reached a statement: the reading does not fit."""

class LoopInfo:
    """What `break` and `continue` mean inside one loop."""

    __slots__ = ("continue_targets", "break_target", "exit", "body_end", "natural_end", "copied_exit",
                 "iterator", "outer_end", "is_while", "top_test", "falls_off_to_exit", "handler_break",
                 "only_breaks_leave", "break_tail", "handler_break_on", "clauses_fall_back")

    def __init__(self, continue_targets: Set[int], break_target: Optional[int], exit: int, body_end: int,
                 natural_end: Optional[int] = None) -> None:
        self.continue_targets = continue_targets
        self.break_target = break_target
        self.exit = exit
        self.body_end = body_end
        # The back jump that is just the end of the body (no `continue` statement of its own).
        self.natural_end = body_end - 1 if natural_end is None else natural_end
        # [start, end) of a small exit block a `break` ran in place of jumping to it (3.10, 3.12+).
        self.copied_exit: Optional[Tuple[int, int]] = None
        self.iterator: Optional[n.Expr] = None  # a for loop's iterator, on the stack below its body
        self.outer_end = exit  # the end of the range the loop is part of
        self.is_while = False
        # A while loop's test at the top when a copy at the bottom ends the body (3.10+): the end
        # of the body goes to the copy, only a `continue` jumps to the top.
        self.top_test: Optional[int] = None
        self.falls_off_to_exit = False  # falling off the body's end leaves the loop (not `continue`)
        # 3.12+: where a handler's `break` goes when only handlers leave the loop (that code was
        # moved after the handler code).
        self.handler_break: Optional[int] = None
        # 3.12+: where a handler's `break` goes when normal flow reaches that code too (a `while
        # True:` ending an if body: the code after the if statement, past its else part).
        self.handler_break_on: Optional[int] = None
        # `while True:`: only a `break` leaves it. Any other loop also ends by its test or its
        # exhausted iterator, which reaches the code after it: handlers never reach that alone.
        self.only_breaks_leave = False
        # 3.12: [start, end) of the code after a while loop, laid in its body right after the
        # exit call of a with body that `break`s (the loop's else part after the loop).
        self.break_tail: Optional[Tuple[int, int]] = None
        # 3.12+: the last statement's except clauses fall out to the loop's jump back, a block of
        # its own past the range (its try body's way out, into the exit, read as a `break`): the
        # body's end is no fall into the exit.
        self.clauses_fall_back = False


class IfTest(NamedTuple):
    """The test of an if statement as its conditional jump lays it out (`ControlIfs._if_test`):
    the body falls through, the false branch jumps to the else part or the code after the if."""
    ins: Instr  # the test's last conditional jump
    i: int  # its index
    test_start: int  # where the test's code starts
    cond: n.Expr  # the whole test (its chain of and/or jumps read), as the if statement writes it
    fall: int  # where the body starts: the jump's fall-through
    false_target: int  # where the false branch goes: the else part, the code after the if, a loop's head or exit
    end: int  # the end of the range being read
    loop: Optional[LoopInfo]  # the innermost loop being read, None outside loops


class _Atom:
    """One conditional jump of a chain; `always` marks the unconditional JUMP that ends the first
    branch of a conditional expression used as a test (`if (a if b else c):`)."""
    __slots__ = ("start", "expr", "jump_if_true", "target", "jump_index", "fall", "always")

    def __init__(self, start: int, expr: n.Expr, jump_if_true: bool, target: int, jump_index: int, fall: int,
                 always: bool = False) -> None:
        self.start = start
        self.expr = expr
        self.jump_if_true = jump_if_true
        self.target = target
        self.jump_index = jump_index
        self.fall = fall
        self.always = always


class _BadChain(Exception):
    pass


def demorgan_not(e: n.Expr) -> n.Expr:
    """`not e` pushed through and/or; equivalent in a jump context, where the compiler does the same.

    Not into an `is`/`in` comparison, whose negation would change its instruction: over a chain
    holding one, the `not` stays outside (`not (a is b and c)`)."""
    if isinstance(e, n.BoolOp):
        if any(folds_under_not(v) for v in e.values):
            return n.UnaryOp("not", e)
        return n.BoolOp(_OTHER_BOOL_OP[e.op], [demorgan_not(v) for v in e.values])
    if isinstance(e, n.IfExp):
        # (the `not` sent into the arms where that takes a negation off one, as
        # `_negated_atom` does: `not e if t else c in d` read as `not (e if t else c not in d)`
        # compiled `not in`, another instruction than the `in` read)
        sent = _not_sent_into_arms(e)
        if sent is not None and sent[1]:
            return sent[0]
    return negate(e)


def un_negated(e: n.Expr) -> Optional[n.Expr]:
    """`x` where `e` is `not x` spelt so that the compiler reads it as such in a jump context, else
    None: `not x` itself, and an and/or or conditional expression whose operands are all such
    (the compiler sends a `not` into each operand of an and/or, flipping it, and into each arm of
    a conditional expression, so `not a if t else not b` makes the jumps of `not (a if t else b)`)."""
    if isinstance(e, n.UnaryOp) and e.op == "not":
        return e.operand
    if isinstance(e, n.IfExp):
        body, orelse = un_negated(e.body), un_negated(e.orelse)
        return n.IfExp(e.test, body, orelse) if body is not None and orelse is not None else None
    if isinstance(e, n.BoolOp):
        values = [un_negated(v) for v in e.values]
        if all(v is not None for v in values):
            return n.BoolOp(_OTHER_BOOL_OP[e.op], values)  # type: ignore[arg-type]
    return None



def _not_sent_into_arms(e: n.Expr) -> Optional[Tuple[n.Expr, bool]]:
    """(`not e` with the `not` sent into the arms of `e`'s conditional expressions, whether that
    took a negation off an arm), or None where an arm's negation would change its instruction
    (an `is`/`in` comparison). In a jump context the compiler does the same with a `not` around
    a conditional expression, so both spellings make the same jumps."""
    plain = un_negated(e)
    if plain is not None:
        return plain, True
    if isinstance(e, n.IfExp):
        body, orelse = _not_sent_into_arms(e.body), _not_sent_into_arms(e.orelse)
        if body is None or orelse is None:
            return None
        return n.IfExp(e.test, body[0], orelse[0]), body[1] or orelse[1]
    if folds_under_not(e):
        return None
    return negate(e), False

# The instructions that open a protected block up to their handler (3.8-3.10).
_BLOCK_SETUPS = frozenset({"SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH"})
_OTHER_BOOL_OP = {"and": "or", "or": "and"}


def _through_jump(atoms: List[_Atom], jump: int, target: int) -> List[_Atom]:
    """The atoms with jumps to `target` sent to `jump` instead, a JUMP there: in the first
    branch of a conditional expression used as a test, a jump to where the JUMP over the other
    branch goes is the same as falling into that JUMP (`(a and b if c else d) or e`: `a` false
    goes straight to `e`, `b` true falls into the JUMP to `e`)."""
    return [_Atom(a.start, a.expr, a.jump_if_true, jump, a.jump_index, a.fall, a.always)
            if a.target == target and not a.always else a for a in atoms]


def _flatten(op: str, left: n.Expr, right: n.Expr) -> n.BoolOp:
    values: List[n.Expr] = []
    for part in (left, right):
        if isinstance(part, n.BoolOp) and part.op == op:
            values.extend(part.values)
        else:
            values.append(part)
    return n.BoolOp(op, values)


def _may_complete(stmts: List[n.Stmt]) -> bool:
    """Can control run off the end of `stmts`? False only when the last statement surely leaves
    (return, raise, break, continue, or an if or try whose every way through does)."""
    if not stmts:
        return True
    last = stmts[-1]
    if isinstance(last, (n.Return, n.Raise, n.Break, n.Continue)):
        return False
    if isinstance(last, n.If):
        return _may_complete(last.body) or _may_complete(last.orelse)
    if isinstance(last, n.Try) and not last.finalbody:
        return _may_complete(last.orelse if last.orelse else last.body) \
            or any(_may_complete(h.body) for h in last.handlers)
    return True


def _drop_trailing_continue(body: List[n.Stmt]) -> None:
    """A `continue` as the very last thing a loop body does is implied."""
    while body and isinstance(body[-1], n.Continue) and not body[-1].required:
        body.pop()
    if body and isinstance(body[-1], n.If):
        last = body[-1]
        if not last.orelse:
            _drop_trailing_continue(last.body)  # (before an else, 3.8/3.9 keep its jump: it shows)
        _drop_trailing_continue(last.orelse)
