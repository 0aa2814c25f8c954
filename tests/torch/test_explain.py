"""dump_src (the seed's API): every backend, every kind of callable, output that compiles."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
import torch

from depyf.explain import NothingCompiledWarning, dump_src
from torch_cases import BACKENDS, cases, fresh, outcome
from torch_programs import PROGRAMS, Net, run, toy_example

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _compiled_toy(backend: str):
    program = PROGRAMS["toy"]
    fn, compiled = fresh(program, backend)
    run(fn, program, compiled)
    return compiled


@pytest.mark.parametrize("backend", BACKENDS)
def test_dump_src_seed_structure_for_every_backend(backend: str) -> None:
    out = outcome("toy", backend)  # dump_src ran on it while its cache entries were alive
    src = out.explained
    compile(src, "explained_code.py", "exec")
    assert src == out.explained_from_original, "the compiled function and the original explain the same"
    order = ["def guard_0(", "def __compiled_fn_0(", "def compiled_code_0(a, b):", "def toy_example(a, b):",
             "def compiled_toy_example(a, b):", "#============ end of toy_example ============#"]
    positions = [src.index(needle) for needle in order]
    assert positions == sorted(positions)
    # The captured graph's code is shown for every backend (dug out of torch's compiled callables).
    graph = src[src.index("def __compiled_fn_0("):src.index("def compiled_code_0(")]
    assert "torch.abs(" in graph and "NotImplementedError" not in graph
    # Two resume functions, each with its own guard, graph, transformed code and dispatcher.
    assert src.count("#============ end of __resume_at_") == 2
    assert src.count("def compiled___resume_at_") == 2
    if backend == "aot_eager":
        assert "made by AOTAutograd" in src


@pytest.mark.parametrize("name,backend", cases(), ids=[f"{n}-{b}" for n, b in cases()])
def test_dump_src_compiles_for_every_program(name: str, backend: str) -> None:
    out = outcome(name, backend)
    compile(out.explained, f"explained_{name}.py", "exec")
    assert "#============ end of " in out.explained


def test_dump_src_guards_run_and_hit() -> None:
    compiled = _compiled_toy("eager")
    ns: dict = {}
    exec(compile(dump_src(compiled), "explained_code.py", "exec"), ns)
    a, b = torch.randn(10), torch.randn(10)
    assert ns["guard_0"]({"a": a, "b": b}, toy_example.__globals__) is True
    assert ns["guard_0"]({"a": a.double(), "b": b}, toy_example.__globals__) is False


def test_dump_src_on_modules_and_methods() -> None:
    program = PROGRAMS["module"]
    net, compiled = fresh(program, "eager")
    run(net, program, compiled)
    texts = [dump_src(compiled), dump_src(net), dump_src(net.forward)]
    assert texts[0] == texts[1] == texts[2]
    compile(texts[0], "explained_module.py", "exec")
    assert "def forward(self, x, scale=1.0):" in texts[0]
    assert "def compiled_forward(self, x, scale):" in texts[0]
    assert "def guard_0(" in texts[0] and "# NOTE" not in texts[0]  # its forward was compiled itself
    assert isinstance(net, Net)


def _explains_the_module_wrapper(src: str, forward: str) -> None:
    """torch.compile(module) compiles torch's own wrapper that calls the module (torch 2.5+):
    the explanation says so and explains that wrapper, with the guards and graphs of the call."""
    assert f"# NOTE: torch.compile did not compile {forward} itself: it compiled torch's wrapper" in src
    assert "def guard_0(" in src and "def compiled_code_0(" in src and "def __compiled_fn_0(" in src
    assert "L['fn']" in src  # the module, as the wrapper's guards see it


def test_dump_src_on_a_library_module() -> None:
    torch._dynamo.reset()
    linear = torch.nn.Linear(3, 3)
    compiled = torch.compile(linear, backend="eager")
    expected = compiled(torch.ones(2, 3))
    src = dump_src(compiled)
    _explains_the_module_wrapper(src, "Linear.forward")
    graph = src[src.index("def __compiled_fn_0("):src.index("def compiled_code_0(")]
    assert "linear" in graph and "NotImplementedError" not in graph
    ns: dict = {}
    exec(compile(src, "explained_linear.py", "exec"), ns)
    assert torch.equal(expected, linear(torch.ones(2, 3)))


def test_dump_src_says_where_nothing_was_compiled() -> None:
    def never_compiled(x):
        return x + 1

    with pytest.warns(NothingCompiledWarning, match="nothing was compiled for .*never_compiled .*no cache entry"):
        src = dump_src(never_compiled)
    compile(src, "x.py", "exec")
    assert "def compiled_never_compiled(x):" in src and "guard_0" not in src
    header_end = src.index("def ")
    assert "# NOTE: depyf.dump_src: nothing was compiled for" in src[:header_end]
    assert "# Below: its source only, with no guard and no compiled code." in src[:header_end]


def test_dump_src_before_the_first_call() -> None:
    torch._dynamo.reset()

    def not_run_yet(x):
        return x + 1

    compiled = torch.compile(not_run_yet, backend="eager")
    with pytest.warns(NothingCompiledWarning, match="it has not run yet"):
        src = dump_src(compiled)
    assert "torch compiles on the first call: call it, then dump_src" in src
    compiled(torch.ones(2))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", NothingCompiledWarning)
        src = dump_src(compiled)
    assert "# NOTE" not in src and "def guard_0(" in src


def test_cache_entry_comments_agree_with_guard_numbers() -> None:
    """guard_<k> is numbered in compile-id order and the comment above it names both."""
    src = outcome("toy", "eager").explained
    import re

    pairs = re.findall(r"# cache entry (\d+)/(\d+) \(torch's compile id\): guard_(\d+) decides whether "
                       r"compiled_code_(\d+) runs\ndef guard_(\d+)\(", src)
    assert len(pairs) == 3
    for frame, again, k, k2, k3 in pairs:
        assert k == k2 == k3 == frame and again == "0"  # no recompile: entry k/0 is guard_k


def test_seed_example_runs_as_written(tmp_path) -> None:
    env = dict(os.environ)
    # As `make demo` runs it: without the variable that disables every cache (and PGO with them).
    env.pop("TORCHINDUCTOR_FORCE_DISABLE_CACHES", None)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "src"), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "seed_example.py")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "dynamo_pgo force disabled" not in proc.stderr, "depyf's own cache setting made torch warn"
    text = (tmp_path / "explained_code.py").read_text()
    compile(text, "explained_code.py", "exec")
    assert "def compiled_toy_example(a, b):" in text
    dumped = sorted(os.listdir(tmp_path / "depyf_dump"))
    assert "full_code_for_toy_example.py" in dumped
    assert "__transformed_code_0_for_toy_example.py" in dumped
    assert "report.html" in dumped  # the example writes the dump's report and says where
    assert str(tmp_path / "depyf_dump" / "report.html") in proc.stdout


def _ends_in_pass(x):
    if x:
        y = 1
    else:
        pass


def _dead_tail(x):
    return x
    x = x + 1  # removed by the compiler: no bytecode position records this line


def _multi_line_tail(x):
    return (
        x
        + 1
    )


@pytest.mark.parametrize("fn", [_ends_in_pass, _dead_tail, _multi_line_tail, toy_example])
def test_original_source_is_the_whole_definition(fn) -> None:
    import inspect
    from depyf.explain.render import NOTE_ORIGINAL, original_source

    shown = original_source(fn, fn.__code__, fn.__name__)
    assert shown.replace("    " + NOTE_ORIGINAL + "\n", "", 1).rstrip() == inspect.getsource(fn).rstrip()


def test_guard_locations_name_the_whole_path() -> None:
    from torch.utils._traceback import shorten_filename

    from depyf.dynamo.adapter import whole_locations

    here = os.path.abspath(__file__)
    short = shorten_filename(here)
    described = f"L['x'].size()[0] == 3  # y = x + 1  # {short}:12 in f"
    assert whole_locations(described) == f"L['x'].size()[0] == 3  # y = x + 1  # {here}:12 in f"
    internal = "utils_device.CURRENT_DEVICE == None  # _dynamo/output_graph.py:1122 in init_ambient_guards"
    assert whole_locations(internal) == internal
