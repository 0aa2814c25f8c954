"""Which environments `tools/run_tests.py` plans, as the decompiler's supported versions change.

3.14 and 3.15 must join the run (torch-free suites on both, torch 2.13 on 3.14) exactly when
`depyf.decompiler.versions.SUPPORTED` of the checkout includes them, and until then run only
tests/versions. Interpreters and environments are stubbed: nothing is probed, built or run.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

import pythons  # noqa: E402
import run_tests  # noqa: E402

VERSIONS = {"3.8": (3, 8, 18), "3.9": (3, 9, 18), "3.10": (3, 10, 13), "3.11": (3, 11, 7),
            "3.12": (3, 12, 1), "3.13": (3, 13, 0), "3.14": (3, 14, 10), "3.15": (3, 15, 2)}


def _plan(monkeypatch: pytest.MonkeyPatch, readable: Sequence[str], installed: Sequence[str],
          argv: List[str], ci: bool = False) -> Tuple[List[str], str, int]:
    """(environment tags run, DEPYF_NEWER_PYTHONS, exit status) for a decompiler reading `readable`
    on a machine where the minors `installed` exist."""
    monkeypatch.setattr(pythons, "decompiler_minors", lambda: tuple(readable))

    def discover(minors: Sequence[str] = pythons.SUPPORTED_MINORS) -> pythons.Discovery:
        chosen = {m: pythons.Interpreter("/fake/python" + m, VERSIONS[m], True) for m in minors if m in installed}
        return pythons.Discovery(chosen=chosen, skipped=[], minors=tuple(minors))

    newer = {m: Path("/fake/python" + m) for m in installed if m in pythons.NEWER_MINORS}
    monkeypatch.setattr(run_tests, "discover", discover)
    monkeypatch.setattr(run_tests.debian_pythons, "find", newer.get)
    monkeypatch.setattr(run_tests.debian_pythons, "installed", newer.get)
    setups: List[str] = []
    monkeypatch.setattr(run_tests.debian_pythons, "setup", lambda m, log=None: setups.append(m) or Path("/x"))
    monkeypatch.setattr(run_tests, "print_summary", lambda results, problems, elapsed: len(problems))
    ran: List[str] = []

    def run_env(spec, dirs, args):
        ran.append(spec.tag)
        return run_tests.EnvResult(spec.label)

    monkeypatch.setattr(run_tests, "run_env", run_env)
    monkeypatch.setenv("CI", "true" if ci else "")
    monkeypatch.delenv("DEPYF_NEWER_PYTHONS", raising=False)
    status = run_tests.main(argv)
    return ran, os.environ.get("DEPYF_NEWER_PYTHONS", ""), status


BASE = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13")


def test_before_the_decompiler_reads_them_only_tests_versions_sees_them(monkeypatch: pytest.MonkeyPatch) -> None:
    ran, newer, status = _plan(monkeypatch, BASE, BASE + ("3.14", "3.15"), [])
    assert not [t for t in ran if t.startswith(("py3.14", "py3.15"))]
    assert "py3.13-torch2.13.0" in ran
    assert newer.split(":") == ["/fake/python3.14", "/fake/python3.15"]
    assert status == 0  # the 3.14 torch row is skipped, not failed


def test_once_supported_every_suite_runs_there(monkeypatch: pytest.MonkeyPatch) -> None:
    ran, newer, status = _plan(monkeypatch, BASE + ("3.14", "3.15"), BASE + ("3.14", "3.15"), [])
    assert {"py3.14-base", "py3.15-base", "py3.14-torch2.13.0"} <= set(ran)
    assert "py3.15-torch2.13.0" not in ran  # torch has no 3.15 wheel
    assert newer == ""
    assert status == 0


def test_only_one_supported_keeps_the_other_on_the_error_check(monkeypatch: pytest.MonkeyPatch) -> None:
    ran, newer, _ = _plan(monkeypatch, BASE + ("3.14",), BASE + ("3.14", "3.15"), ["--suite", "base"])
    assert "py3.14-base" in ran and "py3.15-base" not in ran
    assert newer == "/fake/python3.15"


def test_missing_newer_python_is_skipped_off_ci_and_a_failure_on_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    ran, _, status = _plan(monkeypatch, BASE + ("3.14", "3.15"), BASE, [])
    assert not [t for t in ran if t.startswith(("py3.14", "py3.15"))]
    assert status == 0
    _, _, status = _plan(monkeypatch, BASE + ("3.14", "3.15"), BASE, [], ci=True)
    assert status == 3  # 3.14 and 3.15 base, and torch on 3.14: each one failure


def test_a_broken_checkout_counts_as_the_base_versions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pythons, "_SRC", Path("/nonexistent"))
    assert pythons.decompiler_minors() == pythons.SUPPORTED_MINORS


def test_the_checkouts_own_versions_are_planned_on_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the checkout's real `versions.SUPPORTED` (read by a child process, not stubbed), CI
    runs the torch-free suites on every newer minor it lists, torch 2.13 on 3.14 among them, and
    the one-line-error check on the others."""
    from depyf.decompiler.versions import SUPPORTED

    readable = pythons.decompiler_minors()
    assert readable == tuple("%d.%d" % key for key in SUPPORTED)
    ran, newer, status = _plan(monkeypatch, readable, BASE + ("3.14", "3.15"), [], ci=True)
    for minor in ("3.14", "3.15"):
        assert ("py%s-base" % minor in ran) == (minor in readable), ran
        assert (("/fake/python" + minor) in newer.split(":")) == (minor not in readable), newer
    assert ("py3.14-torch2.13.0" in ran) == ("3.14" in readable), ran
    assert status == 0
