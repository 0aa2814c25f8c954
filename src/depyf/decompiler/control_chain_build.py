"""How a condition chain's atoms combine (`_build`): `and`/`or` groups and what follows them,
conditional expressions among the tests, and exits that are copies or aliases of one another.
"""
from typing import Dict, Iterator, List, Optional, Tuple

from depyf.decompiler import nodes as n
from depyf.decompiler.expressions import folds_under_not, negate
from depyf.decompiler.instructions import TERMINAL
from depyf.decompiler.control_model import (
    _Atom, _BadChain, _flatten, _not_sent_into_arms, _through_jump, demorgan_not)


def _negated_atom(e: n.Expr) -> n.Expr:
    """The negation of one test of a chain. That of an `is`/`in` comparison stays a `not` around
    it (printed `a is not b`, which compiles the same), so that `_settle_negations` can move it
    over the and/or holding it and a later `demorgan_not` can take it off again.

    A conditional expression gets the `not` sent into its arms (`_not_sent_into_arms`) where that
    takes a negation off an arm: in a jump context the compiler sends a `not` into each arm, so
    `a if t else b in c` makes the jumps of `not (not a if t else b not in c)`, where a `not` left
    around it would keep `not in`, another instruction than the `in` that was read."""
    if folds_under_not(e):
        return n.UnaryOp("not", e)
    if isinstance(e, n.IfExp):
        sent = _not_sent_into_arms(e)
        if sent is not None and sent[1]:
            return sent[0]
    return negate(e)


def _jump_alias(chain: List[_Atom], x: int) -> int:
    """Where a jump to `x` goes: the target of the JUMP (or copied exit block) read as an atom
    that starts there, else `x`."""
    for _ in range(len(chain)):  # (a copy may be matched to another copy: follow them all)
        nxt = next((a.target for a in chain if a.always and a.start == x), x)
        if nxt == x:
            break
        x = nxt
    return x


