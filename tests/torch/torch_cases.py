"""Shared machinery: compile a program with and without depyf, once per (program, backend)."""
from __future__ import annotations

import inspect
import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Tuple

import torch

import depyf
from torch_programs import PROGRAMS, Program, run

BACKENDS = ("eager", "aot_eager", "inductor")
# Inductor compiles take seconds each: run it on the programs that matter most for it.
INDUCTOR_PROGRAMS = ("toy", "module", "train", "dynamic", "helper")


def cases() -> List[Tuple[str, str]]:
    out = []
    for name in PROGRAMS:
        for backend in BACKENDS:
            if backend == "inductor" and name not in INDUCTOR_PROGRAMS:
                continue
            out.append((name, backend))
    return out


@dataclass
class Outcome:
    program: Program
    backend: str
    reference: List[Any]
    dumped: List[Any]
    folder: str
    folder2: str
    fn: Any
    compiled: Any
    files: List[str] = field(default_factory=list)
    files2: List[str] = field(default_factory=list)
    guard_checks: List[Tuple[str, bool, bool, str]] = field(default_factory=list)
    debug_hits: set = field(default_factory=set)
    debug_same: bool = False
    explained: str = ""
    explained_from_original: str = ""
    entries: int = 0


_CACHE: Dict[Tuple[str, str], Outcome] = {}


def fresh(program: Program, backend: str) -> Tuple[Any, Any]:
    torch._dynamo.reset()
    fn = program.make()
    return fn, torch.compile(fn, backend=backend)


def outcome(name: str, backend: str) -> Outcome:
    """Run ``name`` without depyf, then twice under prepare_debug (kept alive for later checks)."""
    key = (name, backend)
    if key in _CACHE:
        return _CACHE[key]
    program = PROGRAMS[name]
    fn, compiled = fresh(program, backend)
    reference = run(fn, program, compiled)
    root = tempfile.mkdtemp(prefix=f"depyf_{name}_{backend}_")
    folder2 = os.path.join(root, "second")
    fn2, compiled2 = fresh(program, backend)
    with depyf.prepare_debug(folder2):
        run(fn2, program, compiled2)
    fn, compiled = fresh(program, backend)
    with depyf.prepare_debug(os.path.join(root, "first")) as folder:
        dumped = run(fn, program, compiled)
    result = Outcome(program, backend, reference, dumped, folder, folder2, fn, compiled)
    result.files = sorted(os.listdir(folder))
    result.files2 = sorted(os.listdir(folder2))
    # Everything that needs the live cache entries happens now: the next program resets Dynamo.
    check_guards(result)
    check_debug(result)
    from depyf.explain import dump_src

    result.explained = dump_src(compiled)
    result.explained_from_original = dump_src(fn)
    _CACHE[key] = result
    return result


def original_function(fn: Any) -> Tuple[Callable[..., Any], Any]:
    """The function whose frames Dynamo compiled, and ``self`` when it is a module's forward."""
    if isinstance(fn, torch.nn.Module):
        return type(fn).forward, fn
    return fn, None


def frame_locals(func: Callable[..., Any], self_obj: Any, args: tuple, kwargs: dict) -> Dict[str, Any]:
    sig = inspect.signature(func)
    bound = sig.bind(*(((self_obj,) if self_obj is not None else ()) + tuple(args)), **kwargs)
    bound.apply_defaults()
    L = dict(bound.arguments)
    # A frame's locals include its free variables (what a closure captured).
    for name, cell in zip(func.__code__.co_freevars, func.__closure__ or ()):
        L[name] = cell.cell_contents
    return L


def hits_and_misses(program: Program):
    """Each call's arguments, then variants that should miss (dtype change, size change)."""
    for args, kwargs in program.calls():
        yield args, kwargs
        for change in (lambda t: t.to(torch.float64), lambda t: torch.cat([t, t])):
            new = list(args)
            for i, a in enumerate(new):
                if isinstance(a, torch.Tensor):
                    new[i] = change(a.detach())
                    break
            yield tuple(new), kwargs


def check_guards(out: Outcome) -> None:
    """Our rendered guard vs torch's own guard, on every cache entry of the top frame."""
    from depyf.dynamo import adapter, guard_runtime
    from depyf.dynamo.guards import guard_function_source, render_guards

    func, self_obj = original_function(out.fn)
    entries = adapter.cache_entries(func.__code__)
    out.entries = len(entries)
    helpers = {n: getattr(guard_runtime, n) for n in guard_runtime.__all__}
    guards = []
    for entry in entries:
        manager = adapter.entry_guard_manager(entry)
        src = guard_function_source("guard", render_guards(adapter.guard_leaves(manager)))
        ns = {"torch": torch, **helpers}
        exec(compile(src, "<guard>", "exec"), ns)
        guards.append((adapter.entry_compile_id(entry), manager, ns["guard"], src))
    first = True
    for args, kwargs in hits_and_misses(out.program):
        L = frame_locals(func, self_obj, args, kwargs)
        # The first call is also checked with grad mode off: the global-state guard must miss.
        for grad in ((True, False) if first else (True,)):
            with torch.set_grad_enabled(grad):
                for compile_id, manager, guard, src in guards:
                    ours = bool(guard(L, func.__globals__))
                    theirs = adapter.guard_verdict(manager, L)
                    out.guard_checks.append((compile_id, ours, theirs, src))
        first = False


def check_debug(out: Outcome) -> None:
    """Under debug(), the first call runs (partly) from files in the dump folder."""
    import sys

    folder = os.path.realpath(out.folder)
    hits = out.debug_hits

    def tracer(frame, event, arg):
        path = os.path.realpath(frame.f_code.co_filename)
        if path.startswith(folder):
            hits.add(os.path.basename(path))
        return None

    args, kwargs = out.program.calls()[0]
    with depyf.debug():
        sys.settrace(tracer)
        try:
            got = out.compiled(*args, **kwargs)
        finally:
            sys.settrace(None)
    args, kwargs = out.program.calls()[0]
    expected = out.compiled(*args, **kwargs)
    from torch_programs import same

    out.debug_same = same(expected, got)
