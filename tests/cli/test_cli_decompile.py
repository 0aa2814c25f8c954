"""`depyf decompile` on .py files and module:qualname, in-process and as a subprocess."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import depyf
from depyf import cli

SRC = Path(__file__).resolve().parents[2] / "src"

SAMPLE = textwrap.dedent(
    '''
    import math

    def area(r):
        return math.pi * r * r

    class Shape:
        def scale(self, k):
            return k * 2

        class Inner:
            def scale(self, k):
                return k + 1

    def outer(a):
        def inner(b):
            return a + b
        return inner
    '''
)


def _run(capsys, argv):
    rc = cli.main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("depyf: error:"), err
    return lines[0]


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    f = tmp_path / "sample.py"
    f.write_text(SAMPLE)
    return f


@pytest.fixture
def sample_module(tmp_path: Path, monkeypatch) -> str:
    name = "depyf_cli_sample_%d" % os.getpid()
    (tmp_path / (name + ".py")).write_text(SAMPLE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


def test_py_file_module(sample: Path, capsys) -> None:
    rc, out, err = _run(capsys, ["decompile", str(sample)])
    assert rc == 0, err
    compile(out, "out", "exec")
    assert "def area" in out and "class Shape" in out


def test_py_file_function(sample: Path, capsys) -> None:
    rc, out, err = _run(capsys, ["decompile", str(sample), "--function", "area"])
    assert rc == 0, err
    compile(out, "out", "exec")
    assert out.lstrip().startswith("def area(r)")


def test_py_file_qualname(sample: Path, capsys) -> None:
    rc, out, err = _run(capsys, ["decompile", str(sample), "-f", "Shape.Inner.scale"])
    assert rc == 0, err
    assert "k + 1" in out
    rc, out, err = _run(capsys, ["decompile", str(sample), "-f", "outer.<locals>.inner"])
    assert rc == 0, err
    assert "a + b" in out


def test_py_file_ambiguous_and_missing_function(sample: Path, capsys) -> None:
    rc, _, err = _run(capsys, ["decompile", str(sample), "-f", "scale"])
    assert rc == 2
    line = _one_line(err)
    assert "ambiguous" in line and "Shape.scale" in line and "Shape.Inner.scale" in line
    rc, _, err = _run(capsys, ["decompile", str(sample), "-f", "nothing"])
    assert rc == 2
    assert "nothing" in _one_line(err)


def test_py_file_is_not_executed(tmp_path: Path, capsys) -> None:
    marker = tmp_path / "executed"
    f = tmp_path / "effect.py"
    f.write_text("open(%r, 'w').close()\n" % str(marker))
    cli.main(["decompile", str(f)])
    capsys.readouterr()
    assert not marker.exists()


def test_py_syntax_error(tmp_path: Path, capsys) -> None:
    f = tmp_path / "bad.py"
    f.write_text("def f(:\n    pass\n")
    rc, out, err = _run(capsys, ["decompile", str(f)])
    assert rc == 2
    assert out == ""
    assert "bad.py" in _one_line(err)


def test_output_file(sample: Path, tmp_path: Path, capsys) -> None:
    dest = tmp_path / "out.py"
    rc, out, err = _run(capsys, ["decompile", str(sample), "-f", "area", "-o", str(dest)])
    assert rc == 0, err
    assert out == ""
    assert "def area" in dest.read_text()


def test_module_qualname(sample_module: str, capsys) -> None:
    rc, out, err = _run(capsys, ["decompile", sample_module + ":Shape.Inner.scale"])
    assert rc == 0, err
    assert "def scale(self, k)" in out
    rc, out, err = _run(capsys, ["decompile", sample_module + ":area"])
    assert rc == 0, err
    assert "def area(r)" in out


def test_stdlib_qualname(capsys) -> None:
    rc, out, err = _run(capsys, ["decompile", "textwrap:TextWrapper._split"])
    assert rc == 0, err
    compile(out, "out", "exec")
    assert "def _split(self, text)" in out


@pytest.mark.parametrize(
    "target,fragment",
    [
        ("depyf_no_such_module_xyz:f", "depyf_no_such_module_xyz"),
        ("textwrap:NoSuchThing", "NoSuchThing"),
        ("textwrap:TextWrapper.nope", "nope"),
        ("textwrap:", "module:qualname"),
        (":dedent", "module:qualname"),
        ("plainword", "plainword"),
    ],
)
def test_bad_targets(target: str, fragment: str, capsys) -> None:
    rc, out, err = _run(capsys, ["decompile", target])
    assert rc == 2
    assert out == ""
    assert fragment in _one_line(err)


def test_module_failing_at_import(tmp_path: Path, monkeypatch, capsys) -> None:
    name = "depyf_cli_broken_%d" % os.getpid()
    (tmp_path / (name + ".py")).write_text("raise RuntimeError('boom at import')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    rc, _, err = _run(capsys, ["decompile", name + ":f"])
    sys.modules.pop(name, None)
    assert rc == 2
    assert "boom at import" in _one_line(err)


def test_decompilation_error_is_exit_1(sample: Path, monkeypatch, capsys) -> None:
    def refuse(obj, **kwargs):
        raise depyf.DecompilationError("unsupported construct", function="area", offset=4, opname="BINARY_OP")

    monkeypatch.setattr(depyf, "decompile", refuse)
    rc, out, err = _run(capsys, ["decompile", str(sample), "-f", "area"])
    assert rc == 1
    assert out == ""
    line = _one_line(err)
    assert "unsupported construct" in line and "area" in line


def test_internal_error_is_exit_3_without_traceback(sample: Path, monkeypatch, capsys) -> None:
    def crash(obj, **kwargs):
        raise IndexError("list index out of range")

    monkeypatch.setattr(depyf, "decompile", crash)
    rc, _, err = _run(capsys, ["decompile", str(sample)])
    assert rc == 3
    assert "IndexError" in _one_line(err)


def test_usage_errors(capsys) -> None:
    assert cli.main([]) == 2
    assert cli.main(["decompile"]) == 2
    assert cli.main(["frobnicate"]) == 2
    assert cli.main(["--help"]) == 0
    capsys.readouterr()


def _subprocess(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(SRC))
    return subprocess.run(
        [sys.executable, "-m", "depyf.cli"] + list(args),
        capture_output=True, text=True, cwd=str(cwd), env=env, timeout=120,
    )


def test_subprocess_roundtrip(sample: Path, tmp_path: Path) -> None:
    proc = _subprocess("decompile", str(sample), "-f", "Shape.scale", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "def scale(self, k)" in proc.stdout


def test_subprocess_bad_pyc(tmp_path: Path) -> None:
    f = tmp_path / "junk.pyc"
    f.write_bytes(b"\x00\x01junk" * 10)
    proc = _subprocess("decompile", str(f), cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_subprocess_real_pyc(tmp_path: Path) -> None:
    import py_compile

    src = tmp_path / "mod.py"
    src.write_text("def twice(x):\n    return 2 * x\n")
    pyc = tmp_path / "mod.pyc"
    py_compile.compile(str(src), cfile=str(pyc), doraise=True)
    proc = _subprocess("decompile", str(pyc), "-f", "twice", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "def twice(x)" in proc.stdout and "2 * x" in proc.stdout


def test_console_script_if_installed(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "depyf"
    if not script.exists():
        pytest.skip("the depyf console script is not installed next to this Python")
    proc = subprocess.run([str(script), "decompile", "textwrap:dedent"], capture_output=True, text=True,
                          cwd=str(tmp_path), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "def dedent(text)" in proc.stdout
