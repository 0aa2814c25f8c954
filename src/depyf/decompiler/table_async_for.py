"""`async for` on 3.11+: the loop read from its exception-table entry around GET_ANEXT.
"""
from typing import List, Optional, Tuple

from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.instructions import TERMINAL
from depyf.decompiler.control import LoopInfo
from depyf.decompiler.table_model import _AsyncForShape


class TableAsyncFor:
    """async for; mixed into `exception_table.ExceptionTableRules`."""

    def async_for_table_loop(self, h: int) -> int:
        """`async for`: GET_ANEXT, an await, the target store, the body, and END_ASYNC_FOR."""
        iterator = self.pop()
        iterable = iterator.value if isinstance(iterator, m.Iterator) else iterator
        shape = self._async_for_shape(h)
        start, body_end, real_exit, exit_at = shape.start, shape.body_end, shape.real_exit, shape.exit_at
        popped = shape.popped
        info, body, target = self._read_async_for_body(h, shape, iterable)
        break_target = shape.break_target
        if break_target is None and info.copied_exit is not None:
            break_target = self._exit_original(info, *info.copied_exit)
        orelse: List[n.Stmt] = []
        after = real_exit
        if popped is not None:
            after, stop = popped
            orelse = self.run_range(real_exit, stop, list(self.stack)) if stop > real_exit else []
            self._mark_dead(real_exit, stop + 1)
            self.skip[exit_at] = exit_at + 1
            return self.finish_for(n.For(target, iterable, body, orelse, True), after)
        moved = self._moved_rest(real_exit, body_end)
        if moved is not None:
            # 3.12+: END_ASYNC_FOR lies with the handler code at the end, past the range (an if
            # body), and what follows it goes back into the range: that is the loop's else part
            # when a `break` goes there too, else the code after the loop.
            stop, after, span_end = moved
            tail = self.run_range(real_exit, stop, list(self.stack))
            self._mark_dead(real_exit, span_end)
            self.skip[exit_at] = exit_at + 1
            if after < self.end and self._breaks_to(start, body_end, after, info):
                return self.finish_for(n.For(target, iterable, body, tail, True), after)
            done = self.finish_for(n.For(target, iterable, body, [], True), after)
            for stmt in tail:
                self.emit(stmt)
            return done
        if break_target is not None and real_exit < break_target <= self.end:
            orelse = self.run_range(real_exit, break_target, list(self.stack))
            after = break_target
        self.skip[exit_at] = exit_at + 1
        return self.finish_for(n.For(target, iterable, body, orelse, True), after)

    def _async_for_shape(self, h: int) -> _AsyncForShape:
        """Where the parts of the async for whose GET_ANEXT is at `h` lie: END_ASYNC_FOR is the
        handler of the region around the await (`GET_ANEXT; ...; SEND; [END_SEND]`, then the
        target's store), the body ends with the jump back to `h` (3.12+: or past copies of exit
        blocks after it), and a break goes past END_ASYNC_FOR."""
        instrs = self.instrs
        loop = self.async_for(h)
        exit_at, start = loop.end_async_for, loop.body_start
        j = self.loop_end[h]
        body_end = j if instrs[j].opname == "JUMP" and instrs[j].target == h else j + 1
        last = instrs[exit_at - 1]
        if j + 1 < exit_at and not (last.opname == "JUMP" and last.target == h) \
                and any(j < k < exit_at for k in self._reach(start, {exit_at})):
            # 3.12+: copies of exit blocks (a break) after the last jump back. (Not when only
            # handler code lies there: that of a try before the loop, whose else part the loop
            # is read in, comes before END_ASYNC_FOR.)
            body_end = exit_at
        real_exit = exit_at + 1
        targets = [x.target for x in instrs[start:body_end]
                   if x.target is not None and x.target > real_exit - 1 and x.target != exit_at]
        break_target = min(targets) if targets else None
        popped = self._popping_break(start, j, real_exit)
        if popped is not None:
            # (a POP_TOP that falls into the code after the loop is a `break`: read in the body)
            break_target = popped[0]
            body_end = popped[0] if popped[0] > j + 1 else j if instrs[j].target == h else j + 1
        return _AsyncForShape(exit_at, start, body_end, real_exit, break_target, popped)

    def _read_async_for_body(self, h: int, shape: _AsyncForShape, iterable: n.Expr
                             ) -> Tuple[LoopInfo, List[n.Stmt], n.Expr]:
        """The loop (its `LoopInfo`), its body and target, read with the iterator on the stack
        (the trailing `continue` the jump back reads as dropped)."""
        from depyf.decompiler.control import _drop_trailing_continue
        popped, body_end = shape.popped, shape.body_end
        info = LoopInfo({h}, shape.break_target, shape.real_exit if popped is None else popped[0], body_end)
        info.iterator, info.outer_end = m.Iterator(iterable, True), self.end
        self.loops.append(info)
        self.active_loops.add(h)
        self.for_targets.append(None)
        try:
            body = self.run_range(shape.start, body_end, list(self.stack) + [info.iterator, m.Sentinel("for-target")])
            target = self.for_targets[-1]
        finally:
            self.loops.pop()
            self.active_loops.discard(h)
            self.for_targets.pop()
        if target is None:
            raise self.fail(self.instrs[h], "async for loop without a target")
        _drop_trailing_continue(body)
        return info, body, target

    def _popping_break(self, start: int, j: int, real_exit: int) -> Optional[Tuple[int, int]]:
        """3.12+: (the code after the async for, the end of its else part) when a `break` in the
        body [start, j] pops the iterator (POP_TOP) and runs on into the code after the loop,
        laid right after the loop's last jump back: the loop's own exit, END_ASYNC_FOR with the
        handler code at the end, then runs the loop's else part and jumps back to that code."""
        instrs = self.instrs
        if not self.version.handler_code_at_end or real_exit >= len(instrs):
            return None
        flow = self._reach(real_exit, None, real_exit)
        last = max(flow)
        if len(flow) != last + 1 - real_exit or instrs[last].opname != "JUMP":
            return None
        x = instrs[last].target
        if x == j + 1 and instrs[j].opname == "JUMP":
            # (the breaks jump there after popping the iterator)
            return (x, last) if any(instrs[k].target == x for k in range(start, j)) else None
        if not j + 1 < x < real_exit - 1 or instrs[x - 1].opname != "POP_TOP":
            return None
        sources = self.jump_sources.get(x - 1, ())
        if not sources or any(not start <= src <= j for src in sources) or instrs[x - 2].opname != "JUMP":
            return None
        return x, last

    def _moved_rest(self, x: int, low: int) -> Optional[Tuple[int, int, int]]:
        """3.12+: where the code after an async for's END_ASYNC_FOR (or after a with whose body
        such a loop ends) lies past the range being read, at `x` (the loop ends an if body, say:
        END_ASYNC_FOR is laid with the handler code at the end), (end of its statements, where it
        goes on in the range, end of the code to mark read).

        That code (the loop's else part or the code after the statement, moved with it) is one
        stretch that ends with a jump back into the range, to its end or to code from `low` on
        (the code after the loop laid in place), or with a return or raise. None for anything
        else."""
        instrs = self.instrs
        if not self.version.handler_code_at_end or not self.end < x < len(instrs):
            return None
        flow = self._reach(x, None, x)
        last = max(flow)
        handler_code = self.handler_only_code()
        if any(k not in flow and k not in handler_code for k in range(x, last)):
            return None
        closing = instrs[last]
        if closing.opname == "JUMP" and low <= closing.target <= self.end:
            return last, closing.target, last + 1
        if closing.opname in TERMINAL:
            return last + 1, self.end, last + 1
        return None

    def _breaks_to(self, start: int, body_end: int, x: int, info: LoopInfo) -> bool:
        """Does a `break` in the loop body [start, body_end) go to `x`: a jump there, or a copy
        of the small exit block at `x`?"""
        if any(self.instrs[k].target == x for k in range(start, body_end)):
            return True
        if info.copied_exit is None:
            return False
        a, b = info.copied_exit
        return self._same_code((a, b), (x, x + b - a))
