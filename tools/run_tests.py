#!/usr/bin/env python3
"""Run depyf's whole test suite on every supported Python, with and without torch.

    python3 tools/run_tests.py                 # everything (what `make test` runs)
    python3 tools/run_tests.py --python 3.11   # only the environments on Python 3.11
    python3 tools/run_tests.py --suite base    # only the torch-free test directories
    python3 tools/run_tests.py -- -k roundtrip # extra arguments go to every pytest run

Environments (cached, see tools/envs.py):
  * "base" on each of CPython 3.8-3.13, and on 3.14/3.15 once the decompiler reads them
    (`versions.SUPPORTED` of the checkout): every test directory that needs no torch
    (tests/decompiler, tests/cli, ... anything under tests/ not named torch*);
  * "torch" on the (Python, torch) pairs of TORCH_MATRIX: the tests/torch* directories.

The last line of output is `N passed, N failed, N skipped`, summed over all environments; an
environment that cannot be built, a test directory where pytest collects nothing or crashes, and
(with CI=true) a missing interpreter each count as one failure, so that the line never looks
green when something did not run. The exit status is 1 when anything failed.

Environment variables: CI=true (every Python required; 3.14/3.15
are set up from Debian's packages by tools/debian_pythons.py), DEPYF_CACHE (where environments
live, default ~/.cache/depyf), DEPYF_TEST_TIMEOUT (seconds per test, default 300 without torch
and 600 with), DEPYF_DIR_TIMEOUT (seconds per test folder, default 2400).
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

import debian_pythons  # noqa: E402
from envs import REPO, Env, EnvError, EnvSpec, base_spec, log_dir  # noqa: E402
from pythons import NEWER_MINORS, discover, test_minors  # noqa: E402

# (Python minor, torch version): the combinations the project promises to work with.
TORCH_MATRIX: Tuple[Tuple[str, str], ...] = (
    ("3.11", "2.13.0"),
    ("3.11", "2.14.1"),
    ("3.12", "2.13.0"),
    ("3.13", "2.13.0"),
    # Run once the decompiler reads 3.14 (pythons.test_minors); skipped before, not failed.
    ("3.14", "2.13.0"),
)
# Test directories that must exist eventually; until they do they are reported, not failed.
EXPECTED_BASE_DIRS = ("decompiler", "cli", "report")
EXPECTED_TORCH_DIRS = ("torch",)
# Seconds one test may take before pytest-timeout fails it, so that a hang costs minutes, not
# the CI budget; torch tests compile, decompiler tests should be quick.
PER_TEST_TIMEOUT_S = {"base": 300, "torch": 600}
if os.environ.get("DEPYF_TEST_TIMEOUT"):
    PER_TEST_TIMEOUT_S = dict.fromkeys(PER_TEST_TIMEOUT_S, int(os.environ["DEPYF_TEST_TIMEOUT"]))
PER_DIR_TIMEOUT_S = int(os.environ.get("DEPYF_DIR_TIMEOUT", "2400"))


def needs_torch(directory: str) -> bool:
    return directory.startswith("torch")


def test_dirs(torch: bool) -> List[str]:
    """Directories of tests/ for one kind of environment: the expected ones plus any other."""
    expected = EXPECTED_TORCH_DIRS if torch else EXPECTED_BASE_DIRS
    found = sorted(
        p.name
        for p in (REPO / "tests").iterdir()
        if p.is_dir() and not p.name.startswith((".", "_")) and needs_torch(p.name) == torch
    )
    return list(expected) + [d for d in found if d not in expected]


@dataclass
class DirResult:
    directory: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    note: str = ""
    seconds: float = 0.0


@dataclass
class EnvResult:
    label: str
    python: str = ""
    torch: str = ""
    setup: str = ""
    problem: str = ""  # why the environment did not run (counted as one failure)
    seconds: float = 0.0
    dirs: List[DirResult] = field(default_factory=list)

    def totals(self) -> Tuple[int, int, int]:
        passed = sum(d.passed for d in self.dirs)
        failed = sum(d.failed for d in self.dirs) + (1 if self.problem else 0)
        skipped = sum(d.skipped for d in self.dirs)
        return passed, failed, skipped


def _read_junit(path: Path) -> Optional[Tuple[int, int, int, int]]:
    """(tests, failures+errors, skipped, passed) from pytest's JUnit XML, or None if unreadable."""
    try:
        root = ET.parse(str(path)).getroot()
    except (OSError, ET.ParseError):
        return None
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    tests = failed = skipped = 0
    for suite in suites:
        tests += int(suite.get("tests", 0))
        failed += int(suite.get("failures", 0)) + int(suite.get("errors", 0))
        skipped += int(suite.get("skipped", 0))
    return tests, failed, skipped, max(tests - failed - skipped, 0)


