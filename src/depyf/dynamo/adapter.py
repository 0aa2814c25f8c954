"""The one place where depyf touches torch internals.

Every private torch API that depyf uses is reached through a function of this module. Each one
is feature-detected: when a torch release moved or removed something, the function returns a
neutral value (an empty list, ``None``) or raises :class:`TorchFeatureMissing` with a message that
says what is missing, and the caller degrades instead of breaking the user's program.

Nothing here is imported by ``import depyf``: torch is optional, and this module imports it on
first use.
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import linecache
import os
import re
import sys
import types
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple


class TorchFeatureMissing(RuntimeError):
    """A torch internal that depyf relies on is not present in the installed torch."""


def _torch() -> Any:
    import torch

    return torch


def _module(name: str) -> Optional[types.ModuleType]:
    try:
        return importlib.import_module(name)
    except Exception:
        return None


def torch_version() -> str:
    return str(getattr(_torch(), "__version__", "unknown"))


# ----------------------------------------------------------------------------------------------
# Compiled callables and their original code
# ----------------------------------------------------------------------------------------------


def unwrap_compiled(obj: Any) -> Tuple[Callable[..., Any], Optional[Any]]:
    """Return ``(function, bound_self)`` for whatever the user passed to ``dump_src``.

    Accepts what ``torch.compile`` returned (a wrapper function or an ``OptimizedModule``), the
    original function, a bound method, or an ``nn.Module`` (its ``forward``).
    """
    torch = _torch()
    bound_self = None
    seen = 0
    while seen < 16:
        seen += 1
        orig_mod = getattr(obj, "_orig_mod", None)
        if orig_mod is not None and isinstance(obj, torch.nn.Module):
            obj = orig_mod
            continue
        orig = obj.__dict__.get("_torchdynamo_orig_callable") if hasattr(obj, "__dict__") else None
        if orig is not None and orig is not obj:
            obj = orig
            continue
        if isinstance(obj, torch.nn.Module):
            bound_self = obj
            obj = type(obj).forward
            continue
        if isinstance(obj, types.MethodType):
            bound_self = obj.__self__
            obj = obj.__func__
            continue
        break
    if not hasattr(obj, "__code__"):
        raise TypeError(f"depyf cannot find the code of {obj!r}: expected a function, method or module")
    return obj, bound_self


def cache_entries(code: types.CodeType) -> List[Any]:
    """Dynamo's cache entries for ``code``, most recently used first (as torch checks them)."""
    eval_frame = _module("torch._dynamo.eval_frame")
    getter = getattr(eval_frame, "_debug_get_cache_entry_list", None)
    if getter is None:
        raise TorchFeatureMissing("torch._dynamo.eval_frame._debug_get_cache_entry_list is missing")
    try:
        entries = list(getter(code))
    except Exception:
        return []
    # An entry without code (torch 2.13 keeps them for frames it decided to run as they are,
    # such as a resume function with nothing to compile) has nothing to explain.
    return [e for e in entries if isinstance(getattr(e, "code", None), types.CodeType)]


def entry_code(entry: Any) -> types.CodeType:
    return entry.code


def entry_compile_id(entry: Any) -> str:
    cid = getattr(entry, "compile_id", None)
    return str(cid) if cid is not None else "?"


def entry_guard_manager(entry: Any) -> Any:
    """The guard object of a cache entry (``guard_manager`` since 2.6, ``check_fn`` before)."""
    for name in ("guard_manager", "check_fn"):
        gm = getattr(entry, name, None)
        if gm is not None:
            return gm
    return None


def guard_verdict(guard_manager: Any, f_locals: Dict[str, Any]) -> bool:
    """torch's own verdict for ``f_locals`` (used by tests to check our rendering)."""
    if hasattr(guard_manager, "check"):
        return bool(guard_manager.check(f_locals))
    return bool(guard_manager(f_locals))


def innermost_fn(fn: Any) -> Any:
    eval_frame = _module("torch._dynamo.eval_frame")
    inner = getattr(eval_frame, "innermost_fn", None)
    try:
        return inner(fn) if inner else fn
    except Exception:
        return fn


# ----------------------------------------------------------------------------------------------
# Guards: the C++ guard tree (2.6+) or the Python guard function (older)
# ----------------------------------------------------------------------------------------------


class LeafGuard:
    """One guard as torch describes it: its kind and its description strings."""

    __slots__ = ("kind", "parts", "source")

    def __init__(self, kind: str, parts: List[str], source: str) -> None:
        self.kind = kind
        self.parts = parts
        self.source = source


