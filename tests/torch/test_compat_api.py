"""depyf 0.20's torch API on this depyf: prepare_debug's keywords, install/uninstall, debug's
breakpoint, the guard-skipping dispatcher, and the decompiler calls 0.20's users make in hooks."""
from __future__ import annotations

import logging
import os
import sys
import types
from pathlib import Path
from typing import Any, Callable, List

import pytest
import torch

import depyf
from depyf.dump.code_objects import SUFFIXES, load_code
from depyf.dynamo import adapter
from depyf.verify import compare_code


def toy_example(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def make_closure(scale):
    offset = torch.ones(3)

    def closure(x):
        y = x * scale
        fns = [lambda: y + offset]  # `y` is a cell variable
        return fns[0]() - 1

    return closure


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def toy_inputs() -> List[tuple]:
    return [(torch.full((4,), 2.0), torch.full((4,), s)) for s in (1.0, -1.0)]


# -- prepare_debug(dump_src_dir, clean_wild_fx_code=True, log_bytecode=False) ---------------------


def test_prepare_debug_takes_0_20_keywords_and_saves_code_objects(tmp_path):
    f = torch.compile(toy_example, backend="eager")
    with depyf.prepare_debug(str(tmp_path), clean_wild_fx_code=False, log_bytecode=True):
        results = [f(a, b) for a, b in toy_inputs()]
    assert all(torch.equal(r, toy_example(a, b)) for r, (a, b) in zip(results, toy_inputs()))
    transformed = sorted(tmp_path.glob("__transformed_code_*.py"))
    assert len(transformed) >= 2  # the function and its resume functions
    for path in transformed:
        for suffix in SUFFIXES:
            assert Path(f"{path}.{suffix}").exists(), (path.name, suffix)
    main = tmp_path / "__transformed_code_0_for_toy_example.py"
    original = load_code(f"{main}.original_bytecode")
    assert original == toy_example.__code__
    dynamo_code = load_code(f"{main}.transformed_bytecode")
    recompiled = load_code(f"{main}.decompiled_and_compiled_back_bytecode")
    assert recompiled.co_filename == str(main) and recompiled.co_name == "toy_example"
    # what runs is Dynamo's bytecode (lines pointed at the file) or code compiled from the file
    # that is bytecode-equal to it: compare it with what torch's cache holds
    entries = adapter.cache_entries(toy_example.__code__)
    assert entries
    assert any(compare_code(adapter.entry_code(e), dynamo_code) is None for e in entries)
    runs_from_file = [adapter.entry_code(e) for e in entries if adapter.entry_code(e).co_filename == str(main)]
    assert runs_from_file, "the cache entry does not run from the dumped file"


@pytest.mark.parametrize("clean", [True, False])
def test_clean_wild_fx_code_is_accepted_and_there_is_no_raw_fx_code(tmp_path, clean):
    f = torch.compile(toy_example, backend="aot_eager")
    with depyf.prepare_debug(str(tmp_path), clean):
        for a, b in toy_inputs():
            f(a, b)
    assert not list(tmp_path.glob("fx_graph_code*"))
    assert list(tmp_path.glob("__compiled_fn_*.aot_*_graph.py"))
    assert not list(tmp_path.glob("*_bytecode"))  # log_bytecode is off by default


def test_old_style_prepare_debug_call_is_refused():
    with pytest.raises(TypeError):
        with depyf.prepare_debug(toy_example, "dir"):
            pass


# -- debug(): 0.20's breakpoint on entry, on request ----------------------------------------------


@pytest.fixture
def prepared(tmp_path):
    f = torch.compile(toy_example, backend="eager")
    with depyf.prepare_debug(str(tmp_path)):
        for a, b in toy_inputs():
            f(a, b)
    return f


@pytest.mark.parametrize("how", ["keyword", "environment", "default", "keyword_off"])
def test_debug_breakpoint_on_entry(prepared, monkeypatch, how):
    calls: List[Any] = []

    def hook(*args: Any, **kwargs: Any) -> None:
        calls.append(sys._getframe(1).f_code.co_name)

    monkeypatch.setattr(sys, "breakpointhook", hook)
    monkeypatch.delenv("PYTHONBREAKPOINT", raising=False)
    kwargs = {}
    if how == "keyword":
        kwargs = {"breakpoint_on_entry": True}
    elif how == "environment":
        monkeypatch.setenv("DEPYF_DEBUG_BREAKPOINT", "1")
    elif how == "keyword_off":
        monkeypatch.setenv("DEPYF_DEBUG_BREAKPOINT", "1")
        kwargs = {"breakpoint_on_entry": False}
    with depyf.debug(**kwargs):
        stopped_before_running = list(calls)
        a, b = toy_inputs()[0]
        assert torch.equal(prepared(a, b), toy_example(a, b))
    expected = ["debug"] if how in ("keyword", "environment") else []
    assert stopped_before_running == expected and calls == expected


# -- install() / uninstall() -------------------------------------------------------------------


class Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: List[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture
def bytecode_log():
    torch._logging.set_logs(bytecode=True)
    log = adapter.bytecode_artifact_logger()
    handler = Collect()
    log.addHandler(handler)
    try:
        yield handler.messages
    finally:
        log.removeHandler(handler)
        depyf.uninstall()
        torch._logging.set_logs()


def sources_in(messages: List[str]) -> List[str]:
    return [m.split("\n", 1)[1] for m in messages if m.startswith("possible source code:")]


def test_install_twice_logs_once_and_uninstall_stops(bytecode_log):
    depyf.install()
    depyf.install()
    torch.compile(lambda a, b: a + b, backend="eager")(torch.tensor(1), torch.tensor(2))
    logged = sources_in(bytecode_log)
    assert len(logged) == 1
    namespace: dict = {}
    exec(logged[0], namespace)
    assert "_lambda" in namespace  # a transformed lambda is written as a def
    depyf.uninstall()
    depyf.uninstall()
    bytecode_log.clear()
    torch.compile(lambda a, b: a * b, backend="eager")(torch.tensor(1), torch.tensor(2))
    assert sources_in(bytecode_log) == []


def test_install_logs_nothing_unless_the_bytecode_log_is_on():
    log = adapter.bytecode_artifact_logger()
    handler = Collect()
    log.addHandler(handler)
    depyf.install()
    try:
        torch.compile(lambda a: a - 1, backend="eager")(torch.tensor(1))
    finally:
        depyf.uninstall()
        log.removeHandler(handler)
    assert not log.isEnabledFor(logging.DEBUG) and sources_in(handler.messages) == []


# -- the decompiler, in bytecode hooks, as 0.20's users call it -------------------------------------


def with_hook(hook: Callable[[types.CodeType, types.CodeType], Any]):
    class Registered:
        def __enter__(self) -> None:
            self.handle = torch._dynamo.convert_frame.register_bytecode_hook(hook)

        def __exit__(self, *exc: Any) -> None:
            self.handle.remove()

    return Registered()


@pytest.mark.parametrize("program", ["toy", "closure"])
def test_decompile_and_compile_like_can_replace_dynamos_code(program, tmp_path):
    fn = toy_example if program == "toy" else make_closure(3.0)
    inputs = toy_inputs() if program == "toy" else [(torch.arange(3.0),), (torch.ones(3),)]
    replaced: List[types.CodeType] = []

    def hook(code: types.CodeType, new_code: types.CodeType) -> types.CodeType:
        out = depyf.decompile_and_compile_like(new_code, code, filepath_template=str(tmp_path / "code_%s.py"))
        assert (out.co_name, out.co_argcount, out.co_freevars, out.co_cellvars) == \
            (code.co_name, code.co_argcount, code.co_freevars, code.co_cellvars)
        replaced.append(out)
        return out

    compiled = torch.compile(fn, backend="eager")
    with with_hook(hook):
        results = [compiled(*args) for args in inputs]
    assert replaced
    assert all(torch.equal(r, fn(*args)) for r, args in zip(results, inputs))
    ran = {adapter.entry_code(e).co_filename for e in adapter.cache_entries(fn.__code__)}
    assert ran and ran <= {c.co_filename for c in replaced}
    for path in tmp_path.glob("code_*.py"):
        compile(path.read_text(), str(path), "exec")


def test_decompiler_class_and_helpers_on_dynamos_code():
    seen: List[types.CodeType] = []

    def hook(code: types.CodeType, new_code: types.CodeType) -> None:
        seen.append(new_code)

    with with_hook(hook):
        compiled = torch.compile(toy_example, backend="eager")
        for a, b in toy_inputs():
            compiled(a, b)
    assert seen
    for new_code in seen:
        text = depyf.Decompiler(new_code).decompile(temp_prefix="tmp_t_", overwite_fn_name="renamed")
        compile(text, "t", "exec")
        assert text.startswith("def renamed(") and "__temp_" not in text
        assert depyf.Decompiler(new_code).decompile(overwrite_fn_name="renamed", temp_prefix="tmp_t_") == text
        assert depyf.utils.decompile_ensure(new_code, "ensured").startswith("def ensured(")
        assert depyf.utils.collect_all_code_objects(new_code)[0] is new_code
    assert any("tmp_t_" in depyf.Decompiler(c).decompile(temp_prefix="tmp_t_") for c in seen)


# -- TorchCompileWrapperWithCustomDispatcher ---------------------------------------------------------


class Doubler(torch.nn.Module):
    def forward(self, x):
        return x * 2


def make_wrapper_class():
    from depyf.optimization import TorchCompileWrapperWithCustomDispatcher

    class Model(TorchCompileWrapperWithCustomDispatcher):
        def __init__(self, k: int) -> None:
            self.k = k
            self.inner = Doubler()
            super().__init__(torch.compile(self.forward, backend="eager"))

        def forward(self, x):
            return self.inner(x) + self.k

        def __call__(self, x):
            if self.compiled_codes:
                with self.dispatch_to_code(len(self.compiled_codes) - 1):
                    return self.forward(x)
            return self.compiled_callable(x)

    return Model


def test_dispatcher_records_only_its_own_instance():
    Model = make_wrapper_class()
    a, b = Model(1), Model(10)
    x = torch.ones(2)
    assert torch.equal(a(x), x * 2 + 1)
    assert len(a.compiled_codes) == 1 and b.compiled_codes == []
    assert torch.equal(b(x), x * 2 + 10)
    assert len(b.compiled_codes) == 1 and len(a.compiled_codes) == 1
    assert torch.equal(a(x), x * 2 + 1) and torch.equal(b(x), x * 2 + 10)  # dispatched
    assert type(a).forward.__code__ is a.original_code_object


def test_dispatcher_runs_dynamos_code_and_puts_forward_back_after_an_error():
    Model = make_wrapper_class()
    m = Model(5)
    m(torch.ones(2))
    with pytest.raises(RuntimeError):
        with m.dispatch_to_code(0):
            assert type(m).forward.__code__ is m.compiled_codes[0]
            # Dynamo's code, for an input the guards would refuse (another shape)
            assert torch.equal(m.forward(torch.ones(5)), torch.full((5,), 7.0))
            raise RuntimeError("leaving the block")
    assert type(m).forward.__code__ is m.original_code_object


def test_dispatcher_hook_goes_away_with_the_instance():
    import gc

    Model = make_wrapper_class()
    hooks = torch._dynamo.convert_frame._bytecode_hooks
    before = set(hooks)
    m = Model(1)
    added = set(hooks) - before
    assert len(added) == 1
    del m
    gc.collect()
    assert not added & set(hooks)
