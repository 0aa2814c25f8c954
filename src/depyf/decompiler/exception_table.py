"""try/except/finally, except*, with and async for on 3.11+, built from the exception table.

`exception_regions` says which handler encloses which code; here each construct is cut into body,
handlers, else and finally parts. Code the compiler generates on its own (the copies of a finally
body before each exit, the `__exit__` call of a with statement, the `e = None; del e` after
`except E as e`, small exit blocks copied into handlers) is registered in `self.skip` so the
builder steps over it, and so is each handler's code once it has been read (3.12+ moves that code
to the end of the function).

The rules are mixins by construct, composed here over `ExceptionRegionAnalysis`; the entry
point (`try_at`) stays here. table_try_ends.py (where a try body ends), table_except.py,
table_except_ends.py, table_handler_tails.py and table_clauses.py (try/except: the statement,
its else part and way on, code only its handlers reach, the clauses), table_finally.py,
table_dead_ends.py and table_copies.py (try/finally, its copies that never finish, the matching
of its copies), table_with.py and
table_async_for.py; table_model.py holds the constants and shapes they share.
"""
from typing import List, Optional, Tuple

from depyf.decompiler import nodes as n
from depyf.decompiler.exception_regions import ExceptionRegionAnalysis
from depyf.decompiler.control import COND_JUMPS
from depyf.decompiler.table_try_ends import TableTryEnds
from depyf.decompiler.table_except import TableExcept
from depyf.decompiler.table_except_ends import TableExceptEnds
from depyf.decompiler.table_handler_tails import TableHandlerTails
from depyf.decompiler.table_try_withs import TableTryWiths
from depyf.decompiler.table_clauses import TableClauses
from depyf.decompiler.table_finally import TableFinally
from depyf.decompiler.table_dead_ends import TableDeadEnds
from depyf.decompiler.table_copies import TableCopies
from depyf.decompiler.table_with import TableWith
from depyf.decompiler.table_async_for import TableAsyncFor


class ExceptionTableRules(TableTryEnds, TableTryWiths, TableExcept, TableExceptEnds, TableHandlerTails, TableClauses,
    TableFinally, TableDeadEnds, TableCopies, TableWith, TableAsyncFor, ExceptionRegionAnalysis):
    """Exception-table constructs (3.11+); mixed into `builder.CodeBuilder`."""

    # The except clause (body start, end) being read, innermost (set while its body is read).
    _clause_read: Optional[Tuple[int, int]] = None

    # --- entry point from control_at ------------------------------------------------------------

    def try_at(self, i: int) -> Optional[int]:
        if not self.bc.regions:
            return None
        st = self._xt()
        if i in st.exit_breaks and self.loops:
            self.emit(n.Break())
            self.note_copied_break(i, st.exit_breaks[i])  # control
            return st.exit_breaks[i]
        if i in st.unprotected and not self.pure_mode:
            end = self._loop_exit_copy(i)
            if end is not None:
                self.emit(n.Break())
                self.note_copied_break(i, end)  # control
                return end
        for t in st.try_starts.get(i, ()):
            if t not in st.handled:
                st.handled.add(t)
                kind = st.kinds[t]
                if kind == "finally":
                    return self._build_finally(i, t)
                return self._build_except(i, t)
        return None

    def try_starts_at(self, i: int) -> bool:
        """Does a try statement not yet read start at `i`? (A condition chain stops there: the
        test of an `if` that begins a try body belongs to the try.)"""
        if not self.bc.regions:
            return False
        st = self._xt()
        return any(t not in st.handled for t in st.try_starts.get(i, ()))

    def try_holds_loop(self, i: int, j: int) -> bool:
        """Does a try that starts at `i`, where a loop starts too, protect that loop's jump back
        at `j` (`try: while True:`)? Then the try is the outer statement."""
        if not self.bc.regions:
            return False
        st = self._xt()
        handlers = [t for t in st.try_starts.get(i, ()) if t not in st.handled]
        if self._inverted_loop_test(j):
            j -= 1  # (that JUMP, added after the table's ranges were drawn, is never protected)
        return any(r.handler in handlers and r.start <= j < r.end for r in self.bc.regions)

    def _inverted_loop_test(self, j: int) -> bool:
        """Is the jump back at `j` the second half of a while loop's test at the bottom, which
        3.12+ spells `jump-if-not L; JUMP back; L:`?"""
        instrs = self.instrs
        return self.version.conditional_jumps_forward_only and 0 < j < len(instrs) - 1 \
            and instrs[j].opname == "JUMP" and instrs[j - 1].opname in COND_JUMPS \
            and instrs[j - 1].target == j + 1