def guard_leaves(guard_manager: Any) -> List[LeafGuard]:
    """Flatten a guard tree into leaf guards, in the order torch checks them (roughly)."""
    out: List[LeafGuard] = []
    root = getattr(guard_manager, "root", None)
    if root is None or not hasattr(root, "get_leaf_guards"):
        for part in getattr(guard_manager, "code_parts", None) or []:
            out.append(LeafGuard("CODE_PART", [str(part)], ""))
        return out

    def leaves_of(mgr: Any) -> None:
        try:
            source = str(mgr.get_source())
        except Exception:
            source = ""
        for leaf in mgr.get_leaf_guards():
            try:
                parts = [whole_locations(str(p)) for p in leaf.verbose_code_parts()]
            except Exception:
                parts = []
            out.append(LeafGuard(type(leaf).__name__, parts, source))
        for child in mgr.get_child_managers():
            leaves_of(child)
        kv = getattr(mgr, "get_key_value_managers", None)
        if kv is not None:
            try:
                pairs = kv().values()
            except Exception:
                pairs = []
            for key_mgr, value_mgr in pairs:
                if key_mgr is not None:
                    leaves_of(key_mgr)
                if value_mgr is not None:
                    leaves_of(value_mgr)

    leaves_of(root)
    epilogue = getattr(root, "get_epilogue_lambda_guards", None)
    if epilogue is not None:
        for leaf in epilogue():
            out.append(LeafGuard(type(leaf).__name__, [str(p) for p in leaf.verbose_code_parts()], ""))
    return out


_LOCATION = re.compile(r"# (?P<path>[^\s#:]+\.py):(?P<line>\d+) in ")


def whole_locations(text: str) -> str:
    """Guard descriptions name where each guard came from, as `# path.py:12 in fn`. torch
    shortens paths relative to its own folder, and for a file outside it drops one character
    too many (`# ork/main/train.py` for `/work/main/train.py`): put back the whole path."""
    if ".py:" not in text:
        return text
    return _LOCATION.sub(lambda m: "# " + _whole_path(m.group("path")) + ":" + m.group("line") + " in ", text)


@functools.lru_cache(maxsize=256)
def _whole_path(short: str) -> str:
    if os.path.isabs(short):
        return short
    base = os.path.dirname(os.path.dirname(os.path.abspath(_torch().utils._traceback.__file__)))
    if os.path.exists(os.path.join(base, short)):
        return short  # one of torch's own files, shortened on purpose
    known = [getattr(m, "__file__", None) for m in list(sys.modules.values())] + list(linecache.cache)
    for full in known:
        if not isinstance(full, str) or not full.endswith(short) or len(full) == len(short):
            continue
        with contextlib.suppress(ValueError):
            # torch cut `len(commonpath) + 1` characters off the front
            if len(os.path.commonpath([full, base])) + 1 == len(full) - len(short):
                return full
    return short


def dispatch_key_text(tensor: Any) -> str:
    """The dispatch-key set of a tensor, in the form guard descriptions print it."""
    torch = _torch()
    getter = getattr(torch._C, "_dispatch_keys", None)
    if getter is None:
        return ""
    keys = getter(tensor)
    # Guards compare the set as the dispatcher sees it: with this thread's local includes added
    # and excludes removed (BackendSelect is included, Autocast keys excluded by default).
    include = getattr(torch._C, "_dispatch_tls_local_include_set", None)
    exclude = getattr(torch._C, "_dispatch_tls_local_exclude_set", None)
    with contextlib.suppress(Exception):
        if include is not None and exclude is not None:
            keys = (keys | include()) - exclude()
    return str(keys)


def global_state_snapshot() -> Dict[str, Any]:
    """The parts of torch's global state that Dynamo's GLOBAL_STATE guard compares."""
    torch = _torch()
    state: Dict[str, Any] = {"grad_mode": torch.is_grad_enabled()}
    with contextlib.suppress(Exception):
        state["deterministic_algorithms"] = torch.are_deterministic_algorithms_enabled()
    with contextlib.suppress(Exception):
        state["num_threads"] = torch.get_num_threads()
    with contextlib.suppress(Exception):
        state["torch_function"] = torch._C._is_torch_function_enabled()
    with contextlib.suppress(Exception):
        state["torch_function_all_disabled"] = torch._C._is_torch_function_all_disabled()
    return state


def torch_function_mode_stack_len() -> int:
    torch = _torch()
    getter = getattr(torch._C, "_len_torch_function_stack", None)
    return int(getter()) if getter is not None else 0


def utils_device_module() -> Any:
    return _module("torch.utils._device")


# ----------------------------------------------------------------------------------------------
# Graphs held by compiled callables
# ----------------------------------------------------------------------------------------------


def is_graph_module(obj: Any) -> bool:
    fx = _module("torch.fx")
    return fx is not None and isinstance(obj, fx.GraphModule)


def graph_code(gm: Any) -> str:
    """The Python source of a GraphModule's ``forward``."""
    return str(gm.code)


def graph_backend_id(gm: Any) -> Optional[str]:
    meta = getattr(gm, "meta", None) or {}
    value = meta.get("backend_id")
    return str(value) if value else None


