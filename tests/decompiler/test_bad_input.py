"""Bad input: corrupt or truncated bytecode, huge and deeply nested functions, objects that have
no code. Each gives a `DecompilationError` naming function, instruction and version, or valid
source; never a hang, an interpreter crash, or an exception from deep inside. on_error="comment"
always gives source that compiles. Decompiling never runs the input's code."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict

import pytest

import depyf

from . import support
from .bad_input_cases import BUILT, BYTECODE_CASES, CASES
from .known_gaps import param

CHILD = Path(__file__).resolve().parent / "bad_input_cases.py"
CHILD_SECONDS = 120  # counted from when all children start together


_RUNNING: Dict[str, "subprocess.Popen[str]"] = {}


def _start_all() -> None:
    """Start every case's child at once: they are independent, and mostly wait on startup."""
    if not _RUNNING:
        for case in CASES:
            _RUNNING[case] = subprocess.Popen([sys.executable, str(CHILD), case], stdout=subprocess.PIPE,
                                              stderr=subprocess.PIPE, text=True)


def run_case(case: str) -> Dict[str, Any]:
    _start_all()
    proc = _RUNNING[case]
    try:
        stdout, stderr = proc.communicate(timeout=CHILD_SECONDS)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"{case}: no answer within {CHILD_SECONDS} s (a hang)", pytrace=False)
    if proc.returncode != 0 and BUILT not in stdout:
        pytest.skip(f"this interpreter crashes building the input itself (status {proc.returncode})")
    if proc.returncode != 0:
        pytest.fail(f"{case}: the child died with status {proc.returncode}\n{stderr[-3000:]}", pytrace=False)
    return json.loads(stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("case", [param(c, c) for c in CASES])
def test_bad_input(case: str) -> None:
    report = run_case(case)
    raised, commented = report["raise"], report["comment"]
    assert raised["kind"] != "escaped", f"an exception escaped: {raised['message']}\n{raised['traceback']}"
    if raised["kind"] == "error":
        assert raised["function"], f"the error does not name the function: {raised['message']}"
        assert raised["python_version"] == list(sys.version_info[:2]), raised["message"]
        if case in BYTECODE_CASES:
            assert raised["opname"] is not None or raised["offset"] is not None, (
                f"the error does not name the instruction: {raised['message']}")
    else:
        assert not raised["compile_error"], f"output does not compile: {raised['compile_error']}\n{raised['head']}"
    assert commented["kind"] == "text", f'on_error="comment" did not return text: {commented}'
    assert not commented["compile_error"], (
        f'on_error="comment" output does not compile: {commented["compile_error"]}\n{commented["head"]}')


def test_decompiling_never_runs_the_code(tmp_path: Path) -> None:
    sentinel = tmp_path / "ran"
    source = (
        f"import pathlib\n"
        f"pathlib.Path({str(sentinel)!r}).write_text('module')\n"
        f"def f():\n"
        f"    pathlib.Path({str(sentinel)!r}).write_text('function')\n"
        f"class C:\n"
        f"    pathlib.Path({str(sentinel)!r}).write_text('class body')\n"
    )
    module = compile(source, "<side effects>", "exec")
    function = next(c for c in module.co_consts if getattr(c, "co_name", "") == "f")
    for target in (module, function):
        for mode in ("raise", "comment"):
            try:
                depyf.decompile(target, on_error=mode)
            except Exception:  # failures are other tests' business; here only side effects count
                pass
    assert not sentinel.exists(), f"decompiling ran the input: {sentinel.read_text()}"
