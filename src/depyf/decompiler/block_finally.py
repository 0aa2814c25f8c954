"""try/finally on the 3.8-3.10 block stack.

3.8 enters the finally block with BEGIN_FINALLY / CALL_FINALLY and leaves it with END_FINALLY /
POP_FINALLY; 3.9 and 3.10 copy the finally body onto every way out of the try body and end the
exceptional copy with RERAISE. The copies are matched against the body and dropped.
"""
from typing import Any, List, NamedTuple, Optional, Set, Tuple

from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.instructions import ENDS_FLOW, MAX_COPY as _MAX_COPY, TERMINAL
from depyf.decompiler.block_model import _BLOCK_OPS, _ROTATIONS, _MAX_WAY_ON, _Block, _token


class _FinallyWalk:
    """The ordinary control flow of the exceptional copy of a finally body from its handler at
    `h` (`_finally_handler_end`): what it reaches (`seen`, of the latest walk), and the handlers
    and setups of the constructs nested in it (of every walk so far)."""

    __slots__ = ("rules", "h", "limit", "nested_handlers", "nested_setups", "seen")

    def __init__(self, rules: Any, h: int) -> None:
        self.rules = rules
        self.h = h
        self.limit = len(rules.instrs)  # 3.10 may place the handler after the end of an enclosing loop body
        self.nested_handlers: List[int] = []
        self.nested_setups: List[int] = []
        self.seen: Set[int] = set()

    def reach(self, through_handlers: bool) -> Tuple[int, List[int]]:
        """Walk from `h` (into nested handlers too if `through_handlers`): the furthest index
        reached and the RERAISEs met."""
        h, limit, seen = self.h, self.limit, self.seen
        instrs = self.rules.instrs
        setups = ("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH")
        seen.clear()
        todo = [h]
        reraises: List[int] = []
        furthest = h
        while todo:
            k = todo.pop()
            while h <= k < limit and k not in seen:
                seen.add(k)
                furthest = max(furthest, k)
                ins = instrs[k]
                op = ins.opname
                if op == "RERAISE":
                    reraises.append(k)
                    break
                if op in setups:
                    self.nested_handlers.append(ins.target)
                    self.nested_setups.append(k)
                if ins.is_jump and (through_handlers or op not in setups):
                    if h < ins.target < limit and not self.rules._leaves_loop(ins.target):
                        todo.append(ins.target)
                    if op == "JUMP":
                        break
                if op in TERMINAL:
                    break
                k += 1
        return furthest, reraises


class _NormalCopy(NamedTuple):
    """The copy of a 3.9/3.10 finally body on the try body's normal way out."""
    body_end: int  # where the try body ends (before the copy, or its POP_BLOCK)
    after_copy: Optional[int]  # where the copy ends, the code after the statement; None if none found
    continuation: Optional[Tuple[int, int]]  # the copied way on of the copy's last `if` branch


