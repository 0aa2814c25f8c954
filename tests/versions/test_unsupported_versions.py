"""A Python whose bytecode depyf has no tables for gets one clear error, never a KeyError.

The newer interpreters come from `tools/debian_pythons.py`; `tools/run_tests.py` passes their
paths in `DEPYF_NEWER_PYTHONS` (set up there on CI, used where installed elsewhere).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

import depyf
from depyf.decompiler import versions
from depyf.decompiler.versions import SUPPORTED, TABLED, for_key

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src"
SUPPORTED_TEXT = "depyf reads %d.%d to %d.%d" % (SUPPORTED[0] + SUPPORTED[-1])


def _newer_pythons() -> List[str]:
    return [p for p in os.environ.get("DEPYF_NEWER_PYTHONS", "").split(os.pathsep) if p]


def test_unknown_version_key_is_a_decompilation_error() -> None:
    with pytest.raises(depyf.DecompilationError) as caught:
        for_key((3, 16))
    assert str(caught.value) == "cannot decompile: Python 3.16 bytecode is not supported; " + SUPPORTED_TEXT
    assert "\n" not in str(caught.value)


def test_every_supported_key_is_accepted() -> None:
    for key in SUPPORTED:
        assert for_key(key).key == key


def test_tabled_versions_not_yet_supported_are_refused_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """A version with tables that is still being completed (today none: shown with the newest
    one held back) is refused like an unknown one, and read with DEPYF_EXPERIMENTAL_VERSIONS=1."""
    held_back = TABLED[-1]
    monkeypatch.setattr(versions, "SUPPORTED", tuple(k for k in TABLED if k != held_back))
    monkeypatch.delenv("DEPYF_EXPERIMENTAL_VERSIONS", raising=False)
    with pytest.raises(depyf.DecompilationError) as caught:
        for_key(held_back)
    expected = "depyf reads %d.%d to %d.%d" % (TABLED[0] + TABLED[-2])
    assert str(caught.value) == "cannot decompile: Python %d.%d bytecode is not supported; %s" % (held_back + (expected,))
    monkeypatch.setenv("DEPYF_EXPERIMENTAL_VERSIONS", "1")
    assert for_key(held_back).key == held_back


def test_the_docs_name_the_versions_depyf_reads() -> None:
    """Every "depyf reads A to B" in the README and docs/ is the text the error gives."""
    quoted = []
    for page in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        quoted += [(page.name, m) for m in re.findall(r"depyf reads \d+\.\d+ to \d+\.\d+", page.read_text(encoding="utf-8"))]
    assert quoted, "the README says which versions depyf reads"
    assert all(text == SUPPORTED_TEXT for _, text in quoted), quoted


def _run(python: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(SRC))
    return subprocess.run([python, *args], capture_output=True, text=True, timeout=120, env=env, cwd=str(cwd))


_PROBE = """
import sys, depyf
def f(x):
    return x + 1
try:
    depyf.decompile(f)
except depyf.DecompilationError as e:
    print("raised:", e)
text = depyf.decompile(f, on_error="comment")
compile(text, "<comment>", "exec")
print("comment ok")
"""


@pytest.mark.parametrize("python", _newer_pythons() or [None], ids=lambda p: Path(p).name if p else "none")
def test_newer_interpreter_gets_one_line_error(python: str, tmp_path: Path) -> None:
    if python is None:
        pytest.skip("no Python newer than %d.%d set up (python3 tools/debian_pythons.py)" % SUPPORTED[-1])
    version = _run(python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])", cwd=tmp_path).stdout.strip()
    out = _run(python, "-c", _PROBE, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "raised: cannot decompile: Python %s bytecode is not supported; %s" % (version, SUPPORTED_TEXT),
        "comment ok",
    ]
    source = tmp_path / "m.py"
    source.write_text("def f(x):\n    return x + 1\n")
    cli = _run(python, "-m", "depyf.cli", "decompile", str(source), cwd=tmp_path)
    assert cli.returncode == 1
    assert cli.stdout == ""
    lines = cli.stderr.strip().splitlines()
    assert len(lines) == 1 and "Python %s bytecode is not supported" % version in lines[0], cli.stderr
