"""Conditional jumps to the end of a finally body's exceptional copy, sent to its closing re-raise
(capability `copies_closing_reraises`).

The copy of a finally body that the exception runs ends in a re-raise (RERAISE 0) that has no line
of its own. 3.10+ give each jump to such a small exit block its own copy of it, laid after it: a
finally body whose last statement is `if a and b: A` ends in three re-raises, the one `A` falls
into and one for each test's jump. The rules read a condition whose jumps when false go to one
place; this pass sends the conditional jumps that are all that reaches such a copy to the last
re-raise of the body, where the body closes (3.9 jumps there too). The copies stay where they were,
reached by nothing now (`FlowGraph.unreachable_instructions`): the rules that match the
exceptional copy against the copies on the ways out of the try body read them as merged there
(`table_copies._step_over_gap`).

Which handler is a finally body's, and where it ends, as the try/finally rules read it: 3.11+ a
PUSH_EXC_INFO handler whose code, up to its cleanup, runs no exception test and ends right before
the cleanup with a re-raise; 3.10 a SETUP_FINALLY's handler that runs no exception test. The
re-raises that end it are those its ordinary control flow reaches (3.10: not the unwinding of a
construct nested in it, nor code a nested construct protects, nor code past a POP_EXCEPT, which
leaves the handler); the last of them closes it. A copy is merged only into a re-raise under the
same exception region, and (3.10) not where the body ends in a loop's jump back or a branch that
raises past that re-raise: the rules read those re-raises as the `break`s or branch ends they
stand for. (A nested if ends each branch in a re-raise of its own, with the copies for its tests
after it: `if a: (if b: A) / elif c: B` ends in four, the second and fourth copies.)
"""
from typing import List, Set, Tuple

from depyf.decompiler.graph import FlowGraph
from depyf.decompiler.instructions import ENDS_FLOW, TERMINAL, Bytecode, Instr
from depyf.decompiler.passes.rewrite import Edits, copy_instr, rewrite

_COND_JUMPS = frozenset({"POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE"})
_EXCEPTION_TESTS = frozenset({"CHECK_EXC_MATCH", "CHECK_EG_MATCH", "JUMP_IF_NOT_EXC_MATCH"})
_SETUPS = frozenset({"SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH"})


def canonicalize(bytecode: Bytecode) -> Bytecode:
    if "RERAISE" not in bytecode.opnames():
        return bytecode
    instrs = bytecode.instrs
    # (the graph's table of jumps by target, which the reading of this code asks for anyway)
    graph = FlowGraph.of(bytecode)
    sources = graph.jump_table
    copies = {k for k, ins in enumerate(instrs) if _is_reraise(ins) and k > 0 and instrs[k - 1].opname in ENDS_FLOW
              and sources.get(k) and all(instrs[src].opname in _COND_JUMPS for src in sources[k])}
    if not copies:
        return bytecode
    edits: Edits = {}
    for handler in sorted(graph.handlers()):
        if handler >= len(instrs):
            continue
        ends = _table_ends(graph, instrs, handler) if bytecode.version.has_exception_table \
            else _block_ends(graph, instrs, handler)
        if not ends:
            continue
        last = ends[-1]
        for k in ends:
            if k in copies and k < last:
                for src in sources[k]:
                    edits[src] = [copy_instr(instrs[src], target=last, argval=last, target_offset=instrs[last].offset)]
    return rewrite(bytecode, edits)


def _is_reraise(ins: Instr) -> bool:
    return ins.opname == "RERAISE" and ins.arg == 0


def _table_ends(graph: FlowGraph, instrs: List[Instr], t: int) -> List[int]:
    """3.11+: the re-raises that end the finally body whose handler is at `t`, in order (none
    where `t` is no finally handler or its body does not close right before its cleanup)."""
    if instrs[t].opname != "PUSH_EXC_INFO" or t + 1 >= len(instrs) \
            or instrs[t + 1].opname in ("POP_TOP", "WITH_EXCEPT_START"):
        return []
    region = graph.region_at(t)
    cleanup = region.handler if region is not None else None
    if cleanup is None or cleanup <= t + 1 or instrs[cleanup - 1].opname != "RERAISE":
        return []
    flow = [k for k in _reach(instrs, t + 1) if t < k < cleanup]
    if any(instrs[k].opname in _EXCEPTION_TESTS for k in flow):
        return []  # (an except clause's handler)
    # (under the handler's own region: one re-raise there raises as another does)
    return sorted(k for k in flow if _is_reraise(instrs[k]) and graph.region_at(k) == region)


def _reach(instrs: List[Instr], start: int) -> Set[int]:
    """What ordinary control flow reaches from `start` (no exceptions)."""
    seen: Set[int] = set()
    todo = [start]
    while todo:
        k = todo.pop()
        if k in seen or k >= len(instrs):
            continue
        seen.add(k)
        ins = instrs[k]
        if ins.opname in TERMINAL:
            continue
        if ins.target is not None:
            todo.append(ins.target)
            if ins.opname == "JUMP":
                continue
        todo.append(k + 1)
    return seen


def _block_ends(graph: FlowGraph, instrs: List[Instr], h: int) -> List[int]:
    """3.10: the re-raises that end the finally body whose SETUP_FINALLY's handler is at `h`, in
    order, as `block_finally._finally_end_at_reraise` finds them; none where the body ends in a
    loop's jump back or a raising branch after them."""
    if instrs[h].opname == "POP_TOP" or not any(
            r.handler == h and r.setup is not None and instrs[r.setup].opname == "SETUP_FINALLY" for r in graph.regions):
        return []
    seen, reraises, nested = _walk(instrs, h)
    if any(instrs[k].opname in _EXCEPTION_TESTS for k in seen):
        return []  # (an except clause's handler)
    ends = sorted(k for k in reraises if instrs[k - 1].opname not in ("POP_BLOCK", "POP_EXCEPT")
                  and not any(s < k < t for s, t in nested))
    if not ends:
        return []
    last, furthest = ends[-1], max(seen)
    back = instrs[furthest]
    if furthest > last and back.opname == "JUMP" and h <= back.target < last:
        return []  # (a loop left only by `break`s, each a copy of the closing re-raise)
    if furthest > last and back.opname in ("RAISE_VARARGS", "RETURN_VALUE") \
            and all(k in seen for k in range(last + 1, furthest + 1)) and not any(last < s <= furthest for s, _ in nested):
        return []  # (a last branch that raises: each copy ends its branch)
    return ends


def _walk(instrs: List[Instr], h: int) -> Tuple[Set[int], List[int], List[Tuple[int, int]]]:
    """From `h` by ordinary control flow, not into nested handlers, back before `h` nor out of the
    handler: what is reached, the RERAISEs met, and (setup, handler) of the constructs nested in it."""
    seen: Set[int] = set()
    reraises: List[int] = []
    nested: List[Tuple[int, int]] = []
    todo = [h]
    while todo:
        k = todo.pop()
        while h <= k < len(instrs) and k not in seen:
            seen.add(k)
            ins = instrs[k]
            if ins.opname == "RERAISE":
                if ins.arg == 0:
                    reraises.append(k)
                break
            if ins.opname == "POP_EXCEPT":
                break  # (a `break`, `continue` or `return` leaving the handler: no code of it follows)
            if ins.opname in _SETUPS:
                nested.append((k, ins.target))
            elif ins.target is not None:
                if h < ins.target:
                    todo.append(ins.target)
                if ins.opname == "JUMP":
                    break
            if ins.opname in TERMINAL:
                break
            k += 1
    return seen, reraises, nested
