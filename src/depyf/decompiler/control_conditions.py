"""Condition chains: consecutive pure expressions each ending in a conditional jump, combined with
`and`/`or`/`not` (and conditional expressions) from where each one jumps.
"""
from bisect import bisect_left
from typing import List, Optional, Tuple

from depyf.decompiler import nodes as n
from depyf.decompiler.errors import NOT_A_MISREADING
from depyf.decompiler.expressions import folds_under_not, negate
from depyf.decompiler.instructions import TERMINAL, Instr
from depyf.decompiler.control_model import (COND_JUMPS, _Atom, _BadChain, _NOT_IN_ATOM, _OTHER_BOOL_OP,
    _through_jump, un_negated)


# What a walrus stores: the value is duplicated first and stays on the stack.
_WALRUS_COPIES = frozenset({"DUP_TOP", "COPY"})


def _jump_condition(ins: Instr, value: n.Expr) -> Tuple[n.Expr, bool]:
    """(expression, jumps when true?) for a conditional jump on `value`."""
    op = ins.opname
    if op == "POP_JUMP_IF_NONE":
        return n.Compare(value, ["is"], [n.Const(None)], fused=True), True
    if op == "POP_JUMP_IF_NOT_NONE":
        return n.Compare(value, ["is not"], [n.Const(None)], fused=True), True
    return value, op == "POP_JUMP_IF_TRUE"


def _is_negated_comparison(e: n.Expr) -> bool:
    return isinstance(e, n.UnaryOp) and e.op == "not" and folds_under_not(e.operand)


def _settle_negations(e: n.Expr) -> n.Expr:
    """A built chain with the `not`s around `is`/`in` comparisons (`_negated_atom`) moved out over
    the and/or holding them where every operand is negated: `not a is b or not c` compiles
    `a is b` to `a is not b`, `not (a is b and c)` keeps `is` and makes the same jumps."""
    if isinstance(e, n.IfExp):
        test, body, orelse = _settle_negations(e.test), _settle_negations(e.body), _settle_negations(e.orelse)
        if _is_negated_comparison(body) or _is_negated_comparison(orelse):
            # (the same for a conditional expression's arms: the compiler sends a `not` around
            # it into each arm, so `not (a is b if t else c)` keeps `is` and makes those jumps)
            inner_body, inner_orelse = _inside_not(body), _inside_not(orelse)
            if inner_body is not None and inner_orelse is not None:
                return n.UnaryOp("not", n.IfExp(test, inner_body, inner_orelse))
        return n.IfExp(test, body, orelse)
    if isinstance(e, n.UnaryOp) and e.op == "not" and isinstance(e.operand, (n.BoolOp, n.IfExp)):
        # (a `not` that a negation put around an and/or holding such comparisons: they move out
        # over it too, and the two `not`s cancel in the jump context the chain is read in)
        inner = _settle_negations(e.operand)
        return un_negated(inner) if isinstance(inner, n.UnaryOp) and inner.op == "not" else n.UnaryOp("not", inner)
    if not isinstance(e, n.BoolOp):
        return e
    values = [_settle_negations(v) for v in e.values]
    if any(_is_negated_comparison(v) for v in values):
        inner = [_inside_not(v) for v in values]
        if all(v is not None for v in inner):
            return n.UnaryOp("not", n.BoolOp(_OTHER_BOOL_OP[e.op], inner))  # type: ignore[arg-type]
        values = _negations_grouped(e.op, values, inner)
    return n.BoolOp(e.op, values) if len(values) > 1 else values[0]


def _negations_grouped(op: str, values: List[n.Expr], inner: List[Optional[n.Expr]]) -> List[n.Expr]:
    """`values` of an and/or (`op`) with each negated `is`/`in` comparison moved, with the negated
    operands next to it, into a `not` around a group of its own, where not every operand can go
    inside one: `not (c in d or e) and f < g` reads as `not c in d`, `not e`, `f < g`, and
    `c not in d` would compile another instruction. The group takes the run of negated operands
    around the comparison, or one neighbour that can go inside where there is none; in a jump
    context the group makes the jumps of its operands."""
    out: List[n.Expr] = []
    free = 0  # (the operands from here on are in `out` as they are, none grouped yet)
    k = 0
    while k < len(values):
        if not _is_negated_comparison(values[k]):
            out.append(values[k])
            k += 1
            continue
        lo, hi = k, k + 1
        while lo > free and un_negated(values[lo - 1]) is not None:
            lo -= 1
        while hi < len(values) and un_negated(values[hi]) is not None:
            hi += 1
        if hi - lo == 1 and hi < len(values) and inner[hi] is not None:
            hi += 1
        elif hi - lo == 1 and lo > free and inner[lo - 1] is not None:
            lo -= 1
        if hi - lo == 1:
            out.append(values[k])
            k += 1
            continue
        del out[len(out) - (k - lo):]
        group = [inner[j] for j in range(lo, hi)]
        out.append(n.UnaryOp("not", n.BoolOp(_OTHER_BOOL_OP[op], group)))  # type: ignore[arg-type]
        free = k = hi
    return out


