"""`depyf run`: the script runs as __main__ with its own argv under prepare_debug(DIR).

prepare_debug itself needs torch; here it is replaced by a recorder so that the command's own
behaviour (argv, exit status, errors) is checked in every environment."""
import contextlib
import os
import sys
from pathlib import Path
from typing import List

import pytest

import depyf
from depyf import cli


@pytest.fixture
def fake_debug(monkeypatch) -> List[str]:
    entered: List[str] = []

    @contextlib.contextmanager
    def prepare_debug(dump_dir):
        entered.append(dump_dir)
        yield

    monkeypatch.setattr(cli, "_torch_installed", lambda: True)
    # setitem, not setattr: reading the attribute first would trigger the lazy torch import.
    monkeypatch.setitem(vars(depyf), "prepare_debug", prepare_debug)
    return entered


def test_runs_script_as_main_with_argv(tmp_path: Path, fake_debug, capsys) -> None:
    script = tmp_path / "prog.py"
    out_file = tmp_path / "seen.txt"
    script.write_text(
        "import sys\n"
        "if __name__ == '__main__':\n"
        "    open(%r, 'w').write(repr(sys.argv))\n" % str(out_file)
    )
    argv_before = sys.argv[:]
    rc = cli.main(["run", "--dump-dir", str(tmp_path / "dump"), str(script), "a", "--flag", "-x"])
    assert rc == 0, capsys.readouterr().err
    assert eval(out_file.read_text()) == [str(script), "a", "--flag", "-x"]
    assert fake_debug == [str(tmp_path / "dump")]
    assert sys.argv == argv_before


def test_script_exit_status(tmp_path: Path, fake_debug) -> None:
    script = tmp_path / "exits.py"
    script.write_text("import sys\nsys.exit(7)\n")
    assert cli.main(["run", str(script)]) == 7
    assert fake_debug == ["./depyf_dump"]


def test_script_exception_is_exit_1(tmp_path: Path, fake_debug, capsys) -> None:
    script = tmp_path / "raises.py"
    script.write_text("raise ValueError('from the script')\n")
    assert cli.main(["run", str(script)]) == 1
    assert "ValueError: from the script" in capsys.readouterr().err


def test_missing_script(tmp_path: Path, capsys) -> None:
    assert cli.main(["run", str(tmp_path / "absent.py")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "absent.py" in err


def test_without_torch_gives_clear_message(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(cli, "_torch_installed", lambda: False)
    script = tmp_path / "prog.py"
    script.write_text("print('never')\n")
    assert cli.main(["run", str(script)]) == 2
    out, err = capsys.readouterr()
    assert "never" not in out
    assert "needs torch" in err and err.strip().count("\n") == 0


def test_leaves_the_cache_switch_alone(tmp_path: Path, fake_debug, monkeypatch) -> None:
    """prepare_debug turns the compilation caches off itself; TORCHINDUCTOR_FORCE_DISABLE_CACHES
    would also disable PGO and make torch warn "dynamo_pgo force disabled" on every run."""
    monkeypatch.delenv("TORCHINDUCTOR_FORCE_DISABLE_CACHES", raising=False)
    script = tmp_path / "env.py"
    script.write_text("import os, sys\nsys.exit(9 if 'TORCHINDUCTOR_FORCE_DISABLE_CACHES' in os.environ else 0)\n")
    assert cli.main(["run", "--dump-dir", str(tmp_path / "dump"), str(script)]) == 0