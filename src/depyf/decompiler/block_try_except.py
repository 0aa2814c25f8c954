"""try/except on the 3.8-3.10 block stack: the except clauses, their bodies and ways out.

The handler compares the exception (`DUP_TOP; E; exception match; jump to the next handler`) or
is bare (`POP_TOP` x3); `except E as e` wraps its body in a hidden try/finally that runs
`e = None; del e`.
"""
from typing import Any, List, Optional, Set, Tuple

from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.control import COND_JUMPS, _drop_trailing_continue, fold_tail_into_else
from depyf.decompiler.instructions import ENDS_FLOW, MAX_COPY as _MAX_COPY, TERMINAL
from depyf.decompiler.structure.except_clauses import ExceptClause
from depyf.decompiler.block_model import (_BLOCK_OPS, _ROTATIONS, Exit, _never_falls_through, _Block,
                                          _token)


class _TryExceptRead:
    """What `_try_except` has read of one try statement so far (its SETUP_FINALLY at `i`, its
    first handler at `h`); the phases fill it in, in order."""

    __slots__ = ("i", "h", "handlers", "exits", "hend", "body_end", "body_exit", "outer", "block", "body",
                 "targets", "end", "to_finally_end", "first_end", "orelse", "after", "closing_else", "tails")

    handlers: List[n.ExceptHandler]
    exits: List[Exit]  # how each clause leaves
    hend: int  # where the handlers end
    body_end: int
    body_exit: Exit
    outer: List[n.Expr]  # the stack around the statement
    block: _Block
    body: List[n.Stmt]
    targets: Set[int]  # where the clauses' jumps go on
    end: int  # where the statement ends
    to_finally_end: bool
    first_end: int
    orelse: List[n.Stmt]
    after: List[n.Stmt]  # statements after the try, read from a copy of them
    closing_else: bool
    tails: List[Tuple[int, Exit]]  # (clause, its copied way out)

    def __init__(self, i: int, h: int) -> None:
        self.i = i
        self.h = h


