"""depyf never breaks the program: a decompiler or hook failure is noted once, torch's code runs."""
from __future__ import annotations

import os

import torch

import depyf
from depyf.dump.layout import DumpLayout
from depyf.report.format import MANIFEST_NAME
from depyf.dynamo import decompile as safe
from torch_cases import fresh
from torch_programs import PROGRAMS, run, same


def _reference():
    program = PROGRAMS["toy"]
    fn, compiled = fresh(program, "eager")
    return run(fn, program, compiled)


def test_decompiler_failure_is_noted_once(tmp_path, monkeypatch, capsys) -> None:
    expected = _reference()

    def broken(*args, **kwargs):
        raise RuntimeError("simulated decompiler failure")

    monkeypatch.setattr(depyf, "decompile", broken)
    monkeypatch.setattr(safe, "_memo", {})
    monkeypatch.setattr(safe, "_reported", set())
    program = PROGRAMS["toy"]
    fn, compiled = fresh(program, "eager")
    capsys.readouterr()
    with depyf.prepare_debug(str(tmp_path)) as folder:
        got = run(fn, program, compiled)
    assert same(expected, got)
    err = capsys.readouterr().err
    assert err.count("depyf:") == 1 and "simulated decompiler failure" in err
    for name in os.listdir(folder):
        if name == MANIFEST_NAME:
            continue
        with open(os.path.join(folder, name)) as f:
            compile(f.read(), name, "exec")
    with open(os.path.join(folder, "__transformed_code_0_for_toy_example.py")) as f:
        text = f.read()
    assert "could not decompile" in text and "RESUME" in text


def test_hook_failure_does_not_break_the_program(tmp_path, monkeypatch) -> None:
    expected = _reference()

    def boom(self, record):
        raise ValueError("simulated dump failure")

    monkeypatch.setattr(DumpLayout, "on_frame", boom)
    monkeypatch.setattr(DumpLayout, "on_graph", boom)
    program = PROGRAMS["toy"]
    fn, compiled = fresh(program, "eager")
    with depyf.prepare_debug(str(tmp_path)):
        got = run(fn, program, compiled)
    assert same(expected, got)
    assert torch.equal(compiled(*program.calls()[0][0]), PROGRAMS["toy"].make()(*program.calls()[0][0]))
