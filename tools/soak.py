"""Soak prepare_debug and debug() with faults: the torch test programs, over and over.

    PYTHONPATH=src python tools/soak.py --minutes 10 [--runs N] [--seed 0] [--backends eager,aot_eager]
                                        [--programs toy,item]

Each run picks a program of tests/torch/torch_programs.py, a backend and a fault, and runs the
program's calls twice: once without depyf (the reference: first pass, then second pass), once
with depyf (first pass under ``prepare_debug``, second pass under ``debug()``). Faults:

    none          nothing injected
    under_file    the dump folder is a path under a regular file (cannot be created)
    deleted       the dump folder is deleted inside the block, before the program runs
    disk_full     every write after the first k fails with ENOSPC (the writer's low-level write)
    hook_raises   depyf's capture hooks raise (on_frame / on_graph / finish, at random)
    removed       dumped files are deleted between prepare_debug and debug()
    concurrent    two other processes dump a program into the same folder at the same time

and counts, per fault: runs, result mismatches (torch.equal, dtype and shape, and the same error
type when the call raises), invalid .py files (compile() fails), stray files (anything written
outside the dump folder), extra warnings (more than one ``depyf:`` line on stderr from one
prepare_debug), lost dumps (concurrent processes whose dump the report does not list), silent
faults (a fault that made depyf give up something, with no warning: a folder that cannot be
made or was deleted, a hook that raised, a write refused for a full disk). Exit status 1 when any
of these is not 0.
"""
from __future__ import annotations

import argparse
import contextlib
import errno
import io
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from typing import Any, Callable, Dict, List, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "torch"))
sys.path.insert(0, os.path.join(ROOT, "src"))
os.environ.setdefault("TORCHINDUCTOR_FORCE_DISABLE_CACHES", "1")

FAULTS = ("none", "under_file", "deleted", "disk_full", "hook_raises", "removed", "concurrent")
FAILURES = ("mismatches", "invalid_py", "stray_files", "extra_warnings", "lost_dumps", "silent_faults")


def _outcome(fn: Callable[[], Any]) -> Tuple[str, Any]:
    try:
        return "ok", fn()
    except Exception as e:  # the error is part of what must match
        return "error", type(e).__name__


def _same(a: Tuple[str, Any], b: Tuple[str, Any]) -> bool:
    from torch_programs import same

    if a[0] != b[0]:
        return False
    return a[1] == b[1] if a[0] == "error" else same(a[1], b[1])


def _passes(program: Any, backend: str, first: Callable[[Callable[[], Any]], Any],
            second: Callable[[Callable[[], Any]], Any]) -> List[Tuple[str, Any]]:
    import torch
    from torch_programs import run

    torch._dynamo.reset()
    fn = program.make()
    compiled = torch.compile(fn, backend=backend)
    return [first(lambda: _outcome(lambda: run(fn, program, compiled))),
            second(lambda: _outcome(lambda: run(fn, program, compiled)))]


def _invalid_files(folder: str) -> int:
    bad = 0
    for dirpath, _, names in os.walk(folder):
        for name in names:
            if name.endswith(".py"):
                try:
                    with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                        compile(f.read(), name, "exec")
                except (SyntaxError, ValueError, OSError):
                    bad += 1
    return bad