def fold_falling_tail_into_else(stmts: List[n.Stmt]) -> None:
    """`if c: A; return None` then the rest of the function -> `if c: A` with the rest as its
    else part.

    3.10+ copies the implicit `return None` into a branch that jumps to the end, so an if body
    reads as ending in `return None` when its way out went to the end of the function: past the
    code after it, which was the else part. (An explicit `return None` reads the same when
    nothing else jumps to it; the compiler makes the same code for both then.)"""
    end = len(stmts) - 1 if stmts and _is_return_none(stmts[-1]) else len(stmts)  # (the implicit one)
    for k in range(end - 2, -1, -1):
        s = stmts[k]
        if isinstance(s, (n.Return, n.Raise)):
            break
        if isinstance(s, n.If) and not s.orelse and len(s.body) > 1 and _is_return_none(s.body[-1]) \
                and not s.body[-1].jumped_to:
            # (and on outwards: an earlier such if has this one in its else part, an elif chain)
            s.orelse = stmts[k + 1:]
            del stmts[k + 1:]
    # The blocks that end the last statement end the function too. (Not a with body: its way
    # out runs the `__exit__` call first, which the compiler never copies into a branch; a
    # `return` there was written.)
    # (after a fold the list is shorter: its last statement is the if that took the rest)
    tail = stmts[:-1] if stmts and _is_return_none(stmts[-1]) else stmts
    last = tail[-1] if tail else None
    if isinstance(last, n.If):
        fold_falling_tail_into_else(last.body)
        fold_falling_tail_into_else(last.orelse)
    elif isinstance(last, n.Try) and not last.finalbody:
        fold_falling_tail_into_else(last.orelse if last.orelse else last.body)
        for handler in last.handlers:
            fold_falling_tail_into_else(handler.body)


def _is_return_none(stmt: n.Stmt) -> bool:
    return isinstance(stmt, n.Return) and (stmt.value is None or
                                           (isinstance(stmt.value, n.Const) and stmt.value.value is None))


def _is_copied_return(stmt: n.Stmt) -> bool:
    """A `return None` that only one way reaches (see `drop_copied_returns`)."""
    return _is_return_none(stmt) and not stmt.jumped_to


def drop_copied_returns(stmts: List[n.Stmt]) -> None:
    """Remove `return None` that ends a branch of the function's last statement.

    3.11+ copies the implicit `return None` at the end of a function into every branch that
    falls off the end (an if-branch, a with body, a try body or handler); written out, it would
    be an explicit return that the compiler treats differently. A branch that is nothing but
    `return None` keeps it.
    """
    if not stmts:
        return
    last = stmts[-1]
    if _is_return_none(last):
        if len(stmts) > 1 and _is_copied_return(last):  # (one reached by two ways was written out)
            stmts.pop()
            drop_copied_returns(stmts)
        return
    if isinstance(last, n.If):
        drop_copied_returns(last.body)
        drop_copied_returns(last.orelse)
    elif isinstance(last, n.With):
        drop_copied_returns(last.body)
    elif isinstance(last, n.Try):
        if len(last.orelse) == 1 and _is_copied_return(last.orelse[0]) and not last.finalbody \
                and not last.else_kept:
            # `else: return` reads the copy that ends the try body's way out (the with statement
            # there suppressed the exception, 3.11): with no else part, the same code.
            last.orelse = []
        drop_copied_returns(last.orelse if last.orelse else last.body)
        for handler in last.handlers:
            drop_copied_returns(handler.body)
