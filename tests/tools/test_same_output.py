"""tools/same_output.py: the refactor check records the decompiled text of stdlib code objects and
finds any that changed; code objects nesting a huge frame can be left out, the same in both runs."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "tools" / "same_output.py"
sys.path.insert(0, str(REPO / "tools"))

import same_output  # noqa: E402


def _record(out: Path, *extra: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(REPO / "src"))
    return subprocess.run([sys.executable, str(TOOL), "record", str(out), "--limit", "2", *extra],
                          env=env, capture_output=True, text=True, timeout=300)


def test_two_records_of_one_tree_agree_and_a_change_is_found(tmp_path: Path) -> None:
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    assert _record(first).returncode == 0 and _record(second).returncode == 0
    rows = first.read_text(encoding="utf-8").splitlines()
    assert rows and all("\t" in row for row in rows)
    assert same_output.compare(first, second) == 0
    key, _, digest = rows[-1].partition("\t")
    second.write_text("\n".join(rows[:-1] + [f"{key}\t{'0' * len(digest)}"]) + "\n", encoding="utf-8")
    assert same_output.compare(first, second) == 1


def test_code_over_the_locals_cap_is_recorded_as_skipped(tmp_path: Path) -> None:
    out = tmp_path / "capped.txt"
    result = _record(out, "--max-locals", "1")
    assert result.returncode == 0, result.stderr
    digests = [row.partition("\t")[2] for row in out.read_text(encoding="utf-8").splitlines()]
    assert "skipped" in digests and any(d != "skipped" for d in digests)  # (a module has no locals)


def test_most_locals_counts_nested_code() -> None:
    module = compile("def f():\n    def g(a, b, c):\n        d = 1\n    return g\n", "<m>", "exec")
    assert same_output._most_locals(module) == 4


def test_recording_needs_a_fixed_hash_seed(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONHASHSEED="1", PYTHONPATH=str(REPO / "src"))
    result = subprocess.run([sys.executable, str(TOOL), "record", str(tmp_path / "x.txt")],
                            env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "PYTHONHASHSEED=0" in result.stderr
