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
import importlib.util
import linecache
import os
import re
import sys
import types
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple


class TorchFeatureMissing(RuntimeError):
    """A torch internal that depyf relies on is not present in the installed torch."""


class TorchNotInstalled(ModuleNotFoundError):
    """torch is not installed (or too old): said in one line, before anything is written."""


# Oldest torch with what depyf needs (the bytecode hook of Dynamo).
MIN_TORCH = (2, 2)


def require_torch(feature: str) -> None:
    """Raise :class:`TorchNotInstalled` when ``feature`` cannot work with the installed torch.

    Checked from the package metadata and the import system, without importing torch, so the
    message comes before a torch feature does anything (creates its dump folder, say)."""
    try:
        found = importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise TorchNotInstalled(
            f"{feature} needs torch, which is not installed (pip install torch); "
            "depyf.decompile works without it"
        )
    try:
        from importlib import metadata

        version = metadata.version("torch")
    except Exception:  # an unusual install (a source tree on sys.path): let the import decide
        return
    numbers = tuple(int(n) for n in re.findall(r"\d+", version)[:2])
    if len(numbers) == 2 and numbers < MIN_TORCH:
        raise TorchNotInstalled(
            f"{feature} needs torch >= {MIN_TORCH[0]}.{MIN_TORCH[1]}, but torch {version} is installed"
        )


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


def is_compile_wrapper(obj: Any) -> bool:
    """Whether ``obj`` is what ``torch.compile`` returned (a wrapper function or an OptimizedModule)."""
    return hasattr(obj, "_torchdynamo_orig_callable") or (hasattr(obj, "_orig_mod") and hasattr(obj, "dynamo_ctx"))


def compiled_wrappers(obj: Any) -> List[Callable[..., Any]]:
    """Functions of torch's own that ``torch.compile(obj)`` may have compiled instead of the
    user's code, which has no cache entries then: for a module, torch 2.5+ compiles a small
    wrapper that calls its ``forward`` (``torch/_dynamo/external_utils.py``'s ``inner``) and
    inlines the forward into the graphs. Found by following the wrappers torch installed; the
    ones that hold cache entries are returned, outermost first."""
    found: List[Callable[..., Any]] = []
    seen = set()
    stack = [obj]
    while stack and len(seen) < 32:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        code = getattr(current, "__code__", None)
        if isinstance(code, types.CodeType) and cache_entries(code):
            found.append(current)
        own = getattr(current, "__dict__", None)
        nexts = [own.get("forward")] if isinstance(own, dict) else []  # OptimizedModule.forward
        nexts += [getattr(current, "_torchdynamo_orig_callable", None), getattr(current, "__wrapped__", None)]
        stack.extend(reversed([n for n in nexts if n is not None]))
    if not found and _is_module_or_method(obj):
        # The original module (or its forward) keeps no link to the wrapper torch made for it,
        # but every wrapper shares one code object, and the cache entries hang off the code.
        wrapper = module_call_wrapper()
        if wrapper is not None and cache_entries(wrapper.__code__):
            found.append(wrapper)
    return found


def _is_module_or_method(obj: Any) -> bool:
    nn = _module("torch.nn")
    module_type = getattr(nn, "Module", None)
    if module_type is None:
        return False
    return isinstance(obj, module_type) or isinstance(getattr(obj, "__self__", None), module_type)


def module_call_wrapper() -> Optional[Callable[..., Any]]:
    """A function on the code of the wrapper ``torch.compile(module)`` compiles (torch 2.5+:
    ``external_utils.wrap_inline``'s ``inner``, which calls the module), or None. Its cache
    entries serve every module compiled this way: the guards tell them apart by the type of
    ``L['fn']``, the module."""
    external_utils = _module("torch._dynamo.external_utils")
    wrap_inline = getattr(external_utils, "wrap_inline", None)
    if wrap_inline is None:
        return None
    try:
        return wrap_inline(lambda *args, **kwargs: None)  # a fresh wrapper: the same code object
    except Exception:
        return None


def cache_entries(code: types.CodeType) -> List[Any]:
    """Dynamo's cache entries for ``code``, most recently used first (as torch checks them)."""
    eval_frame = _module("torch._dynamo.eval_frame")
    getter = getattr(eval_frame, "_debug_get_cache_entry_list", None)
    if getter is None:
        raise TorchFeatureMissing("torch._dynamo.eval_frame._debug_get_cache_entry_list is missing")
    try:
        return list(getter(code))
    except Exception:
        return []


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


# ----------------------------------------------------------------------------------------------
# What a compilation cost, and where the user's program was when it started
# ----------------------------------------------------------------------------------------------

_DEPYF_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@functools.lru_cache(maxsize=1)
def _torch_dir() -> str:
    return os.path.dirname(os.path.abspath(_torch().__file__))


def _is_user_file(filename: str) -> bool:
    """Frames of torch, of depyf and of the interpreter's start-up machinery are not the user's."""
    if filename.startswith("<frozen") or os.path.basename(filename) == "runpy.py":
        return False
    path = os.path.abspath(filename)
    return not (path.startswith(_torch_dir() + os.sep) or path.startswith(_DEPYF_DIR + os.sep))


