"""One interpreter's side of the round-trip benchmark (started by run_all.py, not by people).

It runs under the interpreter being measured, so that code objects are that version's.  It loads
the oracle (``src/depyf/verify``) by path under another module name: the decompiler being
judged may itself be a package called ``depyf`` (the 0.20 baseline), and the two must not clash.

Protocol (one JSON object per line):
  stdin   {"file": PATH, "skip": [index, ...]}        one source file to check
  stdout  {"event": "file", "file", "definitions"}     or {"event": "skip_file", "file", "reason"}
          {"event": "start", "index"}                  before each definition (finds hangs)
          {"event": "result", "index", ...}            the verdict and measurements
          {"event": "done", "file"}
          {"event": "fatal", "reason"}                 the decompiler cannot even be imported
                                                       (or does not read this version)
``--list`` prints the corpus (this interpreter's paths) as a JSON list and exits.
"""
import argparse
import dis
import gc
import importlib.util
import json
import os
import re
import signal
import sys
import time
import tokenize
import tracemalloc
from typing import Any, Callable, Dict, List, Optional

DEFAULT_MODULES = [
    "textwrap", "colorsys", "heapq", "bisect", "json.decoder",
    "shlex", "fractions", "statistics", "argparse", "dataclasses",
]
# Test suites and third-party installs are not the standard library we measure.
_SKIPPED_DIRECTORIES = {"test", "tests", "idle_test", "site-packages", "dist-packages", "__pycache__"}


class _Timeout(BaseException):
    """Raised by the alarm; a BaseException so that a decompiler's `except Exception` can't eat it."""


def _load_verify(path: str):
    """The oracle package (``src/depyf/verify``) loaded from its folder under another name."""
    spec = importlib.util.spec_from_file_location("_depyf_bench_verify", os.path.join(path, "__init__.py"),
                                                  submodule_search_locations=[path])
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _emit(event: Dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def corpus(kind: str, modules: List[str]) -> List[str]:
    """Source paths of this interpreter's corpus."""
    if kind == "stdlib-all":
        lib = os.path.dirname(os.__file__)
        found = []
        for root, dirs, files in os.walk(lib):
            dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRECTORIES)
            found.extend(os.path.join(root, f) for f in sorted(files) if f.endswith(".py"))
        return found
    paths = []
    for name in modules:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue  # not in this version (`re._parser` before 3.11: `re` is no package there)
        if spec is not None and spec.origin and spec.origin.endswith(".py"):
            paths.append(spec.origin)
    return paths


def _decompiler(kind: str, verify) -> Callable:
    """The function under test: code object -> source text."""
    if kind in ("ours", "baseline"):
        import depyf  # ours via PYTHONPATH=src, the baseline from its own virtual environment

        if kind == "ours":
            from depyf.decompiler.versions import host

            host()  # (a version depyf does not read yet: one "unavailable" row, not N errors)
        return depyf.decompile
    # "module:function": any other decompiler (or a deliberately broken one, in tests).
    module_name, _, function = kind.partition(":")
    return getattr(importlib.import_module(module_name), function)