class BlockTryExcept:
    """try/except/else of 3.8-3.10; mixed into `BlockExceptionRules`."""

    def _try_except(self, i: int, h: int) -> int:
        r = _TryExceptRead(i, h)
        self._read_try_body(r)
        self._clause_targets(r)
        self._else_from_body_jump(r)
        self._else_up_to_copies(r)
        self._body_tail(r)
        self._after_from_copies(r)
        self._clause_tails(r)
        self.emit(n.Try(r.body, r.handlers, r.orelse, []))
        for stmt in r.after:
            self.emit(stmt)
        self._skip_overrun_reraise(r.hend)
        return r.end

    def _read_try_body(self, r: _TryExceptRead) -> None:
        """The clauses, the body and how it leaves (`r.body_exit`); the body decompiled."""
        i, h = r.i, r.h
        r.handlers, r.exits, r.hend = self._handler_chain(h)
        r.body_end, r.body_exit = self._body_exit(i + 1, h)
        if r.body_exit is not None and r.body_exit[0] == "outer" \
                and any(self._goes_on_inside(e, r.body_exit[1]) for e in r.exits):
            # A clause goes on to more of the enclosing block: the try is not its last statement,
            # so the body's unwinding of the enclosing blocks is a `return` of its own.
            r.body_end, r.body_exit = self._live_end(i + 1, h), None
        r.body_exit = self._through_jump_after(r.body_exit, r.hend)
        r.exits = [self._through_jump_after(e, r.hend) for e in r.exits]
        r.outer = list(self.stack)
        # The POP_BLOCK and the copied way out after it (duplicates of it before are not part).
        exit_span = (r.body_exit[1] - 1, h) if r.body_exit is not None and r.body_exit[0] == "tail" else None
        # Where the body goes on when it finishes: a copy of the try's way out is a copy of that.
        way_out = r.body_exit[1] if r.body_exit is not None and r.body_exit[0] == "jump" else None
        r.block = _Block("except-body", exit_span=exit_span, way_out=way_out)
        r.body = self._run_in(r.block, i + 1, r.body_end, list(r.outer))
        self._dead_return_after_copy(r.body, self.last_stack, r.outer, r.body_end, h)
        if exit_span is not None and self.version.copies_exit_blocks and m.has_end_copies(r.body):
            # A branch of the body's last statement ends in a copy of the body's way out.
            folded = m.fold_end_copies(r.body)
            if m.has_end_copies(folded):
                r.block = _Block("except-body")
                r.body = self._run_in(r.block, i + 1, r.body_end, list(r.outer))
            else:
                r.body = folded
        if self._dead_pop_block_after_return(i + 1, r.body_end, h):
            fold_tail_into_else(r.body)

    def _clause_targets(self, r: _TryExceptRead) -> None:
        """Where the clauses go on (`r.targets`) and where the statement ends (`r.end`); the ways
        out that leave enclosing blocks are noted on those blocks."""
        h, hend = r.h, r.hend
        # A clause may jump to a duplicate of the code where the enclosing part ends (3.10).
        # Or it jumps straight where the jump that closes that part goes (an if body's jump over
        # its else part): the jump optimiser threaded its jump to the end of the part.
        r.exits = [("jump", self.end) if e is not None and e[0] == "jump" and e[1] > self.end > hend
                   and (self._duplicates([self.end, e[1]]) or self._closing_jump_to(e[1])) else e
                   for e in r.exits]
        r.targets = {e[1] for e in r.exits if e is not None and e[0] == "jump" and hend <= e[1] <= self.end}
        r.end = max(r.targets) if r.targets else hend
        if self._note_outer(r.body_exit):
            r.body_exit = ("jump", hend if r.end == hend else r.end)
        elif r.body_exit is None and "pending" in r.block.info:
            r.body_exit = ("tail",) + r.block.info["pending"]
        # (3.10) A clause whose way out is the copy of the closing re-raise of the finally body
        # around the try goes to that body's end, past what follows the handlers.
        r.to_finally_end = any(e is not None and e[0] == "outer" and e[2] == e[3]
                               and e[1].kind == "finally-handler" for e in r.exits)
        r.exits = [None if self._note_outer(e) else e for e in r.exits]
        r.first_end = min(r.targets) if r.targets else hend
        if len(r.targets) > 1 and not self._duplicates(sorted(r.targets)):
            raise self.fail(self.instrs[h], "except clauses that end in different places")

    def _else_from_body_jump(self, r: _TryExceptRead) -> None:
        """The else part that the body's closing jump shows: it jumps over it to where the clauses
        go on."""
        h, hend, outer = r.h, r.hend, r.outer
        r.orelse = []
        r.after = []
        r.closing_else = False
        if r.body_exit is not None and r.body_exit[0] == "jump":
            t = r.body_exit[1]
            if t == hend and r.end > hend:
                r.orelse = self.run_range(hend, self._before_duplicate(hend, r.first_end), list(outer))
            elif t not in (hend, r.end) and self._threaded_through(t, hend) and not self.jump_sources.get(hend) \
                    and r.end == hend and not any(self.instrs[k].target == t for k in range(h, hend)):
                # 3.8/3.9: the body's jump went through the else part's only statement, a jump
                # (`else: break`), which nothing reaches any more. (Where a clause's way out goes
                # there too, even a dead one after a raise, that jump is a `break` after the try.)
                r.orelse = self.run_range(hend, hend + 1, list(outer))
                r.end = hend + 1
                loop = self.loops[-1] if self.loops else None
                # The clauses' way out went through the loop's closing jump too: no `continue`.
                r.closing_else = loop is not None and r.end == self.end == loop.body_end
            elif t not in (hend, r.end) and t < self.end:
                r.body_exit = ("tail", h - 1, h)

    def _else_up_to_copies(self, r: _TryExceptRead) -> None:
        """The clauses' copied ways out (`r.tails`); an else part that runs to the loop's head, or
        to where 3.10 left the original of the block it copied after the statement."""
        hend, outer = r.hend, r.outer
        r.tails = [(k, e) for k, e in enumerate(r.exits) if e is not None and e[0] == "tail"]
        loop = self.loops[-1] if self.loops else None
        if r.body_exit is not None and r.body_exit[0] == "jump" and r.body_exit[1] == hend == r.end \
                and not r.targets and loop is not None and self.end == loop.body_end and hend < self.end:
            # (A `continue` may jump elsewhere than the loop's closing jump, as to the NOP that
            # heads a 3.10 `while True`; a clause threaded to that jump goes where it goes.)
            back = self.instrs[self.end]
            heads = [(k, e) for k, e in r.tails if e[2] - e[1] == 1 and self.instrs[e[1]].opname == "JUMP"
                     and self.instrs[e[1]].target in loop.continue_targets
                     and (back.opname != "JUMP" or back.target_offset == self.instrs[e[1]].target_offset)]
            if heads:
                # A clause's way out, threaded to the loop head: the try ends the loop body, so
                # what follows the clauses up to there is its else part.
                r.orelse = self.run_range(hend, self.end, list(outer))
                r.end = self.end
                r.tails = [t for t in r.tails if t not in heads]
        if r.body_exit is not None and r.body_exit[0] == "jump" and r.body_exit[1] == hend == r.end and r.tails \
                and self.version.copies_exit_blocks:
            # 3.10 copies the small block after the statement into the handlers' ways out; the
            # original stays where the else part falls into it.
            span = (r.tails[0][1][1], r.tails[0][1][2])
            # (up to the end of the range: the if whose body the try ends falls into it there)
            last = min(self.end, len(self.instrs) - (span[1] - span[0]))
            for p in range(hend, last + 1):
                if self._same_code(span, (p, p + span[1] - span[0])) and not self._inside_block(hend, p) \
                        and not self._jumps_past(hend, p):
                    r.end = p
                    r.orelse = self.run_range(hend, r.end, list(outer))
                    r.tails = [(k, e) for k, e in r.tails if not self._same_code(span, (e[1], e[2]))]
                    break

    def _body_tail(self, r: _TryExceptRead) -> None:
        """A body that leaves through a copied tail: that tail is the else part, the code after
        the statement or the end of the body."""
        hend, outer = r.hend, r.outer
        if r.body_exit is not None and r.body_exit[0] == "tail":
            span = (r.body_exit[1], r.body_exit[2])
            stmts = self.run_range(span[0], span[1], list(outer))
            back = self.instrs[span[0]]
            if self.version.keeps_jump_to_written_continue and span[1] - span[0] == 1 \
                    and back.opname == "JUMP" and back.target < span[0] \
                    and len(stmts) == 1 and isinstance(stmts[0], n.Continue):
                # 3.10: a `continue` that ends the body, right after its POP_BLOCK (a `continue`
                # after the try would be reached by a JUMP_FORWARD of its own), even where a
                # clause ends with the same jump back: that is the clause's own `continue`.
                r.body.extend(stmts)
            elif not r.targets and all(self._same_code(span, (e[1], e[2])) for _, e in r.tails):
                r.after = stmts
                r.tails = []
            elif not r.targets and self._copies_with_constant_returns(span, r.tails):
                # 3.10: the clauses that finish end in the copy of the code after the try; the
                # others end in a `return <constant>` of their own (loaded after the POP_EXCEPT).
                r.after = stmts
                r.tails = [(k, e) for k, e in r.tails if not self._same_code(span, (e[1], e[2]))]
            elif span[1] - span[0] == 1 and back.opname == "JUMP" and back.target < span[0] \
                    and len(stmts) == 1 and isinstance(stmts[0], n.Continue):
                # A `continue` that ends the body, right after its POP_BLOCK (an else part's
                # `continue` would be reached by a JUMP_FORWARD of its own).
                r.body.extend(stmts)
            elif span[1] - span[0] == 1 and back.opname == "JUMP" and len(stmts) == 1 \
                    and isinstance(stmts[0], n.Break) and not r.orelse and self.version.copies_exit_blocks \
                    and not (self._op(hend) == "JUMP" and self.instrs[hend].target == back.target):
                # 3.10: a `break` that ends the body, right after its POP_BLOCK: an else part's
                # `break` stays where the clauses' ways out meet (the body's jump is threaded
                # through it).
                r.body.extend(stmts)
            elif not r.orelse:
                r.orelse = stmts  # what runs only when the body finishes: the else part
            else:
                r.body.extend(stmts)

    def _after_from_copies(self, r: _TryExceptRead) -> None:
        """The code after the statement (`r.after`), where the clauses (and the else part) end in
        copies of it."""
        handlers, hend, outer = r.handlers, r.hend, r.outer
        if r.body_exit is None and not r.targets and r.tails \
                and len(r.tails) == sum(e is not None for e in r.exits) \
                and all(self._same_code((r.tails[0][1][1], r.tails[0][1][2]), (e[1], e[2])) for _, e in r.tails):
            # The body never finishes and every clause ends in the same copied block: the
            # statements after the try, copied into each clause (3.10).
            r.after = self.run_range(r.tails[0][1][1], r.tails[0][1][2], list(outer))
            r.tails = []
        elif r.body_exit is None and not r.targets and r.tails \
                and len(r.tails) == sum(e is not None for e in r.exits) \
                and (copy := next((e for _, e in r.tails if self._is_handler_return_copy(e[1], e[2])), None)) \
                and self._copies_with_constant_returns((copy[1], copy[2]), r.tails):
            # The same where the other clauses end in a `return <constant>` of their own: the
            # copy is the `return value` after the try, written in the enclosing clause.
            r.after = self.run_range(copy[1], copy[2], list(outer))
            r.tails = [(k, e) for k, e in r.tails if not self._same_code((copy[1], copy[2]), (e[1], e[2]))]
        r.tails = self._copied_break_tails(handlers, r.tails)
        if r.tails and not r.targets and not r.after and r.orelse and _never_falls_through(r.orelse) \
                and self._after_try_copies([e for _, e in r.tails]):
            # The else part never finishes and every clause that does ends in the same copy of
            # a small block (after its POP_EXCEPT): the code after the try, which nothing else
            # reaches (3.10). `try: x = f() except E: pass else: return x` + `return g()`.
            r.after = self.run_range(r.tails[0][1][1], r.tails[0][1][2], list(outer))
            r.tails = []
        if r.tails and not r.targets and not r.after and not r.orelse and r.body_exit == ("jump", hend) \
                and r.end == hend and self._else_part_to_end(hend) \
                and self._after_try_copies([e for _, e in r.tails]):
            # The same, with the else part after the handlers (the body jumps over them): it
            # runs to the end of the enclosing block, which nothing else jumps into.
            rest = self.run_range(hend, self.end, list(outer))
            if _never_falls_through(rest):
                r.orelse, r.end = rest, self.end
                r.after = self.run_range(r.tails[0][1][1], r.tails[0][1][2], list(outer))
                r.tails = []

    def _clause_tails(self, r: _TryExceptRead) -> None:
        """The clauses' own tails; an else part that only the body's way out, or the end of a finally
        body around the try, shows."""
        i, handlers, hend, outer = r.i, r.handlers, r.hend, r.outer
        for k, e in r.tails:
            handlers[k].body.extend(self.run_range(e[1], e[2], list(outer)))
        if not r.orelse and not r.after and not r.targets and r.body_exit is not None \
                and r.body_exit[0] == "jump" and r.body_exit[1] == hend == r.end \
                and all(e is None for e in r.exits):
            # No except clause finishes, yet the code after the handlers ends in a return that is
            # followed by the function's implicit `return None`: only an else part keeps that.
            dead = len(self.instrs) - 2
            if self.end == len(self.instrs) and hend < dead and self._op(dead - 1) in TERMINAL \
                    and self._ops_at(dead, ("LOAD_CONST", "RETURN_VALUE")) \
                    and self.instrs[dead].argval is None and not self.jump_sources.get(dead):
                r.orelse = self.run_range(hend, dead, list(outer))
                r.end = dead
        if r.to_finally_end and not r.orelse and not r.after and not r.targets and r.body_exit == ("jump", hend) \
                and r.end == hend < self.end and self._else_part_to_closing(i, hend):
            # Only the body reaches the code between the handlers and the end of the finally
            # body: the else part (`finally: try: f() / except E: pass / else: g()`).
            r.orelse, r.end = self.run_range(hend, self.end, list(outer)), self.end
        if r.closing_else:
            for handler in handlers:
                _drop_trailing_continue(handler.body)

    def _goes_on_inside(self, exit: Exit, block: _Block) -> bool:
        """Does a clause's way out go on to more statements of `block`, an enclosing block that
        the try body's way out leaves: a jump into that block's code that does not unwind it, or
        a copied `return value` that unwinds a clause after the value is computed (a `return`
        written in that clause)?"""
        if exit is None:
            return False
        if exit[0] == "jump":
            span = block.info.get("span")
            t = exit[1]
            return span is not None and span[0] <= t < span[1] \
                and self._op(t) not in _BLOCK_OPS and self._op(t) not in _ROTATIONS
        return exit[0] == "tail" and self._is_handler_return_copy(exit[1], exit[2])

    def _copies_with_constant_returns(self, span: Tuple[int, int], tails: List[Tuple[int, Exit]]) -> bool:
        """Does some clause's ("tail", start, end) way out repeat `span`, and is each other one a
        `return <constant>` (LOAD_CONST; RETURN_VALUE, which a statement of the clause can be)?"""
        same = [self._same_code(span, (e[1], e[2])) for _, e in tails]
        return any(same) and all(
            ok or e[2] - e[1] == 2 and self._ops_at(e[1], ("LOAD_CONST", "RETURN_VALUE"))
            for ok, (_, e) in zip(same, tails))

    def _else_part_to_closing(self, start: int, hend: int) -> bool:
        """Is [hend, self.end) reached only from the try at `start` (its body's jump) and from
        inside itself?"""
        return all(start <= src < self.end for k in range(hend, self.end) for src in self.jump_sources.get(k, ()))

    def _else_part_to_end(self, hend: int) -> bool:
        """Can [hend, self.end) be one else part: it ends the function's flow (a return or raise
        last) and no jump from outside it lands inside it?"""
        end = self.end
        if not hend < end <= len(self.instrs) or self.instrs[end - 1].opname not in ("RETURN_VALUE", "RAISE_VARARGS"):
            return False
        return not any(not hend <= src < end for k in range(hend + 1, end) for src in self.jump_sources.get(k, ()))

    def _after_try_copies(self, tails: List[Tuple[Any, ...]]) -> bool:
        """Are the ("tail", start, end) ways out of except clauses all the same copied block, one
        that no statement of the clause can be (a `return` of a computed value unwinds after
        computing it; only `return <constant>` loads after the POP_EXCEPT)?"""
        first = (tails[0][1], tails[0][2])
        if any(not self._same_code(first, (e[1], e[2])) for e in tails[1:]):
            return False
        start, end = first
        return not (end - start == 2 and self._ops_at(start, ("LOAD_CONST", "RETURN_VALUE"))) \
            and self.instrs[end - 1].opname in ("RETURN_VALUE", "RAISE_VARARGS")

    def _copied_break_tails(self, handlers: List[n.ExceptHandler],
                            tails: List[Tuple[int, Exit]]) -> List[Tuple[int, Exit]]:
        """3.10: an except clause inside a loop that ends in `break`, whose small exit block (the
        code at the loop's exit, ending the function) was copied after the clause's POP_EXCEPT.
        Each such clause gets its `break`; the other tails are returned."""
        loop = self.loops[-1] if self.loops else None
        if loop is None or not self.version.copies_exit_blocks:
            return tails
        left = []
        for k, e in tails:
            assert e is not None
            start, end = e[1], e[2]
            original = loop.exit
            # (a loop that ends the function and is left only by `break`s: the code after it
            # exists only as their copies)
            only_copies = original >= len(self.instrs)
            if original != start and self.instrs[end - 1].opname in ("RETURN_VALUE", "RAISE_VARARGS") \
                    and not (end - start == 2 and self._ops_at(start, ("LOAD_CONST", "RETURN_VALUE"))) \
                    and (only_copies or original + (end - start) <= len(self.instrs)
                         and self._same_code((start, end), (original, original + end - start))):
                handlers[k].body.append(n.Break())
                self.note_copied_break(start, end)
                continue
            left.append((k, e))
        return left

    def _through_jump_after(self, exit: Exit, hend: int) -> Exit:
        """3.8/3.9: a part's way out that jumps out of the loop to `t`, where the try (or its
        else part, from `hend` on) is followed by a JUMP (a `break`) that nothing reaches and that
        goes to `t` or where the JUMP at `t` goes: the peephole pass threaded the part's jump to
        the try's end through that `break` (and maybe the `break` itself through `t`:
        `while True: try: ... except: continue` then `break`, inside a for loop or an if). The
        way out is the end of the try."""
        if exit is None or not self.version.threads_jumps_once:
            return exit
        instrs = self.instrs
        if exit[0] == "jump" and exit[1] > self.end:
            # (an `except E as e:` clause's jump after its name's cleanup, past the range: the
            # same threaded jump, through the `break` after the else part)
            t = exit[1]
        elif exit[0] != "tail" or exit[2] - exit[1] != 1:
            return exit
        else:
            jump = instrs[exit[1]]
            t = jump.target
            if jump.opname != "JUMP" or t is None:
                return exit
        if t <= hend:
            return exit
        loop = self.loops[-1] if self.loops else None
        inside = hend  # (how far the else part's own forward jumps go)
        for p in range(hend, t):
            ins = instrs[p]
            if ins.target is not None and not hend <= ins.target <= p:
                if not self.jump_sources.get(p) and (
                        ins.opname in COND_JUMPS and (ins.target == t or p < ins.target < t)
                        or ins.opname == "JUMP" and loop is not None and ins.target in loop.continue_targets
                        and ins.target < hend):
                    # (an if in the else part, whose false branch may go where the `break` after
                    # the try goes, threaded through it too, or a `continue` in the else part:
                    # `else: f(); if c: continue` then `break`)
                    if ins.target < t:
                        inside = max(inside, ins.target)
                    continue
                if ins.opname != "JUMP" or self.jump_sources.get(p) or inside > p:
                    return exit  # (the else part jumps elsewhere: not a plain statement list)
                if ins.target == t or instrs[t].opname == "JUMP" and instrs[t].target == ins.target:
                    return ("jump", p)
                return exit
        return exit

    def _closing_jump_to(self, target: int) -> bool:
        """Does the enclosing part end at a forward JUMP to `target` (an if body's jump over its
        else part, where the code after the try goes on)?"""
        end = self.end
        return end < len(self.instrs) and self.instrs[end].opname == "JUMP" and self.instrs[end].target == target \
            and target > end

    def _skip_overrun_reraise(self, hend: int) -> None:
        """A try that ends a loop body whose last clause jumps back to the loop's head leaves the
        chain's closing re-raise (no clause matched) after the loop's jump back: it belongs to the
        try, not to the code after the loop."""
        last = hend - 1
        if hend > self.end and self._op(last) in ("RERAISE", "END_FINALLY") and self._op(last - 1) in ENDS_FLOW:
            self.skip[last] = hend

    def _handler_chain(self, h: int) -> Tuple[List[n.ExceptHandler], List[Exit], int]:
        """The except clauses starting at `h` (their parts are `structure/except_clauses.py`'s):
        handlers, how each leaves, and where the chain ends."""
        instrs = self.instrs
        chain = self.except_chain(h)
        handlers: List[n.ExceptHandler] = []
        exits: List[Exit] = []
        outer = list(self.stack)
        tokens = [_token("exc"), _token("exc"), _token("exc")]
        for clause in chain.clauses:
            if clause.test is None:
                end, hend = self._bare_handler_end(h, clause.body_start)
                body, exit = self._handler_body(clause.body_start, end, outer, tokens)
                handlers.append(n.ExceptHandler(None, None, body))
                exits.append(exit)
                return handlers, exits, hend
            exc_type = self.pure_value(*clause.test)
            if exc_type is None:
                raise self.fail(instrs[clause.test[0]], "except clause type is not an expression")
            assert clause.next is not None
            if clause.name is None:
                body, exit = self._handler_body(clause.body_start, clause.next, outer, tokens)
            else:
                body, exit = self._named_handler_body(clause, outer, tokens)
            handlers.append(n.ExceptHandler(exc_type, clause.name, body))
            exits.append(exit)
        if chain.unread is not None:
            at, reason = chain.unread
            raise self.fail(instrs[at], reason)
        assert chain.reraise is not None
        return handlers, exits, chain.reraise + 1

    def _handler_body(self, start: int, end: int, outer: List[n.Expr],
                      tokens: List[n.Expr]) -> Tuple[List[n.Stmt], Exit]:
        instrs = self.instrs
        body_end, exit = end, None
        if end - 2 >= start and instrs[end - 2].opname == "POP_EXCEPT" and instrs[end - 1].opname == "JUMP":
            body_end, exit = end - 2, self._tail_after(end - 2, end, end)
        else:
            for p in range(end - 2, max(start, end - _MAX_COPY - 3) - 1, -1):
                if instrs[p].opname == "POP_EXCEPT":
                    while p - 1 >= start and instrs[p - 1].opname == "POP_EXCEPT" \
                            and not (end - p == 3 and self._ops_at(end - 2, ("LOAD_CONST", "RETURN_VALUE"))):
                        # 3.10: the later ones leave enclosing clauses, then comes a copy of the
                        # code after them (a `return <constant>` there is the clause's own).
                        p -= 1
                    if instrs[p - 1].opname not in _ROTATIONS:
                        found = self._outer_exit(p + 1, end)
                        if found is None and self._is_copy(p + 1, end) and not self._shared_way_out(p):
                            found = ("tail", p + 1, end)
                        if found is not None:
                            body_end, exit = p, found
                    else:
                        # 3.10: the clause's own POP_EXCEPT, then a copy of the `return value`
                        # after the try that leaves the enclosing clause (`_is_handler_return_copy`).
                        q = next((q for q in range(p - 2, max(start, end - _MAX_COPY - 1) - 1, -1)
                                  if instrs[q].opname in _BLOCK_OPS), None)
                        if q is not None and instrs[q].opname == "POP_EXCEPT" \
                                and self._is_handler_return_copy(q + 1, end) and not self._shared_way_out(q):
                            body_end, exit = q, ("tail", q + 1, end)
                    break
        span = (body_end, end) if exit is not None and exit[0] == "tail" and body_end < end \
            and instrs[body_end].opname == "POP_EXCEPT" and self.version.copies_exit_blocks else None
        block = _Block("handler", tokens, exit_span=span)
        body = self._run_in(block, start, body_end, outer + tokens)
        if span is not None:
            folded = m.fold_end_copies(body)
            if m.has_end_copies(folded):  # a copy of the way out where no if/else can place it
                block = _Block("handler", tokens)
                body = self._run_in(block, start, body_end, outer + tokens)
            else:
                body = folded
        if exit is None and "pending" in block.info:
            exit = ("tail",) + block.info["pending"]
        return body, exit

    def _named_handler_body(self, clause: ExceptClause, outer: List[n.Expr],
                            tokens: List[n.Expr]) -> Tuple[List[n.Stmt], Exit]:
        """`except E as name:` - its body sits in a hidden try/finally that unbinds `name`."""
        instrs = self.instrs
        start, name = clause.body_start, clause.name
        assert clause.next is not None and name is not None
        end = clause.next
        if clause.unbinding is None:
            raise self.fail(instrs[start], "except ... as without its cleanup block")
        c = clause.unbinding[0]
        body_end, exit = c, None
        if self._op(c + 3) == "END_FINALLY":
            # 3.8: POP_BLOCK; BEGIN_FINALLY; cleanup; END_FINALLY; POP_EXCEPT; way out.
            if self._ops_at(c - 2, ("POP_BLOCK", "BEGIN_FINALLY")):
                body_end = c - 2
            rest = c + 4
            if rest < end and instrs[rest].opname == "POP_EXCEPT":
                if rest + 1 == end:
                    exit = None
                else:
                    exit = self._tail_after(rest, end, end)
        else:
            # 3.9+: POP_BLOCK; POP_EXCEPT; cleanup; way out; then the exceptional cleanup + RERAISE.
            for u in reversed(clause.normal_unbindings):
                q = u - 2  # (the POP_BLOCK before it)
                rest = q + 5
                if rest == c:
                    continue
                if rest + 1 == c and instrs[rest].opname == "JUMP":
                    t = instrs[rest].target
                    exit = ("jump", t) if t >= end else ("tail", rest, c)
                elif self._is_copy(rest, c) and not self._shared_way_out(q):
                    exit = ("tail", rest, c)
                else:
                    exit = self._outer_exit(rest, c)
                    if exit is None:
                        continue
                body_end = q
                break
        span = (body_end, c) if exit is not None and exit[0] == "tail" and body_end < c \
            and instrs[body_end].opname == "POP_BLOCK" and self.version.copies_exit_blocks else None
        block = _Block("named-handler", tokens, name=name, exit_span=span)
        body = self._run_in(block, start + 1, body_end, outer + tokens)
        if span is not None:
            folded = m.fold_end_copies(body)
            if m.has_end_copies(folded):  # a copy of the way out where no if/else can place it
                block = _Block("named-handler", tokens, name=name)
                body = self._run_in(block, start + 1, body_end, outer + tokens)
            else:
                body = folded
        if exit is None and "pending" in block.info:
            exit = ("tail",) + block.info["pending"]
        return body, exit

    def _bare_handler_end(self, h: int, start: int) -> Tuple[int, int]:
        """Where a final bare `except:` body ends (its range has no marker after 3.9's dead code
        removal), and where the handler chain ends."""
        instrs = self.instrs
        limit = max(self.end, min((loop.exit for loop in self.loops), default=len(instrs)))
        k = start
        while k < limit:
            op = instrs[k].opname
            if k > start:
                if any(src < h for src in self.jump_sources.get(k, ())):
                    return k, k
                if op in ("END_FINALLY", "RERAISE") and not self.jump_sources.get(k):
                    prev = instrs[k - 1].opname
                    if prev == "JUMP" and instrs[k - 2].opname == "POP_EXCEPT" \
                            or prev == "RAISE_VARARGS" \
                            or (prev == "RETURN_VALUE" and "POP_EXCEPT" in
                                [x.opname for x in instrs[max(start, k - 4):k - 1]]):
                        return k, k + 1
            if op == "SETUP_FINALLY" and instrs[k].target > k:
                # A try/except nested in the clause ends in a marker of its own, which looks
                # just like this clause's end: read on after that try.
                nested = self._nested_clauses_end(instrs[k].target)
                if nested is not None and k < nested < limit:
                    k = nested
                    continue
            k += 1
        return limit, limit

    def _nested_clauses_end(self, h: int) -> Optional[int]:
        """Where the except clauses of a try whose handler is at `h` end (after their closing
        END_FINALLY / RERAISE, or after a final bare clause), found from the clauses'
        exception-match jumps alone; None when `h` is no except clause."""
        chain = self.except_chain(h)
        if chain.end is not None:
            return chain.end
        last = chain.clauses[-1] if chain.clauses and chain.unread is None else None
        if last is not None and last.is_bare and self.handler_kind(h) == "except":
            return self._bare_handler_end(last.start, last.body_start)[1]
        return None
