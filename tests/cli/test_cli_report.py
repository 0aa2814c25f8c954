"""`depyf report DUMP_DIR [-o OUT.html]`, and the report `depyf run` writes after the script."""
import contextlib
import json
import os
from pathlib import Path
from typing import List

import pytest

import depyf
from depyf import cli
from depyf.report.format import MANIFEST_FORMAT, MANIFEST_NAME, MANIFEST_VERSION


def _write_manifest(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "full_code_for_f.py").write_text("x = 1\n")
    manifest = {
        "format": MANIFEST_FORMAT,
        "version": MANIFEST_VERSION,
        "functions": [{"name": "f", "kind": "function", "source": "prog.py:1", "full_code_file": "full_code_for_f.py", "entries": []}],
        "files": ["full_code_for_f.py"],
    }
    (folder / MANIFEST_NAME).write_text(json.dumps(manifest))


def test_report_default_output(tmp_path: Path, capsys) -> None:
    _write_manifest(tmp_path / "dump")
    assert cli.main(["report", str(tmp_path / "dump")]) == 0
    out = capsys.readouterr().out.strip()
    assert out == str(tmp_path / "dump" / "report.html")
    assert "full_code_for_f.py" in Path(out).read_text(encoding="utf-8")


def test_report_output_option(tmp_path: Path, capsys) -> None:
    _write_manifest(tmp_path / "dump")
    target = tmp_path / "out.html"
    assert cli.main(["report", str(tmp_path / "dump"), "-o", str(target)]) == 0
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("make", ["absent", "empty", "no_manifest", "corrupt"])
def test_report_errors_are_one_line_exit_2(tmp_path: Path, capsys, make: str) -> None:
    folder = tmp_path / "dump"
    if make != "absent":
        folder.mkdir()
    if make == "no_manifest":
        (folder / "x.py").write_text("x = 1\n")
    if make == "corrupt":
        (folder / MANIFEST_NAME).write_text('{"format": ')
    assert cli.main(["report", str(folder)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("depyf: error: ") and err.count("\n") == 0
    assert "Traceback" not in err
    if make == "corrupt":
        assert MANIFEST_NAME in err and "corrupt manifest" in err


def test_report_unwritable_output(tmp_path: Path, capsys) -> None:
    _write_manifest(tmp_path / "dump")
    assert cli.main(["report", str(tmp_path / "dump"), "-o", str(tmp_path / "no" / "such" / "dir.html")]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_run_writes_the_report(tmp_path: Path, monkeypatch, capsys) -> None:
    entered: List[str] = []

    @contextlib.contextmanager
    def prepare_debug(dump_dir):
        entered.append(dump_dir)
        yield
        _write_manifest(Path(dump_dir))

    monkeypatch.setattr(cli, "_torch_installed", lambda: True)
    monkeypatch.setitem(vars(depyf), "prepare_debug", prepare_debug)
    script = tmp_path / "prog.py"
    script.write_text("pass\n")
    dump = tmp_path / "dump"
    assert cli.main(["run", "--dump-dir", str(dump), str(script)]) == 0
    assert (dump / "report.html").is_file()
    assert "report in %s" % (dump / "report.html") in capsys.readouterr().err


def test_run_without_a_manifest_notes_it(tmp_path: Path, monkeypatch, capsys) -> None:
    @contextlib.contextmanager
    def prepare_debug(dump_dir):
        yield

    monkeypatch.setattr(cli, "_torch_installed", lambda: True)
    monkeypatch.setitem(vars(depyf), "prepare_debug", prepare_debug)
    script = tmp_path / "prog.py"
    script.write_text("pass\n")
    assert cli.main(["run", "--dump-dir", str(tmp_path / "dump"), str(script)]) == 0
    assert "depyf: no report:" in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "dump" / "report.html")
