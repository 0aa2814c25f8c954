"""What skipping Dynamo's guards saves: ``TorchCompileWrapperWithCustomDispatcher``, this depyf
next to depyf 0.20, in one run.

    python benchmarks/dispatcher.py [--depyf020 PYTHON] [--calls 10000] [--modules 100]
                                    [--repeat 3] [--rounds 3]

The measurement of depyf 0.20's optimisation tutorial: a module holding ``--modules`` submodules
(each adds its index), compiled once, then called ``--calls`` times (a) through
``torch.compile`` (every call checks the guards) and (b) through ``dispatch_to_code(0)`` (Dynamo's
code run directly, no guard checked); (c) the same module run eagerly is shown for scale. Each
depyf runs in its own interpreter: this depyf with the running Python (and ``src/`` first on its
path), depyf 0.20 with ``--depyf020`` (a venv with ``pip install depyf==0.20.0`` and the same
torch). The two sides take turns (``--rounds`` fresh interpreters each, ``--repeat`` timings in
each); the best timing is kept per line. Prints seconds and the ratios.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Dict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DEPYF020 = "/work/venvs/compat-depyf020/bin/python"


def worker(calls: int, modules: int, repeat: int) -> Dict[str, object]:
    """Runs inside one interpreter: times the three ways of calling the tutorial's module."""
    import torch
    import depyf
    from depyf.optimization import TorchCompileWrapperWithCustomDispatcher

    class AddIndex(torch.nn.Module):
        def __init__(self, i: int) -> None:
            super().__init__()
            self.i = i

        def forward(self, x):
            return x + self.i

    class Mod(TorchCompileWrapperWithCustomDispatcher):
        def __init__(self, n: int) -> None:
            self.fs = torch.nn.ModuleList([AddIndex(i) for i in range(n)])
            super().__init__(torch.compile(self.forward))

        def forward(self, x):
            for f in self.fs:
                x = f(x)
            return x

        def __call__(self, x):
            if len(self.compiled_codes) == 1:
                with self.dispatch_to_code(0):
                    return self.forward(x)
            return self.compiled_callable(x)

    mod = Mod(modules)
    first = mod(torch.tensor([1]))  # compiles
    if len(mod.compiled_codes) != 1:
        raise SystemExit(f"expected one recorded code object, got {len(mod.compiled_codes)}")
    x = torch.tensor([2])
    expected = x + sum(range(modules))

    def time_calls(call) -> float:
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            for _ in range(calls):
                y = call(x)
            best = min(best, time.perf_counter() - start)
            if not torch.equal(y, expected):
                raise SystemExit(f"wrong result {y} (expected {expected})")
        return best

    return {
        "depyf": getattr(depyf, "__version__", "?"),
        "depyf_file": depyf.__file__,
        "torch": torch.__version__,
        "python": sys.version.split()[0],
        "first": first.tolist(),
        "guards": time_calls(mod.compiled_callable),
        "no_guards": time_calls(mod),
        "eager": eager_time(mod.forward, x, expected, calls),
    }


def eager_time(forward, x, expected, calls: int) -> float:
    """The module run eagerly, for scale: a tenth of the calls, scaled (it is slow)."""
    import torch

    n = max(1, calls // 10)
    start = time.perf_counter()
    for _ in range(n):
        y = forward(x)
    elapsed = time.perf_counter() - start
    if not torch.equal(y, expected):
        raise SystemExit(f"wrong eager result {y}")
    return elapsed * calls / n


def run_worker(python: str, ours: bool, args: argparse.Namespace) -> Dict[str, object]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if ours:
        env["PYTHONPATH"] = os.path.join(ROOT, "src")
    cmd = [python, os.path.abspath(__file__), "--worker", "--calls", str(args.calls), "--modules", str(args.modules),
           "--repeat", str(args.repeat)]
    out = subprocess.run(cmd, env=env, cwd=os.path.dirname(os.path.abspath(__file__)), capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{python} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--depyf020", default=DEFAULT_DEPYF020, help="python of a venv with depyf 0.20.0")
    parser.add_argument("--calls", type=int, default=10000)
    parser.add_argument("--modules", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3, help="timings per interpreter")
    parser.add_argument("--rounds", type=int, default=3, help="fresh interpreters per side, taking turns")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.calls, args.modules, args.repeat)))
        return
    sides = {"this depyf": (sys.executable, True)}
    if os.path.exists(args.depyf020):
        sides["depyf 0.20"] = (args.depyf020, False)
    else:
        print(f"(no depyf 0.20 at {args.depyf020}: only this depyf is measured)")
    # The two sides take turns, each round in fresh interpreters, so a busy machine slows both alike.
    results: Dict[str, Dict[str, object]] = {}
    for _ in range(args.rounds):
        for label, (python, ours) in sides.items():
            r = run_worker(python, ours, args)
            best = results.setdefault(label, r)
            for key in ("guards", "no_guards", "eager"):
                best[key] = min(best[key], r[key])  # type: ignore[type-var]
    print(f"{args.calls} calls of a module with {args.modules} submodules, "
          f"best of {args.rounds} rounds x {args.repeat}; eager scaled from a tenth of the calls")
    print(f"{'':12} {'depyf':8} {'torch':14} {'guards s':>9} {'no guards s':>12} {'eager s':>8} {'guards/no guards':>17}")
    for label, r in results.items():
        print(f"{label:12} {r['depyf']:8} {r['torch']:14} {r['guards']:9.3f} {r['no_guards']:12.3f} {r['eager']:8.3f} "
              f"{r['guards'] / r['no_guards']:16.1f}x")
    if len(results) == 2:
        ours, old = results["this depyf"], results["depyf 0.20"]
        print(f"this depyf / depyf 0.20: no guards {ours['no_guards'] / old['no_guards']:.2f}x, "
              f"guards {ours['guards'] / old['guards']:.2f}x (same torch; 1.00x = as fast)")


if __name__ == "__main__":
    main()
