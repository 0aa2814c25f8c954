"""What a new user tries first: `--version`, `python -m depyf`, a wrong `--function`, a file that
does not compile."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import depyf
from depyf import cli

SRC = Path(__file__).resolve().parents[2] / "src"


def _run(capsys, argv):
    rc = cli.main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def _python_m_depyf(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(SRC))
    return subprocess.run([sys.executable, "-m", "depyf", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_version(capsys) -> None:
    rc, out, err = _run(capsys, ["--version"])
    assert rc == 0 and err == ""
    assert out.strip() == "depyf %s (Python %s)" % (depyf.__version__, sys.version.split()[0])


def test_python_dash_m_depyf(tmp_path: Path) -> None:
    done = _python_m_depyf("--version", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("depyf " + depyf.__version__), done.stderr
    (tmp_path / "prog.py").write_text("def twice(x):\n    return x * 2\n")
    done = _python_m_depyf("decompile", "prog.py", "-f", "twice", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "def twice(x):" in done.stdout and "return x * 2" in done.stdout
    done = _python_m_depyf(cwd=tmp_path)  # no command: usage, exit 2
    assert done.returncode == 2 and "usage: depyf" in done.stderr


def test_unknown_function_lists_the_names_there_are(tmp_path: Path, capsys) -> None:
    f = tmp_path / "prog.py"
    f.write_text("def area(r):\n    return r\n\nclass Shape:\n    def scale(self, k):\n        return k\n\nsquares = [x for x in range(3)]\n")
    rc, out, err = _run(capsys, ["decompile", str(f), "-f", "aera"])
    assert rc == 2 and out == ""
    assert err.count("\n") == 1
    assert "no function named 'aera'; it defines: area, Shape, Shape.scale" in err
    assert "<listcomp>" not in err and "<lambda>" not in err


def test_the_list_is_bounded(tmp_path: Path, capsys) -> None:
    f = tmp_path / "many.py"
    f.write_text("".join("def f%d():\n    pass\n" % i for i in range(50)))
    rc, _, err = _run(capsys, ["decompile", str(f), "-f", "g"])
    assert rc == 2
    assert "f0, f1," in err and "f19 and 30 more" in err and "f20" not in err


def test_a_module_without_functions(tmp_path: Path, capsys) -> None:
    f = tmp_path / "plain.py"
    f.write_text("x = 1\n")
    rc, _, err = _run(capsys, ["decompile", str(f), "-f", "g"])
    assert rc == 2 and "it defines no function or class" in err


@pytest.mark.parametrize(
    "content,where,message",
    [
        (b"def f(:\n    pass\n", "bad.py:1:7:", "syntax error: invalid syntax"),
        (b"x = 1\ny = 2\nz = 3\x00\n", "bad.py:3:", "syntax error: source code string cannot contain null bytes"),
        (b"x = 1\ny = (\n", "bad.py:2:", "syntax error: "),
        (b"# coding: bogus\nx = 1\n", "bad.py:", "syntax error: unknown encoding: bogus"),
    ],
)
def test_syntax_errors_say_where(tmp_path: Path, capsys, content: bytes, where: str, message: str) -> None:
    f = tmp_path / "bad.py"
    f.write_bytes(content)
    rc, out, err = _run(capsys, ["decompile", str(f)])
    assert rc == 2 and out == ""
    line = err.strip()
    assert "\n" not in line and "None" not in line
    assert line.startswith("depyf: error: " + str(tmp_path / where)), line
    assert message in line
