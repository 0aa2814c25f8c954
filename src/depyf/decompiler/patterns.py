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
"""
from operator import attrgetter
from typing import Any, Dict, FrozenSet, List, Optional, Set, Tuple

from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.errors import NOT_A_MISREADING, DecompilationError
from depyf.decompiler.instructions import ENDS_FLOW, TERMINAL, Instr

_STORES = frozenset({"STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"})
_ROTATIONS = frozenset({"SWAP", "ROT_TWO", "ROT_THREE", "ROT_FOUR", "ROT_N"})
_COPIES = frozenset({"COPY", "DUP_TOP"})
_OPNAME = attrgetter("opname")
# Instructions that compute a value pattern, a class or mapping keys.
_VALUE_OPS = frozenset({
    "LOAD_CONST", "LOAD_NAME", "LOAD_GLOBAL", "LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_DEREF",
    "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF", "LOAD_FROM_DICT_OR_GLOBALS", "LOAD_ATTR",
    "BUILD_TUPLE", "LOAD_SMALL_INT",
})
# How many values each consumer of a value run takes above the subject.
_VALUE_CONSUMERS = {"COMPARE_OP": 1, "IS_OP": 1, "MATCH_CLASS": 2, "MATCH_KEYS": 1, "BINARY_SUBSCR": 1,
                    "BINARY_SUBTRACT": 1, "BINARY_OP": 1}
# Instructions that may start a pattern right after the subject is copied.
_PATTERN_STARTS = frozenset({
    "MATCH_SEQUENCE", "MATCH_MAPPING", "COPY", "DUP_TOP", "POP_JUMP_IF_NOT_NONE", "POP_JUMP_IF_NONE",
    "POP_TOP",
}) | _VALUE_OPS | _STORES
_MAX_INLINE_TAIL = 8
_TAIL_OPS = _STORES | _ROTATIONS | {"POP_TOP"}
# A test that jumps over an unconditional jump to its failure target, read as the plain test.
_INVERTED = {"POP_JUMP_IF_TRUE": "POP_JUMP_IF_FALSE", "POP_JUMP_IF_FALSE": "POP_JUMP_IF_TRUE",
             "POP_JUMP_IF_NOT_NONE": "POP_JUMP_IF_NONE", "POP_JUMP_IF_NONE": "POP_JUMP_IF_NOT_NONE"}


class _NotAPattern(Exception):
    """The instructions being read do not form the match statement they were assumed to be."""


class _Node:
    """What is known about one value being matched."""

    __slots__ = ("kind", "value", "names", "length", "min_length", "star", "items", "cls", "nargs",
                 "kwnames", "keys", "rest", "alts", "wild")

    def __init__(self) -> None:
        self.kind: Optional[str] = None  # value, singleton, seq, map, class, or
        self.wild = False  # `_ as name`: an as-pattern whose copy was dropped by a `_`
        self.value: Optional[n.Expr] = None
        self.names: List[str] = []
        self.length: Optional[int] = None
        self.min_length: Optional[int] = None
        self.star: Optional[int] = None
        self.items: Dict[Any, "_Node"] = {}
        self.cls: Optional[n.Expr] = None
        self.nargs = 0
        self.kwnames: Tuple[str, ...] = ()
        self.keys: Optional[n.Expr] = None
        self.rest: Optional[str] = None
        self.alts: List["_Node"] = []

    def child(self, key: Any) -> "_Node":
        node = self.items.get(key)
        if node is None:
            node = self.items[key] = _Node()
        return node

    def is_refutable(self) -> bool:
        if self.kind is None:
            return False
        if self.kind == "or":
            return all(a.is_refutable() for a in self.alts)
        return True

    def has_structure(self) -> bool:
        """Does the tree test anything (a match made only of captures is an assignment)?"""
        if self.kind is not None:
            return True
        return any(c.has_structure() for c in self.items.values())


# --- symbolic stack values ----------------------------------------------------------------------

class _Subj(n.Expr):
    """A value being matched; an or-pattern's captures point at one node per alternative.

    `must_store` marks the value an as-pattern keeps for its name: it may only leave by a store."""
    __slots__ = ("nodes", "must_store", "as_copy")

    def __init__(self, *nodes: _Node, must_store: bool = False, as_copy: bool = False) -> None:
        self.nodes = list(nodes)
        self.must_store = must_store
        self.as_copy = as_copy

    @property
    def node(self) -> _Node:
        if len(self.nodes) != 1:
            raise _NotAPattern()
        return self.nodes[0]


class _Cond(n.Expr):
    """The truth value of a test on a subject."""
    __slots__ = ("node",)

    def __init__(self, node: _Node) -> None:
        self.node = node


class _Len(n.Expr):
    __slots__ = ("node",)

    def __init__(self, node: _Node) -> None:
        self.node = node


class _LenMinus(n.Expr):
    """`len(subject) - k`: the index of an item counted from the end (after a `*_`)."""
    __slots__ = ("node", "k")

    def __init__(self, node: _Node, k: int) -> None:
        self.node = node
        self.k = k


class _Parts(n.Expr):
    """The tuple MATCH_CLASS / MATCH_KEYS push: the attributes or values of `node`, or None."""
    __slots__ = ("node",)

    def __init__(self, node: _Node) -> None:
        self.node = node


class _Keys(n.Expr):
    """The keys tuple of a mapping pattern."""
    __slots__ = ("node", "expr")

    def __init__(self, node: Optional[_Node], expr: n.Expr) -> None:
        self.node = node
        self.expr = expr


class _Rest(n.Expr):
    """The dict of remaining items a `**rest` binds (or the empty dict it is built from)."""
    __slots__ = ("node",)

    def __init__(self, node: Optional[_Node]) -> None:
        self.node = node


class _Opaque(n.Expr):
    """A value the pattern code only drops (a key taken from the keys tuple for deletion)."""
    __slots__ = ()


# --- printing ----------------------------------------------------------------------------------

class _PatternPrinter:
    """Turns a node tree into pattern source text."""

    def __init__(self, render) -> None:
        self.render = render

    def text(self, node: Optional[_Node]) -> str:
        if node is None:
            return "_"
        core = self.core(node)
        names = list(node.names)
        if core is None:
            if not names:
                return "_"
            if node.wild:
                core = "_"
            else:
                core, names = names[0], names[1:]
        for name in names:
            core = f"{self.wrap_or(node, core)} as {name}"
        return core

    def wrap_or(self, node: _Node, core: str) -> str:
        return f"({core})" if node.kind == "or" or " as " in core else core

    def alternative(self, node: _Node) -> str:
        text = self.text(node)
        if node.kind == "or" or node.names and (node.kind is not None or len(node.names) > 1):
            return f"({text})"
        return text

    def core(self, node: _Node) -> Optional[str]:
        kind = node.kind
        if kind is None:
            return None
        if kind in ("value", "singleton"):
            assert node.value is not None
            return self.render(node.value)
        if kind == "or":
            return " | ".join(self.alternative(a) for a in node.alts)
        if kind == "seq":
            return "[" + ", ".join(self.sequence_items(node)) + "]"
        if kind == "class":
            assert node.cls is not None
            parts = [self.text(node.items.get(k)) for k in range(node.nargs)]
            parts += [f"{name}={self.text(node.items.get(node.nargs + k))}" for k, name in enumerate(node.kwnames)]
            return f"{self.render(node.cls)}({', '.join(parts)})"
        if kind == "map":
            keys = self.mapping_keys(node)
            parts = [f"{k}: {self.text(node.items.get(i))}" for i, k in enumerate(keys)]
            if node.rest is not None:
                parts.append("**" + node.rest)
            return "{" + ", ".join(parts) + "}"
        raise _NotAPattern()

    def mapping_keys(self, node: _Node) -> List[str]:
        keys = node.keys
        if keys is None:
            return []
        if isinstance(keys, n.Const) and isinstance(keys.value, tuple):
            return [self.render(n.Const(k)) for k in keys.value]
        if isinstance(keys, n.Tuple_):
            return [self.render(k) for k in keys.elts]
        raise _NotAPattern()

    def sequence_items(self, node: _Node) -> List[str]:
        if node.length is not None:
            size, star = node.length, None
        else:
            size = (node.min_length or 0) + 1
            star = node.star
            if star is None:
                positive = [k for k in node.items if isinstance(k, int)]
                star = max(positive) + 1 if positive else 0
        out = []
        for pos in range(size):
            child = node.items.get(pos)
            if child is None and star is not None and pos > star:
                child = node.items.get(("neg", size - pos))
            if pos == star:
                out.append("*" + (child.names[0] if child is not None and child.names else "_"))
            else:
                out.append(self.text(child))
        return out


class _CaseRead:
    """One case as read from the instructions."""

    __slots__ = ("root", "dup", "guard", "body_start", "body_end", "fails", "next_case", "resumes")

    def __init__(self) -> None:
        self.root = _Node()
        self.dup = False
        self.guard: Optional[n.Expr] = None
        self.body_start = 0
        self.body_end: Optional[int] = None
        self.fails: List[Tuple[int, int]] = []
        self.next_case: Optional[int] = None
        self.resumes: List[int] = []  # where the pattern code continues after an or-pattern


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
        self.match_starts: FrozenSet[int] = frozenset(starts)

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
        return self._try_match(i, [], tentative=True)

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

    def _try_match(self, start: int, pushed: List[n.Expr], tentative: bool = False) -> Optional[int]:
        """Build the match statement whose first case starts at `start`, or return None.

        `tentative`: the statement was only guessed from a copy of a value; a body that cannot be
        built then means the guess was wrong, and the builder's state is put back."""
        saved_stack = list(self.stack)
        saved_state = (dict(self.skip), dict(self.fall_override), set(self.chain_compare_jumps),
                       set(self.handled_regions))
        subject = self.finish_expr(self.stack[-1])
        base = self.stack[:-1]
        try:
            stmt, after = self._read_match(start, pushed, base)
        except (_NotAPattern, DecompilationError) as exc:
            if isinstance(exc, DecompilationError) and not tentative:
                raise
            self.stack = saved_stack
            self.skip, self.fall_override, self.chain_compare_jumps, self.handled_regions = saved_state
            return None
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

    def _read_match(self, start: int, pushed: List[n.Expr], base: List[n.Expr]) -> Tuple[n.Match, int]:
        mark = len(self._journal())
        try:
            reads = self._read_cases(start, pushed, base)
        except _NotAPattern:
            raise
        except NOT_A_MISREADING:
            raise  # out of stack or memory: every other reading would fail alike
        except Exception:
            # Reading is a guess over arbitrary instructions: any surprise means "not a match".
            self._rollback(mark)
            raise _NotAPattern() from None
        limit = self.end
        if len(reads) == 1 and not reads[0].root.has_structure():
            # Only captures: a chained assignment, perhaps followed by an `if`, compiles the same.
            raise _NotAPattern()
        last = reads[-1]
        # Where the bodies jump when they finish: the end of the statement (a jump out of a loop is a
        # `break`, and one to its head may be a `continue`, not the end).
        loop_targets = self._loop_targets()
        ends = []
        for case in reads:
            be = case.body_end
            if be is not None and be > case.body_start:
                tail = self.instrs[be - 1]
                if tail.opname == "JUMP" and tail.target is not None and tail.target >= be \
                        and (tail.target not in loop_targets or tail.target == limit):
                    ends.append(tail.target)
        default_body: Optional[List[n.Stmt]] = None
        # A body the compiler moved further down (3.13 places some blocks at the end) bounds the
        # bodies before it.
        starts = sorted([c.body_start for c in reads] + [r for c in reads for r in c.resumes])
        for case in reads:
            if case.body_end is not None and case.body_end < case.body_start:
                case.body_end = min([t for t, _ in case.fails if t > case.body_start]
                                    + [s for s in starts if s > case.body_start] + [limit])
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
        else:
            after = max([after] + [c.body_end for c in reads if c.body_end is not None])
        cases: List[n.MatchCase] = []
        printer = _PatternPrinter(self.render)
        for case in reads:
            body = self._case_body(case, base, after, case is reads[-1] and default_body is None)
            cases.append(n.MatchCase(printer.text(case.root), case.guard, body))
        if default_body is not None:
            cases.append(n.MatchCase("_", None, default_body))
        return n.Match(n.Const(None), cases), after

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