class BlockFinally:
    """try/finally of 3.8-3.10; mixed into `BlockExceptionRules`."""

    def _finally_end_block(self, block: _Block, k: int, end: int) -> Optional[int]:
        """3.10: is [k, end) a copy of the small block that closes the exceptional copy of a
        finally body (the statements after the last construct in it, then RERAISE)? Where that
        block starts, if so: the construct's way out goes there.

        `try: f() finally: if c: try: g() except E: pass` + `x = 1`: the ways out of the inner
        try each get `x = 1; RERAISE`, which the `if`'s false branch reaches as written."""
        closing = block.info.get("closing")
        if closing is None or self._op(end - 1) != "RERAISE" or end - k > _MAX_COPY:
            return None
        start = closing + 1 - (end - k)
        if start <= k or not self._same_code((k, end), (start, closing + 1)):
            return None
        if any(ins.is_jump or ins.opname in _BLOCK_OPS or ins.opname in TERMINAL
               for ins in self.instrs[start:closing]):
            return None
        return start

    def _finally_end_leaves_loop(self, i: int) -> bool:
        """Is the copy of a finally body's closing re-raise at `i` a `break` out of a loop inside
        that body (3.10+ copy the re-raise to where the break jumps)? The loop's head is then
        handler code in the same protected range as `i`; a loop around the whole try is not."""
        if not self.loops:
            return False
        if not self.version.has_exception_table:
            # 3.10: the loop was opened while the finally body was read.
            handler = next((b for b in reversed(self._block_stack()) if b.kind == "finally-handler"), None)
            return handler is not None and handler.info.get("loops", len(self.loops)) < len(self.loops)
        loop = self.loops[-1]
        head = min(loop.continue_targets)
        if not head < i < loop.body_end:
            return False
        region_at = self._xt_state.region_at  # type: ignore[attr-defined]
        inside, own = region_at[head], region_at[i]
        if own is None:
            return False
        # (a try that starts the loop body protects the head with its own handler, whose code
        # the same range protects in turn: `while True: try: f() / except E: pass / else: break`)
        for _ in range(50):
            if inside is None or inside.handler == own.handler:
                break
            nxt = region_at[inside.handler] if inside.handler < len(region_at) else None
            if nxt is None or nxt.handler <= inside.handler:
                return False
            inside = nxt
        return inside is not None and inside.handler == own.handler

    def fold_end_copies(self, finalbody: List[n.Stmt], h: int) -> List[n.Stmt]:
        """The finally body read from `h`, with the branches that reach a copy of its closing
        re-raise folded into if/else (`markers.fold_end_copies`)."""
        folded = m.fold_end_copies(finalbody)
        if m.has_end_copies(folded):
            raise self.fail(self.instrs[h], "copied end of a finally body in an unexpected place")
        return folded

    # --- try/finally ----------------------------------------------------------------------------

    def _end_finally_of(self, h: int) -> int:
        """3.8: the END_FINALLY closing the finally block at `h` (blocks opened inside nest)."""
        depth = 0
        instrs = self.instrs
        for k in range(h, len(instrs)):
            op = instrs[k].opname
            if op in ("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH") and self._op(k + 1) != "GET_ANEXT":
                depth += 1
            elif op == "END_FINALLY":
                if depth == 0:
                    return k
                depth -= 1
        raise self.fail(instrs[h], "finally block without its end")

    def _try_finally_calls(self, i: int, h: int) -> int:
        """3.8 try/finally: BEGIN_FINALLY/CALL_FINALLY enter the finally block, END_FINALLY ends it."""
        e = self._end_finally_of(h)
        end = e + 1
        outer = list(self.stack)
        slots: List[n.Expr] = []
        prev = self.instrs[i - 1] if i > 0 else None
        if prev is not None and prev.opname == "LOAD_CONST" and prev.argval is None and outer \
                and isinstance(outer[-1], n.Const) and outer[-1].value is None and self._op(e + 1) == "POP_TOP":
            # A finally body that returns or breaks keeps a slot below the finally state.
            outer.pop()
            self.stack.pop()
            slots = [_token("finally-slot")]
            end = e + 2
        state = _token("finally-state")
        finalbody = self._run_in(_Block("finally-handler", [state]), h, e, outer + slots + [state])
        body_end = h - 2 if self._ops_at(h - 2, ("POP_BLOCK", "BEGIN_FINALLY")) else self._live_end(i + 1, h)
        body = self._run_in(_Block("finally-body-call", slots), i + 1, body_end, outer + slots)
        self.emit(self._finally_statement(body, finalbody))
        return end

    def _finally_statement(self, body: List[n.Stmt], finalbody: List[n.Stmt]) -> n.Try:
        if len(body) == 1 and isinstance(body[0], n.Try) and not body[0].finalbody and body[0].handlers \
                and not body[0].star:
            inner = body[0]
            return n.Try(inner.body, inner.handlers, inner.orelse, finalbody)
        return n.Try(body, [], [], finalbody)

    def _finally_handler_end(self, h: int) -> Tuple[int, bool]:
        """3.9+: the end of the exceptional copy of the finally body at `h`: the RERAISE it reaches
        by ordinary control flow (handlers nested in it are reached only through exceptions), or,
        when it never finishes, the end of what it reaches."""
        walk = _FinallyWalk(self, h)
        found = self._finally_end_at_reraise(h, walk)
        if found is not None:
            return found
        return self._finally_end_past_reach(h, walk)

    def _finally_end_at_reraise(self, h: int, walk: _FinallyWalk) -> Optional[Tuple[int, bool]]:
        """`_finally_handler_end` where the body reaches a closing RERAISE of its own (or copies of
        it that end its branches); None where it reaches none."""
        instrs = self.instrs
        nested_handlers, nested_setups, seen = walk.nested_handlers, walk.nested_setups, walk.seen
        _, reraises = walk.reach(False)
        # 3.10 copies the closing RERAISE into the ways out of constructs nested in the finally
        # body (right after their POP_BLOCK / POP_EXCEPT); those are not its end.
        # A construct nested in the finally body whose handler lies after such a RERAISE (its own
        # normal way out ends in the copy, `try: ... finally: h()` as the last statement) puts
        # the end of the finally body past its handler.
        ends = [k for k in reraises if self._op(k - 1) not in ("POP_BLOCK", "POP_EXCEPT")
                and not any(s < k < t for s, t in zip(nested_setups, nested_handlers))]
        if not ends and reraises and self.version.copies_exit_blocks:
            last = max(reraises)
            walk.reach(True)
            if self._loop_closes_finally(h, last, seen):
                # 3.10: the same loop, its `break` the else part of a try (the copy follows the
                # try's POP_BLOCK) and its jump back laid after the try's handler code.
                self.finally_end_copies.update(k for k in reraises if self._op(k - 1) == "POP_BLOCK")
                return max(seen) + 1, False
            walk.reach(False)
        if ends and self.version.copies_exit_blocks and self._loop_closes_finally(h, max(ends), seen):
            # 3.10: the finally body ends in a loop left only by `break`s, each a copy of the
            # closing re-raise, which has no original after the loop (`while True: ... break`).
            self.finally_end_copies.update(ends)
            return max(seen) + 1, False
        if ends and self.version.copies_exit_blocks and max(seen) > max(ends) \
                and self._op(max(seen)) in ("RAISE_VARARGS", "RETURN_VALUE") \
                and all(k in seen for k in range(max(ends) + 1, max(seen) + 1)) \
                and not any(max(ends) < k <= max(seen) for k in nested_setups):
            # 3.10: the finally body ends in an if whose last branch never finishes (it raises),
            # laid after the other branch, into which the closing RERAISE was copied: there is
            # no closing RERAISE after the body, each copy ends its branch.
            self.finally_end_copies.update(ends)
            return max(seen) + 1, False
        if ends:
            last = max(ends)
            if self.version.copies_exit_blocks:
                # 3.10 copies that closing RERAISE into the branches that reach it (`if c: A` as
                # the last statement): each copy ends its branch of the finally body. Each
                # conditional jump to the end gets its own copy too (`if a and b:`), which is that
                # end itself (pass `finally_reraises` sent those jumps to the last one).
                for k in self.merged_reraises:
                    if h < k < last:
                        self._mark_dead(k, k + 1)
                self.finally_end_copies.update(
                    k for k in ends if k < last and instrs[k].arg == instrs[last].arg
                    and not self.jump_sources.get(k))
            return last, True
        return None

    def _finally_end_past_reach(self, h: int, walk: _FinallyWalk) -> Tuple[int, bool]:
        """`_finally_handler_end` where the body reaches no closing RERAISE of its own: one left
        just past what it reaches, one that only a nested construct's way on reaches, or the end
        of what it reaches."""
        instrs = self.instrs
        nested_handlers, nested_setups, seen = walk.nested_handlers, walk.nested_setups, walk.seen
        furthest, _ = walk.reach(True)
        if self._op(furthest + 1) == "RERAISE" \
                and not any(src in seen for src in self.jump_sources.get(furthest + 1, ())):
            # Left behind after a finally body that never finishes (3.9 keeps the dead jumps
            # to it after the raises of an if/else).
            return furthest + 1, True
        if self._op(furthest) == "RERAISE" and any(
                w.handler.way_on == furthest and w.handler.test is not None
                for w in self.withs.statements if w.handler.start in nested_handlers):
            # 3.10: a `with` ends the finally body; the way on after its handler swallowed the
            # exception is the closing RERAISE, copied there.
            return furthest, True
        if self._op(furthest) == "RERAISE" and self._op(furthest - 1) not in ("POP_BLOCK", "POP_EXCEPT") \
                and not any(s < furthest < t for s, t in zip(nested_setups, nested_handlers)) \
                and not any(self._runs_straight_into(t, furthest) for t in nested_handlers) \
                and any((self._ops_at(k - 1, ("POP_EXCEPT", "JUMP")) and instrs[k].target is not None
                         and self._flows_to(instrs[k].target, furthest))
                        or (self.withs.suppressed_path_ends_at(k + 1) and self._flows_to(k + 1, furthest)) for k in seen):
            # A try in the finally body whose body never falls out (it raises or returns): the
            # rest of the finally body is reached only through that try's except clauses (their
            # jump on, after POP_EXCEPT), and ends in the closing re-raise, the last code that
            # they reach. (Not the re-raise of a nested finally or with handler, which that
            # handler runs straight into, nor a 3.10 copy after an unwinding.) The same for a
            # with whose body never ends normally: the rest is reached only after its exit
            # swallowed the exception (3.9/3.10).
            return furthest, True
        if self.version.copies_exit_blocks:
            _, reraises = walk.reach(True)
            copies = [k for k in reraises if self._op(k - 1) == "POP_EXCEPT"
                      and not any(s < k < t for s, t in zip(nested_setups, nested_handlers))]
            if copies:  # (and no closing RERAISE was found: `_finally_end_at_reraise`)
                # 3.10: a try in the finally body whose body never falls out, its except clauses
                # ending the finally body: each of their ways out (after POP_EXCEPT) holds a copy
                # of the closing re-raise, which has no original after them.
                self.finally_end_copies.update(copies)
        return furthest + 1, False

    def _loop_closes_finally(self, h: int, last: int, seen: Set[int]) -> bool:
        """Does the finally body's exceptional copy at `h` go on past its last re-raise `last` only
        by a jump back to before it (the loop's jump back, laid after the copied re-raise)?"""
        back = max(seen)
        ins = self.instrs[back]
        return back > last and ins.opname == "JUMP" and h <= ins.target < last

    def _match_finally_copy(self, k: int, start: int, end: int) -> Optional[int]:
        """If [k, ...) repeats the finally body [start, end), return where the copy ends.

        The exceptional copy also unwinds its own handler before a return/break inside the finally
        body (`POP_TOP` x3, `POP_EXCEPT`), which the other copies lack."""
        instrs = self.instrs
        copy_start = k
        # Depth-first over (copy index, handler index); a bare `except: pass` inside the finally
        # body looks like such an unwinding too, so the plain match is tried first.
        todo = [(k, start)]
        seen = set()
        outlined: Set[int] = set()  # jumps of this copy laid apart, matched where they were jumped to
        # (the positions reached past a drop of the try body's waiting return value: such a copy
        # must end where that return follows it, `_drops_pending_value`)
        past_drop: Set[Tuple[int, int]] = set()
        while todo:
            a, b = todo.pop()
            dropped = (a, b) in past_drop
            if b >= end:
                if dropped and not self._block_copy_returns_pending_value(copy_start, a):
                    continue
                return a
            if (a, b) in seen or a >= len(instrs):
                continue
            seen.add((a, b))
            if a in outlined:
                todo.append((a + 1, b))
                continue
            before = len(todo)
            j = b
            while j < end and (instrs[j].opname in _ROTATIONS or instrs[j].opname == "POP_TOP"):
                j += 1
            if j < end and instrs[j].opname == "POP_EXCEPT" and j > b:
                if self._drops_pending_value(a, j + 1):
                    past_drop.add((a + 2, j + 1))
                    todo.append((a + 2, j + 1))  # (tried last of all)
                todo.append((a, j + 1))
            ends = self._finally_copy_step(a, b, end, copy_start, todo, outlined)
            if dropped:
                past_drop.update(todo[before:])
            if ends and not (dropped and not self._block_copy_returns_pending_value(copy_start, a)):
                return a
        return None

    def _drops_pending_value(self, a: int, b: int) -> bool:
        """Where the exceptional copy returns at `b`, right after unwinding its handler: does the
        copy at `a` first drop the value a return of the try body left waiting, which this
        return replaces (`ROT_TWO; POP_TOP; RETURN_VALUE`: `try: return a / finally: return
        b`)? (In a for loop the same drop is the iterator's, and both copies have it.)"""
        return self._op(b) == "RETURN_VALUE" and self._ops_at(a, ("ROT_TWO", "POP_TOP", "RETURN_VALUE"))

    def _block_copy_returns_pending_value(self, start: int, end: int) -> bool:
        """Does the copy [start, end), matched past a drop of the try body's waiting return value
        (`_drops_pending_value`), go on to return that value right after it? The try body's
        return is read only so: else that value, and what computing it does, would be lost.
        (Not where a loop in the copy has ways on of its own, past the copy's end.) Or does the
        copy never finish, returning or raising on every way (3.10 drops the try body's return
        after it as dead, `_unwinds_into_dead_end`)?"""
        instrs = self.instrs
        if end > start and instrs[end - 1].opname in TERMINAL and not self.version.keeps_code_after_raise \
                and all(ins.target is None or start <= ins.target < end for ins in instrs[start:end]):
            return True
        return self._op(end) == "RETURN_VALUE" and not self.jumps_back_in(start, end)

    def _finally_copy_step(self, a: int, b: int, end: int, copy_start: int, todo: List[Tuple[int, int]],
                           outlined: Set[int]) -> bool:
        """One step of `_match_finally_copy`: the ways on from the copy's instruction `a` and the
        body's `b`, pushed onto `todo`; True where the copy ends at `a`."""
        instrs = self.instrs
        x, y = instrs[b], instrs[a]
        if x.opname == "RERAISE" and not self.jump_sources.get(b) \
                and self._op(b - 1) not in ("POP_BLOCK", "POP_EXCEPT") and self.version.copies_exit_blocks:
            # (Tried last.) The closing RERAISE copied into the branch of an `if` that ends
            # the finally body; in this copy the branch falls into the code that follows,
            # where the `if`'s other way goes too.
            todo.append((a, b + 1))
        if y.opname == "JUMP" and x.opname != "JUMP" and self.version.copies_exit_blocks \
                and y.target is not None and y.target > a:
            # (A jump back, to a loop's head, is no jump to a version of the copy's own: it
            # is the copy's way on, a `continue` through a finally body ending in an `if`.)
            closing_copy = self._closing_block_copy(b, end)
            if closing_copy is not None:
                # The statements that close the finally body, copied (with its RERAISE) into
                # a way out of a construct nested in it; this copy jumps to its own version.
                todo.append((a + 1, closing_copy))
        if x.opname == "NOP" != y.opname and self._op(b + 1) == "RERAISE" and self.version.copies_exit_blocks:
            # (3.10) The line of a `break` copied with the closing re-raise into a loop that
            # ends the finally body; the other copies jump on or copy their own way on.
            todo.append((a, b + 1))
        if x.opname == y.opname and (x.argval == y.argval or (x.is_jump and y.is_jump)):
            todo.append((a + 1, b + 1))
        elif x.is_jump and x.target == end and y.opname == "RETURN_VALUE":
            # A jump to the end of the finally body, in a copy followed by a return: the jump
            # optimiser turned it into the return itself.
            todo.append((a + 1, b + 1))
        elif x.opname == "RERAISE" and self._return_tail_length(a) \
                and (not self.jump_sources.get(b) or self._op(b - 1) in ("POP_BLOCK", "POP_EXCEPT")):
            # The closing RERAISE copied into the branch of a last `if`, in a copy on the way
            # of a `return value`: the copy ends at that return (the branch's jump goes to a
            # duplicate of it). Inside a for loop the return drops the iterator first.
            self._copied_continuation = (a, a + self._return_tail_length(a))
            if b + 1 == end and self._op(b - 1) not in ("POP_BLOCK", "POP_EXCEPT"):
                return True
            # ... or into the way out of a construct nested in the finally body (after its
            # POP_BLOCK / POP_EXCEPT, or in front of its handler).
            todo.append((self._copied_continuation[1], b + 1))
        elif x.opname == "RERAISE" and (self._op(b - 1) in ("POP_BLOCK", "POP_EXCEPT")
                                        or not self.jump_sources.get(b)):
            self._copied_reraise_ways(a, b, copy_start, todo, outlined)
        return False

    def _copied_reraise_ways(self, a: int, b: int, copy_start: int, todo: List[Tuple[int, int]],
                             outlined: Set[int]) -> None:
        """`_finally_copy_step` at the body's closing RERAISE `b`, which 3.10 copied into a nested
        exit or into the branch of a last `if`: where this copy goes on instead."""
        instrs = self.instrs
        y = instrs[a]
        # 3.10: the closing RERAISE copied into a nested exit or into the branch of a
        # last `if`; the other copies have the block that follows the whole statement
        # copied there instead.
        e = self._copy_end(a)
        if e is not None:
            self._copied_continuation = (a, e)
            todo.append((e, b + 1))
        elif self.version.copies_exit_blocks:
            # The statement ends an enclosing try body: its way out (POP_BLOCK) comes
            # first, and the construct that owns it places the copied block after itself.
            k = a
            while self._op(k) == "POP_BLOCK":
                k += 1
            e = self._copy_end(k) if k > a else None
            tail = self._return_tail_length(k) if k > a else 0
            if e is not None:
                # (a `return <constant>`, loaded after the unwinding: the code after
                # the enclosing try or this try body's own return, the same code; the
                # try statement places it after itself)
                if self._op(k) == "LOAD_CONST" and e == k + 2:
                    self._copied_continuation = (a, e)
                todo.append((e, b + 1))
            elif tail:
                # ... or a `return value` of the try body, which leaves the enclosing
                # try too: the value was computed before the copy.
                self._copied_continuation = (a, k + tail)
                todo.append((k + tail, b + 1))
            elif y.opname == "JUMP" and not (y.target is not None and y.target < copy_start
                                             and any(copy_start <= src < a
                                                     for src in self.jump_sources.get(a, ()))):
                # The way on was not copied: the branch jumps where the statement ends
                # (or back to the head of the loop that it ends). (Not a jump back that
                # the copy's last `if` jumps to as well, where the template's jumps to
                # its closing re-raise: that jump follows the copy, the way on of the
                # whole unwinding, 3.10's `continue` through a finally body ending in
                # an `if`.)
                todo.append((a + 1, b + 1))
                if self._op(b - 1) == "POP_BLOCK" and a < y.target < len(instrs) \
                        and self._op(y.target) == "JUMP" and self.jump_sources.get(y.target) == (a,):
                    # (3.10: the try's else part, a `break` that the exceptional copy
                    # copied the re-raise for: here a jump laid after the handler code)
                    outlined.add(y.target)

    def _drop_branch_copy_of_way_on(self, start: int, nk: int) -> None:
        """3.10: the copy [start, nk) of a finally body that ends in an `if`, on the way of a
        `return` that leaves more blocks after it (`try: try: return x finally: if c: f()`
        `finally: g()`): the if's false branch jumps to a copy of that way on (the outer
        unwinding and the return), which the block it belongs to never reads. Mark it read."""
        instrs = self.instrs
        length = 0
        while nk + length < len(instrs) and length < _MAX_WAY_ON:
            ins = instrs[nk + length]
            length += 1
            if ins.is_jump or ins.opname in ENDS_FLOW:
                if ins.opname != "RETURN_VALUE":
                    return
                break
        else:
            return
        if any(self.jump_sources.get(q) for q in range(nk + 1, nk + length)):
            return
        for q in range(start, nk):
            p = instrs[q].target
            if p is not None and p >= nk + length and self._same_code((nk, nk + length), (p, p + length)) \
                    and all(start <= src < nk for src in self.jump_sources.get(p, ())) \
                    and not any(self.jump_sources.get(r) for r in range(p + 1, p + length)):
                self._mark_dead_span(p, p + length)

    def _unwound_return_tail(self, span: Tuple[int, int]) -> bool:
        """Is `span` the `return` of a value already computed (`_return_tail_length`), after
        the POP_BLOCKs of enclosing try bodies it leaves?"""
        k = span[0]
        while k < span[1] and self._op(k) == "POP_BLOCK":
            k += 1
        return span[1] - k == self._return_tail_length(k) > 0

    def _return_tail_length(self, k: int) -> int:
        """The length of the `return` of a value already computed that starts at `k`: RETURN_VALUE,
        or `ROT_TWO; POP_TOP; RETURN_VALUE` inside a for loop (the iterator under the value is
        dropped first); 0 if there is none."""
        if self._op(k) == "RETURN_VALUE":
            return 1
        return 3 if self._ops_at(k, ("ROT_TWO", "POP_TOP", "RETURN_VALUE")) else 0

    def _closing_block_copy(self, b: int, closing: int) -> Optional[int]:
        """Where a copy at `b` of the small block that ends at the closing RERAISE of a finally
        body's exceptional copy (`closing`) ends, if [b, ...) is one (`_finally_end_block`)."""
        r = next((k for k in range(b, min(b + _MAX_COPY, closing)) if self._op(k) in ENDS_FLOW), None)
        if r is None or self._op(r) != "RERAISE":
            return None
        if self._op(closing) != "RERAISE":
            # No closing RERAISE to compare with: the finally body ends in a try/finally whose
            # handler comes last (it re-raises its own exception), and the closing RERAISE
            # exists only as the copies in the branches of that statement's normal copy (3.10).
            straight = not any(ins.is_jump or ins.opname in _BLOCK_OPS for ins in self.instrs[b:r])
            return r + 1 if straight and not self.jump_sources.get(b) else None
        size = r + 1 - b
        if not self._same_code((b, r + 1), (closing + 1 - size, closing + 1)):
            return None
        return r + 1

    def _normal_finally_copy(self, i: int, h: int, fin_end: int) -> "_NormalCopy":
        """3.9/3.10: find the copy of the finally body [h, fin_end) the compiler laid on the try
        body's way out by falling off its end (after the last POP_BLOCK that one matches), and
        so where the try body [i + 1, ...) ends."""
        instrs = self.instrs
        body_end, after_copy = self._live_end(i + 1, h), None
        continuation: Optional[Tuple[int, int]] = None
        for pb in range(h - 1, i, -1):
            if instrs[pb].opname != "POP_BLOCK":
                continue
            self._copied_continuation = None
            ce = self._match_finally_copy(pb + 1, h, fin_end)
            continuation = self._copied_continuation
            if ce is None or ce > h:
                continue
            if continuation is None and ce + 2 == h and self._op(ce) == "RETURN_VALUE" == self._op(ce + 1) \
                    and self.version.copies_exit_blocks:
                # 3.10: the return after the copy was copied into the branch of the finally body's
                # last `if` too (the exceptional copy's branch falls into its closing RERAISE).
                continuation = (ce, ce + 1)
            tail = self._return_tail_length(ce)
            if tail and continuation is not None and self._same_code(continuation, (ce, ce + tail)) \
                    and self._same_code(continuation, (ce + tail, h)) \
                    and all(pb < src < ce for src in self.jump_sources.get(ce + tail, ())):
                # The branch of the finally body's last `if` goes on to a duplicate of the return
                # that follows the copy (`return x` through the finally): both are that return.
                self._mark_dead_span(ce + tail, h)
                continuation = None
            if ce == h and continuation is not None \
                    and self._unwound_return_tail(continuation):
                # 3.10: a lone RETURN_VALUE copied into each way out of the copy returns a value
                # the body computed before its unwinding: the body's own `return value` (code
                # after the statement starts from an empty stack). The body reads it there.
                break
            if ce == h or (ce + 1 == h and instrs[ce].opname == "JUMP") or self._is_copy(ce, h) \
                    or self._is_handler_return_copy(ce, h):
                body_end, after_copy = self._before_duplicate(i + 1, pb, h), ce
            elif self._note_outer(self._outer_exit(ce, self._first_of_copies(pb, ce, h))):
                body_end = self._before_duplicate(i + 1, pb, h)
            elif pb < body_end <= ce and self._op(ce) == "RETURN_VALUE":
                # Every way out of the copy became the return that follows it (the optimiser
                # turned each jump to the copy's end into a return), which nothing reaches any
                # more; it is still the try body's `return value`. The copy may end in dead code
                # too (the jump back of a `while True` loop left only by a break).
                body_end = ce + 1
            break
        return _NormalCopy(body_end, after_copy, continuation)

    def _try_finally_copies(self, i: int, h: int) -> int:
        """3.9/3.10 try/finally: the finally body is copied onto every way out of the try body."""
        fin_end, reraises = self._finally_handler_end(h)
        outer = list(self.stack)
        tokens = [_token("exc") for _ in range(6)]
        handler = _Block("finally-handler", tokens, closing=fin_end if reraises else None)
        finalbody = self.fold_end_copies(self._run_in(handler, h, fin_end, outer + tokens), h)
        end = fin_end + 1 if reraises else fin_end
        instrs = self.instrs
        body_end, after_copy, continuation = self._normal_finally_copy(i, h, fin_end)
        block = _Block("finally-body-copy", start=h, end=fin_end)
        body = self._run_in(block, i + 1, body_end, list(outer))
        left = self.last_stack
        if after_copy is not None and len(left) == len(outer) + 1 and body_end < h \
                and self._op(body_end) == "POP_BLOCK" and self._op(after_copy - 1) in ("RAISE_VARARGS", "RETURN_VALUE") \
                and not self.version.keeps_code_after_raise:
            # The body ends in `return value` and the finally body never finishes: the value
            # is computed before the copy, and the RETURN_VALUE after it was dropped as dead.
            body.append(n.Return(left[-1]))
        after_stmts: List[n.Stmt] = []
        if after_copy is None and body_end >= h - 1 and "pending" in block.info:
            pending = block.info["pending"]
            after_stmts = self.run_range(pending[0], pending[1], list(outer))
        elif after_copy == h and continuation is not None:
            after_stmts = self.run_range(continuation[0], continuation[1], list(outer))
        self.emit(self._finally_statement(body, finalbody))
        if after_copy is not None and after_copy < h:
            jump = instrs[after_copy]
            # (3.8/3.9 thread a jump to a jump: the copy's way on to a statement at `end` that
            # is a jump, a `break` after the try, went straight where that goes)
            if not (after_copy + 1 == h and jump.opname == "JUMP"
                    and (jump.target == end or self._threaded_through(jump.target, end))):
                for stmt in self.run_range(after_copy, h, list(outer)):
                    self.emit(stmt)
        for stmt in after_stmts:
            self.emit(stmt)
        return end
