"""`with`, `async with` and `async for` on the 3.8-3.10 block stack.

SETUP_WITH pushes `__exit__`; the way out calls it (3.8: WITH_CLEANUP_START/FINISH, 3.9+:
`__exit__(None, None, None)`), the handler is WITH_CLEANUP_* or WITH_EXCEPT_START. `async for`
is a SETUP_FINALLY around GET_ANEXT whose handler is END_ASYNC_FOR.
"""
from typing import List, Optional, Tuple

from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.control import _drop_trailing_continue
from depyf.decompiler.instructions import MAX_COPY as _MAX_COPY, Instr
from depyf.decompiler.block_model import _EXIT_CALL, _Block, _AsyncContext


class BlockWith:
    """with/async with/async for of 3.8-3.10; mixed into `BlockExceptionRules`."""

    def op_BEFORE_ASYNC_WITH(self, ins: Instr, i: int) -> Optional[int]:
        if self.version.has_exception_table:
            return super().op_BEFORE_ASYNC_WITH(ins, i)  # type: ignore[misc]
        self.stack.append(_AsyncContext(self.pop()))
        return None

    # --- with -----------------------------------------------------------------------------------

    def op_SETUP_WITH(self, ins: Instr, i: int) -> int:
        return self._with(ins, i, False)

    def op_SETUP_ASYNC_WITH(self, ins: Instr, i: int) -> int:
        return self._with(ins, i, True)

    def _with(self, ins: Instr, i: int, is_async: bool) -> int:
        instrs = self.instrs
        manager = self._with_manager(ins, is_async)
        h = ins.target
        awaits = 3 if is_async else 0
        end, body_end, tail = self._with_parts(ins, i, h, awaits)
        if tail is not None and tail[0] + 1 == tail[1] and instrs[tail[0]].opname == "JUMP":
            t = instrs[tail[0]].target
            if t > end and self._duplicates([end, t]):
                # 3.10: the way out jumps to a duplicate of the code after the handler (the exit of
                # an enclosing with); the statement ends where that duplicate starts.
                end, tail = t, None
        outer = list(self.stack)
        exit_slot = m.WithExit()
        self.for_targets.append(None)
        try:
            block = _Block("with", [exit_slot])
            body = self._run_in(block, i + 1, body_end, outer + [exit_slot, m.Sentinel("for-target")])
            target = self.for_targets[-1]
            # (`with m: return g()` through such a copy: the with's exit call, then the copy)
            self._dead_return_after_copy(body, self.last_stack, outer, body_end, h)
            if tail is None and body_end == h and "pending" in block.info:
                tail = block.info["pending"]
        finally:
            self.for_targets.pop()
        tail = self._with_body_exit(i, body, tail, end)
        items: List[Tuple[n.Expr, Optional[n.Expr]]] = [(manager, target)]
        if len(body) == 1 and isinstance(body[0], n.With) and body[0].is_async == is_async:
            items += body[0].items
            body = body[0].body
        self.emit(n.With(items, body, is_async))
        if tail is not None and tail[0] < tail[1] and not self._same_code(tail, (end, end + tail[1] - tail[0])):
            jump = instrs[tail[0]]
            if not (tail[0] + 1 == tail[1] and jump.opname == "JUMP" and jump.target == end):
                for stmt in self.run_range(tail[0], tail[1], list(outer)):
                    self.emit(stmt)
        return end

    def _with_manager(self, ins: Instr, is_async: bool) -> n.Expr:
        """The context manager, popped (an `async with`'s from under its BEFORE_ASYNC_WITH)."""
        manager = self.pop()
        if is_async:
            if isinstance(manager, n.Await):
                manager = manager.value
            if not isinstance(manager, _AsyncContext):
                raise self.fail(ins, "async with without BEFORE_ASYNC_WITH")
            manager = manager.value
        return manager

    def _with_parts(self, ins: Instr, i: int, h: int, awaits: int) -> Tuple[int, int, Optional[Tuple[int, int]]]:
        """Where the with statement at `i` ends (past its handler at `h`, the structure's), where
        its body ends, and the copied tail its way out leaves through after the exit call, if any."""
        statement = self.withs.at_setup(i)
        if statement is None:
            raise self.fail(self.instrs[h], "unrecognised with handler")
        end = statement.handler.end
        if statement.handler.test is None:
            # 3.8: the normal exit `POP_BLOCK; BEGIN_FINALLY` falls into the handler
            exit_ = self.withs.exit_call_at(h - 1)
            if exit_ is not None and exit_.into_handler:
                return end, h - 2, None
            return end, self._live_end(i + 1, h), None
        body_end, tail = self._with_exit_copy(i, h, end, awaits)
        return end, body_end, tail

    def _with_exit_copy(self, i: int, h: int, end: int, awaits: int) -> Tuple[int, Optional[Tuple[int, int]]]:
        """3.9+: where the body of the with at `i` ends (its handler at `h`, the statement's end
        at `end`), and the copied tail its way out leaves through after the exit call, if any."""
        instrs = self.instrs
        body_end, tail = self._live_end(i + 1, h), None
        for pb in range(h - 1, i, -1):
            if instrs[pb].opname != "POP_BLOCK":
                continue
            j = pb + 1
            if not (self._ops_at(j, _EXIT_CALL) and instrs[j].argval is None):
                if pb > h - 2 * _MAX_COPY:
                    continue  # an enclosing block left on the way to a copied exit
                break
            width = 6 + awaits
            while self._is_with_exit(pb - width, awaits):
                pb -= width  # the way out of enclosing withs follows: a return from inside
            j = pb + 1 + 4 + awaits
            if self._op(j) == "POP_TOP":
                j += 1
                # A copy of the code after the with is what the handler, having swallowed
                # the exception, falls into too; other code there is a `return <constant>`
                # that ends the body (its value loaded after the with is left).
                copied_after = self._same_code((j, h), (end, end + h - j))
                if j == h or (j + 1 == h and instrs[j].opname == "JUMP") \
                        or (self._is_copy(j, h) and copied_after):
                    # 3.10 may also have duplicated this way out in front of it, for a loop
                    # in the body that leaves by its end and by a break.
                    body_end, tail = self._before_duplicate(i + 1, pb, h), (j, h)
                elif copied_after and self._note_outer(self._outer_exit(j, h)):
                    body_end = self._before_duplicate(i + 1, pb, h)
            break
        return body_end, tail

    def _with_body_exit(self, i: int, body: List[n.Stmt], tail: Optional[Tuple[int, int]],
                        end: int) -> Optional[Tuple[int, int]]:
        """A `continue` or `break` that ends the body of the with at `i`, read from its way out
        after the exit call (appended to `body`); the tail that is left."""
        instrs = self.instrs
        if tail is not None and tail[0] + 1 == tail[1] and instrs[tail[0]].opname == "JUMP" and self.loops \
                and instrs[tail[0]].target in self.loops[-1].continue_targets and instrs[tail[0]].target < i \
                and not self._same_code(tail, (end, end + 1)):
            # The body's way out, after the exit call, is a jump back to the loop's head that the
            # handler's way on (having swallowed the exception) is not: a `continue` that ends
            # the body (to a `while True:` line's NOP, the body's end going past it; or with more
            # of the loop body after the with). Read after the with, a swallowed exception would
            # go back to the head too.
            body.append(n.Continue(required=True))
            tail = None
        elif tail is not None and tail[0] + 1 == tail[1] and instrs[tail[0]].opname == "JUMP" and self.loops \
                and instrs[tail[0]].target != end and self._past_loop(self.loops[-1], tail[0], instrs[tail[0]].target) \
                and not self._same_code(tail, (end, end + 1)) and self._op(end - 1) == "POP_TOP" \
                and not self._leaves_loop(end):
            # Likewise a jump out of the loop that the handler's way on, more of the loop body,
            # is not: a `break` that ends the body (`with m: ...; break` then more statements).
            body.append(n.Break())
            tail = None
        return tail

    def _is_with_exit(self, k: int, awaits: int) -> bool:
        """`POP_BLOCK; __exit__(None, None, None); [await]; POP_TOP` at `k` (3.9+), an await
        there only where `awaits`."""
        call = self.withs.exit_call_at(k + 1)
        return self._op(k) == "POP_BLOCK" and call is not None and call.call == k + 1 \
            and call.end - call.call == 5 + awaits

    # --- async for ------------------------------------------------------------------------------

    def async_for_loop(self, h: int) -> int:
        """`async for` before 3.11: SETUP_FINALLY around GET_ANEXT, END_ASYNC_FOR at the handler."""
        from depyf.decompiler.control import LoopInfo
        instrs = self.instrs
        ins = instrs[h]
        loop = self.async_for(h)
        handler, body_start = loop.end_async_for, loop.body_start
        iterator = self.pop()
        iterable = iterator.value if isinstance(iterator, m.Iterator) else iterator
        if not isinstance(iterator, m.Iterator):
            iterator = m.Iterator(iterator, is_async=True)
        j = self.loop_end.get(h, handler - 1)
        body_end = j if instrs[j].opname == "JUMP" and instrs[j].target == h else j + 1
        real_exit = max(handler + 1, j + 1)
        break_target = self._break_target(body_start, body_end, real_exit, {j})
        info = LoopInfo({h}, break_target, real_exit, body_end)
        # (a `break` drops the iterator; 3.10 may copy the code after the loop there)
        info.iterator, info.outer_end = iterator, self.end
        self.loops.append(info)
        self.active_loops.add(h)
        self.for_targets.append(None)
        try:
            body = self.run_range(body_start, body_end, list(self.stack) + [iterator, m.Sentinel("for-target")])
            target = self.for_targets[-1]
        finally:
            self.loops.pop()
            self.active_loops.discard(h)
            self.for_targets.pop()
        if target is None:
            raise self.fail(ins, "async for loop without a target")
        _drop_trailing_continue(body)
        if break_target is None and info.copied_exit is not None:
            break_target = self._exit_original(info, *info.copied_exit)
        orelse: List[n.Stmt] = []
        after = real_exit
        if break_target is not None and real_exit < break_target <= self.end:
            orelse = self.run_range(real_exit, break_target, list(self.stack))
            after = break_target
        after = self.finish_for(n.For(target, iterable, body, orelse, True), after)
        self._place_copied_exit(info, after)
        return after