class Soak:
    def __init__(self, seed: int, backends: List[str]) -> None:
        self.rng = random.Random(seed)
        self.backends = backends
        self.counts: Dict[str, Counter] = defaultdict(Counter)
        self.details: List[str] = []

    def one(self, name: str, backend: str, fault: str) -> None:
        import depyf
        from depyf.dump import writer as writer_module
        from depyf.dump.layout import DumpLayout
        from torch_programs import PROGRAMS

        program = PROGRAMS[name]
        counts = self.counts[fault]
        counts["runs"] += 1
        reference = _passes(program, backend, lambda f: f(), lambda f: f())
        root = tempfile.mkdtemp(prefix="depyf_soak_")
        folder = os.path.join(root, "dump")
        undo: List[Callable[[], None]] = []
        inside: Callable[[str], None] = lambda used: None
        children: List[subprocess.Popen] = []
        refused: List[str] = []  # (writes the full disk refused, hooks that raised)
        if fault == "under_file":
            with open(os.path.join(root, "file"), "w") as f:
                f.write("x")
            folder = os.path.join(root, "file", "dump")
        elif fault == "deleted":
            inside = shutil.rmtree
        elif fault == "disk_full":
            real, budget = writer_module._write_file, [self.rng.randint(0, 6)]

            def filling(path: str, text: str) -> None:
                budget[0] -= 1
                if budget[0] < 0:
                    refused.append(path)
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                real(path, text)

            writer_module._write_file = filling
            undo.append(lambda: setattr(writer_module, "_write_file", real))
        elif fault == "hook_raises":
            for hook in self.rng.sample(["on_frame", "on_graph", "finish"], self.rng.randint(1, 3)):
                original = getattr(DumpLayout, hook)

                def boom(*args: Any, **kwargs: Any) -> None:
                    refused.append("hook")
                    raise RuntimeError("soak: injected")

                setattr(DumpLayout, hook, boom)
                undo.append(lambda hook=hook, original=original: setattr(DumpLayout, hook, original))
        elif fault == "concurrent":
            ready = os.path.join(root, "ready")
            os.mkdir(ready)
            children = [self._child(self.rng.choice(list(PROGRAMS)), folder, ready) for _ in range(2)]
            inside = lambda used: _all_ready(ready, "parent")
        err = io.StringIO()

        def first(run: Callable[[], Any]) -> Any:
            try:
                with contextlib.redirect_stderr(err):
                    with depyf.prepare_debug(folder) as used:
                        inside(used)
                        return run()
            finally:
                for u in reversed(undo):
                    u()
                if fault == "removed" and os.path.isdir(folder):
                    names = sorted(os.listdir(folder))
                    for victim in self.rng.sample(names, len(names) // 2):
                        path = os.path.join(folder, victim)
                        if os.path.isfile(path):
                            os.unlink(path)

        def second(run: Callable[[], Any]) -> Any:
            with contextlib.redirect_stderr(io.StringIO()):
                with depyf.debug():
                    return run()

        got = _passes(program, backend, first, second)
        for child in children:
            child.communicate(timeout=600)
        warnings = [line for line in err.getvalue().splitlines() if line.startswith("depyf:")]
        mismatch = [k for k in range(2) if not _same(reference[k], got[k])]
        invalid = _invalid_files(root)
        stray = sorted(set(os.listdir(root)) - {"dump", "file", "ready"})
        if fault == "under_file":
            stray += [] if os.listdir(root) == ["file"] else ["(the folder under the file)"]
        lost = 0
        if fault == "concurrent":
            from depyf.report.load import ReportError, find_dumps

            try:
                lost = 3 - len(find_dumps(folder))
            except ReportError:
                lost = 3
        counts["mismatches"] += bool(mismatch)
        counts["invalid_py"] += invalid
        counts["stray_files"] += len(stray)
        counts["extra_warnings"] += len(warnings) > 1
        counts["lost_dumps"] += lost
        counts["faulted_runs_warned"] += fault not in ("none", "removed", "concurrent") and len(warnings) == 1
        silent = not warnings and (fault in ("under_file", "deleted") or bool(refused))
        counts["silent_faults"] += silent
        if mismatch or invalid or stray or len(warnings) > 1 or lost or silent:
            self.details.append(f"{name}/{backend}/{fault}: passes {mismatch} differ, {invalid} invalid, "
                                f"stray {stray}, warnings {warnings}, lost {lost}, silent {silent}")
        shutil.rmtree(root, ignore_errors=True)

    def _child(self, name: str, folder: str, ready: str) -> subprocess.Popen:
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
        return subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", name, folder, ready], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def failures(self) -> int:
        return sum(c[k] for c in self.counts.values() for k in FAILURES)

    def report(self, seconds: float) -> None:
        keys = ["runs", *FAILURES, "faulted_runs_warned"]
        print(f"soak: {sum(c['runs'] for c in self.counts.values())} runs in {seconds:.0f} s")
        print("fault        " + " ".join(f"{k:>19}" for k in keys))
        total: Counter = Counter()
        for fault in FAULTS:
            c = self.counts.get(fault, Counter())
            total.update(c)
            print(f"{fault:<12} " + " ".join(f"{c[k]:>19}" for k in keys))
        print(f"{'total':<12} " + " ".join(f"{total[k]:>19}" for k in keys))
        for line in self.details[:20]:
            print("  " + line)


def _all_ready(ready: str, me: str, processes: int = 3) -> None:
    """Wait until all the processes of a concurrent run are inside their prepare_debug block."""
    open(os.path.join(ready, me), "w").close()
    deadline = time.time() + 300
    while len(os.listdir(ready)) < processes and time.time() < deadline:
        time.sleep(0.05)


def child(name: str, folder: str, ready: str) -> None:
    import depyf
    import torch
    from torch_programs import PROGRAMS, run

    program = PROGRAMS[name]
    fn = program.make()
    with depyf.prepare_debug(folder):
        _all_ready(ready, str(os.getpid()))
        run(fn, program, torch.compile(fn, backend="eager"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--runs", type=int, default=0, help="stop after this many runs (0: only --minutes)")
    parser.add_argument("--programs", default="", help="comma-separated programs (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--backends", default="eager,aot_eager")
    parser.add_argument("--child", nargs=3, metavar=("PROGRAM", "FOLDER", "READY"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return 0
    import logging

    logging.disable(logging.WARNING)  # torch's graph-break warnings, once per run, drown the counts
    from torch_programs import PROGRAMS

    names = args.programs.split(",") if args.programs else list(PROGRAMS)
    unknown = sorted(set(names) - set(PROGRAMS))
    if unknown:
        parser.error(f"no such program: {', '.join(unknown)}")
    soak = Soak(args.seed, args.backends.split(","))
    start = time.time()
    i = 0
    while time.time() - start < args.minutes * 60 and not (args.runs and i >= args.runs):
        fault = FAULTS[i % len(FAULTS)]
        name = soak.rng.choice(names)
        soak.one(name, soak.rng.choice(soak.backends), fault)
        i += 1
    soak.report(time.time() - start)
    return 1 if soak.failures() else 0


if __name__ == "__main__":
    sys.exit(main())
