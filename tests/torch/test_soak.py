"""tools/soak.py, the soak command of docs/soak.md, bounded: one run of each fault on the seed
program, which must count no failure, and its detectors, which must see what they count (else a
soak that reports nothing proves nothing)."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict

import torch

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "soak.py"


def _soak_module():
    spec = importlib.util.spec_from_file_location("depyf_soak_tool", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _table(out: str) -> Dict[str, Dict[str, int]]:
    lines = [line.split() for line in out.splitlines()]
    header = next(line for line in lines if line and line[0] == "fault")
    return {line[0]: dict(zip(header[1:], map(int, line[1:]))) for line in lines
            if len(line) == len(header) and line[0] != "fault"}


def test_every_fault_once_finds_no_failure() -> None:
    soak = _soak_module()
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run([sys.executable, str(TOOL), "--runs", str(len(soak.FAULTS)), "--programs", "toy",
                           "--backends", "eager", "--seed", "0"], capture_output=True, text=True, env=env,
                          timeout=900)
    table = _table(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert all(table[fault]["runs"] == 1 for fault in soak.FAULTS), done.stdout
    assert all(table["total"][k] == 0 for k in soak.FAILURES), done.stdout
    # (a folder that cannot be made, a deleted one, hooks that raise: one warning each)
    assert table["total"]["faulted_runs_warned"] >= 3, done.stdout


def test_detectors_see_what_they_count(tmp_path) -> None:
    soak = _soak_module()
    (tmp_path / "good.py").write_text("x = 1\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "bad.py").write_text("def f(:\n")
    assert soak._invalid_files(str(tmp_path)) == 1
    a = torch.tensor([1.0, 2.0])
    assert soak._same(("ok", [a]), ("ok", [a.clone()]))
    assert not soak._same(("ok", [a]), ("ok", [a + 1e-6]))
    assert not soak._same(("ok", [a]), ("error", "RuntimeError"))
    assert not soak._same(("error", "RuntimeError"), ("error", "ValueError"))
    counted = soak.Soak(0, ["eager"])
    counted.counts["deleted"]["silent_faults"] += 1
    assert counted.failures() == 1
