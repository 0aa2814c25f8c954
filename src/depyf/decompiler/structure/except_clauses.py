"""except clauses, found on the graph: one description for every version 3.8-3.15.

A try/except's handler is a chain of clauses. Each tested clause evaluates its type, jumps to
the next clause when the exception does not match, binds the exception (to a name or to
nothing) and runs its body; a named clause's body is protected by a hidden handler that
unbinds the name (`name = None; del name`) before re-raising. After the last tested clause
comes the re-raise of an exception no clause matched, or a bare `except:` takes the rest. The
graph gives both exception models as the same handler labels, so the chain is found alike; the
spellings differ only in a few instructions, chosen by the `has_exception_table` capability:

| part | 3.8 | 3.9/3.10 | 3.11+ |
|---|---|---|---|
| type test | `DUP_TOP; <type>; COMPARE_OP exception match; POP_JUMP_IF_FALSE next` | `DUP_TOP; <type>; JUMP_IF_NOT_EXC_MATCH next` | `<type>; CHECK_EXC_MATCH; POP_JUMP_IF_FALSE next` |
| binding | `POP_TOP; STORE name; POP_TOP`, or `POP_TOP` x3 | the same | `STORE name`, or `POP_TOP` |
| unbinding on an exception | `SETUP_FINALLY c` opens the body; at `c`: `LOAD_CONST None; STORE; DELETE; END_FINALLY` | the same, `RERAISE` | laid before `next`: `LOAD_CONST None; STORE; DELETE; RERAISE 1` |
| no match | `END_FINALLY` | `RERAISE` | `RERAISE 0` |
| bare clause | `POP_TOP` x3 | the same | `POP_TOP` |

(3.11+'s handler starts with `PUSH_EXC_INFO`: the chain starts one past it.) Where the body
of a 3.8-3.10 bare clause ends is not in these instructions (3.9 and 3.10 remove the code that
would mark it): the readers decide it; 3.11+'s ends at the handler's cleanup. Types are
expressions read on the reader's stack; only their instruction ranges are here.
`clause_chain(graph, handler)` (and `star_clause_chain` for 3.11+'s except*) is made once per
handler and kept with the graph (`FlowGraph.kept_at`).
"""
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from depyf.decompiler.graph.cfg import FlowGraph
from depyf.decompiler.instructions import Instr

_STORES = frozenset({"STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"})
_DELETES = frozenset({"DELETE_FAST", "DELETE_NAME", "DELETE_GLOBAL", "DELETE_DEREF"})
_RERAISES = frozenset({"END_FINALLY", "RERAISE"})
# The type expression of a 3.11+ clause: what may come between the clause's start and its
# CHECK_EXC_MATCH (a tuple with a starred item is built as a list, 3.12+ with an intrinsic call).
TYPE_OPS = frozenset({
    "LOAD_GLOBAL", "LOAD_NAME", "LOAD_FAST", "LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_CONST",
    "LOAD_ATTR", "BUILD_TUPLE", "BINARY_SUBSCR", "PUSH_NULL", "CALL", "KW_NAMES", "LOAD_FROM_DICT_OR_DEREF",
    "LOAD_FROM_DICT_OR_GLOBALS", "BINARY_OP", "LOAD_SUPER_ATTR",
    "BUILD_LIST", "LIST_EXTEND", "LIST_APPEND", "LIST_TO_TUPLE", "CALL_INTRINSIC_1",
})
# (more clauses than any source has: a chain read past this is not one)
MAX_CLAUSES = 256


