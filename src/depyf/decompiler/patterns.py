"""`match` statements (CPython 3.10+): recognising the statement and rebuilding its patterns.

The compiler keeps the subject on the stack while it tries one case after the other. Each case
(except the last one that is not `case _:`) starts with a copy of the subject; the pattern consumes
that copy and leaves the values it captures on the stack until they are stored; a failed test jumps
to a block of `POP_TOP`s that clears what the pattern had pushed and falls into the next case.

Patterns are rebuilt by running their instructions on a stack of symbolic values. Every value being
matched is a `_Subj` that points at a `_Node`; the instructions that test or take apart a value
(MATCH_SEQUENCE, GET_LEN, UNPACK_SEQUENCE, MATCH_CLASS, MATCH_KEYS, comparisons, ...) fill in that
node, and a store binds a name to it. Since the nodes are reached through the values themselves,
the order in which a version's compiler emits, rotates or stores them does not matter. The only
patterns that change the control flow are or-patterns: each alternative starts with a copy of the
subject and ends with a jump to the code after the last alternative.

A finished node tree prints as pattern text (`nodes.MatchCase.pattern` is a string).

This module reads the statement and its cases (`PatternRules`); pattern_sim.py runs a pattern's
instructions, pattern_values.py holds the symbolic values and nodes, pattern_text.py prints them.
"""
from typing import Any, FrozenSet, List, Optional, Set, Tuple

from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.errors import NOT_A_MISREADING
from depyf.decompiler.instructions import ENDS_FLOW, TERMINAL, Instr
from depyf.decompiler.pattern_values import (_COPIES, _OPNAME, _VALUE_OPS, _VALUE_CONSUMERS, _PATTERN_STARTS,
                                             _MAX_INLINE_TAIL, _STORES, _NotAPattern, _Subj, _Len, _Parts, _CaseRead)
from depyf.decompiler.pattern_text import _PatternPrinter
from depyf.decompiler.pattern_sim import _Sim


def _assignment_chain_copies(instrs: List[Instr], copies: Set[int]) -> Set[int]:
    """The copies (of `copies`) that begin `COPY 1; STORE a`, repeated, then a last store: a
    chained assignment `a = b = ... = v`. No match statement starts so: a case that only
    captures is either the only case (which reads as the assignment) or keeps the subject for a
    guard, and no guard starts with a copy of the subject. Said here because reading a chain as a
    match costs a new try at each of its copies (cubic in its length: 800 names took minutes)."""
    chain: Set[int] = set()
    for k in sorted(copies, reverse=True):  # (from the end: a copy's chain goes on at k + 2)
        if k + 2 < len(instrs) and instrs[k + 1].opname in _STORES \
                and (instrs[k + 2].opname in _STORES or k + 2 in chain):
            chain.add(k)
    return chain


