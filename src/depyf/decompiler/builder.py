"""The symbolic interpreter that turns one code object's instructions into statements.

`CodeBuilder` walks an instruction range with a stack of expressions. Plain instructions are
handled by the rule mixins (`expressions`, `statements`, `definitions`); control flow (`control`,
`exceptions`) recognises a construct at its first instruction, builds its parts by recursively
running sub-ranges, and continues after it.
"""
from functools import cached_property
from typing import Callable, Dict, FrozenSet, List, Optional, Set, Tuple

from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.control import ControlRules, LoopInfo, StatementsInValue
from depyf.decompiler.definitions import DefinitionRules
from depyf.decompiler.errors import DecompilationError, NeedsTemporaries
from depyf.decompiler.exceptions import ExceptionRules
from depyf.decompiler.expressions import ExpressionRules
from depyf.decompiler.generics import GenericRules
from depyf.decompiler.graph import FlowGraph
from depyf.decompiler.graph.positions import SourcePositions
from depyf.decompiler.instructions import TERMINAL, Bytecode, Instr, redirected
from depyf.decompiler.patterns import PatternRules
from depyf.decompiler.printer import Printer
from depyf.decompiler.statements import StatementRules
from depyf.decompiler.structure.async_for_regions import AsyncForLoop, async_for_at
from depyf.decompiler.structure.except_clauses import ClauseChain, clause_chain, star_clause_chain
from depyf.decompiler.structure.handler_kinds import HandlerKind, handler_kind
from depyf.decompiler.structure.with_regions import WithTable, with_table
from depyf.decompiler.temporaries import TEMP_PREFIX

Handler = Callable[["CodeBuilder", Instr, int], Optional[int]]




class _StackUnderflow(Exception):
    pass


# What the compiler lays after the last statement of a block: unwinding a try body, an except
# clause, a finally body or a with statement.
_COMPILER_AFTER_BLOCK = frozenset({"POP_BLOCK", "POP_EXCEPT", "BEGIN_FINALLY", "CALL_FINALLY", "POP_FINALLY",
                                   "END_FINALLY", "RERAISE", "WITH_CLEANUP_START", "ROT_TWO", "ROT_THREE",
                                   "ROT_FOUR", "POP_TOP", "DUP_TOP"})


