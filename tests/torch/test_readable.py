"""The readable view of Dynamo's transformed code, run in place of Dynamo's own code.

For every test program: compile it with a bytecode hook that replaces each transformed code object
by the code compiled from its readable view (with the frame's globals, plus the view's aliases and
named constants), run every call, and compare the results with a run of Dynamo's own code. Each
view must also compile and hold no statement without effect, and the exact text must hold some
(else the test proves nothing about the passes).
"""
from __future__ import annotations

import dis
import re
import types
from typing import Any, Dict, List, Optional, Tuple

import pytest
import torch

import depyf
from depyf.dynamo import adapter
from depyf.dynamo.debuggable import find_code, wrap_for_layout
from depyf.explain.readable import readable_view
from depyf.explain.readable.check import statements_without_effect
from torch_programs import PROGRAMS, run, same

READABLE_FILE = "<readable view of {}>"
# Programs whose only transformed code passes cell objects to a resume function (a closure's
# resume function is made from its cells): no source can do that, so Dynamo's code runs there,
# and the view is checked without running it.
ONLY_CELLS = {"train"}


def _loads_cells(code: types.CodeType) -> bool:
    """Whether `code` hands cell objects around (a resume function's closure is made from them):
    source, exact or readable, can only name a cell's contents. A cell is loaded by LOAD_CLOSURE
    (3.13: LOAD_FAST of a free or cell variable) outside a function being made."""
    cells = set(code.co_freevars) | set(code.co_cellvars)
    ops = list(dis.get_instructions(code))
    if any(ins.opname == "MAKE_FUNCTION" for ins in ops):
        return False
    for ins in ops:
        names = ins.argval if isinstance(ins.argval, tuple) else (ins.argval,)
        if ins.opname == "LOAD_CLOSURE" or (ins.opname.startswith("LOAD_FAST") and cells & set(names)):
            return True
    return False


def _compile_view(text: str, new_code: types.CodeType) -> types.CodeType:
    """Code with the layout Dynamo requires (its free variables, in order) from the view's text."""
    if new_code.co_freevars:
        # A closure's transformed code keeps all of the function's free variables, used or not;
        # naming them in dead code gives the compiled view the same ones (the view is unchanged).
        head, _, body = text.partition("\n")
        text = head + "\n    if False: (" + ", ".join(new_code.co_freevars) + ",)\n" + body
    name = "readable_view"
    module = compile(wrap_for_layout(text.replace(f"def {new_code.co_name}(", f"def {name}(", 1), name, new_code),
                     READABLE_FILE.format(new_code.co_name), "exec")
    code = find_code(module, name)
    assert code is not None
    renamed: Dict[str, Any] = {"co_name": new_code.co_name}
    if hasattr(new_code, "co_qualname"):
        renamed["co_qualname"] = new_code.co_qualname
    return code.replace(**renamed)


class ReadableSwap:
    """A bytecode hook that makes Dynamo run the readable view of each transformed code object."""

    def __init__(self) -> None:
        self.views: List[Tuple[str, str, str]] = []  # (code name, exact text, readable text)
        self.kept: List[str] = []  # transformed code run as Dynamo made it, and why
        self.swapped = 0
        self.errors: List[str] = []

    def __call__(self, code: types.CodeType, new_code: types.CodeType) -> Optional[types.CodeType]:
        try:
            frame_globals = adapter.compiling_frame_globals()
            view = readable_view(new_code, new_code.co_name, frame_globals=frame_globals)
            if view is None:
                self.errors.append(f"{new_code.co_name}: no readable view")
                return None
            self.views.append((new_code.co_name, depyf.decompile(new_code, rewritten=True), view.text))
            if _loads_cells(new_code):
                self.kept.append(f"{new_code.co_name}: passes cell objects to a resume function")
                return None
            for name, value in view.namespace(frame_globals).items():
                frame_globals.setdefault(name, value)
            self.swapped += 1
            return _compile_view(view.text, new_code)
        except Exception as e:  # reported by the test, never lost inside Dynamo
            self.errors.append(f"{new_code.co_name}: {e!r}")
            return None


