"""What each exception handler is the handler of, for every version 3.8-3.15.

The graph gives both exception models as handler labels (`FlowGraph.regions`); which
construct a handler belongs to is read from its first instructions:

| kind | 3.8-3.10 (a SETUP_FINALLY's target) | 3.11+ (an exception-table handler) |
|---|---|---|
| `except` | `DUP_TOP` (a type test), or `POP_TOP` x3 (a bare clause) that is no finally body's quick exit | `PUSH_EXC_INFO; POP_TOP`, or `PUSH_EXC_INFO; <type>; CHECK_EXC_MATCH` |
| `star` | - | `PUSH_EXC_INFO`, then `CHECK_EG_MATCH` within a few instructions |
| `with` | `WITH_CLEANUP_START` (3.8), `WITH_EXCEPT_START` (3.9/3.10) | `PUSH_EXC_INFO; WITH_EXCEPT_START` |
| `finally` | any other SETUP_FINALLY target | any other `PUSH_EXC_INFO` |
| `asyncfor` | `END_ASYNC_FOR` | the same |
| `cleanup` | - | `COPY 3; POP_EXCEPT; RERAISE 1`: restores the exception a handler replaced |
| `ascleanup` | - | `LOAD_CONST None; STORE; DELETE; RERAISE`: a named clause's unbinding |
| `genwrap` | - | `CALL_INTRINSIC_1 STOPITERATION_ERROR`: a generator's StopIteration wrapper |
| `comp` | - | `SWAP 2; POP_TOP; SWAP n; STORE_FAST ...; RERAISE`: a 3.12+ inlined comprehension's |
| `send` | - | `CLEANUP_THROW`: an await's or `yield from`'s |
| `other` | anything else | anything else |

The first four are source statements (`CONSTRUCTS`); the others are compiler code no
statement starts. `handler_kind(graph, handler)` is made once per handler and kept with the
graph (`FlowGraph.kept`).
"""
from typing import FrozenSet, Literal, Optional, Sequence

from depyf.decompiler.graph.cfg import FlowGraph
from depyf.decompiler.instructions import TERMINAL, Instr
from depyf.decompiler.structure.copies import same_code
from depyf.decompiler.structure.except_clauses import TYPE_OPS

# (the names of the table above, as plain strings: the readers' tests read
# `kind in ("except", "star")`)
HandlerKind = Literal["except", "star", "finally", "with", "asyncfor", "cleanup", "ascleanup", "genwrap",
                      "comp", "send", "other"]
CONSTRUCTS: FrozenSet[HandlerKind] = frozenset({"except", "finally", "star", "with"})
# (how far after PUSH_EXC_INFO an except* chain's first CHECK_EG_MATCH may lie: the copies of
# the group and its type)
_STAR_REACH = 12
# (how long a 3.12+ inlined comprehension's cleanup may be: one store per variable)
_COMPREHENSION_CLEANUP_REACH = 40


def handler_kind(graph: FlowGraph, handler: int) -> HandlerKind:
    """The kind of the handler at `handler` (made on first use, then kept with the graph)."""
    return graph.kept_at("handler_kinds", handler, _kind)


def _kind(graph: FlowGraph, handler: int) -> HandlerKind:
    read = _table_kind if graph.version.has_exception_table else _block_stack_kind
    return read(graph.instrs, handler)


def _op(instrs: Sequence[Instr], k: int) -> str:
    return instrs[k].opname if 0 <= k < len(instrs) else ""


def _block_stack_kind(instrs: Sequence[Instr], h: int) -> HandlerKind:
    op = _op(instrs, h)
    if op == "DUP_TOP":
        return "except"
    if op == "POP_TOP" and _op(instrs, h + 1) == "POP_TOP" and _op(instrs, h + 2) == "POP_TOP":
        return "finally" if finally_exits_at_once(instrs, h) else "except"
    if op in ("WITH_CLEANUP_START", "WITH_EXCEPT_START"):
        return "with"
    if op == "END_ASYNC_FOR":
        return "asyncfor"
    return "finally" if op else "other"


