#!/usr/bin/env python3
"""`make demo`: set up Python 3.11 with torch and run the main example.

The example is examples/seed_example.py (the blog post's example, then a prepare_debug dump);
while that file does not exist yet, examples/decompile_demo.py runs instead. Extra arguments
are passed to the example. It runs from the repository root, so its outputs
(explained_code.py, depyf_dump/) land there.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from envs import REPO, Env, EnvError, EnvSpec, log_dir  # noqa: E402
from pythons import discover  # noqa: E402

DEMO_PYTHON = "3.11"
DEMO_TORCH = "2.13.0"
EXAMPLES = ("examples/seed_example.py", "examples/decompile_demo.py")


def main(argv: list) -> int:
    found = discover()
    interp = found.chosen.get(DEMO_PYTHON)
    if interp is None:
        print("make demo needs CPython %s, which was not found:\n%s" % (DEMO_PYTHON, found.report()))
        return 2
    spec = EnvSpec(interp, torch=DEMO_TORCH)
    env = Env(spec)
    print("Environment: %s (%s)" % (spec.label, env.path), flush=True)
    try:
        env.ensure(log_dir() / ("%s.log" % spec.tag))
    except EnvError as exc:
        print("could not set up the environment: %s" % exc)
        return 2
    script = next(s for s in EXAMPLES if (REPO / s).exists() or s == EXAMPLES[-1])
    if not (REPO / script).exists():
        print("no example to run: %s is missing" % script)
        return 2
    print("Running %s with torch %s\n" % (script, env.torch_version), flush=True)
    # No TORCHINDUCTOR_FORCE_DISABLE_CACHES: prepare_debug turns the compilation caches off
    # itself, and that switch also disables PGO, for which torch warns on every run.
    run_env = dict(os.environ)
    run_env.pop("PYTHONPATH", None)
    return subprocess.call([str(env.python), script] + argv, cwd=str(REPO), env=run_env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