class PatternRules:
    """Match statements; mixed into `builder.CodeBuilder`."""

    # --- entry points ---------------------------------------------------------------------------

    def prepare_patterns(self) -> None:
        """Where a match statement may start: a copy of the subject followed by a pattern's
        first instruction. Computed once, so that `control_at` asks only at these indices."""
        starts: Set[int] = set()
        present = self.bc.opnames() if self.version.has_match_statement else ()
        if not _COPIES.isdisjoint(present):
            instrs = self.instrs
            # (most code has no copy of a value; the rest a few, found by scans in C)
            names = list(map(_OPNAME, instrs))
            for copy in _COPIES.intersection(present):
                k = names.index(copy)
                while True:
                    if k + 1 < len(instrs) and not (copy == "COPY" and instrs[k].arg != 1) \
                            and names[k + 1] in _PATTERN_STARTS:
                        starts.add(k)
                    try:
                        k = names.index(copy, k + 1)
                    except ValueError:
                        break
        self.match_starts: FrozenSet[int] = frozenset(starts - _assignment_chain_copies(self.instrs, starts))

    def match_at(self, i: int) -> Optional[int]:
        """A match statement whose first case starts with a copy of the subject at `i`."""
        instrs = self.instrs
        ins = instrs[i]
        if ins.opname not in _COPIES or (ins.opname == "COPY" and ins.arg != 1) or not self.stack:
            return None
        if i + 1 >= len(instrs) or instrs[i + 1].opname not in _PATTERN_STARTS:
            return None
        if isinstance(self.stack[-1], m.MARKER_TYPES) or self.chain_compare_start(i):
            return None
        return self._try_match(i, [])

    def op_MATCH_SEQUENCE(self, ins: Instr, i: int) -> int:
        return self._match_from_handler(ins, i, [])

    op_MATCH_MAPPING = op_MATCH_SEQUENCE

    def op_MATCH_CLASS(self, ins: Instr, i: int) -> int:
        # The class and the attribute names were loaded by the ordinary handlers.
        cls, names = self.popn(2)
        return self._match_from_handler(ins, i, [cls, names])

    def op_GET_LEN(self, ins: Instr, i: int) -> None:
        raise self.fail(ins, "pattern instruction outside a match statement")

    op_MATCH_KEYS = op_COPY_DICT_WITHOUT_KEYS = op_GET_LEN

    def _match_from_handler(self, ins: Instr, i: int, pushed: List[n.Expr]) -> int:
        if self.pure_mode or not self.stack:
            raise self.fail(ins, "pattern instruction outside a match statement")
        nxt = self._try_match(i, pushed)
        if nxt is None:
            raise self.fail(ins, "match statement not recognised")
        return nxt

    # --- the statement -------------------------------------------------------------------------

    def _try_match(self, start: int, pushed: List[n.Expr]) -> Optional[int]:
        """Build the match statement whose first case starts at `start`, or return None.

        A statement guessed from a copy of a value (`match_at`) is decided by its cases' patterns
        alone, before any body is read. Where they cannot be read, it is not a match statement
        (None), and the reading has changed nothing it keeps: the patterns run on a symbolic
        stack of their own, undone by their journal; a guard's tests are read on a scratch stack,
        and the cleanups of chained comparisons they mark skipped are skipped by any reading of
        that code. Once the patterns are read the statement is a match, and a body that cannot
        be read is an error like any other (no state is saved to try another reading)."""
        subject = self.finish_expr(self.stack[-1])
        base = self.stack[:-1]
        try:
            reads = self._match_cases(start, pushed, base)
        except _NotAPattern:
            return None
        stmt, after = self._build_match(start, reads, base)
        self.stack = base
        stmt.subject = subject
        stmt.cases[:0] = self._guard_only_cases(subject)
        self.emit(stmt)
        return after

    def _guard_only_cases(self, subject: n.Expr) -> List[n.MatchCase]:
        """Leading `case _ if guard:` cases already built as `if guard: <subject>; ...`.

        From 3.12 the compiler drops the copy of the subject and its pop for a bare `_`; such a
        case before the first pattern looks like an `if` whose body starts by dropping the subject
        (which stays on the stack after the `if`)."""
        found: List[n.MatchCase] = []
        out = self.out
        while out:
            last = out[-1]
            if not (isinstance(last, n.If) and not last.orelse and last.body
                    and isinstance(last.body[0], n.ExprStmt) and last.body[0].value is subject):
                break
            out.pop()
            found.insert(0, n.MatchCase("_", last.test, last.body[1:] or [n.Pass()]))
        return found

    def _match_cases(self, start: int, pushed: List[n.Expr], base: List[n.Expr]) -> List[_CaseRead]:
        """The cases' patterns and guards read from `start` (no body yet); `_NotAPattern` where
        the code there is not a match statement."""
        reads = self._guarded_read_cases(start, pushed, base)
        if len(reads) == 1 and not reads[0].root.has_structure():
            # Only captures: a chained assignment, perhaps followed by an `if`, compiles the same.
            raise _NotAPattern()
        return reads

    def _build_match(self, start: int, reads: List[_CaseRead], base: List[n.Expr]) -> Tuple[n.Match, int]:
        """The statement of the cases read, with their bodies, and where the code after it starts."""
        limit = self.end
        ends = self._body_jump_ends(reads, limit)
        starts = self._bound_moved_bodies(reads, limit)
        default_body, after = self._default_case(start, reads, ends, starts, base, limit)
        after = self._after_moved_body(start, reads, after, default_body)
        cases: List[n.MatchCase] = []
        printer = _PatternPrinter(self.render)
        for case in reads:
            body = self._case_body(case, base, after, case is reads[-1] and default_body is None)
            cases.append(n.MatchCase(printer.text(case.root), case.guard, body))
        if default_body is not None:
            cases.append(n.MatchCase("_", None, default_body))
        return n.Match(n.Const(None), cases), after

    def _guarded_read_cases(self, start: int, pushed: List[n.Expr], base: List[n.Expr]) -> List[_CaseRead]:
        """`_read_cases`, with any surprise (other than running out of stack or memory) rolled
        back and turned into "not a match"."""
        mark = len(self._journal())
        try:
            return self._read_cases(start, pushed, base)
        except _NotAPattern:
            raise
        except NOT_A_MISREADING:
            raise  # out of stack or memory: every other reading would fail alike
        except Exception:
            # Reading is a guess over arbitrary instructions: any surprise means "not a match".
            self._rollback(mark)
            raise _NotAPattern() from None

    def _body_jump_ends(self, reads: List[_CaseRead], limit: int) -> List[int]:
        """Where the bodies jump when they finish: the end of the statement (a jump out of a loop is
        a `break`, and one to its head may be a `continue`, not the end)."""
        loop_targets = self._loop_targets()
        ends = []
        for case in reads:
            be = case.body_end
            if be is not None and be > case.body_start:
                tail = self.instrs[be - 1]
                if tail.opname == "JUMP" and tail.target is not None and tail.target >= be \
                        and (tail.target not in loop_targets or tail.target == limit):
                    ends.append(tail.target)
        return ends

    def _bound_moved_bodies(self, reads: List[_CaseRead], limit: int) -> List[int]:
        """A body the compiler moved further down (3.13 places some blocks at the end) bounds the
        bodies before it. Returns where the bodies (and the or-patterns' resumptions) start."""
        starts = sorted([c.body_start for c in reads] + [r for c in reads for r in c.resumes])
        for case in reads:
            if case.body_end is not None and case.body_end < case.body_start:
                case.body_end = min([t for t, _ in case.fails if t > case.body_start]
                                    + [s for s in starts if s > case.body_start] + [limit])
        return starts

    def _default_case(self, start: int, reads: List[_CaseRead], ends: List[int], starts: List[int],
                      base: List[n.Expr], limit: int) -> Tuple[Optional[List[n.Stmt]], int]:
        """The body of a `case _:` the compiler wrote as the code after the last failure (None
        where there is none), and where the statement ends."""
        default_body: Optional[List[n.Stmt]] = None
        last = reads[-1]
        if last.next_case is None:
            # An irrefutable last case runs to the end of the statement.
            end = min(ends) if ends else limit
            end = min([end, limit] + [s for s in starts if s > last.body_start])
            last.body_end = end
            after = end
        else:
            f0 = last.next_case
            later = [e for e in ends if e > f0]
            tails = {c.body_end - 1 for c in reads if c.body_end is not None}
            # Does the last body run on into what follows the statement?
            last_tail = self.instrs[f0 - 1]
            falls = last.body_end == f0 and last_tail.opname not in ENDS_FLOW
            short_exit = None if falls else self._jumped_short_exit(start, f0, limit, tails)
            if later:
                end = self._block_exit(f0, min(min(later), limit))
                default_body = self.run_range(f0, end, list(base))
                after = end
            elif short_exit is not None:
                # A short block that ends the function and is still reached by a jump was not copied
                # into the jumps (3.10, 3.12 copy such blocks): the `case _:` line in front kept it apart.
                default_body = self.run_range(f0, short_exit, list(base))
                after = short_exit
            else:
                after = f0
                tail = self.instrs[f0 - 1]
                raising = self._raising_block(f0, limit) if not ends and not falls else None
                if last.body_end == f0 and tail.opname == "JUMP" and tail.target == f0:
                    # A jump to the very next instruction survives only where a `case _: pass` stood.
                    default_body = [n.Pass()]
                elif raising is not None:
                    # No case falls through to what follows, and that raises: `case _: raise ...`.
                    default_body = self.run_range(f0, raising, list(base))
                    after = raising
        return default_body, after

    def _after_moved_body(self, start: int, reads: List[_CaseRead], after: int,
                          default_body: Optional[List[n.Stmt]]) -> int:
        """Where the code after the statement starts, given the one body the compiler may have
        placed after it."""
        moved = [c for c in reads if c.body_end is not None and c.body_start > after > start]
        entry = moved[0].body_start if len(moved) == 1 else None
        if entry is not None:
            # (an or-pattern's alternatives enter at its capture stores, in front of the body)
            entry = min([r for r in moved[0].resumes if after < r <= entry] + [entry])
        while entry is not None and entry - 1 > after and self.instrs[entry - 1].opname == "POP_TOP":
            entry -= 1  # (the subject's pop where the or-pattern's alternatives enter the body)
        if entry is not None and default_body is None and self.instrs[entry - 1].opname in ENDS_FLOW \
                and all(c.body_end <= after for c in reads if c not in moved and c.body_end is not None):
            # The code after the statement lies between the failure pops and the body the
            # compiler placed after it (`case A() | B(): ...` last, then `return x` after the
            # match): that body is read with the statement, the code from `after` on follows it.
            self.skip[entry] = moved[0].body_end
            return after
        return max([after] + [c.body_end for c in reads if c.body_end is not None])

    def _case_body(self, case: _CaseRead, base: List[n.Expr], after: int, last: bool) -> List[n.Stmt]:
        """The statements of one case; `last` when it is the statement's last case, whose
        body falls into what follows."""
        start, end = case.body_start, case.body_end
        assert end is not None
        if end > start:
            tail = self.instrs[end - 1]
            loop = self.loops[-1] if self.loops else None
            if tail.opname == "JUMP" and tail.target == after and (after not in self._loop_targets()
                                                                  or after == self.end):
                end -= 1
            elif tail.opname == "JUMP" and loop is not None and tail.target in loop.continue_targets \
                    and after >= self.end == loop.body_end \
                    and (last or end - 1 > start or not self.version.keeps_lone_jump_to_loop_back_jump):
                end -= 1  # the match ends the loop body: going back to the loop's head is implied
        body = self.run_range(start, end, list(base)) if end > start else []
        return body or [n.Pass()]

    # --- one case ------------------------------------------------------------------------------

    def _read_cases(self, i: int, pushed: List[n.Expr], base: List[n.Expr]) -> List[_CaseRead]:
        """Read the cases from `i` on. A case that starts with a copy of the subject is first read as
        a case that keeps the subject for the next one; if that leads nowhere, as the last case that
        is not `case _:` (whose pattern, an as- or or-pattern, starts with a copy of its own)."""
        if i >= self.end:
            raise _NotAPattern()
        ins = self.instrs[i]
        options: List[Optional[bool]] = [False]
        if not pushed and ins.opname in _COPIES and (ins.opname == "DUP_TOP" or ins.arg == 1):
            options.insert(0, True)
        if not pushed:
            options.append(None)  # `case _ if guard:` whose copy and pop of the subject cancelled out
        for dup in options:
            mark = len(self._journal())
            try:
                case = self._read_case_as(i, pushed, base, dup=dup)
                if dup is False:
                    if case.guard is None and not case.root.names and not case.root.has_structure():
                        raise _NotAPattern()  # a bare `case _:` is compiled as the default
                    return [case]
                assert case.next_case is not None
                return [case] + self._read_cases(case.next_case, [], base)
            except _NotAPattern:
                self._rollback(mark)
        raise _NotAPattern()

    def _read_case_as(self, i: int, pushed: List[n.Expr], base: List[n.Expr], dup: Optional[bool]) -> _CaseRead:
        """Read one case; `dup` says whether it copies the subject (None: it keeps the subject but
        its pattern is a bare `_`, so the compiler dropped the copy and its pop)."""
        case = _CaseRead()
        wild = dup is None
        dup = dup is not False
        case.dup = dup
        root = case.root
        sim = _Sim(self, [_Subj(root)] + list(pushed), floor=1 if dup else 0)
        if wild:
            j = i
        else:
            if dup:
                sim.stack.append(_Subj(root))
                i += 1
            j = sim.run(i)
        case.resumes = sim.resumes
        if sim.inline_body is not None:
            # An or-pattern whose alternatives each carry a copy of the (short, returning) body.
            body_start, body_end = sim.inline_body
            if sim.stack:
                raise _NotAPattern()
            case.body_start, case.body_end = body_start, body_end
            case.fails = sim.fails
            self._finish_fails(case, 1 if dup else 0, i)
            return case
        depth = len(sim.stack)
        if depth != (1 if dup else 0):
            raise _NotAPattern()
        case.fails = sim.fails
        if dup:
            # An optional guard, then the subject is dropped.
            if wild and self.instrs[j].opname == "POP_TOP":
                raise _NotAPattern()
            if self.instrs[j].opname != "POP_TOP":
                cond, fall, false_target = self._guard(j, base, depth)
                if self.instrs[fall].opname != "POP_TOP":
                    raise _NotAPattern()
                case.guard = cond
                case.fails.append((false_target, depth))
                j = fall
            elif not sim.fails:
                raise _NotAPattern()  # an irrefutable pattern without a guard ends the statement
            j += 1
        else:
            j = self._maybe_guard(case, j, base)
        case.body_start = j
        self._finish_fails(case, 1 if dup else 0, i)
        return case

    def _maybe_guard(self, case: _CaseRead, j: int, base: List[n.Expr]) -> int:
        """The guard of the last case that consumes the subject: a condition jumping to the next case."""
        try:
            cond, fall, false_target = self._guard(j, base, 0)
        except _NotAPattern:
            return j
        if false_target <= fall:
            return j
        known = {t + d for t, d in case.fails}
        if known:
            if false_target not in known and not self._same_exit_blocks(sorted(known | {false_target})):
                return j
        else:
            # The body before the false target must end the case (a guard's body never falls into
            # what follows); otherwise this is an `if` statement inside the body.
            tail = self.instrs[false_target - 1]
            if not (tail.opname == "JUMP" and tail.target is not None and tail.target > false_target) \
                    and tail.opname not in TERMINAL:
                return j
        case.guard = cond
        case.fails.append((false_target, 0))
        return fall

    def _guard(self, j: int, base: List[n.Expr], depth: int) -> Tuple[n.Expr, int, int]:
        saved = self.stack
        self.stack = list(base) + [m.Sentinel("match subject") for _ in range(depth)]
        # (a guard's tests all jump to the case's failure block; a test that jumps to a copy of
        # the code after the match statement is an `if` starting the body)
        saved_copies, self.no_copied_exits = self.no_copied_exits, True
        try:
            atom = self.parse_atom(j, self.end)
            if atom is None:
                raise _NotAPattern()
            value, q = atom
            saved_pure = self.pure_mode
            self.pure_mode += 1
            try:
                k = j
                while k < q:
                    k = self.step(k)
            finally:
                self.pure_mode = saved_pure
            self.stack.pop()
            cond, fall, false_target, _ = self.condition_chain(q, value)
        except _NotAPattern:
            raise
        except NOT_A_MISREADING:
            raise  # out of stack or memory: every other reading would fail alike
        except Exception:
            raise _NotAPattern() from None
        finally:
            self.stack = saved
            self.no_copied_exits = saved_copies
        return cond, fall, false_target

    def _finish_fails(self, case: _CaseRead, keep: int, case_start: int) -> None:
        """Check the fail jumps reach one block of pops; find where the body ends and the next case starts."""
        instrs = self.instrs
        if not case.fails:
            if case.dup:
                raise _NotAPattern()
            return
        nexts = set()
        first = None
        for target, depth in case.fails:
            pops = depth - keep
            if pops == 0 and target <= case_start and not case.dup:
                continue  # the failure path of the last case went straight back to a loop's head
            if pops < 0 or target <= case_start:
                raise _NotAPattern()
            for k in range(target, target + pops):
                if k >= len(instrs) or instrs[k].opname != "POP_TOP":
                    raise _NotAPattern()
            nexts.add(target + pops)
            first = target if first is None else min(first, target)
        if not nexts:
            return
        if len(nexts) > 1:
            # A failure path that reaches the next case through a jump may have been threaded
            # to where that jump goes (an or-pattern's failure after its pops, inside a class
            # pattern: `case B(name="a" | "b"):` whose other failure pops and jumps on).
            nexts = {k for k in nexts if not any(instrs[q].opname == "JUMP" and instrs[q].target == k
                                                 for q in nexts)}
        if len(nexts) > 1 and not self._same_exit_blocks(sorted(nexts)):
            raise _NotAPattern()
        # The code after a statement that only returns may have been copied for each way into it;
        # the last copy stands for the code after the match, the others are never reached.
        case.next_case = max(nexts)
        if case.body_end is None:
            case.body_end = first

    def _same_exit_blocks(self, starts: List[int]) -> bool:
        """Are the blocks at `starts` copies of one short block that ends the function?"""
        instrs = self.instrs
        shapes = []
        for k in starts:
            shape = []
            while k < len(instrs) and instrs[k].opname not in TERMINAL:
                if instrs[k].is_jump or len(shape) > _MAX_INLINE_TAIL:
                    return False
                shape.append((instrs[k].opname, repr(instrs[k].argval), self._line_of(k)))
                k += 1
            if k >= len(instrs):
                return False
            # A copy keeps the line numbers of what it copies; the same code written twice does not.
            shape.append((instrs[k].opname, repr(instrs[k].argval), self._line_of(k)))
            shapes.append(shape)
        return all(s == shapes[0] for s in shapes)

    def _line_of(self, k: int) -> Optional[int]:
        """The source line of instruction `k` (match statements exist only where `co_lines` does)."""
        lines = self.__dict__.get("_match_lines")
        if lines is None:
            lines = self.__dict__["_match_lines"] = {}
            for start, end, line in self.code.co_lines():
                for offset in range(start, end, 2):
                    lines[offset] = line
        return lines.get(self.instrs[k].offset)

    def _jumped_short_exit(self, start: int, f0: int, limit: int, tails: set) -> Optional[int]:
        """The end of the block at `f0` if it is at most four instructions ending the function and an
        unconditional jump inside a pattern (not at the end of a body, `tails`) reaches it."""
        instrs = self.instrs
        k = f0
        while k < limit and instrs[k].opname not in TERMINAL:
            if instrs[k].is_jump or k - f0 >= 3:
                return None
            k += 1
        if k >= limit:
            return None
        if not any(instrs[src].opname == "JUMP" and start <= src < f0 and src not in tails
                   for src in self.jump_sources.get(f0, ())):
            return None
        return k + 1

    def _block_exit(self, start: int, end: int) -> int:
        """`end`, or the POP_BLOCK before it that leaves an enclosing try (3.10 repeats a try's exit
        code for each way out, so the end of a match may lie beyond one of the copies)."""
        depth = 0
        for k in range(start, end):
            op = self.instrs[k].opname
            if op.startswith("SETUP_"):
                depth += 1
            elif op == "POP_BLOCK":
                if depth == 0:
                    return k
                depth -= 1
        return end

    def _raising_block(self, start: int, limit: int) -> Optional[int]:
        """The end of the straight code at `start` if it ends by raising, else None."""
        instrs = self.instrs
        k = start
        while k < limit and not instrs[k].is_jump and instrs[k].opname not in TERMINAL:
            if k > start and self.jump_sources.get(k):
                return None
            k += 1
        if k < limit and instrs[k].opname == "RAISE_VARARGS":
            return k + 1
        return None

    def _loop_targets(self) -> set:
        targets = set()
        for loop in self.loops:
            targets |= loop.continue_targets
            if loop.break_target is not None:
                targets.add(loop.break_target)
        return targets

    # --- helpers for _Sim -------------------------------------------------------------------------

    def _journal(self) -> List[Tuple[Any, str, Any]]:
        journal = self.__dict__.get("_match_journal")
        if journal is None:
            journal = self.__dict__["_match_journal"] = []
        return journal

    def _rollback(self, mark: int) -> None:
        journal = self._journal()
        while len(journal) > mark:
            obj, attr, old = journal.pop()
            setattr(obj, attr, old)

    def _value_run(self, i: int, below: List[n.Expr]) -> Optional[Tuple[List[n.Expr], int]]:
        """Evaluate the loads at `i` that feed a pattern test; (values, index of the consumer)."""
        instrs = self.instrs
        k = i
        while k < len(instrs) and instrs[k].opname in _VALUE_OPS:
            k += 1
        if k == i or k >= len(instrs):
            return None
        consumer = instrs[k].opname
        need = _VALUE_CONSUMERS.get(consumer)
        if need is None or not below:
            return None
        if consumer in ("BINARY_SUBTRACT", "BINARY_OP"):
            if not isinstance(below[-1], _Len):
                return None
        elif consumer == "BINARY_SUBSCR":
            if not isinstance(below[-1], (_Subj, _Parts)):
                return None
        elif not isinstance(below[-1], (_Subj, _Len)):
            return None
        saved_stack, saved_end = self.stack, self.end
        self.stack = []
        self.pure_mode += 1
        try:
            p = i
            while p < k:
                p = self.step(p)
            if p != k or len(self.stack) != need or any(isinstance(v, m.MARKER_TYPES) for v in self.stack):
                return None
            return list(self.stack), k
        except NOT_A_MISREADING:
            raise  # out of stack or memory: every other reading would fail alike
        except Exception:
            return None
        finally:
            self.pure_mode -= 1
            self.stack, self.end = saved_stack, saved_end