def _inside_not(e: n.Expr) -> Optional[n.Expr]:
    """What `e` becomes inside a `not` put around the and/or holding it: `x` for `not x`, and
    `not x` for an `x` whose negation is a plain `not` (the compiler makes the same jumps for
    it); None where the negation would change an instruction (`a < b` into `a >= b`)."""
    plain = un_negated(e)
    if plain is not None:
        return plain
    negated = negate(e)
    if isinstance(e, n.Compare) and e.fused:
        return negated  # (`x is None` fused into its jump: either spelling makes the same jump)
    return negated if isinstance(negated, n.UnaryOp) and negated.op == "not" else None


def _inside_atom_to(atoms: List[_Atom], src: int, x: int) -> bool:
    """Is `src` a jump inside one of the atoms, before its own jump, that goes where that atom
    jumps, `x`? (a jump of a conditional expression folded into one atom: `_fold_conditional_test`)"""
    return any(a.start <= src < a.jump_index and a.target == x for a in atoms)


class ControlConditions:
    """Condition chains; mixed into `control.ControlRules`."""

    def parse_atom(self, start: int, limit: int) -> Optional[Tuple[n.Expr, int]]:
        """Run the pure expression at `start`; return (value, index of its conditional jump)."""
        if self._statement_ahead(start, limit):
            return None
        saved_stack = self.stack
        self.stack = list(saved_stack)
        base = len(self.stack)
        self.pure_mode += 1
        try:
            i = start
            while i < limit:
                ins = self.instrs[i]
                if ins.opname in COND_JUMPS:
                    if len(self.stack) != base + 1 or i in self.skip:
                        return None
                    return self.stack[-1], i
                if ins.target is not None and ins.opname not in ("JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP"):
                    if not (ins.opname == "COPY" or i in self.fall_override):
                        return None
                if ins.opname in ("RETURN_VALUE", "FOR_ITER", "SETUP_FINALLY", "SETUP_WITH", "YIELD_VALUE") \
                        or (i in self.loop_end and i != start):
                    return None
                if i != start and len(self.jump_sources.get(i, ())) and not self._inner_target(i, start):
                    return None
                if i != start and self.version.has_exception_table and self.try_starts_at(i):
                    return None  # (a test in a try body is the try's, not this atom's)
                i = self.step(i)
            return None
        except NOT_A_MISREADING:
            raise  # out of stack or memory: every other reading would fail alike
        except Exception:
            return None
        finally:
            self.pure_mode -= 1
            self.stack = saved_stack

    def _statement_ahead(self, start: int, limit: int) -> bool:
        """Does straight-line code from `start` reach a statement before any jump? Then no atom
        starts there. Condition chains try every if body's first statement as one more test;
        this look ahead answers most of those tries without running the instructions."""
        instrs, jump_sources = self.instrs, self.jump_sources
        skip, construct_starts, fall_override = self.skip, self.construct_starts, self.fall_override
        stop = min(limit, start + 48)
        if start in skip or start in construct_starts or start >= stop:
            return False
        ins = instrs[start]  # (the first instruction apart: others may not be jumped to)
        if ins.target is not None or start in fall_override:
            return False  # a jump of some kind: only running it tells
        if ins.opname in _NOT_IN_ATOM:
            return True
        for k in range(start + 1, stop):
            ins = instrs[k]
            if ins.target is not None or k in fall_override:
                return False
            if jump_sources.get(k) or k in skip or k in construct_starts:
                return False
            if ins.opname in _NOT_IN_ATOM:
                return instrs[k - 1].opname not in _WALRUS_COPIES
        return False

    def _inner_target(self, i: int, start: int) -> bool:
        """Is every jump to `i` from within the atom being parsed (a value-level short circuit)?"""
        return all(start <= src < i for src in self.jump_sources.get(i, ()))

    def condition_chain(self, i: int, first: n.Expr) -> Tuple[n.Expr, int, int, int]:
        """Parse the chain whose first conditional jump is at `i` with value `first`.

        Returns (expression true when falling through, fallthrough index, false target, index
        after the last jump of the chain).
        """
        ins = self.instrs[i]
        value_start = self.expr_start  # (parsing the atoms after it moves `expr_start`)
        atoms = self._chain_atoms(ins, i, first)
        for count in range(self._before_while_test(atoms, value_start), 0, -1):
            chain = atoms[:count]
            if chain[-1].always:
                continue
            # (with the jumps of conditional expressions folded into one atom, which leave
            # where the atom's own jump goes: `_fold_conditional_test`)
            self.chain_jumps = frozenset(k for a in chain for k in range(a.start, a.jump_index + 1)
                                         if self.instrs[k].opname in COND_JUMPS)
            try:
                if count > 1 and not self._chain_targets_ok(chain):
                    continue
                self.chain_copies = []
                try:
                    expr, true_exit, false_exit = self._build(chain, 0, count)
                except _BadChain:
                    continue
            finally:
                self.chain_jumps = frozenset()
            fall = chain[-1].fall
            if true_exit != fall and (fall, true_exit) not in self.chain_copies:
                # (the chain may go to an earlier copy of the small block it falls into, 3.10+:
                # the `return` of the body, copied to each arm of a conditional expression
                # used as the test and after a chained comparison's cleanup; the body is the
                # copy it falls into)
                continue
            for copy, original in self.chain_copies:
                if copy not in (fall, false_exit):  # (where the chain goes is read, copy or not)
                    self._skip_copy(copy, original)
            for a in chain:
                if a.always and self.instrs[a.start].opname != "JUMP":
                    self.skip[a.start] = a.fall  # (a copy of the block at a.target: `_copied_branch_exit`)
            return _settle_negations(expr), fall, false_exit, fall
        raise self.fail(ins, "condition does not form a chain")

    def _chain_atoms(self, ins: Instr, i: int, first: n.Expr) -> List[_Atom]:
        """The conditional jumps that may form one chain with `ins` at `i` (at most 64): each
        next test the previous one falls into, up to the end of the range, a loop's end or a
        try's start (3.11+), and the JUMPs of conditional expressions used as tests between them
        (`_chain_past_jump`). `condition_chain` tries the longest prefix that forms a chain."""
        expr, on_true = _jump_condition(ins, first)
        atoms = [self._normalised_atom(_Atom(i, expr, on_true, ins.target, i, self.fall_override.get(i, i + 1)))]
        limit = self.end
        while len(atoms) < 64:
            nxt = atoms[-1].fall
            if nxt >= limit or nxt in self.loop_end \
                    or (self.version.has_exception_table and self.try_starts_at(nxt)):
                break
            parsed = self.parse_atom(nxt, limit)
            if parsed is None:
                if self._chain_through_arm_jumps(atoms, nxt, limit) or self._chain_arm_jump_atom(atoms, nxt, limit):
                    continue
                break
            value, q = parsed
            jins = self.instrs[q]
            e, t = _jump_condition(jins, value)
            atoms.append(self._normalised_atom(_Atom(nxt, e, t, jins.target, q, self.fall_override.get(q, q + 1))))
        return atoms

    def _chain_through_arm_jumps(self, atoms: List[_Atom], nxt: int, limit: int) -> bool:
        """At `nxt`, where no test starts, does the chain go on past the way out of a conditional
        expression's arm that jumps where another arm's JUMP goes (or its copy, 3.10+), or that is
        a constant true arm (3.11+: no code, or a JUMP to the body)? Sends the atoms' jumps there
        on (`atoms` changes) and says whether the chain reads on."""
        if self._fold_conditional_test(atoms, nxt, limit):
            return True  # `x if t else y` as a test, read as one
        jump = self.instrs[nxt]
        prev = self.instrs[atoms[-1].start]
        if jump.opname == "JUMP" and atoms[-1].always and prev.opname == "JUMP" \
                and jump.target == prev.target and nxt not in self.skip \
                and all(any(a.jump_index == src for a in atoms) or _inside_atom_to(atoms, src, nxt)
                        for src in self.jump_sources.get(nxt, ())):
            # `if (b or lo <= e <= hi) if c else d:` (3.11+): the comparison's jump over
            # its cleanup was threaded past the arm's own JUMP over the other arm, which
            # `b` still reaches: both JUMPs go to one place, the second is the same way on.
            for a in atoms:
                if a.target == nxt:
                    a.target = jump.target
            atoms[-1].fall = nxt + 1
            return True
        again = self._copied_branch_exit(atoms, nxt, limit) \
            if atoms[-1].always and self.instrs[atoms[-1].start].opname != "JUMP" else None
        if again is not None and again[0] == atoms[-1].target:
            # The same on 3.10/3.12+, where both JUMPs became copies of the block they go
            # to (`return 3`): the second copy, which only atoms of the chain reach, is the
            # same way on as the first.
            for a in atoms:
                if a.target == nxt:
                    a.target = again[0]
            atoms[-1].fall = again[1]
            return True
        if jump.opname == "JUMP" and jump.target == nxt + 1 and nxt not in self.skip \
                and not self.jump_sources.get(nxt) and atoms[-1].target != nxt + 1 \
                and any(a.target == nxt + 1 for a in atoms) and not atoms[-1].always:
            # `if (a if b else 1):` (3.11+): the constant true arm leaves no code (a NOP,
            # dropped), so the other arm's JUMP over it goes to the next instruction, the
            # body, where the test's jump to that arm lands: the JUMP is falling through.
            atoms[-1].fall = nxt + 1
            return True
        between = self._alias_jumps(atoms, nxt, jump.target) \
            if jump.opname == "JUMP" and nxt + 1 < jump.target <= limit and nxt not in self.skip \
            and not self.jump_sources.get(nxt) and not atoms[-1].always else None
        if between and all(self._exit_of_next_atom(jump.target, limit, self.instrs[k].target) for k in between):
            # `if (a if b else 1) or c:` (3.11+): the constant true arm is a JUMP to the
            # body, which only the chain's jumps reach, laid between the other arm's JUMP
            # over it and the rest of the chain: a jump to it goes where it goes, and the
            # JUMP over it falls into the rest.
            for a in atoms:
                if a.target in between:
                    a.target = self.instrs[a.target].target
            atoms[-1].fall = jump.target
            return True
        return False

    def _chain_arm_jump_atom(self, atoms: List[_Atom], nxt: int, limit: int) -> bool:
        """At `nxt`, where no test starts, is there the JUMP that ends the first arm of a
        conditional expression used as a test (or 3.10+'s copy of the block it went to)? It is
        added to `atoms` as an `always` atom, or a copied constant arm's jumps are sent on past
        it; says whether the chain reads on."""
        jump = self.instrs[nxt]
        f = nxt + 1
        if f in self.skip and self.instrs[f].opname == "POP_TOP" and f < self.skip[f] < limit:
            f = self.skip[f]  # (a chained comparison's cleanup: `chained_compare`)
        copied = self._copied_branch_exit(atoms, f, limit, other=jump.target) \
            if jump.opname == "JUMP" and jump.target > f and not self.jump_sources.get(nxt) \
            and not atoms[-1].always else None
        if copied is not None and copied[1] == jump.target and self._exit_of_next_atom(jump.target, limit, copied[0]):
            # The same when that JUMP to the body became a copy of it (3.10+ copy a small
            # block that ends the function, `return 4`, in place of a jump to it). (Both
            # only where the JUMP over it goes on to more of the chain: `c`.)
            for a in atoms:
                if a.target == f:
                    a.target = copied[0]
            atoms[-1].fall = jump.target
            return True
        if jump.opname == "JUMP" and nxt + 1 < jump.target <= limit and nxt not in self.skip \
                and not atoms[-1].always:
            after = nxt + 1
            if after in self.skip and self.instrs[after].opname == "POP_TOP":
                after = self.skip[after]  # (a chained comparison's cleanup: `chained_compare`)
                closing = self.instrs[after - 1]
                if closing.opname == "JUMP" and closing.target == jump.target:
                    # (3.10+: the cleanup ends in a JUMP where this one goes, which a test
                    # of the branch before the comparison jumps to when false,
                    # `(a and lo < b < hi) if c else (d if e else f)`, or an or before the
                    # comparison, `(d or not a == b == c) if e else x`: the same way on)
                    for a in atoms:
                        if a.target == after - 1 and not a.always:
                            a.target = jump.target
            atoms.append(_Atom(nxt, n.Const(True), True, jump.target, nxt, after, always=True))
            return True
        copied = self._copied_branch_exit(atoms, nxt, limit)
        if copied is not None and not atoms[-1].always and len(atoms) == 1:
            # (a copy right after the first test is no branch of a conditional expression
            # the chain could start with: `_build` refuses every longer chain then. Read
            # no further: on 3.10 each `if` of `x if y == 0 else x if y == 1 else ...` would
            # collect the 64 tests and copies after it, and try them all, for nothing)
            return False
        if copied is not None and not atoms[-1].always:
            # (read as the JUMP it replaced; skipped with the chain: `_skip_copy`)
            atoms.append(_Atom(nxt, n.Const(True), True, copied[0], nxt, copied[1], always=True))
            return True
        return False

    def _exit_of_next_atom(self, start: int, limit: int, x: int) -> bool:
        """Is `x` where the test at `start` goes, when it is true or when false?"""
        parsed = self.parse_atom(start, limit)
        return parsed is not None and x in (parsed[1] + 1, self.instrs[parsed[1]].target)

    def _alias_jumps(self, atoms: List[_Atom], nxt: int, target: int) -> Optional[List[int]]:
        """The JUMPs between the JUMP at `nxt` and its target, when that code is only JUMPs on
        past the target that the chain's atoms alone reach, and code already read (a chained
        comparison's cleanup, `chained_compare`); None otherwise."""
        instrs, jumps = self.instrs, {a.jump_index for a in atoms}
        found: List[int] = []
        k = nxt + 1
        while k < target:
            if k in self.skip and k < self.skip[k] <= target and instrs[k].opname == "POP_TOP":
                k = self.skip[k]
                continue
            if instrs[k].opname != "JUMP" or instrs[k].target <= target or not self.jump_sources.get(k) \
                    or not set(self.jump_sources[k]) <= jumps:
                return None
            found.append(k)
            k += 1
        return found

    def _copied_branch_exit(self, atoms: List[_Atom], f: int, limit: int, other: Optional[int] = None
                            ) -> Optional[Tuple[int, int]]:
        """3.10+: (target, end) when the code at `f`, where the first branch of a conditional
        expression used as a test falls out when true, is a copy of the small exit block at
        `target` that the JUMP over the other branch went to (`if a and (b if c else d):
        return 1`: the compiler copies `return 1` in place of that JUMP). The block at `target`
        is entered by a jump of the chain or falls out of a conditional jump (the if body); only
        atoms of the chain jump to the copy."""
        if not self.version.copies_exit_blocks or not atoms or f in self.skip:
            return None
        jump_sources = self.jump_sources
        sources = jump_sources.get(f)
        if sources:
            jumps = {a.jump_index for a in atoms}
            if not all(src in jumps or self._in_chain_cleanup(src, atoms[0].start, f)
                       or _inside_atom_to(atoms, src, f) for src in sources):
                # (an atom of the branch may jump to it: the same as falling into it; so may the
                # way out of a chained comparison's cleanup in the chain, where it goes when false,
                # and a jump inside an atom that goes where the atom goes, one of a conditional
                # expression folded into one atom: `_fold_conditional_test`)
                return None
        instrs = self.instrs
        end = self._small_exit_block_end(f, limit)
        if end is None:
            return None
        length = end - f
        if end in self.skip and instrs[end].opname == "POP_TOP":
            end = self.skip[end]  # (a chained comparison's cleanup: `chained_compare`)
        targets = {a.target for a in atoms}
        if end not in targets and end != other:
            return None  # (the other branch starts right after the copy; `other`: where it starts)
        # Where the block may lie in (end, stop): a target of the chain, or right after a
        # conditional jump (the if body). Taken from the list of those jumps, in order, rather
        # than by looking at every instruction in between.
        stop = min(limit, end + 96)
        cond_jumps = self.cond_jump_indices
        after_tests = cond_jumps[bisect_left(cond_jumps, end):bisect_left(cond_jumps, stop - 1)]
        candidates = sorted({t for t in targets if end < t < stop}.union(k + 1 for k in after_tests))
        # (not where the conditional jump falling into the copy goes itself: its two ways would be
        # one, and a block such as `return x` may also be the other branch's, `x if (x if x else x)
        # else x`; then only as the last resort)
        last = atoms[-1]
        found = None
        for t in candidates:
            if t + length <= len(instrs) and all(
                    instrs[t + k].opname == instrs[f + k].opname and instrs[t + k].argval == instrs[f + k].argval
                    for k in range(length)):
                if t in targets and not (t == last.target and not last.always):
                    return t, end
                # (a block after a conditional jump may itself be a copy, of the jump over a
                # later chained comparison's cleanup: one an atom jumps to is the block itself)
                found = found or (t, end)
        return found

    def _small_exit_block_end(self, f: int, limit: int) -> Optional[int]:
        """The end of the block at `f` that 3.10+ copy in place of a jump to it: up to 8
        instructions before `limit`, no jump in it or into it after its start, ending in a return
        or raise; None when the code at `f` is no such block. (This runs for nearly every if
        statement: its body's first statement is tried as one more test of the chain; the bounds
        are taken once.)"""
        instrs, jump_sources = self.instrs, self.jump_sources
        for end in range(f, min(limit, len(instrs), f + 8)):
            ins = instrs[end]
            if ins.target is not None or (end != f and jump_sources.get(end)):
                return None
            if ins.opname in TERMINAL:
                return end + 1
        return None

    def _in_chain_cleanup(self, src: int, start: int, end: int) -> bool:
        """Is `src` in [start, end) the way out of a chained comparison's cleanup, code skipped
        from its POP_TOP (`chained_compare`)?"""
        if not start <= src < end:
            return False
        for c in range(src, max(start, src - 2) - 1, -1):
            if c in self.skip and self.instrs[c].opname == "POP_TOP" and c < src < self.skip[c]:
                return True
        return False

    def _before_while_test(self, atoms: List[_Atom], value_start: int) -> int:
        """How many atoms the chain may take: not the top test of a while loop that its last
        atoms run into (3.10+ copy that test to the loop's bottom). `if a: while b: ...` reads
        `a` and `b` as one chain to one false target; the loop's own test is only `b`."""
        fall = atoms[-1].fall
        if len(atoms) < 2 or fall not in self.loop_end or fall in self.active_loops \
                or not self.version.while_condition_duplicated:
            return len(atoms)
        j = self.loop_end[fall]
        first_start = min(value_start, atoms[0].start)  # (the first atom's value was read before)
        if self._bottom_test(first_start, fall, j) is not None:
            return len(atoms)
        for count in range(1, len(atoms)):
            if any(a.target == fall for a in atoms[:count]):
                # (a test that jumps into the loop's body is part of the loop's test: one before
                # the loop jumps to its top test or past the loop. Only the whole test is.)
                break
            if self._bottom_test(atoms[count].start, fall, j) is not None:
                return count
        return len(atoms)

    def _fold_conditional_test(self, atoms: List[_Atom], f: int, limit: int) -> bool:
        """`x if t else y` as a test: `t` jumps to y's atoms, x's atoms end in a JUMP over them
        (at `f`) to where y goes when true; both go to the same place when false. The atoms from
        `t` on become one atom testing the conditional expression."""
        jump = self.instrs[f]
        if jump.opname != "JUMP" or jump.target <= f + 1 or jump.target > limit:
            return False
        k = next((k for k in range(len(atoms) - 2, -1, -1) if atoms[k].target == f + 1), None)
        if k is None or k + 1 >= len(atoms):
            return False
        orelse_atoms: List[_Atom] = []
        nxt = f + 1
        while nxt < jump.target and len(orelse_atoms) < 32:
            parsed = self.parse_atom(nxt, limit)
            if parsed is None:
                return False
            value, q = parsed
            e, on_true = _jump_condition(self.instrs[q], value)
            orelse_atoms.append(self._normalised_atom(_Atom(nxt, e, on_true, self.instrs[q].target, q,
                                                            self.fall_override.get(q, q + 1))))
            nxt = orelse_atoms[-1].fall
        if nxt != jump.target:
            return False
        try:
            body, body_true, body_false = self._build(_through_jump(atoms, f, jump.target), k + 1, len(atoms))
            orelse, else_true, else_false = self._build(orelse_atoms, 0, len(orelse_atoms))
        except _BadChain:
            return False
        if body_true != f or else_true != jump.target or body_false != else_false:
            return False
        test_atom = atoms[k]
        test = negate(test_atom.expr) if test_atom.jump_if_true else test_atom.expr
        # The test may be an and/or of the atoms before (`x if (a or b) else y`): those that
        # jump only into the test or to the second branch belong to it.
        j = k
        while j > 0 and (atoms[j - 1].target == f + 1
                         or any(atoms[j - 1].target == a.start for a in atoms[j:k + 2])):
            j -= 1
        for first in range(j, k):
            copies = len(self.chain_copies)
            try:
                group, gt, gf = self._build(atoms, first, k + 1)
            except _BadChain:
                del self.chain_copies[copies:]
                continue
            if gt == atoms[k + 1].start and gf == f + 1:
                test, k = group, first
                break
            del self.chain_copies[copies:]
        test_atom = atoms[k]
        folded = _Atom(test_atom.start, n.IfExp(test, body, orelse), False, else_false,
                       orelse_atoms[-1].jump_index, jump.target)
        del atoms[k:]
        atoms.append(folded)
        return True

    def _normalised_atom(self, atom: _Atom) -> _Atom:
        """`jump-if-true L; JUMP back; L:` is 3.12+'s spelling of a backward jump-if-false."""
        f = atom.fall
        if not self.version.conditional_jumps_forward_only:
            return atom
        if f + 1 < len(self.instrs) and atom.target == f + 1 and f < self.end:
            jump = self.instrs[f]
            if jump.opname == "JUMP" and jump.target <= f and self.jump_sources.get(f) is None \
                    and self._compilers_jump_back(atom.jump_index, f, atom.jump_if_true):
                atom.jump_if_true = not atom.jump_if_true
                atom.target = jump.target
                # (a chained comparison's test jumps over its cleanup from there: `chained_compare`)
                atom.fall = self.fall_override.get(f, f + 1)
        return atom

    def _compilers_jump_back(self, test: int, jump: int, otherwise: bool) -> bool:
        """Is the JUMP back at `jump`, after the conditional jump at `test` over it, the compiler's
        (the second half of a backward conditional jump) and not a written `continue`? In a loop
        inside a try body the compiler adds it after the exception table's regions are drawn, so
        no region covers it, while a written `continue` that stays in the try is covered, like
        the test's value before it (3.13 leaves the conditional jump itself out). `otherwise`
        where the two compile the same: out of a try, or for a loop around the try (a
        `continue` leaves the try's region)."""
        target = self.instrs[jump].target
        if not self.bc.regions or test == 0 or target is None:
            return otherwise
        if not self.version.regions_leave_out_added_jumps_back:
            # (3.15 covers both: the jump is surely the compiler's only in a comprehension's
            # loop, where no `continue` can be written)
            return otherwise or self._in_comprehension()
        region_at = self._xt().region_at
        before, head = region_at[test - 1], region_at[target]
        if before is None or head is None or before.handler != head.handler:
            return otherwise
        return region_at[jump] is None

    def _in_comprehension(self) -> bool:
        """Is the code being read a comprehension's loop: the code of a generator expression
        (or of a comprehension before 3.12), or a 3.12+ inlined one (its accumulator, still
        empty, on the stack)?"""
        if self.bc.code.co_name in ("<genexpr>", "<listcomp>", "<setcomp>", "<dictcomp>"):
            return True
        return any(isinstance(v, (n.List_, n.Set_)) and not v.elts or isinstance(v, n.Dict_) and not v.keys
                   for v in self.stack)

    def _chain_targets_ok(self, chain: List[_Atom]) -> bool:
        fall = chain[-1].fall
        last = chain[-1].target
        starts = {a.start: k for k, a in enumerate(chain)}
        for k, a in enumerate(chain):
            if a.target in (fall, last) or self._threaded_through(a.target, fall) \
                    or self._threaded_through(a.target, last):
                continue
            if starts.get(a.target, -1) > k:
                continue
            if self._copied_exits(a.target, last) or self._copied_exits(a.target, fall):
                continue  # the atoms leave through copies of one exit block (3.10+)
            return False
        # Nothing outside the chain may jump into its middle.
        for a in chain[1:]:
            for src in self.jump_sources.get(a.start, ()):
                if not (chain[0].start <= src <= chain[-1].jump_index):
                    return False
        return True