def _compiled_run(name: str, hook: Optional[ReadableSwap]) -> Tuple[List[Any], Any]:
    program = PROGRAMS[name]
    torch._dynamo.reset()
    fn = program.make()
    compiled = torch.compile(fn, backend="eager")
    handle = adapter.register_bytecode_hook(hook) if hook is not None else None
    try:
        return run(fn, program, compiled), fn
    finally:
        if handle is not None:
            handle.remove()


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_readable_view_runs_in_place_of_dynamo_code(name: str) -> None:
    reference, _ = _compiled_run(name, None)
    swap = ReadableSwap()
    results, fn = _compiled_run(name, swap)
    assert not swap.errors, swap.errors
    assert same(reference, results), "the readable view computed something else"
    for code_name, exact, readable in swap.views:
        compile(readable, code_name, "exec")
        assert statements_without_effect(readable) == [], (code_name, readable)
        assert statements_without_effect(exact), "the exact text has bookkeeping the view removes"
        assert _code_lines(readable) < _code_lines(exact), (exact, readable)
    if swap.views:
        assert swap.swapped + len(swap.kept) == len(swap.views)
        assert (swap.swapped == 0) == (name in ONLY_CELLS), swap.kept
        # What ran is the view: Dynamo's cache holds code compiled from it.
        func = type(fn).forward if isinstance(fn, torch.nn.Module) else fn
        files = {adapter.entry_code(e).co_filename for e in adapter.cache_entries(func.__code__)}
        if not any(_loads_cells(adapter.entry_code(e)) for e in adapter.cache_entries(func.__code__)):
            assert files == {READABLE_FILE.format(func.__code__.co_name)}, files


def test_seed_example_reads_like_the_blog() -> None:
    swap = ReadableSwap()
    _compiled_run("toy", swap)
    top = next(text for code_name, _, text in swap.views if code_name == "toy_example")
    body = [line.strip() for line in top.splitlines()[1:] if not line.strip().startswith("#")]
    # The graph, its outputs, the branch, and one call per resume function with the values it
    # continues with: `[]` and `[]` are the (empty) lists of nested frames' functions and values.
    assert len(body) == 6, top
    assert body[0].startswith("graph_out_0 = __compiled_fn_") and body[0].endswith("(a, b)")
    # The graph's second output goes on to the resume functions: named after their parameter.
    test = body[1].split(" = ")[0]
    assert re.fullmatch(r"__temp_\d+", test) and body[1:4] == [f"{test} = graph_out_0[0]", "x = graph_out_0[1]", f"if {test}:"], top
    assert body[4].startswith("return __resume_at_") and body[4].endswith("([], [], b, x)")
    assert body[5].startswith("return __resume_at_") and body[5].endswith("([], [], b, x)")
    assert "record_pregraph_bytecode_enter/exit" in top and "tmp_" not in top


def test_both_views_name_each_other(tmp_path) -> None:
    import json
    import os

    program = PROGRAMS["toy"]
    torch._dynamo.reset()
    fn = program.make()
    compiled = torch.compile(fn, backend="eager")
    with depyf.prepare_debug(str(tmp_path / "dump")) as folder:
        run(fn, program, compiled)
    exact_file = "__transformed_code_0_for_toy_example.py"
    exact = (tmp_path / "dump" / exact_file).read_text()
    assert "A readable view of it: compiled_code_* for cache entry 0/0 in full_code_for_toy_example.py" in exact
    explained = (tmp_path / "dump" / "full_code_for_toy_example.py").read_text()
    readable = explained[explained.index("def compiled_code_0("):]
    readable = readable[: readable.index("\n\n")]
    assert f"# Exact decompiled text: {exact_file}" in readable
    assert statements_without_effect(exact) and not statements_without_effect(readable)  # (the exact text is untouched)
    manifest = json.loads((tmp_path / "dump" / "depyf_manifest.json").read_text())
    entry = manifest["functions"][0]["entries"][0]
    assert entry["transformed_code_file"] == exact_file and os.path.exists(os.path.join(folder, exact_file))
    assert entry["readable_code"].rstrip("\n") == readable


def _code_lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip() and not line.strip().startswith("#"))
