"""Folders that are not dumps, and manifests that cannot be used: one clear ReportError each."""
import json
from pathlib import Path

import pytest

from depyf.report import ReportError, render_report
from depyf.report.format import MANIFEST_NAME
from handmade_dump import write_dump


def _error(folder: Path) -> str:
    with pytest.raises(ReportError) as info:
        render_report(str(folder))
    return str(info.value)


def test_missing_folder(tmp_path: Path) -> None:
    assert "no such folder" in _error(tmp_path / "absent")


def test_a_file_instead_of_a_folder(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("x")
    assert "not a folder" in _error(tmp_path / "f.txt")


def test_empty_folder(tmp_path: Path) -> None:
    message = _error(tmp_path)
    assert "not a depyf dump" in message and "empty folder" in message


def test_folder_without_manifest(tmp_path: Path) -> None:
    (tmp_path / "full_code_for_f.py").write_text("x = 1\n")
    message = _error(tmp_path)
    assert "not a depyf dump" in message and MANIFEST_NAME in message


@pytest.mark.parametrize(
    "content,expected",
    [
        ("{not json", "not valid JSON"),
        ("", "not valid JSON"),
        ("[1, 2]", "format"),
        ('{"format": "something-else", "version": 1}', "format"),
        ('{"format": "depyf-dump-manifest"}', "version"),
        ('{"format": "depyf-dump-manifest", "version": 99}', "newer"),
        ('{"format": "depyf-dump-manifest", "version": 1, "functions": {}}', "functions"),
        ('{"format": "depyf-dump-manifest", "version": 1, "functions": [{"name": "f", "entries": [{"graphs": 3}]}]}',
         "functions[0].entries[0].graphs"),
        ('{"format": "depyf-dump-manifest", "version": 1, "functions": [{"name": "f", "entries": [{"resume_functions": [7]}]}]}',
         "resume_functions[0]"),
        ('{"format": "depyf-dump-manifest", "version": 1, "functions": [{"entries": []}]}', "functions[0]"),
        ('{"format": "depyf-dump-manifest", "version": 1, "functions": [{"name": "f", "entries": [{"user_stack": "x"}]}]}',
         "functions[0].entries[0].user_stack"),
        ('{"format": "depyf-dump-manifest", "version": 1, "functions": [{"name": "f", "entries": [{"compile_time": [1]}]}]}',
         "functions[0].entries[0].compile_time"),
    ],
)
def test_corrupt_manifest_names_the_file(tmp_path: Path, content: str, expected: str) -> None:
    (tmp_path / MANIFEST_NAME).write_text(content)
    message = _error(tmp_path)
    assert str(tmp_path / MANIFEST_NAME) in message
    assert "corrupt manifest" in message and expected in message


def test_manifest_that_is_not_utf8(tmp_path: Path) -> None:
    (tmp_path / MANIFEST_NAME).write_bytes(b"\xff\xfe\x00garbage")
    assert "corrupt manifest" in _error(tmp_path)


def test_one_corrupt_rank_fails_the_whole_report(tmp_path: Path) -> None:
    write_dump(str(tmp_path), rank=0)
    bad = Path(write_dump(str(tmp_path), rank=1))
    (bad / MANIFEST_NAME).write_text("{")
    message = _error(tmp_path)
    assert "rank_1" in message and "corrupt manifest" in message


def test_rank_folders_without_manifests_are_not_a_dump(tmp_path: Path) -> None:
    (tmp_path / "rank_0").mkdir()
    assert "not a depyf dump" in _error(tmp_path)


def test_valid_manifest_loads(tmp_path: Path) -> None:
    folder = write_dump(str(tmp_path))
    with open(Path(folder) / MANIFEST_NAME, encoding="utf-8") as f:
        assert json.load(f)["functions"]
    assert "<html" in render_report(folder)


def test_report_never_imports_torch(tmp_path: Path) -> None:
    import subprocess
    import sys

    folder = write_dump(str(tmp_path / "dump"))
    src = str(Path(__file__).resolve().parents[2] / "src")
    code = (
        "import sys; sys.path.insert(0, %r)\n"
        "from depyf.cli import main\n"
        "assert main(['report', %r]) == 0\n"
        "assert 'torch' not in sys.modules, 'the report imported torch'\n" % (src, folder)
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
