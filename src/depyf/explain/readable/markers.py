"""Dynamo's pregraph markers, said in words.

Since torch 2.9 Dynamo's transformed code opens a profiler range before it reads the graph's
inputs from the frame and closes it before calling the graph:

    tmp_2 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter()
    ...                               # the graph's inputs, if any need computing
    __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit(tmp_2)

`record_pregraph_bytecode_enter` enters torch's `_RecordFunctionFast("Pregraph bytecode")` when the
profiler is on (a `nullcontext` otherwise) and `..._exit` leaves it: they label a span of a
profiler trace and change nothing the program computes. The readable view writes them as
comments; the exact view (and the code that runs) keeps them.
"""
from __future__ import annotations

from typing import Optional

from depyf.decompiler import nodes as n
from depyf.explain.readable.tree import blocks_of, read_names

ENTER = "record_pregraph_bytecode_enter"
EXIT = "record_pregraph_bytecode_exit"

MARKERS_ADJACENT = "(Dynamo's profiler markers, record_pregraph_bytecode_enter/exit, stood here: nothing to prepare)"
MARKER_ENTER = "Dynamo prepares the graph's inputs (a profiler range: record_pregraph_bytecode_enter ..."
MARKER_EXIT = "... record_pregraph_bytecode_exit)"


def _called(e: n.Expr, attr: str) -> Optional[n.Call]:
    if not isinstance(e, n.Call):
        return None
    func = e.func
    if (isinstance(func, n.Attribute) and func.attr == attr) or (isinstance(func, n.Name) and func.id == attr):
        return e
    return None


def describe_pregraph_markers(func: n.FunctionDef) -> bool:
    """Replace each enter/exit pair (the enter's result read only by its exit) by comments."""
    reads = read_names(func.body)
    changed = False
    for block in blocks_of(func.body):
        k = 0
        while k < len(block):
            stmt = block[k]
            token = _enter_token(stmt)
            if token is None or reads.get(token) != 1:
                k += 1
                continue
            end = next((j for j in range(k + 1, len(block)) if _is_exit(block[j], token)), None)
            if end is None:
                k += 1
                continue
            if end == k + 1:
                block[k:end + 1] = [n.Comment([MARKERS_ADJACENT])]
            else:
                block[end] = n.Comment([MARKER_EXIT])
                block[k] = n.Comment([MARKER_ENTER])
            changed = True
            k += 1
    return changed


def _enter_token(stmt: n.Stmt) -> Optional[str]:
    if isinstance(stmt, n.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], n.Name):
        call = _called(stmt.value, ENTER)
        if call is not None and not call.args:
            return stmt.targets[0].id
    return None


def _is_exit(stmt: n.Stmt, token: str) -> bool:
    if not isinstance(stmt, n.ExprStmt):
        return False
    call = _called(stmt.value, EXIT)
    return call is not None and len(call.args) == 1 and isinstance(call.args[0], n.Name) and call.args[0].id == token
