"""Wall-time overhead of ``depyf.prepare_debug`` on programs that compile, in one run.

    python benchmarks/dump_overhead.py [--programs FILE.py] [--backends eager,aot_eager,inductor]
                                       [--repeat 3] [--clock wall|cpu]

For every program and backend, the same work is timed with and without depyf, alternating, each
time from a fresh Dynamo state (``torch._dynamo.reset()``): compile and run every call of the
program, and for depyf also write the whole dump. Both sides run with Inductor's caches off
(prepare_debug turns them off, so the baseline does too). The best of ``--repeat`` runs is kept
per side. Prints one line per program and the overhead over all of them; the target is <= 10%.

``--programs`` names a Python file defining ``PROGRAMS``: a dict of objects with ``make()``
(returns the function or module to compile), ``calls()`` (a list of ``(args, kwargs)``) and an
optional ``train`` flag (a training program calls ``backward`` itself); by default the programs of ``tests/torch/torch_programs.py``.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import sys
import tempfile
import time
from typing import Any, Dict, List, Tuple

os.environ["TORCHINDUCTOR_FORCE_DISABLE_CACHES"] = "1"

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_programs(path: str) -> Dict[str, Any]:
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec = importlib.util.spec_from_file_location("depyf_bench_programs", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module.PROGRAMS


def run_program(program: Any, backend: str) -> None:
    import torch

    torch._dynamo.reset()
    fn = program.make()
    compiled = torch.compile(fn, backend=backend)
    for args, kwargs in program.calls():
        compiled(*args, **kwargs)


# The clock: wall time by default; ``--clock cpu`` takes this process's CPU time instead, which
# other load on a shared machine barely disturbs (file writes then count only their CPU part).
CLOCK = time.perf_counter


def timed(program: Any, backend: str, dump_root: str = "") -> float:
    import depyf

    start = CLOCK()
    if dump_root:
        folder = tempfile.mkdtemp(dir=dump_root)
        with depyf.prepare_debug(folder):
            run_program(program, backend)
    else:
        run_program(program, backend)
    return CLOCK() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", default=os.path.join(ROOT, "tests", "torch", "torch_programs.py"))
    parser.add_argument("--backends", default="eager,aot_eager,inductor")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall time (default) or this process's CPU time (for a loaded machine)")
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter

    import contextlib
    import io

    import torch

    programs = load_programs(args.programs)
    backends = [b for b in args.backends.split(",") if b]
    dump_root = tempfile.mkdtemp(prefix="depyf_overhead_")
    quiet = contextlib.redirect_stdout(io.StringIO())
    rows: List[Tuple[str, str, float, float]] = []
    try:
        for backend in backends:
            for name, program in programs.items():
                with quiet:
                    timed(program, backend)  # warm up: imports, first-use initialisation
                    timed(program, backend, dump_root)
                    base, dump = [], []
                    for _ in range(args.repeat):
                        base.append(timed(program, backend))
                        dump.append(timed(program, backend, dump_root))
                rows.append((name, backend, min(base), min(dump)))
                b, d = rows[-1][2], rows[-1][3]
                print(f"{backend:>9} {name:<16} without {b * 1000:8.1f} ms   with prepare_debug {d * 1000:8.1f} ms   {100 * (d - b) / b:+6.1f}%", flush=True)
    finally:
        shutil.rmtree(dump_root, ignore_errors=True)
    for backend in backends:
        base_b = sum(r[2] for r in rows if r[1] == backend)
        dump_b = sum(r[3] for r in rows if r[1] == backend)
        if base_b:
            print(f"{backend:>9}: without {base_b:.2f} s, with prepare_debug {dump_b:.2f} s: {100 * (dump_b - base_b) / base_b:+.1f}%")
    total_base = sum(r[2] for r in rows)
    total_dump = sum(r[3] for r in rows)
    print(f"torch {torch.__version__}, Python {sys.version.split()[0]}: {len(rows)} program runs, {args.clock} clock")
    print(f"total without depyf {total_base:.2f} s, with prepare_debug {total_dump:.2f} s: overhead {100 * (total_dump - total_base) / total_base:+.1f}% (target <= 10%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
