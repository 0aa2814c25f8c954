"""The copy of a while loop's test at the bottom of the loop (3.10+): where it starts, chained
comparisons and copied exits in it, and its inverted form.
"""
from typing import List, Optional, Set

from depyf.decompiler.instructions import ENDS_FLOW, MAX_COPY, OPPOSITE_JUMPS, TERMINAL, Instr
from depyf.decompiler.control_model import COND_JUMPS


class ControlLoopTests:
    """The bottom copy of a while loop's test; mixed into `control.ControlRules`."""

    def _bottom_test(self, test_start: int, test_end: int, j: int) -> Optional[int]:
        """Where the copy of the test [test_start, test_end) that closes the loop at `j` starts."""
        body = test_end
        test_end = self._chain_test_end(test_start, test_end)
        length = test_end - test_start
        back = self.instrs[j]
        bottom = j - length + 1 if back.opname in COND_JUMPS else j - length
        if bottom >= test_end and self._same_test(test_start, bottom, length):
            return bottom  # (right at the test's end when the body is empty)
        inverted = self._inverted_bottom_test(test_start, test_end, j, body)
        if inverted is not None:
            return inverted
        chained = self._chained_compare_bottom_test(test_start, test_end, j)
        if chained is not None:
            return chained
        return self._bottom_test_with_copied_exits(test_start, test_end, j)

    def _chain_test_end(self, test_start: int, test_end: int) -> int:
        """The end of the tests of a loop test [test_start, test_end) that is a chained comparison:
        3.11 ends it with `JUMP body; POP_TOP; JUMP exit` (the jump into the body, then the
        cleanup of the comparison's middle operand), which the copy at the bottom lays out after
        its jump back instead. Any other test ends where it ends."""
        c = test_end - 3
        instrs = self.instrs
        if c <= test_start or instrs[c - 1].opname not in COND_JUMPS or not self._chain_cleanup(c, test_end):
            return self._chain_test_end_copied_exit(test_start, test_end)
        return c

    def _chain_test_end_copied_exit(self, test_start: int, test_end: int) -> int:
        """3.12+: the chained comparison's cleanup at the end of a loop test [test_start,
        test_end) is `JUMP body; POP_TOP; <copy of the exit block>` (the copy ends the flow,
        e.g. `return x`): where the JUMP is, or `test_end` for any other test."""
        instrs = self.instrs
        if not self.version.conditional_jumps_forward_only:
            return test_end
        last = instrs[test_end - 1]
        if last.opname == "JUMP" and last.target < test_start:
            # `POP_TOP; JUMP back` (the exit is an enclosing loop's head), and then the last
            # comparison's jump when false is `jump-if-true over a JUMP back` too: the test ends
            # with that JUMP back, like the copy at the bottom's jump when false.
            c = test_end - 3
            if c - 2 <= test_start or instrs[c - 1].opname != "JUMP" or instrs[c - 1].target != last.target \
                    or instrs[c - 2].opname != "POP_JUMP_IF_TRUE" or instrs[c - 2].target != c:
                return test_end
            end = c
        elif last.opname in TERMINAL:
            c = next((k for k in range(test_end - 3, test_start, -1)
                      if instrs[k].opname == "JUMP" and instrs[k].target == test_end), None)
            if c is None or instrs[c - 1].opname not in COND_JUMPS:
                return test_end
            end = c
        else:
            return test_end
        if instrs[c].opname != "JUMP" or instrs[c].target != test_end or instrs[c + 1].opname != "POP_TOP" \
                or not self.jump_sources.get(c + 1) or any(src >= c for src in self.jump_sources[c + 1]) \
                or any(self.jump_sources.get(k) or instrs[k].is_jump for k in range(c + 2, test_end - 1)):
            return test_end
        return end if last.opname in TERMINAL else end - 1

    def _chain_cleanup(self, c: int, body: int) -> bool:
        """Is [c, c + 3) `JUMP body; POP_TOP; JUMP` with the POP_TOP reached only by a jump from
        before `c` (a chained comparison's cleanup after its last test)?"""
        instrs = self.instrs
        if c + 2 >= len(instrs):
            return False
        jump, pop, out = instrs[c], instrs[c + 1], instrs[c + 2]
        return jump.opname == "JUMP" and jump.target == body and pop.opname == "POP_TOP" \
            and out.opname == "JUMP" and out.target > c and bool(self.jump_sources.get(c + 1)) \
            and all(src < c for src in self.jump_sources[c + 1])

    def _bottom_chain_cleanup(self, bottom: int, j: int) -> bool:
        """Is the bottom test [bottom, j] a chained comparison followed by `JUMP exit; POP_TOP`
        (the way out when the last comparison is false, which 3.12+ jump to, then the cleanup of
        the middle operand that only the bottom test's earlier comparisons reach)?"""
        instrs = self.instrs
        if j + 2 >= len(instrs):
            return False
        cleanup = self._bottom_chain_copied_exit(bottom, j)
        if cleanup is not None:
            self.skip[cleanup] = cleanup + 1  # (the copy before it is read as the loop's exit)
            return False
        jump, pop = instrs[j + 1], instrs[j + 2]
        if self.version.conditional_jumps_forward_only and j + 3 < len(instrs) and jump.opname == "JUMP" \
                and jump.target < bottom and instrs[j + 3].opname == "JUMP" and instrs[j + 3].target == jump.target \
                and pop.opname == "POP_TOP" and self.jump_sources.get(j + 2) \
                and all(bottom <= src < j for src in self.jump_sources.get(j + 1, ()) + self.jump_sources[j + 2]):
            # (3.12+: both ways out go back to an enclosing loop's head: read the last one)
            self.skip[j + 1] = j + 3
            return False
        return jump.opname == "JUMP" and jump.target == j + 3 and pop.opname == "POP_TOP" \
            and bool(self.jump_sources.get(j + 2)) \
            and all(bottom <= src < j for src in self.jump_sources.get(j + 1, ()) + self.jump_sources[j + 2])

    def _bottom_chain_copied_exit(self, bottom: int, j: int) -> Optional[int]:
        """3.12+: after a bottom test [bottom, j] that is a chained comparison, the way out when
        the last comparison is false is a copy of the exit block (e.g. `return x`), then the
        POP_TOP that only the bottom test's earlier comparisons reach, then the exit block
        itself. Where that POP_TOP is, or None."""
        instrs = self.instrs
        if not self.version.conditional_jumps_forward_only:
            return None
        p = next((k for k in range(j + 1, min(len(instrs), j + 12)) if instrs[k].opname in TERMINAL), None)
        if p is None:
            return None
        p += 1
        length = p - (j + 1)
        if p + length >= len(instrs) or instrs[p].opname != "POP_TOP" or not self.jump_sources.get(p) \
                or any(not bottom <= src < j for src in self.jump_sources[p]) \
                or any(self.jump_sources.get(k) for k in range(j + 2, p)):
            return None
        for k in range(length):
            a, b = instrs[j + 1 + k], instrs[p + 1 + k]
            if a.opname != b.opname or a.argval != b.argval or a.is_jump:
                return None
        return p

    def _skip_bottom_compare_cleanup(self, bottom: int, j: int) -> None:
        """The POP_TOP after the loop where the earlier jumps of a chained comparison in the bottom
        test go (`_chained_compare_bottom_test`): the exit itself follows it."""
        instrs = self.instrs
        if instrs[j].opname != "POP_JUMP_IF_TRUE":
            return
        # (the first jump of the last chained comparison: the one whose cleanup follows the loop)
        f = next((k for k in range(j - 1, bottom + 2, -1) if instrs[k].opname in COND_JUMPS
                  and instrs[k].target > j and self.chain_compare_start(k - 3)), None)
        if f is None:
            return
        cleanup = instrs[f].target
        if instrs[f].opname != "POP_JUMP_IF_FALSE" or cleanup <= j + 1 or instrs[cleanup].opname != "POP_TOP" \
                or instrs[cleanup - 1].opname not in ENDS_FLOW:
            return
        self.skip[cleanup] = cleanup + 1
        # Where the last comparison is false, the loop is left by a jump to the exit (or to where
        # the jump there goes): the same way out as the cleanup's.
        leave, after = instrs[j + 1], instrs[cleanup + 1] if cleanup + 1 < len(instrs) else None
        if cleanup == j + 2 and leave.opname == "JUMP" and (leave.target == cleanup + 1 or (
                after is not None and after.opname == "JUMP" and after.target == leave.target)):
            self.skip[j + 1] = cleanup + 1

    def _chained_compare_bottom_test(self, test_start: int, test_end: int, j: int) -> Optional[int]:
        """3.10: where the bottom copy of a test that ends in a chained comparison starts.

        At the top, the comparison's last jump leaves the loop and a JUMP over the cleanup of its
        earlier jumps (POP_TOP, then maybe a copy of the exit block) enters the body; at the
        bottom the last jump goes back into the body and the cleanup follows the loop's end.
        Without the JUMP and the cleanup, the two are the same test."""
        instrs = self.instrs
        back = instrs[j]
        if not self.version.copies_exit_blocks or back.opname != "POP_JUMP_IF_TRUE" or back.target != test_end:
            return None
        last = next((k for k in range(test_start + 1, test_end) if instrs[k].opname == "JUMP"), None)
        if last is None or instrs[last].target != test_end or instrs[last + 1].opname != "POP_TOP" \
                or instrs[last - 1].opname != "POP_JUMP_IF_FALSE":
            return None
        length = last - test_start
        bottom = j - length + 1
        if bottom < test_end or not self._same_test(test_start, bottom, length):
            return None
        return bottom

    def _bottom_test_with_copied_exits(self, test_start: int, test_end: int, j: int) -> Optional[int]:
        """Where the bottom copy of a test that leaves the loop from the middle of it starts.

        3.10+: when a way out of the copy is not its last jump (`while (a if b else c):`), the
        compiler puts a copy of the small block after the loop at that way out, so the copy is
        longer than the test. Compared without those copies and without the jumps into the body,
        the two read the same instructions with the same number of conditional jumps.
        """
        if not self.version.copies_exit_blocks:
            return None
        exits = {ins.target for ins in self.instrs[test_start:test_end]
                 if ins.target is not None and ins.target > test_end}
        if len(exits) != 1:
            return None
        exit = exits.pop()
        if self.instrs[test_end - 1].opname not in COND_JUMPS and not self._ends_in_cleanup_copy(test_start, test_end, exit):
            return None
        wanted = self._test_tokens(test_start, test_end, test_end, None, cleanup_exit=exit)
        if wanted is None:
            return None
        lowest = max(test_end, j - 4 * (test_end - test_start) - 16)
        # (each token is one instruction or more, and the top test may be the longer: its
        # chained comparisons' cleanups are laid after the loop at the bottom)
        for b in range(j + 1 - len(wanted), lowest - 1, -1):
            if self._test_tokens(b, j + 1, test_end, exit, wanted=wanted) == wanted:
                return b
        return None

    def _ends_in_cleanup_copy(self, start: int, end: int, exit: int) -> bool:
        """Does the loop test [start, end) end in a chained comparison's cleanup (a POP_TOP that
        only the test's jumps reach) followed by a copy of the exit block at `exit` (3.10+: the
        cleanup's JUMP to the exit, when the comparison is false, became that copy)?"""
        for c in range(end - 2, max(start, end - 2 - MAX_COPY) - 1, -1):
            if self._test_cleanup_pop(c, start) and self._exit_copy_length(c + 1, exit, end) == end - c - 1:
                return True
        return False

    def _test_cleanup_pop(self, k: int, start: int) -> bool:
        """Is the POP_TOP at `k` a chained comparison's cleanup in a test starting at `start`:
        reached only by jumps from the test, never by falling into it?"""
        return k > start and self._pop_reached_only_from(k, start, k) and self.instrs[k - 1].opname in ENDS_FLOW

    def _pop_reached_only_from(self, k: int, low: int, high: int) -> bool:
        """Is `k` a POP_TOP that jumps reach, all of them from [low, high)? (The shape of a
        chained comparison's cleanup: the comparison's early exits jump to it with the left-over
        operand on the stack.)"""
        sources = self.jump_sources.get(k)
        return bool(sources) and self.instrs[k].opname == "POP_TOP" and all(low <= src < high for src in sources)

    def _test_tokens(self, start: int, end: int, body: int, exit: Optional[int],
                     cleanup_exit: Optional[int] = None, wanted: Optional[List[object]] = None
                     ) -> Optional[List[object]]:
        """The instructions of a loop test in [start, end) as compared by
        `_bottom_test_with_copied_exits`: conditional jumps as one token whatever their target,
        unconditional jumps into the body left out, and (with `exit`) copies of the block at
        `exit` that follow a jump, and jumps to `exit`, left out. A chained comparison's cleanup
        and the copy of the block at `cleanup_exit` (the top test) or `exit` after it are left
        out: where the comparison ends the test, the bottom copy lays its cleanup after the loop
        and the block after that. With `wanted`, None as soon as the tokens differ from those
        (the caller compares with them: most tries fail at once)."""
        out: List[object] = []
        k = start
        while k < end:
            ins = self.instrs[k]
            cleanup_copy_of = cleanup_exit if cleanup_exit is not None else exit
            if cleanup_copy_of is not None and self._test_cleanup_pop(k, start):
                copy = self._exit_copy_length(k + 1, cleanup_copy_of, end)
                if copy:
                    k += 1 + copy
                    continue
            if ins.opname in COND_JUMPS:
                out.append("jump")
            elif ins.opname == "JUMP":
                if start < ins.target < end:
                    out.append("jump over")  # (over a conditional expression's other arm)
                elif ins.target != body and (exit is None or ins.target != exit):
                    return None  # (a jump to the exit stands for a copy of the block there)
            elif ins.is_jump:
                return None
            else:
                out.append((ins.opname, ins.argval))
            if wanted is not None and out and (len(out) > len(wanted) or out[-1] != wanted[len(out) - 1]):
                return None
            k += 1
            if exit is not None and ins.is_jump:
                k += self._exit_copy_length(k, exit, end)
        return out

    def _exit_copy_length(self, k: int, exit: int, end: int) -> int:
        """The length of a copy at `k` (before `end`) of the block at `exit` that ends the
        function; 0 when there is none."""
        length = 0
        while k + length < end and exit + length < len(self.instrs):
            x, y = self.instrs[exit + length], self.instrs[k + length]
            if x.is_jump or x.opname != y.opname or x.argval != y.argval:
                return 0
            length += 1
            if x.opname in ("RETURN_VALUE", "RAISE_VARARGS"):
                return length
        return 0

    def _inverted_bottom_test(self, test_start: int, test_end: int, j: int, body: int) -> Optional[int]:
        """3.12+: where the bottom copy of the test [test_start, test_end) ending at `j` starts.

        With no backward conditional jump, each jump of the test into the body becomes the
        opposite jump over a JUMP back, and the copy ends with a JUMP back to the body.
        """
        if not self.version.conditional_jumps_forward_only:
            return None
        for b in range(j - 1, test_end, -1):
            if self._matches_inverted_test(test_start, test_end, b, j, body):
                return b
        return None

    def _matches_inverted_test(self, a: int, a_end: int, b: int, j: int, body: int) -> bool:
        """Is [b, j] the bottom copy of the top test [a, a_end) of the loop whose body starts at
        `body`? (`body` is after `a_end` when the top test ends in a chained comparison's
        `JUMP body; POP_TOP; JUMP exit`: `_chain_test_end`.)"""
        instrs = self.instrs
        p, q = a, b
        exits: Set[int] = set()  # (where the top test's jumps leave the loop)
        while p < a_end:
            if p == a_end - 1 and q == j + 1 and self._threaded_exit_of_test(instrs[p], instrs[q]):
                return instrs[j].opname == "JUMP" and instrs[j].target == a_end
            if q >= j:
                return False
            x, y = instrs[p], instrs[q]
            if x.opname in COND_JUMPS and (x.target == body or instrs[x.target].opname == "JUMP"
                                           and instrs[x.target].target == body and x.target < a_end):
                # (3.13 sends a jump of the top test into the body to the JUMP there that ends a
                # conditional expression's first arm: the same way into the body)
                back = instrs[q + 1]
                if OPPOSITE_JUMPS.get(x.opname) != y.opname or y.target != q + 2 or back.opname != "JUMP" \
                        or back.target != body:
                    return False
                p, q = p + 1, q + 2
                continue
            if x.is_jump != y.is_jump or x.opname != y.opname:
                return False
            if x.is_jump:
                if (x.target > a_end or y.target > j) and x.target != y.target \
                        and self._follow_jumps(x.target) != self._follow_jumps(y.target) \
                        and not self._same_exit_block(x.target, y.target) \
                        and not (a_end <= x.target < body and self._bottom_cleanup_pop(y.target, b, j)):
                    # A way out of the loop goes to the same place (or through the JUMP over the
                    # bottom's chained comparison cleanup, right after the loop, to it, or to a
                    # copy of the block there that replaced that JUMP: 3.12+); a jump
                    # to the top's cleanup of a chained comparison goes to the bottom's.
                    return False
            elif x.argval != y.argval:
                return False
            p, q = p + 1, q + 1
            if x.opname == "JUMP" and x.target == body and p < a_end and q < j and exits \
                    and (instrs[p].opname != instrs[q].opname or instrs[p].argval != instrs[q].argval) \
                    and (any(self._same_exit_block(q, e) for e in exits)
                         or instrs[q].opname == "JUMP" and self._follow_jumps(q) in exits):
                # The JUMP into the body that ends a conditional expression's first arm, then in
                # the bottom copy the JUMP out of the loop that ends that arm there, or a copy of
                # the block after the loop in its place (3.12+ copy small exit blocks).
                q += self._exit_block_length(q) if instrs[q].opname != "JUMP" else 1
            if x.is_jump and x.target > body:
                exits.add(x.target)
        return q == j and instrs[j].opname == "JUMP" and instrs[j].target == body

    def _bottom_cleanup_pop(self, k: int, b: int, j: int) -> bool:
        """Is `k`, after the loop's closing jump at `j`, a chained comparison's cleanup in the
        bottom test [b, j]: a POP_TOP that only that test's jumps reach?"""
        return j < k < len(self.instrs) and self._pop_reached_only_from(k, b, j)

    @staticmethod
    def _threaded_exit_of_test(top: Instr, exit: Instr) -> bool:
        """Is `top`, the last instruction of a while loop's top test, a JUMP back to an enclosing
        loop's head, and `exit`, the instruction right after the loop's closing jump, the same
        JUMP? 3.12+: a while loop that ends an enclosing loop's body exits to that loop's head;
        the top test jumps into the body when true and falls into that jump back, and the copy at
        the bottom jumps out to the loop's exit, which is the same jump back."""
        return top.opname == exit.opname == "JUMP" and top.target is not None and top.target < top.index \
            and top.target == exit.target

    def _same_test(self, a: int, b: int, length: int) -> bool:
        for k in range(length):
            x, y = self.instrs[a + k], self.instrs[b + k]
            x_jumps, y_jumps = x.target is not None, y.target is not None  # (`is_jump`, without the call)
            if x_jumps or y_jumps:
                if x_jumps != y_jumps:
                    return False
                continue
            if x.opname != y.opname or x.argval != y.argval:
                return False
        return True