def run_dir(env: Env, directory: str, pytest_args: Sequence[str]) -> DirResult:
    result = DirResult(directory)
    path = REPO / "tests" / directory
    if not path.is_dir():
        result.note = "not present yet"
        return result
    with tempfile.TemporaryDirectory(prefix="depyf-junit-") as tmp:
        junit = Path(tmp) / "junit.xml"
        cmd = [
            str(env.python), "-m", "pytest", "-p", "no:cacheprovider", "-q", "--tb=short", "-rfE",
            "--junitxml", str(junit), "--timeout", str(PER_TEST_TIMEOUT_S["torch" if env.spec.torch else "base"]),
            "tests/%s" % directory,
        ] + list(pytest_args)
        run_env = dict(os.environ, TORCHINDUCTOR_FORCE_DISABLE_CACHES="1", PYTHONUNBUFFERED="1")
        run_env.pop("PYTHONPATH", None)
        print("\n--- [%s] tests/%s" % (env.spec.label, directory), flush=True)
        started = time.monotonic()
        # A new session lets a timeout kill pytest together with anything it started.
        proc = subprocess.Popen(cmd, cwd=str(REPO), env=run_env, start_new_session=True)
        try:
            rc = proc.wait(timeout=PER_DIR_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            rc = None
        result.seconds = time.monotonic() - started
        counts = _read_junit(junit)
    if counts is not None:
        _, result.failed, result.skipped, result.passed = counts
    if rc is None:
        result.note = "killed after %ds" % PER_DIR_TIMEOUT_S
        result.failed += 1
    elif rc == 5:
        result.note = "no tests collected"
        result.failed += 1
    elif rc != 0 and result.failed == 0:
        # pytest itself broke (usage error, internal error, crash): not a pass.
        result.note = "pytest exited with %d" % rc
        result.failed += 1
    return result


def run_env(spec: EnvSpec, dirs: Sequence[str], pytest_args: Sequence[str]) -> EnvResult:
    result = EnvResult(spec.label, python=spec.interpreter.full_version)
    started = time.monotonic()
    try:
        _run_env_into(result, spec, dirs, pytest_args)
    finally:
        result.seconds = time.monotonic() - started
    return result


def _run_env_into(result: EnvResult, spec: EnvSpec, dirs: Sequence[str], pytest_args: Sequence[str]) -> None:
    env = Env(spec)
    print("\n=== %s (%s)" % (spec.label, spec.interpreter.path), flush=True)
    try:
        result.setup = env.ensure(log_dir() / ("%s.log" % spec.tag))
    except EnvError as exc:
        result.problem = "environment could not be set up: %s" % exc
        print("    " + result.problem, flush=True)
        return
    result.torch = env.torch_version or ""
    for directory in dirs:
        result.dirs.append(run_dir(env, directory, pytest_args))


def summarize(results: List[EnvResult], problems: List[str], elapsed: float) -> Tuple[List[str], int]:
    """The summary lines (the last one is `N passed, N failed[, N skipped]`) and the failure count."""
    lines = ["=" * 78, "Summary (%.0f s)" % elapsed]
    total_p = total_f = total_s = 0
    for res in results:
        p, f, s = res.totals()
        total_p, total_f, total_s = total_p + p, total_f + f, total_s + s
        extra = " torch %s" % res.torch if res.torch else ""
        status = "FAIL" if f else "ok"
        lines.append("  %-4s %-28s python %s%s [%s, %.0fs]"
                     % (status, res.label, res.python, extra, res.setup or "not set up", res.seconds))
        if res.problem:
            lines.append("         %s" % res.problem.splitlines()[0])
        for d in res.dirs:
            if d.note == "not present yet":
                lines.append("         tests/%-14s not present yet" % d.directory)
                continue
            note = "  (%s)" % d.note if d.note else ""
            lines.append("         tests/%-14s %5d passed, %5d failed, %4d skipped  %6.1fs%s"
                         % (d.directory, d.passed, d.failed, d.skipped, d.seconds, note))
    for problem in problems:
        total_f += 1
        lines.append("  FAIL %s" % problem)
    last = "%d passed, %d failed" % (total_p, total_f)
    if total_s:
        last += ", %d skipped" % total_s
    lines.append(last)
    return lines, total_f


def print_summary(results: List[EnvResult], problems: List[str], elapsed: float) -> int:
    lines, failures = summarize(results, problems, elapsed)
    text = "\n".join(lines) + "\n"
    # Kept next to the environment logs, so the latest result can be read without rerunning.
    try:
        log_dir().mkdir(parents=True, exist_ok=True)
        (log_dir() / "last-summary.txt").write_text(text)
    except OSError:
        pass
    sys.stdout.write("\n" + text)
    sys.stdout.flush()
    return 1 if failures else 0


def set_up_newer(minors: Sequence[str], problems: List[str]) -> None:
    """On CI: set up the newer Pythons the decompiler reads before discovery looks for them."""
    for minor in minors:
        if minor not in NEWER_MINORS or debian_pythons.installed(minor) is not None:
            continue
        try:
            debian_pythons.setup(minor, log=lambda m: print("    " + m, flush=True))
        except debian_pythons.SetupError as exc:
            problems.append("Python %s could not be set up: %s" % (minor, str(exc).splitlines()[0]))


def newer_pythons(ci: bool, problems: List[str], tested: Sequence[str]) -> List[Path]:
    """Interpreters the decompiler has no tables for (set up from Debian's packages on CI):
    tests/versions checks the one clear error they get. Those in `tested` are not among them."""
    found: List[Path] = []
    for minor in debian_pythons.MINORS:
        if minor in tested:
            continue
        python = debian_pythons.find(minor)
        if python is None and ci:
            try:
                python = debian_pythons.setup(minor, log=lambda m: print("    " + m, flush=True))
            except debian_pythons.SetupError as exc:
                problems.append("Python %s could not be set up: %s" % (minor, str(exc).splitlines()[0]))
                continue
        if python is None:
            print("note: Python %s not found (python3 tools/debian_pythons.py sets it up); "
                  "its checks are skipped" % minor)
            continue
        print("  Python %-5s found:   %s (newer than supported: checked for a clear error)" % (minor, python))
        found.append(python)
    return found


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", action="append", default=[],
                        help="only these Python minors (3.11, or 3.11,3.12); repeatable")
    parser.add_argument("--suite", choices=("all", "base", "torch"), default="all",
                        help="base: torch-free environments only; torch: torch environments only")
    parser.add_argument("--host-only", action="store_true",
                        help="only the Python running this script, torch-free suite (quick check)")
    parser.add_argument("pytest_args", nargs="*", help="passed to every pytest run (after --)")
    return parser.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    started = time.monotonic()
    wanted = {m.strip() for item in args.python for m in item.split(",") if m.strip()}
    if args.host_only:
        wanted = {"%d.%d" % sys.version_info[:2]}
        args.suite = "base"
    minors = test_minors()
    unknown = wanted - set(minors)
    if unknown:
        print("unsupported Python version(s): %s" % ", ".join(sorted(unknown)))
        return 2

    ci = os.environ.get("CI", "").lower() in ("1", "true", "yes")
    problems: List[str] = []
    if ci:
        set_up_newer([m for m in minors if not wanted or m in wanted], problems)
    found = discover(minors)
    print("Interpreters:")
    print(found.report(), flush=True)
    for minor in found.missing():
        if wanted and minor not in wanted:
            continue
        if ci:
            problems.append("Python %s is required on CI and was not found" % minor)
        else:
            print("note: Python %s not found; its environments are skipped" % minor)

    if args.suite in ("all", "base"):
        newer = newer_pythons(ci, problems, minors)
        # Read by tests/versions: what a Python depyf has no tables for is told.
        os.environ["DEPYF_NEWER_PYTHONS"] = os.pathsep.join(str(p) for p in newer)

    plan: List[Tuple[EnvSpec, List[str]]] = []
    if args.suite in ("all", "base"):
        for minor in minors:
            if (not wanted or minor in wanted) and minor in found.chosen:
                plan.append((base_spec(found.chosen[minor]), test_dirs(torch=False)))
    if args.suite in ("all", "torch"):
        for minor, torch in TORCH_MATRIX:
            if wanted and minor not in wanted:
                continue
            if minor not in minors:
                print("note: torch %s on Python %s skipped: the decompiler does not read %s yet" % (torch, minor, minor))
                continue
            if minor not in found.chosen:
                if minor in NEWER_MINORS and not ci:
                    print("note: torch %s on Python %s skipped: Python %s not found" % (torch, minor, minor))
                    continue
                problems.append("torch %s on Python %s: interpreter not found" % (torch, minor))
                continue
            plan.append((EnvSpec(found.chosen[minor], torch=torch), test_dirs(torch=True)))

    results = [run_env(spec, dirs, args.pytest_args) for spec, dirs in plan]
    if not plan and not problems:
        problems.append("nothing to run for the given filters")
    return print_summary(results, problems, time.monotonic() - started)


if __name__ == "__main__":
    sys.exit(main())
