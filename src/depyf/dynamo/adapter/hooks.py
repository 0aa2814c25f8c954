"""Hooks into a compilation while it runs: Dynamo's bytecode hook and the frame being compiled,
the user's backend, AOTAutograd's and Inductor's graphs, recompilation reasons.
"""
from __future__ import annotations

import contextlib
import re
import sys
import types
from typing import Any, Callable, Dict, List, Optional, Tuple

from depyf.dynamo.adapter.torch_import import TorchFeatureMissing, _module


def register_bytecode_hook(hook: Callable[[types.CodeType, types.CodeType], Optional[types.CodeType]]) -> Any:
    convert_frame = _module("torch._dynamo.convert_frame")
    register = getattr(convert_frame, "register_bytecode_hook", None)
    if register is None:
        raise TorchFeatureMissing("torch._dynamo.convert_frame.register_bytecode_hook is missing (torch < 2.2)")
    return register(hook)


def compiling_frame_globals() -> Optional[Dict[str, Any]]:
    """The globals of the frame Dynamo is compiling, read from its ``_compile`` call."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "_compile" and frame.f_code.co_filename.endswith("convert_frame.py"):
            g = frame.f_locals.get("globals")
            if isinstance(g, dict):
                return g
            target = frame.f_locals.get("frame")
            if target is not None and hasattr(target, "f_globals"):
                return target.f_globals
        frame = frame.f_back
    return None


def compiling_frame_locals(code: types.CodeType) -> Optional[Dict[str, Any]]:
    """The local variables of the frame Dynamo is compiling ``code`` for (its arguments, at the
    start of a function), read from torch's ``_compile`` call; None when not found."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "_compile" and frame.f_code.co_filename.endswith("convert_frame.py"):
            f_locals = frame.f_locals
            if f_locals.get("code") is not code:
                return None
            found = f_locals.get("locals")
            if isinstance(found, dict):
                return found  # (torch 2.6+ passes the frame's locals as a dict)
            target = f_locals.get("frame")
            if target is not None and getattr(target, "f_code", None) is code:
                return dict(target.f_locals)
            return None
        frame = frame.f_back
    return None


def bytecode_artifact_logger() -> Any:
    """torch's ``bytecode`` artifact logger (what ``TORCH_LOGS="+bytecode"`` turns on)."""
    torch_logging = _module("torch._logging")
    get = getattr(torch_logging, "getArtifactLogger", None)
    if get is None:
        raise TorchFeatureMissing("torch._logging.getArtifactLogger is missing (torch < 2.1)")
    return get("torch._dynamo.convert_frame", "bytecode")


def current_compile_id() -> Optional[str]:
    guards = _module("torch._guards")
    ctx = getattr(guards, "CompileContext", None)
    if ctx is None:
        return None
    with contextlib.suppress(Exception):
        cid = ctx.current_compile_id()
        return str(cid) if cid is not None else None
    return None


class Patch:
    """Replace ``owner.name`` with a wrapper and put the original back on ``undo``."""

    def __init__(self, owner: Any, name: str, make_wrapper: Callable[[Any], Any]) -> None:
        self.owner = owner
        self.name = name
        self.original = getattr(owner, name)
        self.is_static = isinstance(owner, type) and isinstance(owner.__dict__.get(name), staticmethod)
        wrapper = make_wrapper(self.original)
        setattr(owner, name, staticmethod(wrapper) if self.is_static else wrapper)

    def undo(self) -> None:
        setattr(self.owner, self.name, staticmethod(self.original) if self.is_static else self.original)


def patch_user_compiler(on_graph: Callable[[Any, Any], None]) -> Optional[Patch]:
    """Call ``on_graph(gm, compiler_fn)`` with every graph Dynamo hands to a backend."""
    output_graph = _module("torch._dynamo.output_graph")
    cls = getattr(output_graph, "OutputGraph", None)
    if cls is None or not hasattr(cls, "call_user_compiler"):
        return None

    def make(original: Any) -> Any:
        def call_user_compiler(self: Any, gm: Any, example_inputs: Any) -> Any:
            with contextlib.suppress(Exception):
                on_graph(gm, getattr(self, "compiler_fn", None))
            return original(self, gm, example_inputs)

        return call_user_compiler

    return Patch(cls, "call_user_compiler", make)


def _aot_id(args: Any, kwargs: Any) -> Optional[str]:
    for value in list(args) + list(kwargs.values()):
        aot_id = getattr(value, "aot_id", None)
        if aot_id is not None:
            return str(aot_id)
    return None


def patch_aot_graph_logging(on_graph: Callable[[str, Any, Optional[str]], None]) -> List[Patch]:
    """Call ``on_graph(kind, gm, aot_id)`` for AOTAutograd's forward, backward and inference graphs.

    The graphs are caught where AOTAutograd logs them, which happens whether or not logging is
    enabled; the backward graph exists there already, before it is compiled lazily.
    """
    graph_compile = _module("torch._functorch._aot_autograd.graph_compile")
    patches: List[Patch] = []
    if graph_compile is None:
        return patches
    if hasattr(graph_compile, "_log_fw_bw_graphs"):

        def make_fw_bw(original: Any) -> Any:
            def _log_fw_bw_graphs(fw_module: Any, bw_module: Any, *args: Any, **kwargs: Any) -> Any:
                with contextlib.suppress(Exception):
                    aot_id = _aot_id(args, kwargs)
                    on_graph("forward", fw_module, aot_id)
                    on_graph("backward", bw_module, aot_id)
                return original(fw_module, bw_module, *args, **kwargs)

            return _log_fw_bw_graphs

        patches.append(Patch(graph_compile, "_log_fw_bw_graphs", make_fw_bw))
    if hasattr(graph_compile, "_log_inference_graph"):

        def make_inference(original: Any) -> Any:
            def _log_inference_graph(fw_module: Any, *args: Any, **kwargs: Any) -> Any:
                with contextlib.suppress(Exception):
                    on_graph("inference", fw_module, _aot_id(args, kwargs))
                return original(fw_module, *args, **kwargs)

            return _log_inference_graph

        patches.append(Patch(graph_compile, "_log_inference_graph", make_inference))
    return patches


