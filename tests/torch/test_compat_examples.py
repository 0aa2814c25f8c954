"""depyf 0.20's documented examples, run unchanged against this depyf (compat_examples.py)."""
from __future__ import annotations

import os
import re
import runpy
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict, List

import pytest
import torch

import compat_examples as ex


@pytest.fixture
def run_example(tmp_path, monkeypatch, capsys):
    """Run an example as the script ``example.py`` in a fresh folder; its globals, and what it printed."""

    def run(source: str) -> Dict[str, Any]:
        torch._dynamo.reset()
        path = tmp_path / "example.py"
        path.write_text(textwrap.dedent(source))
        monkeypatch.chdir(tmp_path)
        namespace = runpy.run_path(str(path), run_name="__main__")
        namespace["__printed__"] = capsys.readouterr().out
        return namespace

    yield run
    torch._dynamo.reset()


def python_files(folder: Path) -> List[Path]:
    files = sorted(folder.glob("*.py"))
    for f in files:
        compile(f.read_text(), str(f), "exec")
    return files


def test_index_example(run_example, tmp_path):
    g = run_example(ex.INDEX)
    files = python_files(tmp_path / "debug_dir")
    assert [f.name for f in files if f.name.startswith("full_code_for_function")]
    assert [f.name for f in files if f.name.startswith("__transformed_code_")]
    inputs = g["shape_10_inputs"]
    x = inputs["x"].detach().cos().cos()
    if x.mean() > 0.5:
        x = x / 1.1
    assert torch.allclose(g["output"].detach(), x * inputs["y"].detach())


def test_readme_debug_example(run_example, tmp_path):
    g = run_example(ex.README_DEBUG)
    names = [f.name for f in python_files(tmp_path / "dump_src_dir")]
    assert any(n.startswith("full_code_for_toy_example") for n in names)
    assert any(n.startswith("__transformed_code_") and "resume" in n for n in names)
    ones = torch.ones(10)
    assert torch.equal(g["result"], ones / (ones.abs() + 1) * ones)


_LOG_PREFIX = re.compile(r"^.*?\[__bytecode\] ?")


def logged_sources(log: str) -> List[str]:
    """The sources logged after ``possible source code:``, without torch's line prefixes."""
    lines = [_LOG_PREFIX.sub("", line) for line in log.splitlines() if "[__bytecode]" in line]
    out, current = [], None
    for line in lines:
        if line.startswith("possible source code:"):
            current = []
        elif current is not None and (line.startswith("If the decompiled") or "BYTECODE" in line):
            out.append("\n".join(current))
            current = None
        elif current is not None:
            current.append(line)
    return out


def run_logged(source: str, tmp_path: Path) -> subprocess.CompletedProcess:
    script = tmp_path / "example.py"
    script.write_text(textwrap.dedent(source))
    # `print_tabular` needs the `tabulate` package, which has nothing to do with depyf: a stand-in
    stub = tmp_path / "stub"
    stub.mkdir()
    (stub / "tabulate.py").write_text("def tabulate(rows, headers=()):\n    return '\\n'.join(map(str, [headers, *rows]))\n")
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = dict(os.environ, TORCH_LOGS="+bytecode", PYTHONPATH=os.pathsep.join([src, str(stub)]),
               TORCHINDUCTOR_FORCE_DISABLE_CACHES="1")
    return subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)


def test_install_example_logs_decompiled_source(tmp_path):
    out = run_logged(ex.INSTALL, tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    sources = logged_sources(out.stderr)
    # the function and its resume functions, each once per compilation
    assert len(sources) >= 2, out.stderr[-3000:]
    assert sources[0].startswith("def toy_example(a, b):")
    assert any(s.startswith("def torch_dynamo_resume_in_toy_example") for s in sources)
    for s in sources:
        compile(s, "logged", "exec")
    assert out.stderr.count("possible source code:") == len(sources)


def test_install_docstring_example(tmp_path):
    out = run_logged(ex.INSTALL_DOCSTRING, tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    sources = logged_sources(out.stderr)
    assert len(sources) == 1 and sources[0].startswith("def f(a, b):")
    compile(sources[0], "logged", "exec")


def test_opt_tutorial_dump_example(run_example, tmp_path):
    g = run_example(ex.OPT_TUTORIAL_DUMP)
    files = python_files(tmp_path / "dump_src_dir")
    full = [f for f in files if f.name.startswith("full_code_for_") and "forward" in f.name]
    assert full, [f.name for f in files]
    assert "guard" in full[0].read_text()
    assert torch.equal(g["y"], torch.tensor([2 + sum(range(100))]))
    assert float(g["__printed__"].strip()) > 0


def test_opt_tutorial_wrapper_skips_guards(run_example):
    g = run_example(ex.OPT_TUTORIAL_WRAPPER)
    mod = g["mod"]
    assert len(mod.compiled_codes) == 1
    assert mod.original_code_object is type(mod).forward.__code__  # put back after each call
    expected = torch.tensor([2 + sum(range(100))])
    assert torch.equal(g["y"], expected)
    # No guard is checked on the dispatched path: a change the guards would catch goes unseen
    # there (the compiled graph keeps 0 for fs[0].i), while torch.compile's path recompiles.
    mod.fs[0].i = 1000
    assert torch.equal(mod(g["x"]), expected)
    assert torch.equal(mod.compiled_callable(g["x"]), expected + 1000)


def test_vllm_pattern(run_example, tmp_path):
    g = run_example(ex.VLLM)
    assert torch.allclose(g["first"], g["expected"]) and torch.allclose(g["second"], g["expected"])
    assert len(g["compiled"].compiled_codes) == 1
    assert g["context_manager"] is None  # exited, from the compiled graph's first run
    decompiled = tmp_path / "vllm_dump" / "transformed_code.py"
    text = decompiled.read_text()
    compile(text, str(decompiled), "exec")
    assert text.startswith("def forward(self, x):")
    names = [f.name for f in python_files(tmp_path / "vllm_dump" / "rank_0")]
    assert any(n.startswith("full_code_for_") and "forward" in n for n in names), names
    assert any(n.startswith("__transformed_code_") for n in names), names
    # prepare_debug is over: compiling again writes nothing more there
    before = sorted(os.listdir(tmp_path / "vllm_dump" / "rank_0"))
    torch.compile(lambda t: t * 3, backend="eager")(torch.ones(2))
    assert sorted(os.listdir(tmp_path / "vllm_dump" / "rank_0")) == before
