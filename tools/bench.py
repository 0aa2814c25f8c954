#!/usr/bin/env python3
"""`make bench`: run benchmarks/run_all.py, telling it which interpreters this machine has.

The interpreters found by tools/pythons.py (one per CPython minor the checked-out decompiler
reads, `pythons.test_minors()`) are passed in the environment variable DEPYF_PYTHONS,
os.pathsep-separated, oldest first; every argument is passed through to run_all.py unchanged. run_all.py runs with the Python that runs this script.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from envs import REPO  # noqa: E402
from pythons import discover, test_minors  # noqa: E402

RUNNER = REPO / "benchmarks" / "run_all.py"


def main(argv: list) -> int:
    if not RUNNER.exists():
        print("%s does not exist yet" % RUNNER.relative_to(REPO))
        return 2
    minors = test_minors()
    found = discover(minors)
    print("Interpreters:\n%s" % found.report(), flush=True)
    paths = [found.chosen[m].path for m in minors if m in found.chosen]
    env = dict(os.environ, DEPYF_PYTHONS=os.pathsep.join(paths))
    return subprocess.call([sys.executable, str(RUNNER)] + argv, cwd=str(REPO), env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
