"""Bounded runs of tools/fuzz_hostile.py on the running Python: mutated code objects through
`depyf.decompile`, damaged .pyc files through `depyf decompile`. Every failure kind (interpreter
crash, hang, escaped or internal exception, comment-mode text that does not compile, a name turned
into code, the input's code running, a multi-line error) must stay at 0. The cases depend only on
the seed: a failure here reproduces with `python tools/fuzz_hostile.py --kind K --seed S --count N`.
The long run is the same command with a larger --count (docs/robustness.md has its figures)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[2] / "tools" / "fuzz_hostile.py"
CASES = {"code": 250, "pyc": 150}


@pytest.mark.parametrize("kind", sorted(CASES))
def test_fuzzer_finds_nothing(kind: str) -> None:
    run = subprocess.run([sys.executable, str(TOOL), "--kind", kind, "--count", str(CASES[kind]), "--seed", "23",
                          "--json", "--case-seconds", "60"], capture_output=True, text=True, timeout=900)
    assert run.stdout.strip(), run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    examples = "\n".join(f"[{k}] {e[:600]}" for k, found in report["examples"].items() for e in found[:3])
    assert report["failures"] == 0, f"{report['counts']}\n{examples}"
    # (the run decompiled something: not every case was refused before reaching the decompiler)
    assert report["counts"].get("text", 0) > 0, report["counts"]