def user_stack(limit: int = 40) -> List[Tuple[str, int, str]]:
    """``(file, line, function)`` of the user's frames on the stack now, outermost first.

    Called when Dynamo starts compiling a frame: the frames above are the calls that led to the
    compilation (what tlparse shows as its stack trie). The innermost ``limit`` are kept."""
    frames: List[Tuple[str, int, str]] = []
    frame: Optional[types.FrameType] = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if _is_user_file(code.co_filename):
            frames.append((code.co_filename, int(frame.f_lineno or 0), code.co_name))
        frame = frame.f_back
    frames.reverse()
    return frames[-limit:]


def now_us() -> int:
    """The clock torch stamps its compilation metrics with (wall time, microseconds)."""
    import time

    return time.time_ns() // 1000


def _seconds(metrics: Any, us_name: str, s_name: str) -> Optional[float]:
    us = getattr(metrics, us_name, None)
    if isinstance(us, (int, float)) and not isinstance(us, bool):
        return us / 1e6
    s = getattr(metrics, s_name, None) if s_name else None
    if isinstance(s, (int, float)) and not isinstance(s, bool):
        return float(s)
    return None


def compilation_metrics_since(start_us: int) -> List[Dict[str, Any]]:
    """The compile times torch recorded (``torch._dynamo.utils.get_compilation_metrics``) for
    compilations that started at or after ``start_us``, one dict per record.

    Each dict: ``compile_id``, ``phase`` ("forward": the frame's compilation; "backward": the
    backward graph Inductor compiled lazily at the first backward call), ``start_us`` and
    cumulative seconds as torch measures them (each includes the stages below it):
    ``total_s`` (the whole frame, Dynamo and backend), ``backend_s`` (the backend call),
    ``aot_autograd_s``, ``inductor_s``, ``code_gen_s``; plus ``failure`` when it failed. A field
    torch did not record is None. torch keeps the last 64 records only."""
    utils = _module("torch._dynamo.utils")
    getter = getattr(utils, "get_compilation_metrics", None)
    if getter is None:
        return []
    try:
        records = list(getter())
    except Exception:
        return []
    out = []
    for m in records:
        start = getattr(m, "start_time_us", None)
        if not isinstance(start, int):
            start_s = getattr(m, "start_time", None)
            start = int(start_s * 1e6) if isinstance(start_s, (int, float)) else None
        if start is None or start < start_us or getattr(m, "compile_id", None) is None:
            continue
        if getattr(m, "is_runtime", False):
            continue  # runtime autotuning, not a compilation
        backward = getattr(m, "is_forward", None) is False
        total = (
            _seconds(m, "backward_cumulative_compile_time_us", "")
            if backward
            else _seconds(m, "dynamo_cumulative_compile_time_us", "entire_frame_compile_time_s")
        )
        failure = getattr(m, "fail_type", None)
        out.append(
            {
                "compile_id": str(m.compile_id),
                "phase": "backward" if backward else "forward",
                "start_us": start,
                "total_s": total,
                "backend_s": None if backward else _seconds(m, "", "backend_compile_time_s"),
                "aot_autograd_s": None if backward else _seconds(m, "aot_autograd_cumulative_compile_time_us", ""),
                "inductor_s": _seconds(m, "inductor_cumulative_compile_time_us", "inductor_compile_time_s"),
                "code_gen_s": _seconds(m, "inductor_code_gen_cumulative_compile_time_us", "code_gen_time_s"),
                "failure": f"{failure}: {getattr(m, 'fail_reason', '')}" if failure else None,
            }
        )
    return out


# The caches that let torch skip the work a dump shows: (config module, flag). Each is switched
# off by itself; the master switch `force_disable_caches` also disables Dynamo's profile-guided
# dynamic shapes (PGO) and makes torch warn "dynamo_pgo force disabled" on every run.
_CACHE_FLAGS = (
    ("torch._inductor.config", "fx_graph_cache"),
    ("torch._inductor.config", "fx_graph_remote_cache"),
    ("torch._functorch.config", "enable_autograd_cache"),
    ("torch._functorch.config", "enable_remote_autograd_cache"),
)


@contextlib.contextmanager
def caches_disabled() -> Iterator[None]:
    """Turn off the FX-graph and AOTAutograd caches so every graph hook fires."""
    saved = []
    for module_name, flag in _CACHE_FLAGS:
        config = _module(module_name)
        if config is None or not hasattr(config, flag):
            continue
        with contextlib.suppress(Exception):
            saved.append((config, flag, getattr(config, flag)))
            setattr(config, flag, False)
    inductor_config = _module("torch._inductor.config")
    if getattr(inductor_config, "fx_graph_cache", False) and hasattr(inductor_config, "force_disable_caches"):
        # An environment variable forces the cache on over our setting: only the master switch wins.
        saved.append((inductor_config, "force_disable_caches", inductor_config.force_disable_caches))
        inductor_config.force_disable_caches = True
    try:
        yield
    finally:
        for config, flag, old in reversed(saved):
            with contextlib.suppress(Exception):
                setattr(config, flag, old)


@contextlib.contextmanager
def run_cached_code_only() -> Iterator[None]:
    """Run what Dynamo already compiled, and compile nothing new (eager where nothing matches)."""
    torch = _torch()
    compiler = getattr(torch, "compiler", None)
    set_stance = getattr(compiler, "set_stance", None)
    if set_stance is not None:
        with set_stance("eager_on_recompile"):
            yield
        return
    eval_frame = _module("torch._C._dynamo.eval_frame")
    setter = getattr(eval_frame, "set_eval_frame", None)
    if setter is None:
        raise TorchFeatureMissing("neither torch.compiler.set_stance nor set_eval_frame is available")
    prior = setter(False)
    try:
        yield
    finally:
        setter(prior)


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
