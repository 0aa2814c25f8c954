"""Cached virtual environments for tests, the demo and the benchmarks.

Each environment lives outside the repository (`$DEPYF_CACHE` or `~/.cache/depyf`, under
`venvs/<tag>`) so that a fresh checkout reuses what an earlier run set up: the torch wheels are
several gigabytes and must be downloaded and unpacked once, not on every run.

An environment is reused when its stamp file says it was built from the same interpreter and
the same requirements and a quick health check passes. When only the checkout or
`pyproject.toml` changed, depyf is reinstalled (seconds) and torch stays; anything else, or a
broken environment, is deleted and built again.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Tuple

import debian_pythons
from pythons import Interpreter

REPO = Path(__file__).resolve().parent.parent
# Bumped when the way environments are built changes, so old caches are rebuilt.
LAYOUT_VERSION = 1
TEST_REQUIREMENTS: Tuple[str, ...] = ("pytest", "pytest-timeout")
# The report colours code with Pygments when it is installed (the `report` extra) and shows plain
# text without it; both must be tested. pytest >= 8.4 (Python 3.9+) already pulls Pygments in,
# pytest 8.3 on 3.8 does not: 3.8 is the "without" case, and these base environments ask for
# Pygments by name so that "with" stays tested whatever pytest depends on. Only some minors, so
# that adding it rebuilt few cached environments (torch environments are untouched).
BASE_EXTRAS = {"3.10": ("pygments",), "3.12": ("pygments",)}


def base_spec(interpreter: "Interpreter") -> "EnvSpec":
    """The torch-free test environment of one interpreter."""
    return EnvSpec(interpreter, extra=BASE_EXTRAS.get(interpreter.minor, ()))


def cache_root() -> Path:
    explicit = os.environ.get("DEPYF_CACHE")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or "~/.cache"
    return Path(base).expanduser() / "depyf"


@dataclass(frozen=True)
class EnvSpec:
    """What one environment must contain."""

    interpreter: Interpreter
    torch: Optional[str] = None  # a torch version, or None for a torch-free environment
    extra: Tuple[str, ...] = field(default_factory=tuple)

    @property
    def tag(self) -> str:
        kind = "torch%s" % self.torch if self.torch else "base"
        return "py%s-%s" % (self.interpreter.minor, kind)

    @property
    def label(self) -> str:
        if self.torch:
            return "Python %s + torch %s" % (self.interpreter.minor, self.torch)
        return "Python %s" % self.interpreter.minor

    def requirements(self) -> List[str]:
        reqs = list(TEST_REQUIREMENTS) + list(self.extra)
        if self.torch:
            # numpy silences torch's "numpy is not available" warning and is used by examples.
            reqs += ["torch==%s" % self.torch, "numpy"]
        return reqs


class EnvError(Exception):
    """An environment could not be built; the message says which step failed."""


def _digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError:
        return "missing"


def _stamp(spec: EnvSpec) -> dict:
    """What an environment was built from. A change under "project" only needs depyf
    reinstalled; any other change needs the environment rebuilt."""
    return {
        "layout": LAYOUT_VERSION,
        "interpreter": spec.interpreter.path,
        "interpreter_version": spec.interpreter.full_version,
        "requirements": spec.requirements(),
        "project": {"repo": str(REPO), "pyproject": _digest(REPO / "pyproject.toml")},
    }


# Run inside the environment: depyf must come from this checkout (editable install) and the
# torch version must be the one asked for. Nothing is imported: a depyf that is broken at the
# moment, or a slow torch import, must not make a good environment look stale.
_HEALTH = (
    "import json, importlib.util\n"
    "from importlib import metadata\n"
    "assert importlib.util.find_spec('pytest') is not None\n"
    "spec = importlib.util.find_spec('depyf')\n"
    "torch = None\n"
    "try:\n"
    "    torch = metadata.version('torch')\n"
    "except metadata.PackageNotFoundError:\n"
    "    pass\n"
    "print(json.dumps({'depyf': spec.origin if spec else '', 'torch': torch}))\n"
)


class Env:
    """A built (or to-be-built) environment."""

    def __init__(self, spec: EnvSpec) -> None:
        self.spec = spec
        self.path = cache_root() / "venvs" / spec.tag
        self.python = self.path / "bin" / "python"
        self.torch_version: Optional[str] = None

    def _health(self) -> Optional[dict]:
        if not self.python.exists():
            return None
        try:
            out = subprocess.run(
                [str(self.python), "-c", _HEALTH], capture_output=True, text=True, timeout=120, cwd="/"
            )
        except (OSError, subprocess.SubprocessError):
            return None
        if out.returncode != 0:
            return None
        try:
            return json.loads(out.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return None

    def state(self) -> str:
        """"ready", "reinstall" (only depyf's editable install is stale) or "rebuild"."""
        try:
            stamp = json.loads((self.path / "depyf-env.json").read_text())
        except (OSError, ValueError):
            return "rebuild"
        wanted = _stamp(self.spec)
        if not isinstance(stamp, dict) or any(stamp.get(k) != v for k, v in wanted.items() if k != "project"):
            return "rebuild"
        info = self._health()
        if info is None:
            return "rebuild"
        if self.spec.torch:
            installed = info.get("torch") or ""
            # A local build such as 2.13.0+cpu satisfies a request for 2.13.0.
            if installed.split("+")[0] != self.spec.torch:
                return "rebuild"
        self.torch_version = info.get("torch")
        if stamp.get("project") != wanted["project"]:
            return "reinstall"
        if not str(info.get("depyf", "")).startswith(str(REPO / "src")):
            return "reinstall"
        return "ready"

    def is_ready(self) -> bool:
        return self.state() == "ready"

    def ensure(self, log: Path) -> str:
        """Make the environment usable; returns "reused", "reinstalled" or "built". Raises EnvError."""
        state = self.state()
        if state == "ready":
            return "reused"
        log.parent.mkdir(parents=True, exist_ok=True)
        pip = [str(self.python), "-m", "pip", "install", "--progress-bar", "off"]
        started = time.monotonic()
        if state == "reinstall":
            # pyproject.toml or the checkout moved: the heavy requirements (torch) stay.
            print("    reinstalling depyf into %s (log: %s)" % (self.path, log), flush=True)
            with log.open("a") as out:
                self._step(out, "install depyf (editable)", pip + ["--no-deps", "-e", str(REPO)], 600)
            result = "reinstalled"
        else:
            print("    building %s in %s (log: %s)" % (self.spec.label, self.path, log), flush=True)
            if self.path.exists():
                shutil.rmtree(self.path, ignore_errors=True)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with log.open("w") as out:
                self._create(out)
                # The pip bundled with 3.8 predates some metadata formats; a current pip also
                # resolves the torch wheels faster.
                self._step(out, "upgrade pip", [str(self.python), "-m", "pip", "install", "-U", "pip"], 600)
                self._step(out, "install requirements", pip + self.spec.requirements(), 3600)
                self._step(out, "install depyf (editable)", pip + ["--no-deps", "-e", str(REPO)], 600)
            result = "built"
        # Written before the final check so that state() can compare it; removed on failure.
        stamp_file = self.path / "depyf-env.json"
        stamp_file.write_text(json.dumps(_stamp(self.spec), indent=1))
        if self.state() != "ready":
            stamp_file.unlink()
            raise EnvError("the environment fails its health check after setup (see %s)" % log)
        print("    %s in %.0fs" % (result, time.monotonic() - started), flush=True)
        return result

    def _create(self, out) -> None:
        """The bare venv with a pip in it. An interpreter unpacked by debian_pythons has no
        usable ensurepip (Debian strips its bundled wheels): pip is installed from the wheel
        saved beside it instead, by running pip from that wheel."""
        interpreter = self.spec.interpreter.path
        wheel = debian_pythons.pip_wheel_for(Path(interpreter))
        if wheel is None:
            self._step(out, "create venv", [interpreter, "-m", "venv", str(self.path)], 300)
            return
        self._step(out, "create venv", [interpreter, "-m", "venv", "--without-pip", str(self.path)], 300)
        self._step(out, "install pip from its wheel",
                   [str(self.python), str(wheel) + "/pip", "install", "--progress-bar", "off", str(wheel)], 600)

    def _step(self, out, what: str, cmd: List[str], timeout: int) -> None:
        out.write("$ %s\n" % " ".join(cmd))
        out.flush()
        env = dict(os.environ, PIP_NO_INPUT="1")
        env.pop("PYTHONPATH", None)
        try:
            proc = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, timeout=timeout, env=env, cwd=str(REPO))
        except subprocess.TimeoutExpired:
            raise EnvError("%s: timed out after %ds" % (what, timeout))
        except OSError as exc:
            raise EnvError("%s: %s" % (what, exc))
        if proc.returncode != 0:
            out.flush()
            raise EnvError("%s failed (exit %d):\n%s" % (what, proc.returncode, _tail(Path(out.name))))


def _tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return "\n".join("      " + line for line in text[-lines:])


def log_dir() -> Path:
    return cache_root() / "logs"

