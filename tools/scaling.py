#!/usr/bin/env python3
"""How decompiling time grows with the size and nesting of the input, against `dis`.

    python tools/scaling.py                          # every long case at 250..10000, this python
    python tools/scaling.py --sizes 1000,20000 --cases statements,sum_terms
    python tools/scaling.py --deep                   # every deep case at the deepest nesting CPython compiles
    python tools/scaling.py --python 3.8 --python 3.13 --markdown

The inputs are `tests/decompiler/scaling_cases.py`'s (`LONG`: terms, elements, `elif`s,
statements; `DEEP`: parentheses, blocks, lambdas nested as deep as the interpreter compiles). Each
measurement runs in a child process of the chosen interpreter, which decompiles the input, compiles
the text back and compares bytecode (`depyf.verify`): the status column says `equal` when the round
trip is exact. Time is the best of `--repeat` decompilations; `dis` is
`list(dis.get_instructions(code))` over the same code objects; the ratio of the two staying flat
as the size grows is what "linear" means here.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

REPO = Path(__file__).resolve().parents[1]
CASES_FILE = REPO / "tests" / "decompiler" / "scaling_cases.py"
DEFAULT_SIZES = (250, 500, 1000, 2000, 5000, 10000)


def _load_cases():
    import importlib.util

    spec = importlib.util.spec_from_file_location("scaling_cases", CASES_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _interpreter(name: str) -> str:
    """`3.8` -> that pyenv interpreter; a path stays a path."""
    if os.sep in name:
        return name
    root = subprocess.run(["pyenv", "root"], capture_output=True, text=True).stdout.strip()
    matches = sorted((Path(root) / "versions").glob(f"{name}.*/bin/python"))
    if not matches:
        raise SystemExit(f"no interpreter for {name} under {root}/versions")
    return str(matches[-1])


def run_child(python: str, case: str, size: str, repeat: int, timeout: float) -> Dict[str, object]:
    """One measurement in a child process: its JSON report, or what became of the child."""
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    try:
        done = subprocess.run([python, str(CASES_FILE), case, size, str(repeat)], capture_output=True,
                              text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"case": case, "size": size, "status": "timeout", "detail": f"over {timeout:g} s"}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["?"])[-1]
        return {"case": case, "size": size, "status": f"crashed ({done.returncode})", "detail": tail[:200]}
    return json.loads(lines[-1])


def _row(report: Dict[str, object]) -> List[str]:
    seconds: Optional[float] = report.get("seconds")  # type: ignore[assignment]
    dis_seconds: Optional[float] = report.get("dis_seconds")  # type: ignore[assignment]
    ratio = report.get("ratio")
    return [
        str(report.get("case")), str(report.get("size")), str(report.get("instructions", "")),
        f"{seconds * 1000:.1f}" if seconds is not None else "",
        f"{dis_seconds * 1000:.2f}" if dis_seconds is not None else "",
        f"{ratio:.1f}x" if isinstance(ratio, float) else "",
        str(report.get("status")) + (f": {report['detail']}" if report.get("status") != "equal" and report.get("detail") else ""),
    ]


HEADER = ["case", "size", "instructions", "decompile ms", "dis ms", "ratio", "status"]


def _print_table(rows: List[List[str]], markdown: bool) -> None:
    if markdown:
        print("| " + " | ".join(HEADER) + " |")
        print("|" + "|".join("---:" if h not in ("case", "status") else "---" for h in HEADER) + "|")
        for row in rows:
            print("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")
        return
    widths = [max(len(r[i]) for r in rows + [HEADER]) for i in range(len(HEADER) - 1)]
    for row in [HEADER] + rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", action="append", default=[], help="interpreter: a path or 3.X (repeatable)")
    parser.add_argument("--cases", default="", help="comma-separated case names (default: all of the kind)")
    parser.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)), help="sizes of the long cases")
    parser.add_argument("--deep", action="store_true", help="the deep cases, at the deepest nesting that compiles")
    parser.add_argument("--repeat", type=int, default=3, help="decompilations per measurement, best kept")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per measurement")
    parser.add_argument("--markdown", action="store_true", help="print markdown tables")
    args = parser.parse_args()
    cases = _load_cases()
    pool = cases.DEEP if args.deep else cases.LONG
    names = [c for c in args.cases.split(",") if c] or list(pool)
    unknown = [c for c in names if c not in cases.CASES]
    if unknown:
        raise SystemExit(f"unknown cases: {', '.join(unknown)}")
    sizes = ["deepest"] if args.deep else [s for s in args.sizes.split(",") if s]
    for python in [_interpreter(p) for p in args.python] or [sys.executable]:
        version = subprocess.run([python, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
                                 capture_output=True, text=True).stdout.strip()
        print(f"\nPython {version} ({python})\n")
        rows = []
        for name in names:
            for size in sizes:
                report = run_child(python, name, size, args.repeat, args.timeout)
                rows.append(_row(report))
                if not args.markdown:
                    print("  " + "  ".join(rows[-1]), file=sys.stderr, flush=True)
        _print_table(rows, args.markdown)


if __name__ == "__main__":
    main()