class ControlChainBuild:
    """How a condition chain combines; mixed into `control.ControlRules`."""

    def _build(self, chain: List[_Atom], lo: int, hi: int) -> Tuple[n.Expr, int, int]:
        """Combine atoms [lo, hi): (expression, where it goes when true, where when false)."""
        fall = chain[hi - 1].fall
        a = chain[lo]
        if a.always or (hi - lo > 1 and chain[lo + 1].always and self.instrs[chain[lo + 1].start].opname != "JUMP"):
            # (only a conditional expression's branches may contain one; and a copied exit block
            # read as a JUMP, `_copied_branch_exit`, right after `a` ends no branch: a branch
            # holds an atom before its JUMP, and `a` cannot combine with what no atom follows)
            raise _BadChain()
        if hi - lo == 1:
            return (_negated_atom(a.expr) if a.jump_if_true else a.expr), fall, a.target
        t = a.target
        copies = len(self.chain_copies)
        ternary = self._build_ternary(chain, lo, hi)
        if ternary is not None:
            return ternary
        del self.chain_copies[copies:]
        over = chain[lo + 1].target if hi - lo > 2 else None
        if over is not None and chain[lo + 1].always and a.target == chain[lo + 1].fall \
                and self.instrs[chain[lo + 1].start].opname == "JUMP" \
                and (over == chain[hi - 1].fall or any(chain[k].start == over for k in range(lo + 2, hi))):
            # `a` jumps over a JUMP that follows it: together one test that jumps the other way
            # to where the JUMP goes (`1 if c else b` as a test: a constant true arm leaves no
            # code, its branch is the JUMP to the body, so the test reads as `c or b`). Only
            # when the JUMP goes into the chain or to where it goes when true: one past the if
            # body is `if c: pass` then `elif b:` (the same test, read as an if statement).
            merged = _Atom(a.start, a.expr, not a.jump_if_true, chain[lo + 1].target, a.jump_index,
                           chain[lo + 1].fall)
            return self._build(chain[:lo] + [merged] + chain[lo + 2:], lo, hi - 1)
        rest, rt, rf = self._build(chain, lo + 1, hi)
        if t not in (rt, rf):
            t, rt, rf = self._exits_as_one(chain, t, rt, rf)
        if t in (rt, rf):
            if t == rt:
                left = a.expr if a.jump_if_true else _negated_atom(a.expr)
                return _flatten("or", left, rest), rt, rf
            left = _negated_atom(a.expr) if a.jump_if_true else a.expr
            return _flatten("and", left, rest), rt, rf
        # `a` jumps to the start of a later atom: [lo, k) is a parenthesised group.
        for k in range(lo + 2, hi):
            if chain[k].start == t:
                g, gt, gf = self._build(chain, lo, k)
                return self._then_rest(g, gt, gf, chain, k, hi)
        # (copies taken for a reading that failed are no copies: the block may be real code)
        del self.chain_copies[copies:]
        raise _BadChain()

    def _exits_as_one(self, chain: List[_Atom], t: int, rt: int, rf: int) -> Tuple[int, int, int]:
        """`(t, rt, rf)` with the first atom's target `t` made one of the rest's exits `rt`
        (true) and `rf` (false) where both go to the same code by another spelling: a copy of
        the small exit block the rest leaves by (3.10+), a jump threaded on through a JUMP, or
        a jump to the JUMP that ends the first branch of a conditional expression used as a test
        (3.8/3.9 thread one into the other). Unchanged where they differ."""
        # 3.10+: `a` may leave through its own copy of the small exit block the rest leaves by.
        if self._copied_exits(t, rf):
            t, rf = self._same_exit(t, rf)
        elif self._copied_exits(t, rt):
            t, rt = self._same_exit(t, rt)
        elif self._threaded_through(t, rt):
            t = rt
        elif self._threaded_through(t, rf):
            t = rf
        else:
            # A jump to the JUMP that ends the first branch of a conditional expression used
            # as a test goes where that JUMP goes (3.8/3.9 thread one into the other).
            ta = _jump_alias(chain, t)
            if ta in (rt, rf):
                t = ta
            elif _jump_alias(chain, rt) == ta:
                t = rt = ta
            elif _jump_alias(chain, rf) == ta:
                t = rf = ta
        return t, rt, rf

    def _then_rest(self, g: n.Expr, gt: int, gf: int, chain: List[_Atom], k: int, hi: int) -> Tuple[n.Expr, int, int]:
        """A finished group (true exit gt, false exit gf), then atoms [k, hi) that one exit enters."""
        copies = len(self.chain_copies)
        try:
            rest, rt, rf = self._build(chain, k, hi)
            gt, gf, rt, rf = self._group_exits_as_one(chain, chain[k].start, gt, gf, rt, rf)
            return self._group_then(g, gt, gf, chain[k].start, rest, rt, rf)
        except _BadChain:
            del self.chain_copies[copies:]
        # The group combines with the atoms [k, m) first, and that with the rest:
        # `(a or b) and c or d`, where `a or b` goes on to `c` or to `d`.
        other = gf if gt == chain[k].start else gt
        for m in range(hi - 1, k, -1):
            if hi - k > 8 and other != chain[m].start and not self._may_leave_by(chain[m - 1].target, other, chain):
                # (a long rest: only where the part's exits, where its last atom falls and jumps,
                # include the group's other exit, as they must for the two to combine; trying
                # every split takes exponential time, and giving up misreads the chain's tail as
                # an if statement's body)
                continue
            try:
                part, pt, pf = self._build(chain, k, m)
                g1t, g1f, pt, pf = self._group_exits_as_one(chain, chain[k].start, gt, gf, pt, pf)
                g2, g2t, g2f = self._group_then(g, g1t, g1f, chain[k].start, part, pt, pf)
                return self._then_rest(g2, g2t, g2f, chain, m, hi)
            except _BadChain:
                del self.chain_copies[copies:]
        raise _BadChain()

    def _group_exits_as_one(self, chain: List[_Atom], start: int, gt: int, gf: int, rt: int, rf: int
                            ) -> Tuple[int, int, int, int]:
        """(gt, gf, rt, rf) with the group's exit that is not `start` and the rest's exit it stands
        for made one: aliased (`_aliased_exits`), or two copies of one small exit block (3.10+:
        `(x if t else y) or a == b == c` at a function's end, whose branches jump to a copy of
        the body's `return`, the comparison falling into the body)."""
        gt, gf, rt, rf = self._aliased_exits(chain, start, gt, gf, rt, rf)
        other = gf if gt == start else gt
        if other in (rt, rf):
            return gt, gf, rt, rf
        if self._copied_exits(other, rt):
            other, rt = self._same_exit(other, rt)
        elif self._copied_exits(other, rf):
            other, rf = self._same_exit(other, rf)
        return (gt, other, rt, rf) if gt == start else (other, gf, rt, rf)

    @staticmethod
    def _aliased_exits(chain: List[_Atom], start: int, gt: int, gf: int, rt: int, rf: int
                       ) -> Tuple[int, int, int, int]:
        """(gt, gf, rt, rf) with the group's exit that is not `start` and the rest's exit it
        stands for both read as where they go (`_jump_alias`): in the first branch of a
        conditional expression used as a test, a jump to the JUMP (or copied exit block) that
        ends the branch is the same way out as a jump to where that goes, as in `_build`
        (`(a and b or (a or e)) if t else d`: `b` jumps to that JUMP, `a or e` to where it goes)."""
        other = gf if gt == start else gt
        if other in (rt, rf):
            return gt, gf, rt, rf
        to = _jump_alias(chain, other)
        if to == other:
            return gt, gf, rt, rf
        if _jump_alias(chain, rt) == to:
            rt = to
        elif _jump_alias(chain, rf) == to:
            rf = to
        else:
            return gt, gf, rt, rf
        return (gt, to, rt, rf) if gt == start else (to, gf, rt, rf)

    def _may_leave_by(self, target: int, exit_: int, chain: List[_Atom]) -> bool:
        """May a jump to `target` stand for one to `exit_` (itself, a threaded or aliased jump, a
        copy of the same exit block)?"""
        return target == exit_ or self._threaded_through(target, exit_) or self._copied_exits(target, exit_) \
            or _jump_alias(chain, target) == _jump_alias(chain, exit_)

    @staticmethod
    def _group_then(g: n.Expr, gt: int, gf: int, start: int, rest: n.Expr, rt: int, rf: int
                    ) -> Tuple[n.Expr, int, int]:
        """The group `g` (exits gt, gf), one of whose exits is `start`, where `rest` (exits rt,
        rf) begins, combined with it."""
        if gt == start and gf == rf:
            return _flatten("and", g, rest), rt, rf
        if gt == start and gf == rt:
            return _flatten("or", demorgan_not(g), rest), rt, rf
        if gf == start and gt == rt:
            return _flatten("or", g, rest), rt, rf
        if gf == start and gt == rf:
            return _flatten("and", demorgan_not(g), rest), rt, rf
        raise _BadChain()

    def _build_ternary(self, chain: List[_Atom], lo: int, hi: int) -> Optional[Tuple[n.Expr, int, int]]:
        """`x if test else y` as a test: `test` jumps past the `x` branch, which ends in a JUMP over
        the `y` branch; both branches leave for the same two places."""
        position = self._atom_positions(chain)
        for k in range(lo + 3, hi):
            if not chain[k - 1].always:
                continue
            jump = chain[k - 1]
            for test, test_end in self._ternary_tests(chain, lo, k, position):
                try:
                    then, tt, tf = self._build(_through_jump(chain, jump.start, jump.target), test_end, k - 1)
                    break
                except _BadChain:
                    continue
            else:
                continue
            if tt == jump.start:
                tt = _jump_alias(chain, jump.target)
            # The second branch ends where both branches leave for the same two places; what
            # follows combines with the whole conditional expression (`(a if b else c) or d`).
            for m in range(k + 1, hi + 1):
                try:
                    other, ot, of = self._build(chain, k, m)
                except _BadChain:
                    continue
                # (3.8/3.9 thread a nested conditional expression's JUMP through the outer one's:
                # its second branch falls into that JUMP, its first jumps to where it goes)
                ot = _jump_alias(chain, ot)
                copies = len(self.chain_copies)
                t1, t2 = self._same_exit(tt, ot)
                f1, f2 = self._same_exit(tf, of)
                if (t1, f1) != (t2, f2):
                    del self.chain_copies[copies:]
                    continue
                value = n.IfExp(test, then, other)
                if m == hi:
                    return value, t2, f2
                try:
                    return self._then_rest(value, t2, f2, chain, m, hi)
                except _BadChain:
                    del self.chain_copies[copies:]
                    break
            # (no reading with this JUMP as the end of the first branch: that of a conditional
            # expression further on may be, with this one inside its test)
        return None

    def _ternary_tests(self, chain: List[_Atom], lo: int, k: int, position: Dict[int, int]
                       ) -> Iterator[Tuple[n.Expr, int]]:
        """(test, end) for the atoms [lo, end) that may form the test of a conditional expression
        whose second branch starts at atom `k`: one atom jumping there, or an and/or of atoms
        (`x if (a or b) else y`) that goes on into atom `end` when true and to `k` when false."""
        a, other = chain[lo], chain[k].start
        if a.target == other:
            yield (negate(a.expr) if a.jump_if_true else a.expr), lo + 1
        # Each atom of the test [lo, end) jumps to `other` or to the start of an atom in
        # (lo, end]: kept as the smallest and largest such atom over the atoms so far, so that
        # each `end` costs one step (a set of starts per `end` made long chains quadratic here).
        low, high = len(chain), -1
        for end in range(lo + 2, k - 1):
            for m in range(lo if end == lo + 2 else end - 1, end):
                t = chain[m].target
                if t != other:
                    at = position.get(t, -1)
                    low, high = min(low, at), max(high, at)
            if low <= lo or high > end \
                    or chain[end - 1].target not in (other, chain[end].start) or chain[end - 1].always:
                if low <= lo or high >= k - 1:
                    return  # (an atom jumps outside the test, back, or past `end`'s last value:
                continue    # no longer test is one either)
            copies = len(self.chain_copies)
            try:
                test, tt, tf = self._build(chain, lo, end)
            except _BadChain:
                del self.chain_copies[copies:]
                continue
            if tt == chain[end].start and tf == other:
                yield test, end
            else:
                del self.chain_copies[copies:]

    @staticmethod
    def _atom_positions(chain: List[_Atom]) -> Dict[int, int]:
        """Atom start -> its position in `chain` (-1 for a start two atoms share: no position
        then, `_ternary_tests` gives up on a test that jumps there)."""
        position: Dict[int, int] = {}
        for m, atom in enumerate(chain):
            position[atom.start] = -1 if atom.start in position else m
        return position

    def _threaded_through(self, target: int, x: int) -> bool:
        """Does a jump to `target` stand for a jump to `x`, an unconditional jump to `target`?
        3.8/3.9's peephole pass retargets a jump to such a jump: in `if a or b: continue` the
        test `a` jumps straight to the loop's head, past the `continue` that `b` falls into."""
        if not self.version.threads_jumps_once or x >= len(self.instrs) or x == target:
            return False
        jump = self.instrs[x]
        if jump.opname != "JUMP" or x in self.skip:
            return False
        exit = self._while_exit_of_break(x)
        if exit is not None:
            # The `break` first went to the loop's exit, a jump it was then sent through: a jump
            # to it (from before it) stopped at that exit.
            return target == exit
        return jump.target == target

    def _while_exit_of_break(self, x: int) -> Optional[int]:
        """3.8/3.9: the exit of the innermost loop around the JUMP at `x` when that is a while
        loop whose exit is a JUMP to where `x` goes: `x` is a `break` that first went there."""
        inner = None
        for h, j in self.loop_end.items():
            if h <= x < j and (inner is None or h > inner[0]):
                inner = (h, j)
        if inner is None or self.instrs[inner[0]].opname == "FOR_ITER":
            return None
        exit = inner[1] + 1
        if exit == x or exit >= len(self.instrs):
            return None
        after = self.instrs[exit]
        return exit if after.opname == "JUMP" and after.target == self.instrs[x].target else None

    def _block_ends_going_back(self, x: int, head: int) -> bool:
        """Is the instruction at `x`, right after the block being run, its way back to the loop
        head `head` (3.10+ send the jump over an else part in a loop straight back)? A test there
        that goes back when false is `if test: <rest of the block>`, as with `_threaded_through`.
        3.12+ send it forward to the while loop's test at the bottom, when that is `head`."""
        if self.version.threads_jumps_once or x >= len(self.instrs) or x in self.skip \
                or x in self.kept_else_exits:
            return False
        jump = self.instrs[x]
        return jump.opname == "JUMP" and jump.target == head \
            and (head < x or self.version.conditional_jumps_forward_only)

    def _same_exit(self, x: int, y: int) -> Tuple[int, int]:
        """(x, y), or the first of the two twice when 3.10+ copied one exit block (`return None`)
        to both; the later copy is skipped once the chain is accepted."""
        if not self._copied_exits(x, y):
            return x, y
        first, copy = min(x, y), max(x, y)
        self.chain_copies.append((copy, first))
        return first, first

    def _copied_exits(self, x: int, y: int) -> bool:
        """Are x and y two copies of one exit block, the later reached by one jump only, or, when
        a chained comparison's cleanup falls into it, only by jumps of the chain being built
        (`assert a and b and (c < d < e)`: `a` and `b` jump to that copy)?"""
        if x == y or not self.version.copies_exit_blocks or self.no_copied_exits:
            return False
        first, copy = min(x, y), max(x, y)
        sources = self.jump_sources.get(copy, ())
        if len(sources) != 1 and not self.chain_jumps.issuperset(sources):
            return False  # another jump lands on the copy too: it must stay where it is
        if self._written_apart(first, copy):
            return False  # two blocks alike written on their own lines, not one block copied
        k = 0
        while copy + k < len(self.instrs) and first + k < copy:
            a, b = self.instrs[first + k], self.instrs[copy + k]
            if a.opname != b.opname or a.argval != b.argval or a.is_jump or \
                    (k and (self.jump_sources.get(first + k) or self.jump_sources.get(copy + k))):
                return False
            k += 1
            if a.opname in TERMINAL:
                return True
        return False
