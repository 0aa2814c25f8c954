"""Jumps that only a loop's `break` makes, read from the graph before a construct is read.

`while test: body` whose body never jumps back (it always returns, raises or breaks) compiles
like `if test: body`: the test's false branch goes past the body, and nothing but the `break`s,
jumps to that same place, shows the loop. Inside an if body a jump to where the if ends is the
way out of the body's last statement (over its else parts, its other except clauses); a jump
there from a statement that goes on elsewhere in the body is no if's: it is such a `break`.
`stray_break` finds one in the code as decoded, so that the builder reads the body once, as
the loop, instead of failing as the if and reading it again.
"""
from typing import Mapping, Optional, Sequence, Set

from depyf.decompiler.graph.cfg import FlowGraph
from depyf.decompiler.instructions import Instr

# Code that may lie between an except clause's POP_EXCEPT and the jump that leaves it: none but
# straight-line code (a named handler's `e = None; del e`, 3.9+ a finally body's copy), which
# no jump enters and which opens no handler of its own.
_OPENS_HANDLER = frozenset({"PUSH_EXC_INFO", "SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH", "BEFORE_WITH",
                            "RERAISE"})
_UNWINDING_SPAN = 64


def stray_break(graph: FlowGraph, fall: int, false_target: int,
                sources: Optional[Mapping[int, Sequence[int]]] = None) -> Optional[int]:
    """The index of an unconditional jump to `false_target` from the body [fall, false_target)
    of `if test:` (or from handler code it leads to, laid after it) that is a `break` of a
    loop never jumping back, else None. Such a jump is one of:

    - a jump right after a CALL_FINALLY (3.8 leaves a try through its finally body by a jump
      only for a `break` or `continue`);
    - a jump followed by one that nothing reaches, to code further on inside the body (3.8/3.9
      keep the jump over an else part after an if body that ends in a `break`): the if around
      it goes on there, not at `false_target`;
    - a jump that leaves an except clause (after its unwinding) while another way out of the
      same try's clauses goes elsewhere: the try goes on there, inside the body.

    `sources`: target -> the jumps to it, where the caller has that table already (a reading's
    own, the graph's until a jump is re-pointed); else the graph's."""
    instrs = graph.instrs
    if sources is None:
        sources = graph.jump_table
    for j in sources.get(false_target, ()):
        ins = instrs[j]
        if j < fall or ins.opname != "JUMP" or ins.target != false_target:
            continue
        nxt = instrs[j + 1] if j + 1 < graph.size else None
        if instrs[j - 1].opname == "CALL_FINALLY" \
                or nxt is not None and nxt.opname == "JUMP" and j + 1 < nxt.target < false_target \
                and not sources.get(j + 1) \
                or _leaves_clause(graph, j, sources) and _clause_goes_elsewhere(graph, j, false_target, sources):
            if breaks_out_of_body(graph, fall, false_target, j):
                return j
    return None


def breaks_out_of_body(graph: FlowGraph, fall: int, false_target: int, j: int) -> bool:
    """Is `j` in the body (`_body_blocks`), under no loop of the body (whose `break` it would
    be, that loop ending where the if does)?"""
    body = _body_blocks(graph, fall, false_target)
    b = graph.table.number_of(j)
    if b not in body:
        return False
    number_of_label, tree = graph.table.number_of_label, graph.dominator_tree
    return not any(tree.dominates(h, b) for h in (number_of_label(loop.header) for loop in graph.loops) if h in body)


def _body_blocks(graph: FlowGraph, fall: int, false_target: int) -> Set[int]:
    """The blocks (by number) that a path from `fall` reaches, exceptions included, without
    passing `false_target`: the if body and the handler code it leads to (a jump back to
    `false_target` from a loop after it is none of the body's)."""
    number_of = graph.table.number_of
    stop = number_of(false_target) if false_target < graph.size else -1
    jump_to, falls_to = graph.jump_to, graph.falls_to
    handler = graph.handler_blocks
    first = number_of(fall)
    seen = {first}
    work = [first]
    while work:
        b = work.pop()
        for s in (jump_to[b], falls_to[b], handler[b]):
            if s >= 0 and s != stop and s not in seen:
                seen.add(s)
                work.append(s)
    return seen


def _leaves_clause(graph: FlowGraph, j: int, sources: Mapping[int, Sequence[int]]) -> bool:
    """Does the jump at `j` leave an except clause: its POP_EXCEPT, then only straight-line code
    that no jump enters?"""
    instrs = graph.instrs
    p = j - 1
    while p > 0 and j - p <= _UNWINDING_SPAN and instrs[p].opname != "POP_EXCEPT":
        if instrs[p].target is not None or sources.get(p + 1) or instrs[p].opname in _OPENS_HANDLER:
            return False
        p -= 1
    return instrs[p].opname == "POP_EXCEPT" and not sources.get(p + 1)


def _clause_goes_elsewhere(graph: FlowGraph, j: int, false_target: int,
                           sources: Mapping[int, Sequence[int]]) -> bool:
    """Does another jump leaving an except clause of the same try (the handler nearest above
    it in the dominator tree is `j`'s) go somewhere other than `false_target`?"""
    instrs = graph.instrs
    end = _followed(instrs, false_target)
    # (the jumps leaving some clause for elsewhere first: most code has none, and then the
    # dominator tree is not needed)
    others = [k for k in graph.jumps.indices if k != j and instrs[k].opname == "JUMP"
              and _followed(instrs, instrs[k].target) != end and _leaves_clause(graph, k, sources)]
    if not others:
        return False
    table, tree = graph.table, graph.dominator_tree
    handlers = {table.number_of_label(h) for h in graph.handlers()}

    def nearest_handler(k: int) -> Optional[int]:
        h = tree.idom[table.number_of(k)]
        while h is not None and h not in handlers:
            h = tree.idom[h]
        return h

    # (the same handler nearest above both: a clause of a try nested in j's clause goes on
    # inside that clause, which is no other way out of j's try)
    h = nearest_handler(j)
    return h is not None and any(nearest_handler(k) == h for k in others)


def _followed(instrs: Sequence[Instr], k: int) -> int:
    """Where a jump to `k` ends up, past the unconditional jumps that start there."""
    seen = set()
    while k < len(instrs) and k not in seen and instrs[k].opname == "JUMP" and instrs[k].target is not None:
        seen.add(k)
        k = instrs[k].target
    return k
