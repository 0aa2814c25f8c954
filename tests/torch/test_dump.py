"""prepare_debug on every program and backend: same results, files that compile, stable names,
guards that agree with torch, and code that runs from the dumped files under debug()."""
from __future__ import annotations

import os
from typing import Dict, List, Tuple

import pytest

import depyf
from depyf.report.format import MANIFEST_NAME
from torch_cases import cases, outcome
from torch_programs import same

CASES = cases()
IDS = [f"{n}-{b}" for n, b in CASES]


@pytest.mark.parametrize("name,backend", CASES, ids=IDS)
def test_results_identical_with_and_without_depyf(name: str, backend: str) -> None:
    out = outcome(name, backend)
    assert same(out.reference, out.dumped)


@pytest.mark.parametrize("name,backend", CASES, ids=IDS)
def test_every_dumped_file_compiles_and_names_are_stable(name: str, backend: str) -> None:
    out = outcome(name, backend)
    assert out.files, "nothing was dumped"
    assert MANIFEST_NAME in out.files
    for f in out.files:
        if f == MANIFEST_NAME:
            continue  # the dump's table of contents, JSON (tests/torch/test_report.py checks it)
        assert f.endswith(".py")
        with open(os.path.join(out.folder, f), encoding="utf-8") as fh:
            text = fh.read()
        compile(text, f, "exec")
        assert not text.startswith("# depyf: this text does not compile"), f
    assert out.files == out.files2
    assert not any(len(part) >= 32 and all(c in "0123456789abcdef_" for c in part) for f in out.files for part in f.split("."))


# Dumped files that still show bytecode instead of source, per program: (file name prefix, why).
# A listed file that decompiles fails the test too, so that the list stays true.
UNDECOMPILED: Dict[str, List[Tuple[str, str]]] = {}


@pytest.mark.parametrize("name,backend", CASES, ids=IDS)
def test_dumped_code_is_decompiled(name: str, backend: str) -> None:
    out = outcome(name, backend)
    known = UNDECOMPILED.get(name, [])
    for f in out.files:
        if f == MANIFEST_NAME:
            continue
        with open(os.path.join(out.folder, f), encoding="utf-8") as fh:
            disassembled = "could not decompile" in fh.read()
        expected = any(f.startswith(prefix) for prefix, _ in known)
        assert disassembled == expected, (f, "shows bytecode" if disassembled else "now decompiles: update UNDECOMPILED")


@pytest.mark.parametrize("name,backend", CASES, ids=IDS)
def test_guards_agree_with_torch(name: str, backend: str) -> None:
    out = outcome(name, backend)
    if not out.entries:
        pytest.skip("Dynamo kept no cache entry for the top frame (it ran eagerly)")
    assert out.guard_checks
    verdicts = {theirs for _, _, theirs, _ in out.guard_checks}
    assert verdicts == {True, False} or name == "loop", "inputs should both hit and miss"
    for compile_id, ours, theirs, src in out.guard_checks:
        assert ours == theirs, (compile_id, src)


@pytest.mark.parametrize("name,backend", CASES, ids=IDS)
def test_debug_runs_from_dumped_files(name: str, backend: str) -> None:
    out = outcome(name, backend)
    assert out.debug_same
    if any(f.endswith(("_graph.py", "_code.py")) for f in out.files):
        assert out.debug_hits, "no code ran from the dump folder under debug()"
    if any(f.startswith("__transformed_code_0_for_") for f in out.files) and hasattr(out.fn, "__code__"):
        # Dynamo's transformed code of the first frame runs from its dumped file.
        assert any(f.startswith("__transformed_code_") for f in out.debug_hits), out.debug_hits


def test_pdb_stops_in_dumped_files() -> None:
    """Drive pdb: breakpoints in the transformed code and in the graph file stop, with locals."""
    import io
    import pdb

    import torch

    from torch_cases import fresh
    from torch_programs import PROGRAMS, toy_example

    program = PROGRAMS["toy"]
    fn, compiled = fresh(program, "eager")
    folder = os.path.join(outcome("toy", "eager").folder, "..", "pdb")
    with depyf.prepare_debug(folder) as folder:
        for args, kwargs in program.calls():
            compiled(*args, **kwargs)
    targets = []
    for name, needle in (("__transformed_code_0_for_toy_example.py", "__compiled_fn"), ("__compiled_fn_0.captured_graph.py", "torch.abs")):
        path = os.path.join(folder, name)
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        targets.append((path, next(i + 1 for i, l in enumerate(lines) if needle in l and not l.lstrip().startswith("#"))))
    out = io.StringIO()
    debugger = pdb.Pdb(stdin=io.StringIO("continue\np sorted(locals())\ncontinue\np sorted(locals())\ncontinue\n"), stdout=out)
    for path, line in targets:
        debugger.set_break(path, line)
    args = (torch.ones(10), torch.ones(10))
    with depyf.debug():
        got = debugger.runcall(compiled, *args)
    assert torch.equal(got, toy_example(*args))
    text = out.getvalue()
    for path, line in targets:
        assert f"{path}({line})" in text, text
    assert "['a', 'b']" in text and "l_a_" in text, text


def test_full_code_has_seed_structure() -> None:
    out = outcome("toy", "eager")
    with open(os.path.join(out.folder, "full_code_for_toy_example.py"), encoding="utf-8") as f:
        text = f.read()
    for needle in ("def guard_0(", "def __compiled_fn_0(", "def compiled_code_0(", "def toy_example(a, b):",
                   "def compiled_toy_example(a, b):", "#============ end of toy_example ============#",
                   "graph break: generic_jump"):
        assert needle in text, needle
    assert any(f.startswith("__resume_at_") for f in out.files)


def test_recompile_reasons_are_written() -> None:
    out = outcome("dynamic", "eager")
    with open(os.path.join(out.folder, "full_code_for_dynamic_shapes.py"), encoding="utf-8") as f:
        text = f.read()
    assert "recompiled because:" in text


def test_skipped_frame_gets_a_file() -> None:
    out = outcome("loop", "eager")
    assert any(f.startswith("skipped_") or f.startswith("full_code_for_break_in_loop") for f in out.files)


def test_aot_backward_graph_is_dumped() -> None:
    out = outcome("train", "aot_eager")
    assert any("aot_backward_graph" in f for f in out.files)
    out = outcome("train", "inductor")
    assert any("inductor_backward_code" in f for f in out.files)


def test_debug_outside_prepare_debug_only() -> None:
    with pytest.raises(RuntimeError):
        with depyf.prepare_debug(os.path.join(outcome("toy", "eager").folder, "nested")):
            with depyf.debug():
                pass