class CodeBuilder(PatternRules, ControlRules, ExceptionRules, DefinitionRules, GenericRules, StatementRules,
                  ExpressionRules):
    """Decompiles the body of one code object into a list of statements."""

    handlers: Dict[str, Handler] = {}
    # The state that starts as a plain value, as class attributes: an instance gets its own on
    # the first assignment (setting them all for every code object cost more than that).
    kw_names: Optional[tuple] = None
    pure_mode = 0
    temp_count = 0
    base_depth = 0
    expr_start = 0
    read_last_return = False  # was the code's last instruction, a return, read as a statement?
    loaded_assertion_error = False  # did a LOAD_ASSERTION_ERROR (3.9+) run?

    def __init__(self, bytecode: Bytecode, decompile_nested: Callable, qualname: str, printer: Printer,
                 spill_mode: bool = False) -> None:
        self.bc = bytecode
        # The reading's own list of the instructions: the decoded ones, where `redirect` has
        # not put a re-pointed copy (the decoded `Bytecode` is never changed, so a reading that
        # fails leaves it as decoded for the next one, and its graph stays true).
        self.instrs = list(bytecode.instrs)
        self.version = bytecode.version
        self.code = bytecode.code
        self.qualname = qualname
        self.decompile_nested = decompile_nested
        self.stack: List[n.Expr] = []
        self.out: List[n.Stmt] = []
        self.end = len(self.instrs)
        # NamedExprs (by id) that stand for `a = b = value` when stored again; the dict keeps
        # them alive, so that no later node can get the id of one that was dropped.
        self.chained: Dict[int, n.Expr] = {}
        # Compiler-made locals whose names no source can spell (`.type_params`): values, no text.
        self.hidden_locals: Dict[str, n.Expr] = {}
        self.loops: List[LoopInfo] = []
        self.spill_mode = spill_mode
        self.for_targets: List[Optional[n.Expr]] = []
        # Copies of a finally body's closing RERAISE (3.10+): each ends its branch of that body.
        self.finally_end_copies: Set[int] = set()
        # Jumps read as the `break` that ends a with body, after the way out's exit call (and the
        # copies of enclosing finally bodies): that way out is the break's, not a statement's end.
        self.with_break_jumps: Set[int] = set()
        # The same for a for loop's break (the iterator popped, then a jump or a copy of the code
        # after the loop): where that way out starts -> where it ends.
        self.with_break_ways: Dict[int, int] = {}
        # `return CONST` after a copy of an enclosing finally body, read as a try body's own.
        self.body_const_returns: Set[int] = set()
        # (start, end, loop depth) of the blocks `_is_copy` is reading, which must not ask again.
        self.copies_being_checked: Set[Tuple[int, int, int]] = set()
        # (start, end, view end, stack depth, loop depth) of ranges `pure_value` found statements in.
        self.ranges_with_statements: Set[Tuple[int, int, Optional[int], int, int]] = set()
        self.printer = printer
        printer.resolve = self.finish_expr
        self.prepare_control()
        self.prepare_patterns()
        # Where `control_at` can find a construct, besides the ranges registered in `skip` while
        # running: asking only there keeps the per-instruction step cheap. Try blocks of 3.11+
        # come from the exception table and are looked up at every instruction.
        self.construct_starts = frozenset(self.loop_end) | self.match_starts
        self.constructs_anywhere = self.version.has_exception_table

    # --- running ranges ---------------------------------------------------------------------

    def run(self) -> List[n.Stmt]:
        try:
            return self.run_range(0, len(self.instrs), [])
        except _StackUnderflow:
            # (a construct's reader popped an empty stack: `FOR_ITER` with nothing to iterate;
            # the error names where the value being read began)
            at = self.instrs[self.expr_start] if 0 <= self.expr_start < len(self.instrs) else None
            raise self.fail(at, "stack does not match any source construct") from None

    def run_range(self, start: int, end: int, stack: Optional[List[n.Expr]] = None) -> List[n.Stmt]:
        """Run [start, end) with `stack` and return the statements it produced."""
        saved = (self.out, self.stack, self.end, self.base_depth)
        self.out, self.stack, self.end = [], (stack if stack is not None else []), end
        self.base_depth = len(self.stack)
        try:
            i = start
            instrs = self.instrs
            # `step`, inlined: this loop runs once per instruction of the code, and the call was
            # a tenth of the time of decompiling. Keep the two alike.
            # (`self.skip` is read each time: a match statement's failed reading puts back an
            # earlier one)
            construct_starts, anywhere = self.construct_starts, self.constructs_anywhere
            handlers, terminal = _HANDLERS, TERMINAL
            while i < end:
                if len(self.stack) <= self.base_depth:
                    self.expr_start = i  # where the value now being computed began
                # (where no construct starts, the instruction's handler)
                if not (anywhere or i in self.skip or i in construct_starts) or (nxt := self.control_at(i)) is None:
                    ins = instrs[i]
                    name = ins.opname  # (a decoded instruction never changes: `redirect` replaces it)
                    try:
                        nxt = handlers[name](self, ins, i)
                    except (IndexError, _StackUnderflow):
                        raise self.fail(ins, "stack does not match any source construct") from None
                    except (AssertionError, AttributeError, TypeError, KeyError):
                        raise self.fail(ins, _operands_or_unsupported(ins)) from None
                    if nxt is None:
                        if name not in terminal:
                            i += 1  # (the common case: on to the next instruction, as below)
                            continue
                        nxt = i + 1
                if nxt <= i:
                    raise self.fail(instrs[i], "no progress")
                if instrs[i].opname in TERMINAL and nxt == i + 1 and nxt < end \
                        and (not self.jump_sources.get(nxt) or nxt in self.dead_code) \
                        and not self._statements_after_raise(i, nxt):
                    nxt = self._next_reachable(nxt, end)
                i = nxt
            if i == end:
                self.return_into_dead_end(end)  # control
            return self.out
        finally:
            self.last_stack = self.stack
            self.out, self.stack, self.end, self.base_depth = saved

    def step(self, i: int) -> int:
        """Run the instruction (or the construct starting) at index `i`; return the next index.
        (`run_range` has its own copy of this, inlined.)"""
        if len(self.stack) <= self.base_depth:
            self.expr_start = i  # where the value now being computed began
        if self.constructs_anywhere or i in self.skip or i in self.construct_starts:
            construct = self.control_at(i)
            if construct is not None:
                return construct
        ins = self.instrs[i]
        try:
            nxt = _HANDLERS[ins.opname](self, ins, i)
        except (IndexError, _StackUnderflow):
            raise self.fail(ins, "stack does not match any source construct") from None
        except (AssertionError, AttributeError, TypeError, KeyError):
            raise self.fail(ins, _operands_or_unsupported(ins)) from None
        return i + 1 if nxt is None else nxt

    def _statements_after_raise(self, i: int, k: int) -> bool:
        """3.8/3.9: do statements of the source follow the `raise` at `i`, at `k`? Such dead code
        is kept as compiled, so it reads as it was written; what the compiler itself puts after
        the last statement of a block (the unwinding of a try, handler or with, the jump over an
        else part or back to a loop's head, the implicit `return None`) is no statement."""
        instrs = self.instrs
        if not self.version.keeps_code_after_raise or instrs[i].opname != "RAISE_VARARGS":
            return False
        ins = instrs[k]
        if ins.is_jump or ins.opname in _COMPILER_AFTER_BLOCK:
            return False
        if ins.opname == "LOAD_CONST" and ins.argval is None and k + 2 == len(instrs) \
                and instrs[k + 1].opname == "RETURN_VALUE":
            return False  # (the function's implicit `return None`)
        return True

    def _next_reachable(self, i: int, end: int) -> int:
        """Skip code after a return/raise that no jump reaches (handler code, dead code)."""
        dead = self.dead_code
        while i < end and (not self.jump_sources.get(i) or i in dead):
            i += 1
        return i

    @cached_property
    def dead_code(self) -> FrozenSet[int]:
        """3.8/3.9: the instructions that no path from the code's start reaches (falling
        through, jumping, entering a handler). The peephole pass drops the code after a return
        only up to the next jump target, so what is left of the statements written after it
        (a loop's head, an except clause) is reached only from itself: no statement to read."""
        if not self.version.removes_dead_code_to_label_only:
            return frozenset()
        # (the graph of the code as decoded: `redirect` changes only this reading's view)
        return FlowGraph.of(self.bc).unreachable_instructions()

    @cached_property
    def withs(self) -> WithTable:
        """The with statements of the code as decoded (`structure/with_regions.py`)."""
        return with_table(FlowGraph.of(self.bc))

    def except_chain(self, handler: int) -> ClauseChain:
        """The except clauses of the handler at `handler`, in the code as decoded
        (`structure/except_clauses.py`)."""
        return clause_chain(self.graph, handler)

    def async_for(self, header: int) -> AsyncForLoop:
        """The async for whose head is `header` (`structure/async_for_regions.py`); a reading
        failure where there is none."""
        found = async_for_at(self.graph, header)
        if not isinstance(found, AsyncForLoop):
            at, reason = found
            raise self.fail(self.instrs[at], reason)
        return found

    def handler_kind(self, handler: int) -> HandlerKind:
        """What the handler at `handler` is the handler of (`structure/handler_kinds.py`)."""
        return handler_kind(self.graph, handler)

    def except_star_chain(self, handler: int) -> ClauseChain:
        """The except* clauses of the 3.11+ handler at `handler` (`structure/except_clauses.py`)."""
        return star_clause_chain(self.graph, handler)

    @cached_property
    def merged_reraises(self) -> FrozenSet[int]:
        """3.10+: the copies of a finally body's closing re-raise that pass `finally_reraises` left
        unreached (the conditional jumps to them go to the last one; the compiler itself leaves
        no code unreached there): ends of that body merged, not of a branch of it."""
        if not self.version.copies_closing_reraises or "RERAISE" not in self.bc.opnames():
            return frozenset()
        instrs = self.instrs
        return frozenset(k for k in FlowGraph.of(self.bc).unreachable_instructions()
                         if instrs[k].opname == "RERAISE" and instrs[k].arg == 0)

    @cached_property
    def positions(self) -> SourcePositions:
        """Lines and (3.11+) columns of the code as compiled, for rules that read the layout."""
        return SourcePositions.of(self.code, self.version)

    def redirect(self, k: int, target: int) -> None:
        """For the rest of this reading, the jump at `k` goes to `target` (the one place a rule
        re-points a jump, `_fall_out`: it replaces the entry of this reading's `instrs` by a
        copy; the decoded instruction is left as it was)."""
        self.instrs[k] = redirected(self.instrs[k], target)

    # --- helpers shared by the rules ----------------------------------------------------------

    def render(self, e: n.Expr) -> str:
        return self.printer.expr(self.finish_expr(e))

    def pop(self) -> n.Expr:
        # Every caller treats `_StackUnderflow` and the IndexError of an empty stack alike (the
        # instruction loops turn both into the same error; the others catch any exception): the
        # most common instructions call `self.stack.pop()` directly, without this call.
        try:
            return self.stack.pop()
        except IndexError:
            raise _StackUnderflow() from None

    def popn(self, count: int) -> List[n.Expr]:
        if count == 0:
            return []
        if len(self.stack) < count:
            raise _StackUnderflow()
        items = self.stack[-count:]
        del self.stack[-count:]
        return items

    def emit(self, stmt: n.Stmt) -> None:
        if self.pure_mode:
            raise _NotPure()
        if self.stack and self._live_values():
            # Source code never leaves a computed value on the stack across a statement; code
            # rewritten by tools (Dynamo) does. Such values are kept in temporaries.
            if not self.spill_mode:
                raise NeedsTemporaries()
            self.spill_stack()
        self.out.append(stmt)

    def _live_values(self) -> bool:
        for value in reversed(self.stack):
            if isinstance(value, m.ClearedLocal):
                return False  # inside a 3.12+ inlined comprehension: what lies below is the caller's
            if _needs_temporary(value):
                return True
        return False

    def spill_stack(self) -> None:
        """Assign every computed value on the stack to a temporary, in stack order."""
        for k, value in enumerate(self.stack):
            if _needs_temporary(value):
                self.spill_value(value)

    def spill_value(self, value: n.Expr) -> n.Name:
        # The values below it on the stack were computed before it: they go first, so that the
        # assignments evaluate everything in the bytecode's order.
        for other in self.stack:
            if other is value:
                break
            if _needs_temporary(other):
                self.spill_value(other)
        name = self._assign_temporary(self.out, value)
        for k, other in enumerate(self.stack):
            if other is value:
                self.stack[k] = name
        return name

    def new_temporary(self) -> n.Name:
        """A fresh `__temp_N` name."""
        name = n.Name(f"{TEMP_PREFIX}{self.temp_count}")
        self.temp_count += 1
        return name

    def _assign_temporary(self, stmts: List[n.Stmt], value: n.Expr) -> n.Name:
        """`__temp_N = value` appended to `stmts`; the new name."""
        name = self.new_temporary()
        stmts.append(n.Assign([name], self.finish_expr(value)))
        return name

    def carry_out(self, stmts: List[n.Stmt], before: List[n.Expr], after: List[n.Expr]) -> List[n.Expr]:
        """The stack after a block statement whose body went from `before` to `after`.

        Source blocks leave the stack as they found it; rewritten code (Dynamo's) may compute a
        value inside a `try` body and use it after the statement. Such values are assigned to
        temporaries at the end of `stmts` (the body), and the temporaries carried out."""
        if not self.spill_mode or after is before:
            return before
        k = 0
        while k < min(len(before), len(after)) and before[k] is after[k]:
            k += 1
        if k == len(before) == len(after):
            return before
        carried = list(before[:k])
        for value in after[k:]:
            if _needs_temporary(value):
                value = self._assign_temporary(stmts, value)
            carried.append(value)
        return carried

    def fail(self, ins: Optional[Instr], reason: str) -> DecompilationError:
        return DecompilationError(
            reason, function=self.qualname,
            offset=ins.offset if ins is not None else None,
            opname=ins.raw_opname if ins is not None else None,
            python_version=self.version.key)

    def finish_expr(self, value: n.Expr) -> n.Expr:
        """Turn a marker that reached an expression position into a real expression."""
        marker = _IS_MARKER.get(type(value))
        if marker is None:
            marker = _IS_MARKER[type(value)] = isinstance(value, m.MARKER_TYPES)
        if not marker:
            return value  # the common case, checked once (this runs for every value printed)
        if isinstance(value, m.MadeFunction):
            return self.function_expression(value)
        if isinstance(value, m.InplaceResult):
            return n.BinOp(value.op, value.target, value.value)
        if isinstance(value, m.Iterator):
            return value.value
        if isinstance(value, m.ImportedModule):
            return n.Call(n.Name("__import__"), [n.Const(value.module)])
        raise DecompilationError(f"internal value {type(value).__name__} used as an expression",
                                 function=self.qualname, python_version=self.version.key)


