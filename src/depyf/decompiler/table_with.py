"""`with` and `async with` on 3.11+: the body, the `__exit__` calls on each way out, and the
breaks, continues and returns around them.
"""
from typing import List, Optional, Set, Tuple

from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.instructions import TERMINAL, Instr
from depyf.decompiler.control import LoopInfo
from depyf.decompiler.structure.with_regions import WithStatement
from depyf.decompiler.table_model import _MAX_RETURN_BLOCK, _WithShape


class TableWith:
    """with and async with; mixed into `exception_table.ExceptionTableRules`."""

    def op_BEFORE_WITH(self, ins: Instr, i: int) -> int:
        return self._build_with(i, False)

    def op_BEFORE_ASYNC_WITH(self, ins: Instr, i: int) -> Optional[int]:
        if not self.version.has_exception_table:
            return super().op_BEFORE_ASYNC_WITH(ins, i)  # type: ignore[misc]
        return self._build_with(i, True)

    def _build_with(self, i: int, is_async: bool) -> int:
        if self.pure_mode:
            raise self.fail(self.instrs[i], "with statement inside an expression")
        ctx = self.finish_expr(self.pop())
        base = list(self.stack)
        statement = self.withs.at_setup(i)
        if statement is None:
            raise self.fail(self.instrs[i], "with statement without its exception handler")
        start = statement.body_start
        shape = self._with_shape(statement)
        body, target = self._read_with_body(start, shape.body_end, base)
        handler_tail, only_tail = self._mark_with_handler_code(shape)
        # Idiom: `with a: with b:` is written `with a, b:` (both compile the same).
        items: List[Tuple[n.Expr, Optional[n.Expr]]] = [(ctx, target)]
        if len(body) == 1 and isinstance(body[0], n.With) and body[0].is_async == is_async \
                and not self._with_lines_apart(start):
            items.extend(body[0].items)
            body = body[0].body
        self.stack = base
        past_break = self._with_body_ending_exit(shape, body, statement)
        self.emit(n.With(items, body, is_async))
        if past_break is not None:
            return self._with_after_break(shape, past_break, only_tail, base)
        t, after, be = shape.handler, shape.after, shape.body_end
        if handler_tail:
            # Only the handler reaches the code after the with: it is read here, once. (Where
            # the body's way out is a copy of that code, laid after it, it ends there.)
            stop = self._exit_copy_of(be, after)
            for stmt in self.run_range(after, stop, list(base)):
                self.emit(stmt)
            self._mark_dead(t, self.end)
            return self.end
        if only_tail is not None and after is not None:
            # ... or past the range (3.12+).
            for stmt in self.run_range(after, only_tail[0], list(base)):
                self.emit(stmt)
            self._mark_dead(after, only_tail[1])
        if be != shape.protected_end and self.loops and self.loops[-1].iterator is not None:
            # The body ends in a `return <constant>` read into it (a for loop's iterator popped
            # first): what follows is no way out of it (the for loop's exit, say).
            return max(be, i + 1)
        return self._with_way_on(i, shape, base)

    def _with_shape(self, statement: WithStatement) -> _WithShape:
        """Where the with body at `start` ends (its handler and the handler's way on are the
        structure's): past the protected range, the body may go on to a `return <constant>`
        after the exit call, to code that only an inner handler goes on to, or to a return into
        a dead-end copy. The handler is marked as read."""
        st = self._xt()
        start, t = statement.body_start, statement.handler.start
        st.handled.add(t)
        warm = self._reach(start)
        after = self._with_handler_exit(t, warm)
        span_end = self._cold_span(t, warm | ({after} if after is not None else set()))
        self._register_exit_calls(start, self._protected_end(start, t, warm))
        be = self._extend_for_return(self._protected_end(start, t, warm))
        be = self._past_break_exit_call(statement, be)
        protected_end = be
        exit_at = self._normal_exit_past_handlers(be, t, warm)
        past = self._with_const_return(exit_at, t, after)
        be = past if past != exit_at else be
        way_on_end = self._past_handler_way_on(start, be, t, warm)
        if past == exit_at and way_on_end > be:
            # (the code that only an inner handler goes on to may end in `return CONST`, after
            # this with's exit call: `with a: (with b: raise E); more; return 1`)
            way_on_end = self._with_const_return(way_on_end, t, after)
        be = way_on_end
        if past == exit_at:
            be = self._swallowed_const_return(start, be, t, warm, after)
        be = self._past_with_dead_end_return(start, be, t)
        return _WithShape(t, warm, after, span_end, protected_end, be)

    def _past_break_exit_call(self, statement: WithStatement, be: int) -> int:
        """Where the with body ends when its last protected code is an inner loop's else part
        that ends in a `break` of the loop around the with: that break's exit call follows it
        (then the iterator's pop and the jump out), and the with's own normal exit lies past it,
        where the inner loop's `break` jumps (`for ...: with m: (for ...: break / else: break)`).
        Read as the end of the body, the inner loop's else part would run after its `break`."""
        here = self.withs.exit_call_at(be)
        loop = self.loops[-1] if self.loops else None
        if here is None or loop is None:
            return be
        k = here.end
        if loop.iterator is not None and k < len(self.instrs) and self.instrs[k].opname == "POP_TOP":
            k += 1
        jump = self.instrs[k] if k < len(self.instrs) else None
        if jump is None or jump.opname != "JUMP" or jump.target is None \
                or not (jump.target == loop.break_target or jump.target >= loop.exit > k):
            return be
        later = [e.start for e in statement.exits if e.start > k
                 and any(statement.body_start <= src < be for src in self.jump_sources.get(e.start, ()))]
        return min(later) if later else be

    def _read_with_body(self, start: int, be: int, base: List[n.Expr]
                        ) -> Tuple[List[n.Stmt], Optional[n.Expr]]:
        """The with body [start, be) and its `as` target, read above the exit marker."""
        self.for_targets.append(None)
        try:
            body = self.run_range(start, be, list(base) + [m.WithExit(), m.Sentinel("for-target")])
            target = self.for_targets[-1]
        finally:
            self.for_targets.pop()
        left = self.last_stack
        if len(left) > len(base) and not isinstance(left[-1], m.MARKER_TYPES) \
                and self._return_into_dead_end_copy(be):
            # The body ends in `return value` and the copy of an enclosing finally body after
            # the exit call never finishes: the compiler dropped the RETURN_VALUE after it as
            # dead (left on the stack, the value and its side effects would be lost).
            body.append(n.Return(left.pop()))
        return body, target

    def _mark_with_handler_code(self, shape: _WithShape) -> Tuple[bool, Optional[Tuple[int, int]]]:
        """Mark the handler's code as read; (does the code after the with lie in the handler's
        span, where it lies past the range instead (3.12+, `_handler_only_tail`))."""
        t, warm, after, span_end = shape.handler, shape.warm, shape.after, shape.span_end
        handler_tail = after is not None and after not in warm and t < after < self.end
        # (3.12+: past the range, an if body say, when the with body never ends normally)
        only_tail = self._handler_only_tail(after, self.end, t) if after not in warm else None
        if handler_tail or only_tail is not None:
            # The code after the with lies inside the handler's span (its cleanup follows it).
            self._mark_dead_code(self._cold_code(t, warm | {after}))
        elif any(k in warm for k in range(t, span_end)):
            # The span runs on to an enclosing clause's `e = None; del e` cleanup, past the code
            # after the with (which the body reaches): only the handler code itself is read.
            self._mark_dead_code(self._cold_code(t, warm | ({after} if after is not None else set())))
        else:
            code = self._cold_code(t, warm | ({after} if after is not None else set()))
            if any(k not in code and any(src not in code for src in self.jump_sources.get(k, ()))
                   for k in range(t, span_end)):
                # (code in between that is reached from elsewhere, an if's else part that the
                # handler's way on jumps over, to the loop's closing jump, is no handler code)
                self._mark_dead_code(code)
            else:
                self._mark_dead(t, span_end)
        return handler_tail, only_tail

    def _with_body_ending_exit(self, shape: _WithShape, body: List[n.Stmt],
                               statement: WithStatement) -> Optional[int]:
        """The `break` or `continue` that ends the body, read past its exit call (not after a
        `return <constant>` that ends the body, read into it), added to `body`; where the
        break's way out ends, if a break."""
        be, span_end, after = shape.body_end, shape.span_end, shape.after
        if be != shape.protected_end:
            return None
        instrs = self.instrs
        found_break = self._break_after_exit_call(be, span_end, after)
        if found_break is not None:
            _ends_of_break(body, statement.normal_exit is not None and statement.protected_end > be).append(n.Break())
            way, past = found_break
            if instrs[past - 1].opname == "JUMP":
                self.with_break_jumps.add(past - 1)
            if self.loops[-1].iterator is not None or instrs[past - 1].opname in TERMINAL:
                # (a for loop's break pops the iterator first; then it jumps, or runs a copy of
                # the code after the loop: all of it is the break's)
                self.with_break_ways[way] = past
                self.skip.setdefault(way, past)
                tail = self.loops[-1].break_tail
                if instrs[past - 1].opname in TERMINAL and (tail is None or tail[1] != past):
                    copy = way + 1 if self.loops[-1].iterator is not None else way
                    self.note_copied_break(copy, past)  # control
            return past
        if self._break_into_exit_after_exit_call(be, span_end, after):
            body.append(n.Break())
            return None
        past_continue = self._continue_after_exit_call(be, span_end, after)
        if past_continue is not None:
            body.append(n.Continue(required=True))
            self.skip[past_continue - 1] = past_continue  # (its jump, read as that continue)
        return None

    def _with_after_break(self, shape: _WithShape, past_break: int, only_tail: Optional[Tuple[int, int]],
                          base: List[n.Expr]) -> int:
        """Where reading goes on after a with whose body ends in a break: past the break's way
        out (what a swallowed exception reaches laid past the range, 3.12+, read first)."""
        t, after = shape.handler, shape.after
        if only_tail is not None and after is not None and after > t:
            # (the code after the with, which only a swallowed exception reaches, laid past
            # the range with the handler code: 3.12+)
            for stmt in self.run_range(after, only_tail[0], list(base)):
                self.emit(stmt)
            self._mark_dead(after, only_tail[1])
        if self.instrs[past_break - 1].opname in TERMINAL and not self.jump_sources.get(past_break):
            # (the break ran the code after the loop, which returns or raises: what follows
            # is reached only by jumps, as after any return read in a range)
            return self._next_reachable(past_break, self.end)  # builder
        return past_break

    def _with_way_on(self, i: int, shape: _WithShape, base: List[n.Expr]) -> int:
        """Where reading goes on after the with: past its exit call on the normal way out and
        the jump over the handler (to the code after the with; on 3.12+ that may lie past the
        range, after an async for or in an if body)."""
        instrs = self.instrs
        t, span_end, be = shape.handler, shape.span_end, shape.body_end
        cont = be
        while cont in self.skip and self.skip[cont] > cont and cont < span_end \
                and not any(cont < loop.exit <= self.skip[cont] for loop in self.loops):
            # (not past the exit of a loop around the with, which its reading steps over while
            # it reads the body: the code after the loop is read next)
            cont = self.skip[cont]
        over = instrs[cont] if cont < len(instrs) else None
        if over is not None and over.opname == "JUMP" and cont + 1 == t and over.target >= span_end:
            moved = self._moved_rest(over.target, i + 1) if be >= self.end else None
            if moved is not None:
                # The body's normal exit lies past the range (3.12+: after the END_ASYNC_FOR of an
                # async for that ends the body, in an if body), and so does the code after the
                # with, where the handler goes on too: the rest of the range.
                stop, way_on, rest_end = moved
                for stmt in self.run_range(over.target, stop, list(base)):
                    self.emit(stmt)
                self._mark_dead(be, cont + 1)
                self._mark_dead(over.target, rest_end)
                return max(way_on, i + 1)
            cont = min(over.target, self.end)
        elif over is not None and over.opname == "JUMP" and cont + 1 == t and be >= self.end \
                and i < over.target <= self.end:
            # (... and jumps back to the range's end, or to the code after the with laid in place)
            self._mark_dead(be, cont + 1)
            return over.target
        if be >= self.end and cont > be:
            # The body's normal exit lies past the range (3.12+: after the END_ASYNC_FOR of an
            # async for that ends the body, in an if body): its exit call has been read here.
            self._mark_dead(be, cont)
        return max(cont, i + 1)

    def _break_after_exit_call(self, be: int, span_end: int, after: Optional[int]) -> Optional[Tuple[int, int]]:
        """A `break` that ends the with body: its way out runs the exit call, then leaves the loop
        (a for loop's iterator popped first), while an exit that swallows the exception goes on
        to `after`, somewhere else (the next iteration, or more of the loop body). Read as a
        `break` after the with statement, a swallowed exception would stop the loop. Where the
        break's own code starts, past the copies on the way out (the exit call, finally bodies),
        and where it ends; None when the body's way out goes on where the handler does."""
        loop = self.loops[-1] if self.loops else None
        if loop is None or after is None:
            return None
        instrs = self.instrs
        k = be
        while k in self.skip and self.skip[k] > k and k < span_end:
            nxt = self.skip[k]
            if k > be and instrs[nxt - 1].opname == "JUMP" and instrs[nxt - 1].target is not None \
                    and k <= instrs[nxt - 1].target < nxt and loop.iterator is None:
                # A copy on the way out (the finally body's, after the exit call) that ends in a
                # loop of its own, whose exits the compiler threaded to where the `break` goes
                # (3.12+: the loop's exit; `finally: while c: ...`): nothing falls out of it.
                outs = [instrs[q].target for q in range(k, nxt) if instrs[q].target is not None
                        and not k <= instrs[q].target < nxt]
                if outs and all(x == loop.exit or x == loop.break_target for x in outs):
                    return k, nxt
            k = nxt
        if k == after or k + 1 >= len(instrs):
            return None
        start = k
        if loop.iterator is not None:
            if instrs[k].opname != "POP_TOP" or k + 1 == after:
                return None
            k += 1
        jump = instrs[k]
        if jump.opname != "JUMP" and (loop.iterator is not None or self.version.copies_exit_blocks):
            # (3.12 copies a small exit block into the jump to it: the code after a while loop
            # too, whose `break` has no iterator to pop)
            copy_end = self._copied_loop_exit_at(k, loop)
            if copy_end is None and loop.iterator is not None:
                # (a copy of code after the loop that stands elsewhere, past its else part, or
                # that exists only as the breaks' copies: as a plain `break` reads it)
                copy_end = self.copied_break_end(loop, k - 1)  # control
            elif copy_end is None and loop.break_tail is None and loop.is_while and not loop.only_breaks_leave:
                copy_end = self._exit_code_after_exit_call(k, k - 1)
                if copy_end is not None:
                    loop.break_tail = (k, copy_end)  # (read after the loop: `while_loop`)
            elif copy_end is None and loop.only_breaks_leave:
                copy_end = self._copy_of_unlaid_loop_exit(k, loop, stepped=self.withs.exit_call_at(be) is not None)
            return None if copy_end is None else (start, copy_end)
        if jump.opname == "JUMP" and jump.target == k + 1 and loop.iterator is None and loop.break_tail is None \
                and loop.is_while and not loop.only_breaks_leave and k + 1 < loop.exit:
            # (3.13 keeps the jump, to the next instruction once the else part moved past the
            # loop: pass `loop_exits_after_loops`)
            copy_end = self._exit_code_after_exit_call(k + 1, start - 1, k)
            if copy_end is not None:
                loop.break_tail = (k + 1, copy_end)
                return start, copy_end
        if jump.opname != "JUMP" or jump.target is None \
                or not (jump.target == loop.break_target or jump.target >= loop.exit > k):
            return None
        return start, k + 1

    def _exit_code_after_exit_call(self, k: int, call: int, jump: Optional[int] = None) -> Optional[int]:
        """3.12+: where the code after a while loop ends when it stands right after the exit
        call (ending at `call`) of a with body that `break`s, at `k`: the jump there was dropped
        (3.12; 3.13 keeps it, at `jump`), and the loop's else part (which its tests reach) is laid
        after it. It is a straight block that only that break enters, ending in a return or
        raise; a swallowing exit goes on in the loop, elsewhere (the caller's check). Where it
        ends, or None."""
        instrs = self.instrs
        if self.jump_sources.get(k, ()) != (() if jump is None else (jump,)):
            return None
        e = k
        while e < len(instrs) and instrs[e].target is None \
                and instrs[e].opname not in TERMINAL and (e == k or not self.jump_sources.get(e)):
            e += 1
        if e >= len(instrs) or e > k and self.jump_sources.get(e) \
                or instrs[e].opname not in ("RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS") \
                or instrs[e].opname == "RAISE_VARARGS" and instrs[e].arg == 0:
            return None
        if any(self._line_of(q) == self._line_of(call) for q in range(k, e + 1)):
            return None  # (a statement of the with's own line: its exit's)
        return e + 1

    def _copied_loop_exit_at(self, k: int, loop: LoopInfo) -> Optional[int]:
        """3.12+: where the copy at `k` of the small block after the for loop (a `return x`,
        after END_FOR) ends, when the `break` that leads there had it copied in place of its
        jump; None when the code at `k` is no such copy."""
        instrs = self.instrs
        exit_ = loop.exit
        if exit_ < len(instrs) and instrs[exit_].opname == "END_FOR":
            exit_ += 1
        if not self._same_exit_block(k, exit_):  # control
            return None
        r = k
        while instrs[r].opname not in TERMINAL:
            r += 1
        return r + 1

    def _copy_of_unlaid_loop_exit(self, k: int, loop: LoopInfo, stepped: bool) -> Optional[int]:
        """3.12+: where the copy at `k` of the code after a `while True:` ends, when that code
        is laid nowhere (the loop's exit is the end of the code, or handler code only, 3.14):
        every `break` ran a copy of it, a small block that ends in a return or raise. None when
        `k` starts no such block. `stepped`: the way out runs an exit call first (else the with
        body never ends normally, and the block at `k` is no way out of it)."""
        size = len(self.instrs)
        if loop.exit < size and not (stepped and loop.exit in self.handler_only_code()):
            return None
        tail = self._straight_tail(k, size, k + _MAX_RETURN_BLOCK, closing=False)  # table_try_withs
        return tail[0] if tail is not None else None

    def _break_into_exit_after_exit_call(self, be: int, span_end: int, after: Optional[int]) -> bool:
        """A `break` that ends the with body of a `while` loop whose exit comes right after the
        exit call (its jump dropped), while an exit that swallows the exception goes on to more
        of the loop body, laid elsewhere (3.12+: after the handler code, with the loop's test).
        Read as the with's end, falling into the exit, the `break` would be lost."""
        loop = self.loops[-1] if self.loops else None
        if loop is None or after is None or loop.iterator is not None or not loop.is_while:
            return False
        k = be
        if k in self.skip and k < self.skip[k] < span_end:
            k = self.skip[k]  # (this with's exit call)
        return k != after and k == loop.exit and after not in loop.continue_targets and after > k

    def _continue_after_exit_call(self, be: int, span_end: int, after: Optional[int]) -> Optional[int]:
        """A `continue` that ends the with body: its way out runs the exit call, then jumps back
        to the loop's head, while an exit that swallows the exception goes on to `after`, more of
        the loop body (or the body's own jump back, which for a `while True:` goes past the NOP
        of its line, where a `continue` goes: 3.10+). Read as a `continue` after the with, a
        swallowed exception would skip that. Where the jump ends; None when the body's way out
        goes on where the handler does."""
        loop = self.loops[-1] if self.loops else None
        if loop is None or after is None:
            return None
        instrs = self.instrs
        k = be
        if k in self.skip and k < self.skip[k] < span_end:
            k = self.skip[k]  # (this with's exit call; an enclosing with's comes next, if any)
            while k != after and self._exit_call_at(k) and self.skip[k] < span_end:
                k = self.skip[k]  # (the enclosing withs' exit calls, that the `continue` runs too)
        if k == after or k >= len(instrs):
            return None
        jump = instrs[k]
        if jump.opname != "JUMP" or jump.target not in loop.continue_targets or jump.target == after:
            return None
        if instrs[after].opname == "JUMP" and instrs[after].target_offset == jump.target_offset:
            return None  # (the same jump back: the with ends the body)
        return k + 1

    def _exit_copy_of(self, be: int, after: int) -> int:
        """The end of the code after a with that only its handler reaches, at `after`, read up to
        the range's end: or the start of the copy of it that the body's way out (its exit call,
        then a jump) goes to, laid right after it (3.12+ copies a small block that returns, like
        `POP_EXCEPT; return None` in an except clause, into each way there)."""
        instrs = self.instrs
        k = be
        while k in self.skip and self.skip[k] > k:
            k = self.skip[k]
        y = instrs[k].target if k < len(instrs) and instrs[k].opname == "JUMP" else None
        if y is None or not after < y < self.end or instrs[y - 1].opname not in TERMINAL \
                or y + (y - after) > self.end or not self._same_instructions(after, y, y - after):
            return self.end
        return y

    def _swallowed_const_return(self, start: int, be: int, t: int, warm: Set[int], after: Optional[int]) -> int:
        """`with a: (with b: <never ends normally>); return CONST`. Only the inner with's
        handler, after `b` swallowed the exception, goes on to the return: the exit call of `a`,
        then the constant's return, laid past the handler code (3.12+: jumped to; 3.11: where
        the inner handler falls, inline, after its pops). Where `a`'s own handler goes on to
        other code after the with (`_with_const_return`), that return is the body's own: the
        body ends after it (read as the code after the with, it was lost, and the handler's way
        on ran in its place)."""
        instrs = self.instrs
        if be in warm and not self._exit_calls_then_loop_jump(be):
            # (the body's normal exit, where the code after the with may follow: but the normal
            # flow that only runs the exit calls to a `continue` or `break` never goes on there)
            return be
        handler_code = self.handler_only_code()
        found = None
        for inner in self.withs.handlers_in(start, t):
            h = inner.handler.start
            if h not in handler_code or t not in self._chain(h):
                continue
            # (past the jump over the handler's cleanup, where there is one)
            y = inner.handler.way_on if inner.handler.goes_to is None else inner.handler.goes_to
            if y is None or not be <= y < t or y in warm:
                continue
            k = y
            while k < t and instrs[k].opname == "NOP" and not self.jump_sources.get(k + 1):
                k += 1  # (the return's line)
            if not self._exit_call_at(k) or found is not None and found != k:
                return be
            found = k
        if found is None:
            return be
        past = self._with_const_return(self.skip[found], t, after, exit_call=True)
        return past if past != self.skip[found] else be

    def _exit_calls_then_loop_jump(self, k: int) -> bool:
        """Is `k` a with's exit call (then those of the withs around it, and the pops of the for
        loops' iterators a `break` drops) followed by a jump to the innermost loop's head or
        past its end: a `continue` or `break` that ends a with body?"""
        loop = self.loops[-1] if self.loops else None
        if loop is None or not self._exit_call_at(k):
            return False
        instrs = self.instrs
        while self._exit_call_at(k):
            k = self.skip[k]
        while k < len(instrs) and instrs[k].opname == "POP_TOP" and not self.jump_sources.get(k):
            k += 1
        y = instrs[k].target if k < len(instrs) and instrs[k].opname == "JUMP" else None
        return y is not None and (y in loop.continue_targets or y == loop.break_target or y >= loop.exit)

    def _past_handler_way_on(self, start: int, be: int, t: int, warm: Set[int]) -> int:
        """`with a: (try: ... except E: ... else: return x); more`: only the handler of the try
        goes on to `more`, which the with still protects; the normal flow never reaches it, so it
        lies past the body read from the normal flow (3.11+: after the handler code). The body
        ends after it (read as the code after the with, it ran after `__exit__`, or was lost).
        Not where the normal flow (`warm`) reaches the with's exit at `be`: a jump from handler
        code into the with's span there is an enclosing clause's way out (its POP_EXCEPT),
        unless that exit is a `break` leaving the loop (3.11: `with a: try: f(); break / except
        E: ...` then more, the try's way on laid after its handler code)."""
        if be in warm and not self._exit_call_then_break(be, t):
            return be
        instrs = self.instrs
        st = self._xt_state
        end = be
        handler_code = self.handler_only_code()
        for k in range(start, t):
            ins = instrs[k]
            y = ins.target
            if ins.opname != "JUMP" or y is None or not be <= y < t or k not in handler_code \
                    or t not in self._chain(k):
                continue
            region = st.region_at[y]
            if region is None and self._own_exit_call_at(y, t):
                # `with a: (try: raise E / except E: pass) / return 1`: the clause's way on is
                # this with's exit call, then the return (`_with_const_return`)
                end = max(end, y)
                continue
            if region is None or region.handler != t or y in st.kinds or instrs[y].opname == "POP_EXCEPT":
                continue
            inside = [q for q in self._reach(y) if q < t and t in self._chain(q)]
            if inside:
                end = max(end, max(inside) + 1)
        # `with a: (with b: <never ends normally>); more`: the inner with's handler, after `b`
        # swallowed the exception, falls into `more`, which `a` still protects.
        for inner in self.withs.handlers_in(start, t):
            if inner.handler.start not in handler_code:
                continue
            y = inner.handler.way_on
            if y is None or not be <= y < t or y in warm:
                continue
            region = st.region_at[y]
            if region is None or region.handler != t:
                continue
            inside = [q for q in self._reach(y) if q < t and t in self._chain(q)]
            if inside:
                end = max(end, max(inside) + 1)
        return end if end <= self.end else be

    def _exit_call_then_break(self, k: int, t: int) -> bool:
        """Is the code at `k` the exit call of the with whose handler is `t`, then a jump out of
        the innermost loop (a for loop's iterator popped first)?"""
        return self._own_exit_call_at(k, t) and self.skip.get(k, k) > k \
            and self._leaves_loop_at(self.skip[k], copies=False)  # table_clauses

    def _own_exit_call_at(self, k: int, t: int) -> bool:
        """Does the exit call of the with whose handler is `t` start at `k`?"""
        call = self.withs.exit_call_at(k)
        statement = self.withs.by_handler(t)
        return call is not None and statement is not None and call.owner == statement.setup

    def _with_handler_exit(self, t: int, warm: Set[int]) -> Optional[int]:
        """Where a with handler that suppressed the exception continues (the statement after)."""
        instrs = self.instrs
        statement = self.withs.by_handler(t)
        j = statement.handler.way_on if statement is not None else None
        if j is None or statement is None:
            return None
        y = statement.handler.goes_to
        if y is not None:
            loop = self.loops[-1] if self.loops else None
            if loop is not None and y < len(instrs) and instrs[y].opname == "JUMP" \
                    and instrs[y].target in loop.continue_targets and y >= loop.body_end:
                # (3.12+: the way back to the loop's head that only the suppressed path takes,
                # laid with the handler code: the with ends the loop body)
                return instrs[y].target
            return y
        if j in warm:
            return j
        # Not reached normally: a copy of a small exit block (3.11+ copies them into the handler),
        # or the code after a with whose body never ends normally, which only the handler reaches.
        r = j
        while r < len(instrs) and r < j + 6 and instrs[r].target is None and instrs[r].opname not in TERMINAL:
            r += 1
        if r < len(instrs) and instrs[r].opname in TERMINAL and r < j + 6 \
                and self._find_copy(j, r + 1 - j, 0, warm) is not None:
            return None
        return j

    def _normal_exit_past_handlers(self, be: int, t: int, warm: Set[int]) -> int:
        """The with body's normal exit call, when handler code of a try that ends the body lies
        between `be` and it (3.11: `with a: (try: ... except E: return x); return CONST`, the
        try body jumping over its handler code to the exit call): for `_with_const_return`."""
        k = be
        while k < t and k not in warm:
            k += 1
        if be < k < t and self.skip.get(k, k) > k and self.instrs[k].opname in ("LOAD_CONST", "SWAP"):
            return k
        return be

    def _with_lines_apart(self, start: int) -> bool:
        """3.13: does the `as` target's store at `start`, the first instruction of the with body,
        stand apart from the inner with's context expression, a local's load, after it? 3.13
        fuses the two into one instruction when they share a line (`with a as x, b:`), so
        apart they were on two lines: `with a as x:` then `with b:` nested."""
        instrs = self.instrs
        return self.version.fuses_local_pairs and start + 1 < len(instrs) \
            and instrs[start].raw_opname == "STORE_FAST" and instrs[start + 1].raw_opname == "LOAD_FAST" \
            and not self._with_items_continued(start)

    def _with_items_continued(self, start: int) -> bool:
        """...unless the columns say the second item only went on to the next line (`with a as
        x, \\` or a parenthesized item list). Nested, the inner `with` stands one indent deeper
        than the outer one and every statement of its body deeper still; continued, the body
        stands one indent deeper than the outer `with`. A `with` statement's column is its
        context expression's, less `with `; a statement's own column is the least of its code's.
        Without positions (or a shape this does not cover) the lines decide."""
        instrs, positions = self.instrs, self.positions
        inner = next((k for k in range(start + 1, len(instrs)) if instrs[k].opname == "BEFORE_WITH"), None)
        if inner is None or instrs[start - 1].opname != "BEFORE_WITH":
            return False
        at_outer = positions.position_at(instrs[start - 1].offset)
        at_inner = positions.position_at(instrs[inner].offset)
        if not at_outer or not at_inner or at_outer[2] is None or at_inner[2] is None:
            return False
        outer_column, inner_column = at_outer[2] - 5, at_inner[2] - 5
        indent = inner_column - outer_column
        body = self._with_body_column(instrs[inner].offset, at_inner[0])
        if indent < 0:  # (the outer item is not the first of its with: no column to start from)
            return False
        return body is not None and (indent == 0 or body < inner_column + indent)

    def _with_body_column(self, enter_offset: int, with_line: Optional[int]) -> Optional[int]:
        """The least column of the code after a with's BEFORE_WITH, up to its exit call (the first
        code back on the with's own line), or None when the body shares that line."""
        columns = self.positions.columns
        least: Optional[int] = None
        for line, _, column, _ in columns[enter_offset // 2 + 1:]:
            if line is None:
                continue
            if line == with_line:
                if least is not None:
                    break
                continue
            if column is not None and (least is None or column < least):
                least = column
        return least

    def _with_const_return(self, be: int, t: int, after: Optional[int], exit_call: bool = False) -> int:
        """`return <constant>` right after the `__exit__` call belongs to the with body...

        ...unless the handler, after suppressing an exception, goes on to the same code: then
        it is the statement after the with (3.12+ may have copied it into the handler).
        """
        instrs = self.instrs
        k = be
        passed = {be}
        while k in self.skip and self.skip[k] > k:
            k = self.skip[k]
            passed.add(k)
        if k == be and not exit_call:  # (with `exit_call`, `be` follows the not yet skipped exit call)
            return be
        # Inside for loops, the return first drops each loop's iterator (a POP_TOP apiece, between
        # the exit call and the constant, which the compiler loads last).
        first = k
        iterators = sum(1 for loop in self.loops if loop.iterator is not None) if k > be or exit_call else 0
        pops = 0
        # (an except clause around the with is left first too: a POP_EXCEPT apiece, 3.11+)
        while k < len(instrs) and not self.jump_sources.get(k) and (
                instrs[k].opname == "POP_TOP" and pops < iterators or instrs[k].opname == "POP_EXCEPT"):
            passed.add(k)
            pops += instrs[k].opname == "POP_TOP"
            k += 1
            while k in self.skip and self.skip[k] > k:
                passed.add(k)
                k = self.skip[k]  # (... and a try/finally around it: the finally body's copy)
        if pops not in (0, iterators):
            return be
        unwound = k - first
        if k + 1 >= len(instrs) or instrs[k].opname != "LOAD_CONST" \
                or instrs[k + 1].opname != "RETURN_VALUE" or after in passed or self.jump_sources.get(k):
            return be
        j = t + 1
        while j < len(instrs) and j < t + 16 and instrs[j].opname != "POP_JUMP_IF_TRUE":
            j += 1
        if j < len(instrs) and instrs[j].opname == "POP_JUMP_IF_TRUE":
            tail = instrs[j].target + 4
            if self._same_instructions(tail, first, unwound + 2):
                return be
        if unwound:
            self.skip[first] = k  # (the iterators' POP_TOPs are the return's, not statements)
        # (read here: where a try/finally around the with goes on past its body's copy of the
        # finally body, this return is the with body's, not the code after the try)
        self.body_const_returns.add(k)
        return k + 2

    def step_over_exit_call(self, i: int) -> None:
        """The exit call that starts at `i` is stepped over (`_register_exit_calls`); where a
        returned value is swapped under the manager first (`SWAP 2`), the call consumes the
        manager below it, as it runs: what the way out does next (3.11+ unwinding a handler
        around the with, `SWAP 2; POP_TOP; SWAP 2; POP_EXCEPT`) finds the stack it expects."""
        call = self.withs.exit_call_at(i)
        stack = self.stack
        if call is not None and call.start != call.call and len(stack) >= 2 and isinstance(stack[-2], m.WithExit):
            del stack[-2]

    def _register_exit_calls(self, start: int, body_end: int) -> None:
        """`__exit__(None, None, None)` on each normal exit of a with body is not source: every
        exit call from `start` on (the structure's) is stepped over.

        One on a way out from inside the body (before `body_end`) may be followed by the exit
        block a `break` jumped to, copied there."""
        limit = len(self.instrs) - 4
        for call in self.withs.exit_calls:
            if not start <= call.call < limit:
                continue
            self.skip[call.start] = call.end
            if call.start == call.call and call.call < body_end:
                self._note_exit_break(call.end)


def _ends_of_break(body: List[n.Stmt], body_goes_on: bool) -> List[n.Stmt]:
    """The statements a `break` read past the with body's first exit call ends. Where the body
    goes on past that exit to a normal exit of its own (3.12+: the rest after a try whose except
    clause goes on, laid past the handler code, `with m: try: f(); break / except E: g()` then
    more), the break is the try body's (or its else part's), the body's last statement."""
    if body_goes_on:
        for stmt in reversed(body):
            if isinstance(stmt, n.Try):
                if stmt.handlers and not stmt.finalbody:
                    return stmt.orelse or stmt.body
                break
    return body
