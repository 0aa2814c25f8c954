"""The committed opcode tables are what the generator writes for the running interpreter: a
table edited by hand, or one generated from another build of the same minor, fails here."""
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from depyf.decompiler.opcode_tables import TABLES

REPO = Path(__file__).resolve().parents[2]
GENERATOR = REPO / "tools" / "gen_opcode_tables.py"
PACKAGE = REPO / "src" / "depyf" / "decompiler" / "opcode_tables"


def _generator():
    spec = importlib.util.spec_from_file_location("depyf_gen_opcode_tables", str(GENERATOR))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(sys.version_info[:2] not in TABLES, reason="no table for this interpreter")
def test_the_running_interpreters_table_is_the_generated_one() -> None:
    generator = _generator()
    probed = json.loads(subprocess.check_output([sys.executable, "-c", generator.PROBE]))
    major, minor = probed.pop("version")
    assert (major, minor) == sys.version_info[:2]
    assert probed == TABLES[(major, minor)]
    committed = (PACKAGE / f"py{major}{minor}.py").read_text(encoding="utf-8")
    assert committed == generator.module_text(probed, major, minor)


def test_every_version_module_is_listed() -> None:
    modules = sorted(p.stem for p in PACKAGE.glob("py3*.py"))
    assert sorted(f"py{major}{minor}" for major, minor in TABLES) == modules