_AOT_ID = re.compile(r"#\s*AOT ID:\s*\['(\d+)_(\w+)'\]")


def inductor_code_origin(source: str) -> Tuple[Optional[str], str]:
    """``(aot_id, kind)`` from the ``# AOT ID: ['0_forward']`` header of Inductor's output code."""
    m = _AOT_ID.search(source)
    return (m.group(1), m.group(2)) if m else (None, "output")


def inductor_in_use(compiler_fn: Any) -> bool:
    """Whether Inductor is loaded or about to compile (importing it costs seconds otherwise)."""
    if "torch._inductor.graph" in sys.modules:
        return True
    names = (getattr(compiler_fn, "__name__", ""), type(compiler_fn).__name__, str(getattr(compiler_fn, "compiler_name", "")))
    return any("inductor" in str(n).lower() for n in names)


class InductorCodeHook:
    """Chains onto ``GraphLowering.save_output_code`` (a class slot holding one callable)."""

    def __init__(self, on_code: Callable[[str], None]) -> None:
        graph = _module("torch._inductor.graph")
        self.cls = getattr(graph, "GraphLowering", None) if graph else None
        self.previous = None
        self.active = self.cls is not None and hasattr(self.cls, "save_output_code")
        if not self.active:
            return
        self.previous = self.cls.save_output_code
        previous = self.previous

        def save_output_code(code: str) -> None:
            with contextlib.suppress(Exception):
                on_code(code)
            if previous is not None:
                previous(code)

        self.cls.save_output_code = save_output_code

    def undo(self) -> None:
        if self.active:
            self.cls.save_output_code = self.previous


def patch_inductor_module_loading(on_module: Callable[[types.ModuleType], None]) -> Optional[Patch]:
    """Call ``on_module(mod)`` with every Python module Inductor loads for its output code."""
    codecache = _module("torch._inductor.codecache")
    cls = getattr(codecache, "PyCodeCache", None) if codecache else None
    if cls is None or not hasattr(cls, "load_by_key_path"):
        return None

    def make(original: Any) -> Any:
        def load_by_key_path(*args: Any, **kwargs: Any) -> Any:
            mod = original(*args, **kwargs)
            with contextlib.suppress(Exception):
                on_module(mod)
            return mod

        return load_by_key_path

    raw = cls.__dict__.get("load_by_key_path")
    if isinstance(raw, classmethod):
        bound_original = cls.load_by_key_path

        def make_cm(_: Any) -> Any:
            def load_by_key_path(klass: Any, *args: Any, **kwargs: Any) -> Any:
                mod = bound_original(*args, **kwargs)
                with contextlib.suppress(Exception):
                    on_module(mod)
                return mod

            return classmethod(load_by_key_path)

        patch = Patch.__new__(Patch)
        patch.owner, patch.name, patch.original, patch.is_static = cls, "load_by_key_path", raw, False
        setattr(cls, "load_by_key_path", make_cm(raw))
        return patch
    return Patch(cls, "load_by_key_path", make)


def patch_recompile_reasons(on_reasons: Callable[[types.CodeType, List[str]], None]) -> Optional[Patch]:
    """Call ``on_reasons(code, reasons)`` whenever Dynamo explains a recompilation."""
    convert_frame = _module("torch._dynamo.convert_frame")
    if convert_frame is None or not hasattr(convert_frame, "get_and_maybe_log_recompilation_reasons"):
        return None

    def make(original: Any) -> Any:
        def get_and_maybe_log_recompilation_reasons(cache_entry: Any, frame: Any, *args: Any, **kwargs: Any) -> Any:
            reasons = original(cache_entry, frame, *args, **kwargs)
            with contextlib.suppress(Exception):
                on_reasons(frame.f_code, [str(r) for r in reasons or []])
            return reasons

        return get_and_maybe_log_recompilation_reasons

    return Patch(convert_frame, "get_and_maybe_log_recompilation_reasons", make)


def patch_frame_compile(
    on_result: Callable[[types.CodeType, Optional[BaseException]], None],
    on_start: Optional[Callable[[types.CodeType], None]] = None,
) -> Optional[Patch]:
    """Call ``on_start(code)`` before and ``on_result(code, error)`` after Dynamo tries to compile
    a frame.

    Used to notice frames that Dynamo skipped or left to run eagerly (no new code came out), and
    to see the user's call stack at the moment a compilation starts.
    """
    convert_frame = _module("torch._dynamo.convert_frame")
    if convert_frame is None or not hasattr(convert_frame, "_compile"):
        return None

    def make(original: Any) -> Any:
        def _compile(code: Any, *args: Any, **kwargs: Any) -> Any:
            if on_start is not None:
                with contextlib.suppress(Exception):
                    on_start(code)
            try:
                result = original(code, *args, **kwargs)
            except BaseException as e:
                with contextlib.suppress(Exception):
                    on_result(code, e)
                raise
            with contextlib.suppress(Exception):
                on_result(code, None)
            return result

        return _compile

    return Patch(convert_frame, "_compile", make)