def _reach(ins: Instr) -> int:
    """How many values at the top of the stack an instruction may read, move or pop."""
    op = ins.opname
    if op in ("SWAP", "COPY", "ROT_N"):
        return ins.arg or 1
    if op == "DICT_UPDATE":
        return (ins.arg or 1) + 1
    return {"ROT_TWO": 2, "ROT_THREE": 3, "ROT_FOUR": 4, "MATCH_CLASS": 3}.get(op, 2)


class _Sim:
    """Runs pattern instructions on a symbolic stack, filling in the nodes they test."""

    def __init__(self, builder: PatternRules, stack: List[n.Expr], floor: int = 0, stored: bool = False) -> None:
        self.b = builder
        self.instrs = builder.instrs
        self.stack = stack
        # The values below `floor` belong to the enclosing case or pattern: reaching them ends the run.
        self.floor = floor
        # Names are stored only once the whole pattern matched: no test may follow a store.
        self.stored = stored
        self.fails: List[Tuple[int, int]] = []
        self.inline_body: Optional[Tuple[int, int]] = None
        self.resumes: List[int] = []
        self.flag = builder.version.match_pushes_success_flag

    # --- node updates go through the journal so that a wrong reading can be undone --------------

    def set(self, obj: Any, attr: str, value: Any) -> None:
        self.b._journal().append((obj, attr, getattr(obj, attr)))
        setattr(obj, attr, value)

    def child(self, node: _Node, key: Any) -> _Node:
        if key not in node.items:
            items = dict(node.items)
            items[key] = _Node()
            self.set(node, "items", items)
        return node.items[key]

    def bind(self, item: n.Expr, name: str) -> None:
        if isinstance(item, _Subj):
            for node in item.nodes:
                if name not in node.names:
                    self.set(node, "names", node.names + [name])
        elif isinstance(item, _Rest) and item.node is not None:
            self.set(item.node, "rest", name)
        else:
            raise _NotAPattern()

    def pop(self) -> n.Expr:
        if not self.stack:
            raise _NotAPattern()
        return self.stack.pop()

    def subj(self, item: n.Expr) -> _Node:
        if not isinstance(item, _Subj):
            raise _NotAPattern()
        return item.node

    # --- the run ------------------------------------------------------------------------------

    def run(self, i: int) -> int:
        """Run pattern code from `i`; return the index of the first instruction that is not."""
        instrs = self.instrs
        while i < len(instrs) and i < self.b.end:
            if i != 0 and i in self.b.loop_end:
                return i
            nxt = self.guarded_step(i)
            if nxt is None:
                return i
            i = nxt
            if self.inline_body is not None:
                return i
        return i

    def guarded_step(self, i: int) -> Optional[int]:
        floor = self.floor
        if not floor or len(self.stack) - _reach(self.instrs[i]) >= floor:
            return self.step(i)
        before = list(self.stack)
        mark = len(self.b._journal())
        nxt = self.step(i)
        st = self.stack
        if self.inline_body is not None:
            return nxt  # the copied tail of an or-pattern has dropped the case's subject too
        if nxt is not None and (len(st) < floor or any(st[k] is not before[k] for k in range(floor))):
            self.stack = before
            self.b._rollback(mark)
            return None
        return nxt

    def step(self, i: int) -> Optional[int]:
        ins = self.instrs[i]
        op = ins.opname
        st = self.stack
        if op in _VALUE_OPS:
            run = self.b._value_run(i, st)
            if run is None:
                return None
            values, k = run
            st.extend(values)
            return k
        if not st:
            return None
        top = st[-1]
        if op in _COPIES:
            k = 1 if op == "DUP_TOP" else ins.arg
            if len(st) < k:
                return None
            if k == 1 and isinstance(top, _Subj):
                return self.copy_subject(i)
            st.append(st[-k])
            return i + 1
        if op == "POP_TOP":
            if isinstance(top, _Subj) and top.must_store:
                raise _NotAPattern()
            if isinstance(top, _Subj) and top.as_copy and len(top.nodes) == 1 and top.node.kind is None:
                self.set(top.node, "wild", True)
            st.pop()
            return i + 1
        if op in _STORES:
            self.bind(st.pop(), ins.argval)
            self.stored = True
            return i + 1
        if op in _ROTATIONS:
            return self.rotate(ins, i)
        if op in ("MATCH_SEQUENCE", "MATCH_MAPPING"):
            node = self.subj(top)
            self.set_kind(node, "seq" if op == "MATCH_SEQUENCE" else "map")
            st.append(_Cond(node))
            return i + 1
        if op == "GET_LEN":
            st.append(_Len(self.subj(top)))
            return i + 1
        if op == "COMPARE_OP":
            return self.compare(ins, i)
        if op == "IS_OP":
            value = self.pop()
            node = self.subj(self.pop())
            if ins.flag or not isinstance(value, n.Const) or value.value not in (None, True, False):
                raise _NotAPattern()
            self.set_kind(node, "singleton")
            self.set(node, "value", value)
            st.append(_Cond(node))
            return i + 1
        if op == "TO_BOOL":
            return i + 1 if isinstance(top, _Cond) else None
        if op in ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE", "POP_JUMP_IF_TRUE"):
            return self.fail_jump(ins, i)
        if op == "MATCH_CLASS":
            names = self.pop()
            cls = self.pop()
            node = self.subj(self.pop())
            if not (isinstance(names, n.Const) and isinstance(names.value, tuple)) or isinstance(cls, _Subj):
                raise _NotAPattern()
            self.set_kind(node, "class")
            self.set(node, "cls", cls)
            self.set(node, "nargs", ins.arg)
            self.set(node, "kwnames", names.value)
            st.append(_Parts(node))
            if self.flag:
                st.append(_Cond(node))
            return i + 1
        if op == "MATCH_KEYS":
            keys = self.pop()
            node = self.subj(st[-1]) if st else self.subj(None)
            self.set_kind(node, "map")
            self.set(node, "keys", keys)
            st.append(_Keys(node, keys))
            st.append(_Parts(node))
            if self.flag:
                st.append(_Cond(node))
            return i + 1
        if op == "COPY_DICT_WITHOUT_KEYS":
            keys = self.pop()
            if not isinstance(keys, _Keys):
                raise _NotAPattern()
            st.append(_Rest(keys.node))
            return i + 1
        if op == "BUILD_MAP" and ins.arg == 0:
            st.append(_Rest(None))
            return i + 1
        if op == "DICT_UPDATE":
            source = self.pop()
            target = st[-ins.arg] if len(st) >= ins.arg else None
            if not isinstance(target, _Rest) or target.node is not None:
                raise _NotAPattern()
            st[-ins.arg] = _Rest(self.subj(source))
            return i + 1
        if op == "DELETE_SUBSCR":
            self.pop()
            self.pop()
            return i + 1
        if op in ("BINARY_SUBTRACT", "BINARY_OP"):
            if op == "BINARY_OP" and ins.argval != "-":
                return None
            if len(st) < 2 or not isinstance(st[-2], _Len) or not isinstance(st[-1], n.Const):
                return None
            k = self.pop()
            length = self.pop()
            st.append(_LenMinus(length.node, k.value))
            return i + 1
        if op == "BINARY_SUBSCR":
            return self.subscript(i)
        if op == "UNPACK_SEQUENCE":
            return self.unpack(ins, i, ins.arg, None)
        if op == "UNPACK_EX":
            return self.unpack(ins, i, (ins.arg & 0xFF) + 1 + (ins.arg >> 8), ins.arg & 0xFF)
        return None

    def set_kind(self, node: _Node, kind: str) -> None:
        if node.kind is not None and node.kind != kind:
            raise _NotAPattern()
        self.set(node, "kind", kind)

    def rotate(self, ins: Instr, i: int) -> int:
        st = self.stack
        op = ins.opname
        if op == "SWAP":
            k = ins.arg
            if len(st) < k:
                raise _NotAPattern()
            st[-1], st[-k] = st[-k], st[-1]
            return i + 1
        k = {"ROT_TWO": 2, "ROT_THREE": 3, "ROT_FOUR": 4}.get(op, ins.arg)
        if len(st) < k:
            raise _NotAPattern()
        top = st.pop()
        st.insert(len(st) - (k - 1), top)
        return i + 1

    def compare(self, ins: Instr, i: int) -> int:
        st = self.stack
        value = self.pop()
        left = self.pop()
        op = ins.argval
        if isinstance(left, _Len):
            if not (isinstance(value, n.Const) and isinstance(value.value, int)):
                raise _NotAPattern()
            if op == "==":
                self.set(left.node, "length", value.value)
            elif op == ">=":
                self.set(left.node, "min_length", value.value)
            else:
                raise _NotAPattern()
            st.append(_Cond(left.node))
            return i + 1
        node = self.subj(left)
        if op != "==" or isinstance(value, (_Subj, _Len, _Parts, _Keys, _Rest, _Cond)):
            raise _NotAPattern()
        self.set_kind(node, "value")
        self.set(node, "value", value)
        st.append(_Cond(node))
        return i + 1

    def fail_jump(self, ins: Instr, i: int) -> Optional[int]:
        """A test's jump to the failure path. From 3.12 a failure path that is a jump back (to a
        loop head) inverts the test: it jumps over an unconditional jump to the failure target."""
        st = self.stack
        if ins.target is None or not st:
            return None
        op = ins.opname
        target, nxt = ins.target, i + 1
        item = st[-1]
        # The compiler's own tests jump when the pattern fails; a jump on success is an inverted one.
        inverted = op == "POP_JUMP_IF_TRUE" or (op == "POP_JUMP_IF_NONE" and isinstance(item, _Subj)) \
            or (op == "POP_JUMP_IF_NOT_NONE" and isinstance(item, _Parts))
        if inverted:
            after = self.instrs[i + 1] if i + 1 < len(self.instrs) else None
            if not (target == i + 2 and after is not None and after.opname == "JUMP" and after.target is not None):
                return None
            op = _INVERTED[op]
            target, nxt = after.target, i + 2
        if op == "POP_JUMP_IF_FALSE":
            if not isinstance(item, _Cond):
                return None
        elif op == "POP_JUMP_IF_NONE":
            if not isinstance(item, _Parts):
                return None
        elif op == "POP_JUMP_IF_NOT_NONE":  # `case None`, folded into the jump by 3.11+
            if not isinstance(item, _Subj):
                return None
            node = self.subj(item)
            self.set_kind(node, "singleton")
            self.set(node, "value", n.Const(None))
        else:
            return None
        if self.stored:
            raise _NotAPattern()
        st.pop()
        self.fails.append((target, len(st)))
        return nxt

    def subscript(self, i: int) -> int:
        index = self.pop()
        container = self.pop()
        if isinstance(container, _Subj):
            node = container.node
            if isinstance(index, _LenMinus) and index.node is node:
                key: Any = ("neg", index.k)
            elif isinstance(index, n.Const) and isinstance(index.value, int):
                key = index.value
            else:
                raise _NotAPattern()
        elif isinstance(container, _Parts):
            node = container.node
            if not (isinstance(index, n.Const) and isinstance(index.value, int)):
                raise _NotAPattern()
            key = index.value
        else:
            raise _NotAPattern()
        self.stack.append(_Subj(self.child(node, key)))
        return i + 1

    def unpack(self, ins: Instr, i: int, count: int, star: Optional[int]) -> int:
        item = self.pop()
        if isinstance(item, _Keys):  # keys taken out one by one to delete them from `**rest`
            self.stack.extend(_Opaque() for _ in range(count))
            return i + 1
        if isinstance(item, _Subj):
            node = item.node
            if node.kind != "seq":
                raise _NotAPattern()
            if star is not None:
                self.set(node, "star", star)
        elif isinstance(item, _Parts):
            node = item.node
        else:
            raise _NotAPattern()
        children = [self.child(node, k) for k in range(count)]
        self.stack.extend(_Subj(c) for c in reversed(children))
        return i + 1

    # --- or-patterns and as-patterns ------------------------------------------------------------

    def copy_subject(self, i: int) -> int:
        """COPY 1 of a subject: the first alternative of an or-pattern, or an as-pattern."""
        instrs = self.instrs
        # 3.10 takes items and attributes out with a copy and a subscript; after a `*_` every
        # version indexes from the end with a copy and GET_LEN.
        subscript = i + 2 < len(instrs) and (
            instrs[i + 1].opname == "GET_LEN"
            or instrs[i + 1].opname in ("LOAD_CONST", "LOAD_SMALL_INT") and instrs[i + 2].opname == "BINARY_SUBSCR")
        if not subscript:
            journal_mark = len(self.b._journal())
            saved = (list(self.stack), list(self.fails), self.stored, list(self.resumes))
            try:
                return self.or_pattern(i)
            except _NotAPattern:
                self.b._rollback(journal_mark)
                self.stack, self.fails, self.stored, self.resumes = \
                    list(saved[0]), list(saved[1]), saved[2], list(saved[3])
        top = self.stack[-1]
        assert isinstance(top, _Subj)
        if not subscript:
            # An as-pattern: the copy is matched, the value below it is stored under the name.
            self.stack[-1] = _Subj(*top.nodes, must_store=True)
            self.stack.append(_Subj(*top.nodes, as_copy=True))
        else:
            self.stack.append(top)
        return i + 1

    def or_pattern(self, i: int) -> int:
        instrs = self.instrs
        subject_item = self.stack[-1]
        node = self.subj(subject_item)
        depth = len(self.stack)
        base_stack = list(self.stack)
        alts: List[_Node] = []
        arrivals: List[List[n.Expr]] = []
        inline: Optional[Tuple[int, int, List[n.Expr]]] = None
        end: Optional[int] = None
        k = i
        while True:
            ins = instrs[k]
            if ins.opname not in _COPIES or (ins.opname == "COPY" and ins.arg != 1):
                raise _NotAPattern()
            alt = _Node()
            inner = _Sim(self.b, list(base_stack) + [_Subj(alt)], floor=depth, stored=self.stored)
            j = inner.run(k + 1)
            if inner.inline_body is not None:
                raise _NotAPattern()
            self.resumes.extend(inner.resumes)
            jump = instrs[j] if j < len(instrs) else None
            if jump is not None and jump.opname == "JUMP" and jump.target is not None and jump.target > j:
                if len(inner.stack) < depth or inner.stack[depth - 1] is not subject_item:
                    raise _NotAPattern()
                if end is None:
                    end = jump.target
                elif end != jump.target:
                    raise _NotAPattern()
                arrivals.append(list(inner.stack))
                after = j + 1
            else:
                # The jump to the code after the alternatives was replaced by a copy of that code
                # (a short block that returns); its stores have run, its body starts at `j`.
                tail = _Sim(self.b, inner.stack, stored=inner.stored)
                while j < len(instrs) and instrs[j].opname in _TAIL_OPS:
                    tail.step(j)
                    j += 1
                if len(tail.stack) >= depth:
                    raise _NotAPattern()
                t = j
                while t < len(instrs) and instrs[t].opname not in TERMINAL:
                    if instrs[t].is_jump or t - j > _MAX_INLINE_TAIL:
                        raise _NotAPattern()
                    t += 1
                if t >= len(instrs):
                    raise _NotAPattern()
                inline = (j, t + 1, list(tail.stack))
                after = t + 1
            fail_end = after
            ends = set()
            for target, d in inner.fails:
                pops = d - depth
                if target < after or pops < 0:
                    raise _NotAPattern()
                for p in range(target, target + pops):
                    if instrs[p].opname != "POP_TOP":
                        raise _NotAPattern()
                ends.add(target + pops)
            if len(ends) > 1:
                raise _NotAPattern()
            if ends:
                fail_end = ends.pop()
            alts.append(alt)
            if not inner.fails:
                # An irrefutable alternative is the last one; nothing follows it but the end.
                if len(alts) < 2 or end is None or fail_end != end:
                    raise _NotAPattern()
                self.set_kind(node, "or")
                self.set(node, "alts", alts)
                self.stack = self._merge(arrivals, depth)
                return end
            if fail_end >= len(instrs):
                raise _NotAPattern()
            nxt = instrs[fail_end]
            if nxt.opname in _COPIES and (nxt.opname == "DUP_TOP" or nxt.arg == 1):
                k = fail_end
                continue
            if nxt.opname != "POP_TOP":
                raise _NotAPattern()
            break
        if len(alts) < 2:
            raise _NotAPattern()
        # Every alternative failed: drop the subject and go to the enclosing failure.
        p = fail_end + 1
        if p < len(instrs) and instrs[p].opname == "JUMP" and instrs[p].target is not None and instrs[p].target > p:
            self.fails.append((instrs[p].target, depth - 1))
            p += 1
        else:
            self.fails.append((p, depth - 1))
        self.set_kind(node, "or")
        self.set(node, "alts", alts)
        if end is None:
            if inline is None:
                raise _NotAPattern()
            self.stack = list(inline[2])
            self.inline_body = (inline[0], inline[1])
            return p
        # The code after the alternatives usually follows them; 3.13 may have moved it further down.
        self.stack = self._merge(arrivals, depth)
        self.resumes.append(end)
        return end

    def _merge(self, arrivals: List[List[n.Expr]], depth: int) -> List[n.Expr]:
        """One stack for the code after the alternatives: each capture points at every alternative's node."""
        size = len(arrivals[0])
        if any(len(a) != size for a in arrivals):
            raise _NotAPattern()
        merged = list(arrivals[0][:depth])
        for pos in range(depth, size):
            items = [a[pos] for a in arrivals]
            if all(isinstance(x, _Subj) for x in items):
                nodes: List[_Node] = []
                for x in items:
                    nodes.extend(x.nodes)
                merged.append(_Subj(*nodes))
            elif all(x is items[0] for x in items):
                merged.append(items[0])
            else:
                raise _NotAPattern()
        return merged
