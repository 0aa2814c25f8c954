"""The gate (tools/gate.py): its comparison catches regressions and accepts improvements, and a
real run records, reuses and judges the code of the worktree it is run from.

Torch-free; the end-to-end run measures four fuzz programs on the running interpreter only.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, Tuple

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

from gatelib import compare, outcomes  # noqa: E402
from gatelib.store import Record, Recording, Slice  # noqa: E402


def _slice(records: Dict[str, Tuple[str, str]], units=("m",), version: str = "3.11") -> Slice:
    """A synthetic slice: key -> (outcome, text)."""
    piece = Slice("sweep", version, version + ".0", units={u: "digest-" + u for u in units})
    for key, (outcome, text) in records.items():
        sha = f"sha-{text}" if text else None
        piece.records[key] = Record(outcome, "" if outcome == outcomes.EQUAL else f"why {key}", sha)
        if sha:
            piece.texts[sha] = text
    return piece


BEFORE = {
    "m::f": (outcomes.EQUAL, "f1"),
    "m::g": (outcomes.DIFFERS, "g1"),
    "m::h": (outcomes.DECOMPILE_ERROR, ""),
    "m::k": (outcomes.EQUAL, "k1"),
    "m::w": (outcomes.RUNS_SAME, "w1"),
}


def _recording(tmp_path: Path, name: str, piece: Slice) -> Recording:
    recording = Recording(name, tmp_path)
    recording.write_meta({"name": name})
    recording.save_slice(piece)
    return recording


def _changes(after: Dict[str, Tuple[str, str]]) -> compare.SliceComparison:
    return compare.compare_slices(_slice(BEFORE), _slice(after))


def test_an_unchanged_run_passes() -> None:
    result = _changes(dict(BEFORE))
    assert (result.regressions, result.improvements, result.text_changes, result.new) == ([], [], [], [])
    assert result.before == result.after


@pytest.mark.parametrize("key, after", [
    ("m::f", (outcomes.DIFFERS, "f2")),  # equal -> other bytecode
    ("m::f", (outcomes.NO_COMPILE, "f2")),  # equal -> does not compile
    ("m::g", (outcomes.DECOMPILE_ERROR, "")),  # decompiled -> error
    ("m::g", (outcomes.RUNS_DIFFERENTLY, "g2")),  # anything -> runs differently
    ("m::h", (outcomes.RUNS_DIFFERENTLY, "h2")),  # even from an error
    ("m::w", (outcomes.RUNS_DIFFERENTLY, "w2")),
])
def test_a_worse_outcome_is_a_regression(key: str, after: Tuple[str, str]) -> None:
    run = dict(BEFORE, **{key: after})
    result = _changes(run)
    assert [c.key for c in result.regressions] == [key]
    assert result.regressions[0].after.outcome == after[0]
    assert not result.improvements


def test_a_definition_missing_from_a_unit_that_ran_is_a_regression() -> None:
    run = dict(BEFORE)
    del run["m::k"]
    result = _changes(run)
    assert [(c.key, c.after) for c in result.regressions] == [("m::k", None)]


def test_improvements_and_text_changes_pass() -> None:
    run = dict(BEFORE, **{"m::g": (outcomes.EQUAL, "g2"), "m::h": (outcomes.DIFFERS, "h2"),
                          "m::k": (outcomes.EQUAL, "k2"), "m::new": (outcomes.EQUAL, "n1")})
    result = _changes(run)
    assert result.regressions == []
    assert sorted(c.key for c in result.improvements) == ["m::g", "m::h"]
    assert [c.key for c in result.text_changes] == ["m::k"]
    assert result.new == ["m::new"]
    assert (result.before[outcomes.EQUAL], result.after[outcomes.EQUAL]) == (2, 4)


def test_units_the_run_did_not_have_are_not_judged() -> None:
    before = _slice(dict(BEFORE, **{"other::x": (outcomes.EQUAL, "x1")}), units=("m", "other"))
    result = compare.compare_slices(before, _slice(dict(BEFORE)))
    assert result.regressions == [] and result.units_not_run == ["other"]


def test_compare_command_exit_status_and_report(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("DEPYF_CACHE", str(tmp_path))
    root = tmp_path / "gate"
    _recording(root, "base", _slice(BEFORE))
    _recording(root, "better", _slice(dict(BEFORE, **{"m::h": (outcomes.EQUAL, "h2")})))
    _recording(root, "worse", _slice(dict(BEFORE, **{"m::f": (outcomes.DIFFERS, "f2")})))
    import gate

    assert gate.main(["compare", "base", "better"]) == 0
    report = capsys.readouterr().out
    assert "Improvements:" in report and "sweep 3.11 m::h: error (why m::h) -> equal" in report
    assert "gate: passed" in report
    assert gate.main(["compare", "base", "worse", "--diff"]) == 1
    report = capsys.readouterr().out
    assert "REGRESSIONS" in report and "sweep 3.11 m::f: equal -> other bytecode (why m::f)" in report
    assert "-f1" in report and "+f2" in report  # the text diff
    # equal 2 -> 1, runs same 1, other bytecode 1 -> 2, error 1; worse 1, better 0, text 0
    assert "| sweep | 3.11 | 5 | 2 -> 1 | 1 | 1 -> 2 | 1 | 1 | 0 | 0 |" in report


# --------------------------------------------------------------------------------------------
# End to end: four fuzz programs on this interpreter


def _gate(cache: Path, root: Path, *argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, DEPYF_CACHE=str(cache))
    env.pop("PYTHONPATH", None)
    command = [sys.executable, str(root / "tools" / "gate.py"), *argv]
    if argv[0] in ("record", "check"):
        command += ["--python", sys.executable, "--corpus", "fuzz", "--fuzz-seeds", "0-3", "--nice", "0",
                    "--jobs", "1"]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=env, cwd=str(root))


def _broken_copy(tmp_path: Path) -> Path:
    """This repository's gate, checks and decompiler, with a decompiler whose output computes
    something else (every fuzz program's log starts with an extra entry)."""
    copy = tmp_path / "worktree"
    for part in ("src", "tools", "benchmarks", "tests/decompiler"):
        shutil.copytree(str(REPO / part), str(copy / part),
                        ignore=shutil.ignore_patterns("__pycache__", "*.marshal", "golden"))
    init = copy / "src" / "depyf" / "__init__.py"
    init.write_text(init.read_text() + (
        "\n_right = decompile\n\n"
        "def decompile(*args, **kwargs):\n"
        "    return _right(*args, **kwargs).replace('log = []', 'log = [0]')\n"))
    return copy


def test_end_to_end_record_check_and_a_broken_worktree(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    done = _gate(cache, REPO, "record", "--name", "base")
    assert done.returncode == 0, done.stderr + done.stdout
    assert (cache / "gate" / "base" / "fuzz").is_dir()
    minor = "%d.%d" % sys.version_info[:2]
    assert f"| fuzz | {minor}." in done.stdout

    same = _gate(cache, REPO, "check", "--against", "base")
    assert same.returncode == 0, same.stderr + same.stdout
    assert "gate: passed: 0 regression(s)" in same.stdout
    assert "4 recorded verdicts reusable from base" in same.stderr

    broken = _gate(cache, _broken_copy(tmp_path), "check", "--against", "base", "--save", "broken")
    assert broken.returncode == 1, broken.stderr + broken.stdout
    assert "gate: FAILED: " in broken.stdout
    # (a program that raises before it returns its log runs the same: it only compiles to other code)
    worse = [line for line in broken.stdout.splitlines() if line.startswith(f"  fuzz {minor} ")]
    wrong = [line for line in worse if " -> runs differently (f(" in line]
    assert wrong and all(" -> runs differently (f(" in line or " -> other bytecode (" in line for line in worse)

    seed = wrong[0].split()[2].rstrip(":")
    shown = _gate(cache, REPO, "show", "broken", "--key", seed)
    assert f"fuzz {minor} {seed}: runs_differently" in shown.stdout and "log = [0]" in shown.stdout