@dataclass(frozen=True)
class ExceptClause:
    """One clause of a handler's chain.

    `start`: its first instruction (3.8-3.10: the DUP_TOP of its test; 3.11+: its type's first;
    a bare clause: its pops). `test`: the [start, end) of the type expression, None for a bare
    clause. `match`: the jump taken when the type does not match, to `next` (the next clause,
    or the no-match re-raise). `name`: the bound name, None where the exception is popped.
    `body_start`: the body's first instruction (3.8-3.10's named clause: the SETUP_FINALLY of
    its hidden unbinding handler). `unbinding`: a named clause's exceptional `name = None;
    del name; re-raise`, as [start, end), None where it is not found (then the clause is not
    one the readers can read). `body_end`: an except* clause's, before its unbinding and its
    exit jump; a 3.11+ bare clause's, at the handler's cleanup (None for the other except
    clauses: the readers decide where the body's way out starts; 3.8-3.10's bare clause ends
    where the reading of the code after it says).
    `normal_unbindings`: where the `name = None; del name` of a named except clause's normal
    ways out start, in order (each right after the POP_EXCEPT that ends the clause; 3.9/3.10:
    after `POP_BLOCK; POP_EXCEPT`, before the unbinding handler; none on 3.8, whose ways out
    run that handler itself)."""

    start: int
    test: Optional[Tuple[int, int]]
    match: Optional[int]
    next: Optional[int]
    name: Optional[str]
    body_start: int
    unbinding: Optional[Tuple[int, int]] = None
    body_end: Optional[int] = None
    normal_unbindings: Tuple[int, ...] = ()

    @property
    def is_bare(self) -> bool:
        return self.test is None


@dataclass(frozen=True)
class ClauseChain:
    """The clauses of the handler at `handler`, in order. `reraise`: the re-raise of an
    exception no clause matched (None where a bare clause ends the chain). `unread`: where
    and why the chain stops being one (None where it is whole): the clauses before it are
    listed, and a reader fails there with the reason. `exit_at`: an except* chain's normal
    exit, after the exception groups are recombined (None for except clauses)."""

    handler: int
    clauses: Tuple[ExceptClause, ...]
    reraise: Optional[int]
    unread: Optional[Tuple[int, str]] = None
    exit_at: Optional[int] = None

    @property
    def end(self) -> Optional[int]:
        """Past the re-raise that ends the chain; None where the chain is not whole or a bare
        clause ends it (where its body ends is the reader's to decide)."""
        return self.reraise + 1 if self.reraise is not None and self.unread is None else None


def clause_chain(graph: FlowGraph, handler: int) -> ClauseChain:
    """The except clauses of the handler at `handler` (3.11+: its PUSH_EXC_INFO), made on first
    use and then kept with the graph."""
    return graph.kept_at("except_clauses", handler, _chain)


def _chain(graph: FlowGraph, handler: int) -> ClauseChain:
    if graph.version.has_exception_table:
        return _table_chain(graph, handler)
    return _block_stack_chain(graph.instrs, handler)


def star_clause_chain(graph: FlowGraph, handler: int) -> ClauseChain:
    """The except* clauses of the 3.11+ handler at `handler` (its PUSH_EXC_INFO), made on first
    use and then kept with the graph."""
    return graph.kept_at("except_star_clauses", handler, _star_chain)


def _op(instrs: Sequence[Instr], k: int) -> str:
    return instrs[k].opname if 0 <= k < len(instrs) else ""


def _ops_at(instrs: Sequence[Instr], k: int, ops: Sequence[str]) -> bool:
    return all(_op(instrs, k + n) == op for n, op in enumerate(ops))


def is_unbinding(instrs: Sequence[Instr], k: int, name: str) -> bool:
    """`name = None; del name` at `k`: how a named clause's body ends."""
    return _op(instrs, k) == "LOAD_CONST" and instrs[k].argval is None \
        and _op(instrs, k + 1) in _STORES and instrs[k + 1].argval == name \
        and _op(instrs, k + 2) in _DELETES and instrs[k + 2].argval == name


def _match_jump(instrs: Sequence[Instr], k: int) -> Optional[int]:
    """3.8-3.10: the type test's jump of the clause whose DUP_TOP is at `k` (its type is read
    up to the exception match; a conditional type may hold jumps of its own)."""
    match = k + 1
    while match < len(instrs) and not (
            instrs[match].opname == "JUMP_IF_NOT_EXC_MATCH"
            or (instrs[match].opname == "COMPARE_OP" and instrs[match].argval == "exception match")):
        match += 1
    if match >= len(instrs):
        return None
    return match if instrs[match].opname == "JUMP_IF_NOT_EXC_MATCH" else match + 1


