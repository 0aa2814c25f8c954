"""`depyf decompile` on .pyc files: the header is checked before anything is unmarshalled, and
every bad file ends in one line on stderr and exit code 2, never a traceback."""
import importlib.util
import marshal
import os
import random
import sys
from pathlib import Path

import pytest

from depyf import cli


def _pyc_bytes(source: str) -> bytes:
    code = compile(source, "<sample>", "exec")
    header = importlib.util.MAGIC_NUMBER + b"\0\0\0\0" + b"\0" * 8
    return header + marshal.dumps(code)


def _run(capsys, argv):
    rc = cli.main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def _assert_one_line_error(err: str, *fragments: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("depyf: error:"), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_random_bytes(tmp_path: Path, capsys) -> None:
    rng = random.Random(1234)
    for i in range(20):
        f = tmp_path / ("random%d.pyc" % i)
        f.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300))))
        rc, out, err = _run(capsys, ["decompile", str(f)])
        assert rc == 2
        assert out == ""
        _assert_one_line_error(err, f.name)


def test_empty_file(tmp_path: Path, capsys) -> None:
    f = tmp_path / "empty.pyc"
    f.write_bytes(b"")
    rc, _, err = _run(capsys, ["decompile", str(f)])
    assert rc == 2
    _assert_one_line_error(err, "empty.pyc", "truncated")


@pytest.mark.parametrize("keep", [4, 10, 16, 17, 30, -1])
def test_truncated(tmp_path: Path, capsys, keep: int) -> None:
    data = _pyc_bytes("def f(x):\n    return [i * x for i in range(10)]\n")
    f = tmp_path / "cut.pyc"
    f.write_bytes(data[:keep])
    rc, out, err = _run(capsys, ["decompile", str(f)])
    assert rc == 2
    assert out == ""
    _assert_one_line_error(err, "cut.pyc")


def test_corrupt_body(tmp_path: Path, capsys) -> None:
    data = bytearray(_pyc_bytes("x = 1\n"))
    data[16] = 0xFF  # not a marshal type code
    f = tmp_path / "corrupt.pyc"
    f.write_bytes(bytes(data))
    rc, _, err = _run(capsys, ["decompile", str(f)])
    assert rc == 2
    _assert_one_line_error(err, "corrupt.pyc", "corrupt")


def test_not_code(tmp_path: Path, capsys) -> None:
    f = tmp_path / "data.pyc"
    f.write_bytes(importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps([1, 2, 3]))
    rc, _, err = _run(capsys, ["decompile", str(f)])
    assert rc == 2
    _assert_one_line_error(err, "data.pyc", "list")


def _other_minor() -> str:
    return "3.8" if sys.version_info[:2] != (3, 8) else "3.13"


# One magic number per release, as CPython's importlib records them.
_RELEASE_MAGIC = {"3.8": 3413, "3.9": 3425, "3.10": 3439, "3.11": 3495, "3.12": 3531, "3.13": 3571,
                  "3.14": 3627, "3.15": 3666}


def test_wrong_magic_names_both_versions(tmp_path: Path, capsys) -> None:
    other = _other_minor()
    magic = _RELEASE_MAGIC[other].to_bytes(2, "little") + b"\r\n"
    f = tmp_path / "foreign.pyc"
    f.write_bytes(magic + b"\0" * 12 + b"\xe3garbage")
    rc, out, err = _run(capsys, ["decompile", str(f)])
    assert rc == 2
    assert out == ""
    running = "%d.%d" % sys.version_info[:2]
    _assert_one_line_error(err, "foreign.pyc", "Python %s" % other, "Python %s" % running)


def _foreign(tmp_path: Path, capsys, number: int) -> str:
    f = tmp_path / "foreign.pyc"
    f.write_bytes(number.to_bytes(2, "little") + b"\r\n" + b"\0" * 12 + b"\xe3garbage")
    rc, out, err = _run(capsys, ["decompile", str(f)])
    assert rc == 2 and out == ""
    return err


def test_a_newer_pythons_pyc_says_which_versions_are_read(tmp_path: Path, capsys) -> None:
    from depyf.decompiler.versions import SUPPORTED

    reads = "depyf reads %d.%d to %d.%d" % (SUPPORTED[0] + SUPPORTED[-1])
    newest = max(_RELEASE_MAGIC, key=lambda m: _RELEASE_MAGIC[m])
    err = _foreign(tmp_path, capsys, _RELEASE_MAGIC[newest] + 60)  # (a release after the newest)
    _assert_one_line_error(err, "foreign.pyc", "newer than %s" % newest, "not supported; " + reads)
    err = _foreign(tmp_path, capsys, 3394)  # (3.7)
    _assert_one_line_error(err, "foreign.pyc", "Python 3.7, whose bytecode is not supported; " + reads)


def test_python2_magic(tmp_path: Path, capsys) -> None:
    f = tmp_path / "old.pyc"
    f.write_bytes((62211).to_bytes(2, "little") + b"\r\n" + b"\0" * 30)
    rc, _, err = _run(capsys, ["decompile", str(f)])
    assert rc == 2
    _assert_one_line_error(err, "Python 2.x")


@pytest.mark.parametrize("minor,number", sorted(_RELEASE_MAGIC.items()))
def test_magic_table(minor: str, number: int) -> None:
    assert cli.python_for_magic(number.to_bytes(2, "little") + b"\r\n") == minor


def test_running_interpreter_magic_is_known() -> None:
    assert cli.python_for_magic(importlib.util.MAGIC_NUMBER) == "%d.%d" % sys.version_info[:2]


def test_missing_file(tmp_path: Path, capsys) -> None:
    rc, _, err = _run(capsys, ["decompile", str(tmp_path / "nope.pyc")])
    assert rc == 2
    _assert_one_line_error(err, "nope.pyc", "no such file")


def test_unreadable_directory_named_pyc(tmp_path: Path, capsys) -> None:
    d = tmp_path / "dir.pyc"
    d.mkdir()
    rc, _, err = _run(capsys, ["decompile", str(d)])
    assert rc == 2
    _assert_one_line_error(err, "dir.pyc")


def test_load_pyc_does_not_execute(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    f = tmp_path / "side_effect.pyc"
    f.write_bytes(_pyc_bytes("open(%r, 'w').close()\n" % str(marker)))
    code = cli.load_pyc(str(f))
    assert code.co_filename == "<sample>"
    assert not marker.exists()
    assert not os.path.exists(str(marker))
