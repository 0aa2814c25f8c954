"""Find the CPython interpreters installed on this machine.

The test runner, the demo and the benchmarks all need the same answer to "which Pythons do we
have?", so the search lives here: every `python3.X`/`python3`/`python` on PATH, every
interpreter under the pyenv root and those `debian_pythons.py` set up, one interpreter chosen
per minor version.

`SUPPORTED_MINORS` (3.8 to 3.13) is what every tool can count on. The newer minors (3.14, 3.15)
join the test runner's list once the checked-out decompiler has their tables
(`decompiler_minors()`), so that the runner follows the code instead of a list kept by hand.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import debian_pythons

SUPPORTED_MINORS: Tuple[str, ...] = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13")
NEWER_MINORS: Tuple[str, ...] = debian_pythons.MINORS
_SRC = Path(__file__).resolve().parent.parent / "src"
# Printed by a child interpreter: the checkout's own answer, whatever Python runs this module.
_SUPPORTED_PROBE = (
    "import sys; sys.path.insert(0, sys.argv[1])\n"
    "from depyf.decompiler.versions import SUPPORTED\n"
    "print(' '.join('%d.%d' % v for v in SUPPORTED))\n"
)

# Asked of each candidate; printing JSON keeps the parsing trivial and robust.
_PROBE = (
    "import json, platform, sys\n"
    "try:\n"
    "    import ensurepip, venv\n"
    "    has_venv = True\n"
    "except ImportError:\n"
    "    has_venv = False\n"
    "print(json.dumps({'impl': platform.python_implementation(),"
    " 'version': list(sys.version_info[:3]), 'release': sys.version_info.releaselevel,"
    " 'executable': sys.executable, 'has_venv': has_venv}))\n"
)


@dataclass(frozen=True)
class Interpreter:
    """One usable CPython found on the machine."""

    path: str
    version: Tuple[int, int, int]
    has_venv: bool

    @property
    def minor(self) -> str:
        return "%d.%d" % self.version[:2]

    @property
    def full_version(self) -> str:
        return "%d.%d.%d" % self.version


def _pyenv_root() -> Optional[Path]:
    """`pyenv root` when pyenv is installed, else `~/.pyenv` if it exists."""
    pyenv = shutil.which("pyenv")
    if pyenv:
        try:
            out = subprocess.run([pyenv, "root"], capture_output=True, text=True, timeout=30)
            if out.returncode == 0 and out.stdout.strip():
                return Path(out.stdout.strip())
        except (OSError, subprocess.SubprocessError):
            pass
    fallback = Path(os.environ.get("PYENV_ROOT", "~/.pyenv")).expanduser()
    return fallback if fallback.is_dir() else None


def decompiler_minors() -> Tuple[str, ...]:
    """The minors whose bytecode the checked-out decompiler reads (`versions.SUPPORTED`).

    Read in a child process so that a broken checkout only narrows the answer to
    `SUPPORTED_MINORS` (what the runner did before the newer tables existed)."""
    try:
        # (-S: no site-packages, so an installed depyf cannot answer for a missing checkout)
        out = subprocess.run([sys.executable, "-I", "-S", "-c", _SUPPORTED_PROBE, str(_SRC)],
                             capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return SUPPORTED_MINORS
    if out.returncode != 0 or not out.stdout.strip():
        return SUPPORTED_MINORS
    return tuple(out.stdout.split())


def test_minors() -> Tuple[str, ...]:
    """The minors the test runner covers: the base ones plus the newer ones the decompiler reads."""
    readable = decompiler_minors()
    return SUPPORTED_MINORS + tuple(m for m in NEWER_MINORS if m in readable)


def _candidates(minors: Sequence[str]) -> Iterable[str]:
    """Paths that may be CPython interpreters, best sources first."""
    root = _pyenv_root()
    if root is not None:
        for exe in sorted((root / "versions").glob("*/bin/python3")):
            yield str(exe)
    for minor in minors:
        if minor in NEWER_MINORS:
            # Only a set-up one that passes its smoke test; a half-unpacked prefix is not offered.
            found = debian_pythons.installed(minor)
            if found is not None:
                yield str(found)
    names = ["python%s" % m for m in minors] + ["python3", "python"]
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        # pyenv shims re-dispatch through pyenv's own version selection; the real binaries
        # were already listed above, so the shims only add slowness and ambiguity.
        if not directory or "shims" in Path(directory).parts:
            continue
        for name in names:
            exe = Path(directory) / name
            if exe.is_file() and os.access(str(exe), os.X_OK):
                yield str(exe)


def _probe(path: str) -> Optional[Interpreter]:
    try:
        out = subprocess.run([path, "-I", "-c", _PROBE], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    try:
        info = json.loads(out.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None
    if info.get("impl") != "CPython" or info.get("release") != "final":
        return None
    return Interpreter(path=path, version=tuple(info["version"]), has_venv=bool(info["has_venv"]))


@dataclass
class Discovery:
    """What the search found: the chosen interpreter per minor and what was passed over."""

    chosen: Dict[str, Interpreter]
    skipped: List[Tuple[str, str]]  # (path, why)
    minors: Tuple[str, ...] = SUPPORTED_MINORS  # what was looked for

    def missing(self) -> List[str]:
        return [m for m in self.minors if m not in self.chosen]

    def report(self) -> str:
        lines = []
        for minor in self.minors:
            interp = self.chosen.get(minor)
            if interp:
                lines.append("  Python %-5s found:   %s (%s)" % (minor, interp.path, interp.full_version))
            else:
                lines.append("  Python %-5s MISSING" % minor)
        for path, why in self.skipped:
            lines.append("  skipped %s: %s" % (path, why))
        return "\n".join(lines)


def discover(minors: Sequence[str] = SUPPORTED_MINORS) -> Discovery:
    """Probe every candidate once and keep the best interpreter per minor version of `minors`.

    Preference: one that can create virtual environments, then the newest patch release,
    then the first found (pyenv before PATH).
    """
    best: Dict[str, Interpreter] = {}
    skipped: List[Tuple[str, str]] = []
    seen_real: Dict[str, str] = {}
    for path in _candidates(minors):
        real = os.path.realpath(path)
        if real in seen_real:
            continue
        seen_real[real] = path
        interp = _probe(path)
        if interp is None:
            skipped.append((path, "not a working CPython release"))
            continue
        if interp.minor not in minors:
            skipped.append((path, "Python %s is not looked for (%s)" % (interp.full_version, " ".join(minors))))
            continue
        current = best.get(interp.minor)
        if current is None:
            best[interp.minor] = interp
            continue
        key_new = (interp.has_venv, interp.version)
        key_old = (current.has_venv, current.version)
        if key_new > key_old:
            skipped.append((current.path, "another %s was preferred" % current.minor))
            best[interp.minor] = interp
        else:
            skipped.append((path, "another %s was preferred" % interp.minor))
    for interp in best.values():
        if not interp.has_venv:
            skipped.append((interp.path, "warning: no venv/ensurepip module, environments may fail"))
    return Discovery(chosen=best, skipped=skipped, minors=tuple(minors))


if __name__ == "__main__":
    print(discover(test_minors()).report())