def _block_stack_chain(instrs: Sequence[Instr], h: int) -> ClauseChain:
    clauses: List[ExceptClause] = []
    k = h
    while len(clauses) < MAX_CLAUSES:
        if _ops_at(instrs, k, ("POP_TOP", "POP_TOP", "POP_TOP")):
            clauses.append(ExceptClause(k, None, None, None, None, k + 3))
            return ClauseChain(h, tuple(clauses), None)
        if _op(instrs, k) != "DUP_TOP":
            return ClauseChain(h, tuple(clauses), None, (k, "unrecognised except clause"))
        jump = _match_jump(instrs, k)
        if jump is None:
            return ClauseChain(h, tuple(clauses), None, (k, "except clause without an exception match"))
        if _op(instrs, jump) not in ("JUMP_IF_NOT_EXC_MATCH", "POP_JUMP_IF_FALSE"):
            return ClauseChain(h, tuple(clauses), None, (jump, "except clause without an exception match"))
        test_end = jump if instrs[jump].opname == "JUMP_IF_NOT_EXC_MATCH" else jump - 1
        nxt = instrs[jump].target
        assert nxt is not None
        a = jump + 1
        name: Optional[str] = None
        unbinding: Optional[Tuple[int, int]] = None
        if _ops_at(instrs, a, ("POP_TOP", "POP_TOP", "POP_TOP")):
            pass
        elif _op(instrs, a) == "POP_TOP" and _op(instrs, a + 1) in _STORES and _op(instrs, a + 2) == "POP_TOP":
            name = instrs[a + 1].argval
            setup = instrs[a + 3] if a + 3 < len(instrs) else None
            if setup is not None and setup.opname == "SETUP_FINALLY" and setup.target is not None \
                    and is_unbinding(instrs, setup.target, name):
                unbinding = (setup.target, setup.target + 4)
        else:
            return ClauseChain(h, tuple(clauses), None, (a, "except clause does not bind its exception"))
        normal: Tuple[int, ...] = ()
        if name is not None and unbinding is not None:
            normal = tuple(u for u in range(a + 6, unbinding[0] - 2) if _op(instrs, u - 2) == "POP_BLOCK"
                           and _op(instrs, u - 1) == "POP_EXCEPT" and is_unbinding(instrs, u, name))
        clauses.append(ExceptClause(k, (k + 1, test_end), jump, nxt, name, a + 3, unbinding, None, normal))
        k = nxt
        if _op(instrs, k) in _RERAISES:
            return ClauseChain(h, tuple(clauses), k)
    return ClauseChain(h, tuple(clauses), None, (h, "too many except clauses"))


def _table_chain(graph: FlowGraph, t: int) -> ClauseChain:
    instrs = graph.instrs
    clauses: List[ExceptClause] = []
    if _op(instrs, t) != "PUSH_EXC_INFO":
        return ClauseChain(t, (), None, (t, "handler without PUSH_EXC_INFO"))
    p = t + 1
    while len(clauses) < MAX_CLAUSES:
        if _op(instrs, p) == "POP_TOP":
            clauses.append(ExceptClause(p, None, None, None, None, p + 1, body_end=_bare_clause_end(graph, t, p)))
            return ClauseChain(t, tuple(clauses), None)
        q = p
        while q < len(instrs) and instrs[q].opname != "CHECK_EXC_MATCH":
            if instrs[q].opname not in TYPE_OPS:
                return ClauseChain(t, tuple(clauses), None, (q, "except clause without a type test"))
            q += 1
        if q >= len(instrs):
            return ClauseChain(t, tuple(clauses), None, (p, "except clause without a type test"))
        jump = q + 1
        if _op(instrs, jump) != "POP_JUMP_IF_FALSE":
            return ClauseChain(t, tuple(clauses), None, (q, "except clause type is not an expression"))
        nxt = instrs[jump].target
        assert nxt is not None
        bind = q + 2
        name: Optional[str] = None
        if _op(instrs, bind) in _STORES:
            name = instrs[bind].argval
        elif _op(instrs, bind) != "POP_TOP":
            return ClauseChain(t, tuple(clauses), None, (bind, "except clause binds something that is not a name"))
        unbinding = None
        if name is not None and nxt - 4 > q and _op(instrs, nxt - 1) == "RERAISE" \
                and _op(instrs, nxt - 4) == "LOAD_CONST" and instrs[nxt - 2].argval == name:
            unbinding = (nxt - 4, nxt)
        normal = ()
        if name is not None:
            end = unbinding[0] if unbinding is not None else nxt
            normal = tuple(u for u in range(q + 4, end - 1)
                           if instrs[u - 1].opname == "POP_EXCEPT" and is_unbinding(instrs, u, name))
        clauses.append(ExceptClause(p, (p, q), jump, nxt, name, q + 3, unbinding, None, normal))
        p = nxt
        if _op(instrs, p) == "RERAISE":
            return ClauseChain(t, tuple(clauses), p)
    return ClauseChain(t, tuple(clauses), None, (t, "too many except clauses"))