class _Guard:
    """A per-call alarm (POSIX), so one hanging definition does not stop the run."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.enabled = seconds > 0 and hasattr(signal, "setitimer")
        if self.enabled:
            signal.signal(signal.SIGALRM, self._fire)

    def _fire(self, signum, frame) -> None:
        raise _Timeout()

    def call(self, fn: Callable, *args):
        if self.enabled:
            # Keeps firing every 0.5 s after the deadline: code with a bare `except:` may swallow
            # the first one.
            signal.setitimer(signal.ITIMER_REAL, self.seconds, 0.5)
        try:
            return fn(*args)
        finally:
            if self.enabled:
                signal.setitimer(signal.ITIMER_REAL, 0)


def _group(status: str, detail: str, difference, error: Optional[Dict[str, Any]]) -> str:
    """What failures are grouped by in the failure summary."""
    if status == "differs" and difference is not None:
        a, b = difference.category
        return f"{a} -> {b}" if (a, b) != ("", "") else difference.what
    if status == "decompile_error":
        if error and error.get("opname"):
            return f"{error['type']} at {error['opname']}: {error.get('reason') or ''}".strip()
        text = detail
    else:
        text = detail.split(" at line ")[0]
    # Numbers and quoted names vary from case to case; the kind of failure does not.
    text = re.sub(r"'[^']*'", "'…'", text)
    return re.sub(r"\d+", "N", text)[:120]


def _peak(fn: Callable, *args) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        fn(*args)
    except BaseException:
        pass
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def _disassemble_all(verify, code) -> None:
    for c in verify.code_objects(code):
        list(dis.get_instructions(c))


def _best_time(repeat: int, fn: Callable, *args) -> float:
    """The fastest of ``repeat`` runs, with the collector paused, as timeit does: the machine's
    other load only ever adds time, so the minimum is the most faithful figure."""
    best = float("inf")
    for _ in range(repeat):
        gc.disable()
        try:
            started = time.perf_counter()
            fn(*args)
            best = min(best, time.perf_counter() - started)
        finally:
            gc.enable()
    return best


def run_file(path: str, skip: List[int], kind: str, verify, decompile, guard: _Guard, memory: bool,
             repeat: int) -> None:
    try:
        with tokenize.open(path) as f:
            source = f.read()
        trip = verify.SourceRoundTrip(source, path)
        # Fresh compiles of the file: a decompiler that caches per code object must not be
        # timed or measured on a cache hit.
        copies = [compile(source, path, "exec", dont_inherit=True) for _ in range(repeat - 1 + memory)]
    except (SyntaxError, ValueError, UnicodeDecodeError, OSError, RecursionError, MemoryError) as exc:
        _emit({"event": "skip_file", "file": path, "reason": f"{type(exc).__name__}: {exc}"[:200]})
        return
    if kind == "control":
        decompile = verify.control_decompiler(source, path)
    _emit({"event": "file", "file": path, "definitions": len(trip.definitions)})
    for index, definition in enumerate(trip.definitions):
        if index in skip:
            continue
        _emit({"event": "start", "index": index, "qualname": definition.qualname, "lineno": definition.lineno})
        error: Dict[str, Any] = {}

        def guarded(code):
            # The collector is paused as in `_best_time`: every timing of both sides, the first
            # one included, then measures the same thing (a single run with `--repeat 1` too).
            gc.disable()
            try:
                return guard.call(decompile, code)
            except _Timeout:
                error.update(type="Timeout")
                raise TimeoutError(f"decompiling took more than {guard.seconds:g} s") from None
            except Exception as exc:
                error.update(type=type(exc).__name__, opname=getattr(exc, "opname", None),
                             reason=getattr(exc, "reason", None))
                raise
            finally:
                gc.enable()

        result = trip.check(definition, guarded)
        code = trip.code(definition)
        decompile_seconds = result.decompile_seconds
        dis_seconds = _best_time(1, _disassemble_all, verify, code)
        # Both sides are timed alike: right after the check, then once on each fresh copy, the
        # disassembly first. (The time of a run depends on the work just before it: a decompile
        # right after the check's compiles takes up to twice as long as one after another
        # decompile, so timing `dis` in a row of its own, after them, favoured it.)
        timing = result.status != "decompile_error" and decompile_seconds < 1.0
        for copy in copies[: repeat - 1]:
            other = verify.find_code(copy, definition.key)
            dis_seconds = min(dis_seconds, _best_time(1, _disassemble_all, verify, other))
            if timing:
                try:
                    decompile_seconds = min(decompile_seconds, _best_time(1, guard.call, decompile, other))
                except (_Timeout, Exception):
                    timing = False
        event = {
            "event": "result", "index": index, "qualname": definition.qualname, "lineno": definition.lineno,
            "status": result.status, "detail": result.detail[:400],
            "group": _group(result.status, result.detail, result.difference, error),
            "decompile_s": decompile_seconds, "dis_s": dis_seconds,
        }
        if memory:
            other = verify.find_code(copies[-1], definition.key)
            try:
                event["mem_decompile"] = guard.call(_peak, decompile, other)
            except _Timeout:
                tracemalloc.stop()
            event["mem_dis"] = _peak(_disassemble_all, verify, other)
        _emit(event)
    _emit({"event": "done", "file": path})


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--verify", required=True, help="folder of the src/depyf/verify package")
    parser.add_argument("--decompiler", default="ours", help="ours, baseline, control or MODULE:FUNCTION")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per definition")
    parser.add_argument("--memory", action="store_true")
    parser.add_argument("--repeat", type=int, default=5, help="timing runs per definition (best kept)")
    parser.add_argument("--list", choices=["default", "stdlib-all"])
    parser.add_argument("--modules", default=",".join(DEFAULT_MODULES))
    args = parser.parse_args()
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 5000))
    if args.list:
        print(json.dumps(corpus(args.list, [m for m in args.modules.split(",") if m])))
        return 0
    verify = _load_verify(args.verify)
    decompile = None
    if args.decompiler != "control":
        try:
            decompile = _decompiler(args.decompiler, verify)
        except BaseException as exc:  # report, don't crash: the table says "unavailable"
            _emit({"event": "fatal", "reason": f"{type(exc).__name__}: {exc}"[:300]})
            return 1
    guard = _Guard(args.timeout)
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        run_file(request["file"], set(request.get("skip", [])), args.decompiler, verify, decompile, guard,
                 args.memory, max(1, args.repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