def graph_compile_reason(gm: Any) -> Optional[Tuple[str, bool, List[str]]]:
    """``(reason, is_graph_break, user_stack_lines)`` Dynamo recorded for a captured graph."""
    reason = getattr(gm, "compile_subgraph_reason", None)
    if reason is None:
        return None
    stack = []
    for frame in getattr(reason, "user_stack", None) or []:
        with contextlib.suppress(Exception):
            stack.append(f"{frame.filename}:{frame.lineno} in {frame.name}: {(frame.line or '').strip()}")
    return str(getattr(reason, "reason", reason)), bool(getattr(reason, "graph_break", False)), stack


def dig_artifacts(obj: Any, max_depth: int = 10) -> Tuple[List[Any], List[str]]:
    """Find the GraphModules and Inductor sources a compiled callable still holds.

    torch keeps them in closures of its runtime wrappers (AOTAutograd) and in attributes
    (``CompiledFxGraph.source_code``); which ones depends on the backend and the torch release, so
    this walks the object graph rather than naming attributes.
    """
    torch = _torch()
    graphs: List[Any] = []
    sources: List[str] = []
    seen = set()
    stack: List[Tuple[Any, int]] = [(obj, 0)]
    while stack:
        cur, depth = stack.pop()
        if id(cur) in seen or depth > max_depth:
            continue
        seen.add(id(cur))
        if is_graph_module(cur):
            graphs.append(cur)
            continue
        if isinstance(cur, (int, float, str, bytes, bool, type(None), type, types.ModuleType, torch.Tensor)):
            continue
        src = getattr(cur, "source_code", None) if type(cur).__name__ == "CompiledFxGraph" else None
        if isinstance(src, str):
            sources.append(src)
            continue
        children: List[Any] = []
        closure = getattr(cur, "__closure__", None)
        if closure:
            for cell in closure:
                with contextlib.suppress(ValueError):
                    children.append(cell.cell_contents)
        for attr in ("__wrapped__", "__self__", "func"):
            if attr in ("__self__",) and isinstance(cur, types.BuiltinFunctionType):
                continue
            with contextlib.suppress(Exception):
                if hasattr(cur, attr):
                    children.append(getattr(cur, attr))
        d = getattr(cur, "__dict__", None)
        if isinstance(d, dict) and not isinstance(cur, types.FunctionType):
            children.extend(list(d.values())[:64])
        elif isinstance(d, dict):
            children.extend(v for k, v in d.items() if not k.startswith("__"))
        if isinstance(cur, (list, tuple)):
            children.extend(cur[:32])
        for child in reversed(children):
            stack.append((child, depth + 1))
    return graphs, sources


# ----------------------------------------------------------------------------------------------
# Hooks used while prepare_debug is active
# ----------------------------------------------------------------------------------------------


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


def patch_frame_compile(on_result: Callable[[types.CodeType, Optional[BaseException]], None]) -> Optional[Patch]:
    """Call ``on_result(code, error)`` after Dynamo tried to compile a frame.

    Used to notice frames that Dynamo skipped or left to run eagerly (no new code came out).
    """
    convert_frame = _module("torch._dynamo.convert_frame")
    if convert_frame is None or not hasattr(convert_frame, "_compile"):
        return None

    def make(original: Any) -> Any:
        def _compile(code: Any, *args: Any, **kwargs: Any) -> Any:
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


@contextlib.contextmanager
def caches_disabled() -> Iterator[None]:
    """Turn off the FX-graph and AOTAutograd caches so every graph hook fires."""
    inductor_config = _module("torch._inductor.config")
    if inductor_config is None or not hasattr(inductor_config, "force_disable_caches"):
        yield
        return
    old = inductor_config.force_disable_caches
    inductor_config.force_disable_caches = True
    try:
        yield
    finally:
        inductor_config.force_disable_caches = old


def distributed_rank() -> Optional[int]:
    """The rank of this process when torch.distributed is initialised, else None."""
    dist = _module("torch.distributed")
    with contextlib.suppress(Exception):
        if dist is not None and dist.is_available() and dist.is_initialized():
            return int(dist.get_rank())
    return None


def source_can_match(new_code: types.CodeType) -> bool:
    """Whether plain source can compile to exactly Dynamo's transformed code.

    Since 2.9 Dynamo loads the graph function, then calls ``record_pregraph_bytecode_enter``
    before the graph's arguments are evaluated; no Python expression evaluates in that order, so a
    bytecode-equal recompilation is impossible and not worth attempting.
    """
    return "record_pregraph_bytecode_enter" not in new_code.co_names


def is_resume_code(code: types.CodeType) -> bool:
    """Whether ``code`` is a resume function Dynamo synthesized (named after the 2.3+ prefix)."""
    return code.co_name.startswith(("torch_dynamo_resume_in_", "resume_in_", "<resume in"))


def is_dynamo_generated_name(name: str) -> bool:
    return name.startswith("__compiled_fn") or name.startswith("__resume_at_")