def _operands_or_unsupported(ins: Instr) -> str:
    """Why the handler of `ins` failed (or why there was none: the loops look handlers up inside
    their try, which saves a test per instruction)."""
    return "unexpected operands" if ins.opname in _HANDLERS else "unsupported instruction"


# Node class -> is it one of the markers (`m.MARKER_TYPES`)? `finish_expr` runs for every value
# printed; one lookup by class is cheaper than the isinstance test against every marker class.
_IS_MARKER: Dict[type, bool] = {}


def _needs_temporary(value: n.Expr) -> bool:
    if isinstance(value, (n.Name, n.Const)) or isinstance(value, m.MARKER_TYPES):
        return False
    if isinstance(value, (n.List_, n.Set_, n.Tuple_)) and not value.elts:
        return False  # an empty display being filled (comprehension accumulators)
    if isinstance(value, n.Dict_) and not value.keys:
        return False
    if isinstance(value, n.ComprehensionExpr):
        return False  # a finished inlined comprehension waiting for its saved local
    return True


class _NotPure(StatementsInValue):
    """Raised when a range that should only compute a value produced a statement."""


def _collect_handlers() -> None:
    table: Dict[str, Handler] = {}
    for klass in reversed(CodeBuilder.__mro__):
        for attr, value in vars(klass).items():
            if attr.startswith("op_") and callable(value):
                table[attr[3:]] = value
    CodeBuilder.handlers = table
    _HANDLERS.update(table)


# The same table as a module global: `step` reads it once per instruction.
_HANDLERS: Dict[str, Handler] = {}
_collect_handlers()