def finally_exits_at_once(instrs: Sequence[Instr], h: int) -> bool:
    """3.9+: a finally body that starts with return/break unwinds its handler at once
    (`POP_TOP` x3; `POP_EXCEPT`), which only a bare `except: pass` resembles, and that one jumps.
    A bare `except: return` looks the same; there the body ends by jumping past the handler,
    where a finally body's normal-path copy would begin with its return."""
    if _op(instrs, h + 3) != "POP_EXCEPT" or _op(instrs, h + 4) == "JUMP":
        return False
    # A bare `except: return ...` looks the same; only a finally body copies the handler's
    # code (up to its return) onto the body's normal path, right after the POP_BLOCK.
    ret = next((k for k in range(h + 4, len(instrs)) if instrs[k].opname in TERMINAL), None)
    if ret is None:
        return False
    first = h + 4
    while _op(instrs, first) == "POP_EXCEPT":
        first += 1
    if first > h + 4 and _op(instrs, ret) == "RETURN_VALUE" \
            and not (ret == first + 1 and _op(instrs, first) == "LOAD_CONST"):
        # Enclosing clauses left before the value is computed: a copy of the code after them
        # (3.10); a finally body's `return value` computes the value before unwinding.
        return False
    if ret == first + 1 and _op(instrs, ret) == "RETURN_VALUE" and _op(instrs, first) == "LOAD_CONST" \
            and instrs[first].argval is None:
        # `except: pass` that ends the function compiles (3.10: the implicit `return None`
        # copied into the clause) exactly as a finally body that only returns: read as the
        # clause, the spelling written far more often.
        return False
    size = ret + 1 - (h + 4)
    return _op(instrs, h - size - 1) == "POP_BLOCK" and same_code(instrs, (h - size, h), (h + 4, ret + 1))


def _table_kind(instrs: Sequence[Instr], t: int) -> HandlerKind:
    op = _op(instrs, t)
    if op == "PUSH_EXC_INFO":
        if _op(instrs, t + 1) == "WITH_EXCEPT_START":
            return "with"
        k = t + 1
        if _op(instrs, k) == "POP_TOP":
            return "except"
        while _op(instrs, k) in TYPE_OPS:
            k += 1
        if _op(instrs, k) == "CHECK_EXC_MATCH":
            return "except"
        if _op(instrs, k) in ("CHECK_EG_MATCH", "BUILD_LIST", "COPY") \
                and any(x.opname == "CHECK_EG_MATCH" for x in instrs[t + 1:t + _STAR_REACH]):
            return "star"
        return "finally"
    if op == "COPY" and instrs[t].arg == 3:
        return "cleanup"
    if op == "LOAD_CONST" and _op(instrs, t + 3) == "RERAISE" and _op(instrs, t + 2).startswith("DELETE_"):
        return "ascleanup"
    if op == "CALL_INTRINSIC_1" and instrs[t].argval == "INTRINSIC_STOPITERATION_ERROR":
        return "genwrap"
    if op == "SWAP" and comprehension_cleanup_end(instrs, t) is not None:
        return "comp"
    if op == "END_ASYNC_FOR":
        return "asyncfor"
    if op == "CLEANUP_THROW":
        return "send"
    return "other"


def comprehension_cleanup_end(instrs: Sequence[Instr], t: int) -> Optional[int]:
    """3.12+: past the cleanup of an inlined comprehension at `t` (`SWAP 2; POP_TOP; SWAP n;
    STORE_FAST ...; RERAISE`: its variables restored), None where that is not there."""
    k = t
    while k < len(instrs) and k < t + _COMPREHENSION_CLEANUP_REACH \
            and instrs[k].opname in ("SWAP", "POP_TOP", "STORE_FAST"):
        k += 1
    if k < len(instrs) and k > t + 2 and instrs[k].opname == "RERAISE" and instrs[k - 1].opname == "STORE_FAST":
        return k + 1
    return None