def _bare_clause_end(graph: FlowGraph, t: int, p: int) -> int:
    """3.11+: where the body of the bare clause at `p` (of the handler at `t`) ends: at the
    handler's cleanup (`COPY 3; POP_EXCEPT; RERAISE 1`, the handler its own code goes to)
    where that is laid after it, else at the first such cleanup after it."""
    instrs = graph.instrs
    region = graph.region_at(t) if t < len(instrs) else None
    if region is not None and region.handler > p:
        return region.handler
    k = p
    while k < len(instrs) and not (instrs[k].opname == "COPY" and instrs[k].arg == 3):
        k += 1
    return k


def _star_chain(graph: FlowGraph, t: int) -> ClauseChain:
    """3.11+ except*: after `PUSH_EXC_INFO` and the copies that keep the group (COPY, BUILD_LIST,
    SWAP), each clause is `<type>; CHECK_EG_MATCH; COPY 1; POP_JUMP_IF_NONE next; STORE name |
    POP_TOP; body; [name = None; del name]; JUMP`, then its own cleanup (LIST_APPEND 3 ...)
    and two jumps; `next` pops the unmatched rest. After the last clause the groups are
    recombined (`LIST_APPEND`, PREP_RERAISE_STAR, ...): the normal exit is 6 past it."""
    instrs = graph.instrs
    clauses: List[ExceptClause] = []
    p = t + 1
    while _op(instrs, p) in ("COPY", "BUILD_LIST", "SWAP"):
        p += 1
    while len(clauses) < MAX_CLAUSES:
        q = p
        while q < len(instrs) and instrs[q].opname != "CHECK_EG_MATCH":
            if instrs[q].opname not in TYPE_OPS:
                return ClauseChain(t, tuple(clauses), None, (q, "except* clause without a type test"))
            q += 1
        jump = q + 2
        if _op(instrs, jump) != "POP_JUMP_IF_NONE":
            return ClauseChain(t, tuple(clauses), None, (min(q, len(instrs) - 1),
                                                         "except* clause type is not an expression"))
        nxt = instrs[jump].target
        assert nxt is not None
        bind = q + 3
        name = instrs[bind].argval if _op(instrs, bind) in _STORES else None
        # The body's own region leads to the clause cleanup, right after the body's exit jump
        # (3.13 copies the `LIST_APPEND 1` of the recombination in front of that jump).
        body_region = graph.region_at(q + 4) if q + 4 < len(instrs) else None
        cleanup_at = body_region.handler if body_region is not None else -1
        if not q + 4 < cleanup_at < nxt:
            # An empty body (`pass`) protects nothing: the cleanup, `[name = None; del name]
            # LIST_APPEND 3; POP_TOP ...`, still closes the clause.
            appends = [k for k in range(q + 4, nxt) if instrs[k].opname == "LIST_APPEND" and instrs[k].arg == 3]
            cleanup_at = appends[-1] - (3 if name is not None else 0) if appends else -1
        jump_at = cleanup_at - 1
        if not (q + 4 <= jump_at < nxt) or instrs[jump_at].opname != "JUMP":
            return ClauseChain(t, tuple(clauses), None, (q, "unrecognised except* clause"))
        end = jump_at
        if instrs[end - 1].opname == "LIST_APPEND" and instrs[end - 1].arg == 1:
            end -= 1
        unbinding = None
        if name is not None:
            end -= 3
            unbinding = (end, end + 3)
        clauses.append(ExceptClause(p, (p, q), jump, nxt, name, q + 4, unbinding, end))
        p = nxt + 1
        if _op(instrs, p) == "LIST_APPEND":
            return ClauseChain(t, tuple(clauses), None, exit_at=p + 6)
    return ClauseChain(t, tuple(clauses), None, (t, "too many except* clauses"))
