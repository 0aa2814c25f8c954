"""Without torch, the torch features say so in one line ("needs torch") and write nothing.

Run in a fresh interpreter where torch cannot be imported: for real in the torch-free
environments, and with torch blocked (``sys.modules["torch"] = None``) where it is installed."""
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"

PROGRAM = r'''
import json, os, sys
sys.modules["torch"] = None  # as if torch were not installed
import depyf
from depyf.explain import dump_src

def f(x):
    return x + 1

results = {"decompile": "def f(x):" in depyf.decompile(f)}
calls = {
    "prepare_debug": lambda: depyf.prepare_debug(sys.argv[1]).__enter__(),
    "debug": lambda: depyf.debug().__enter__(),
    "dump_src": lambda: dump_src(f),
}
for name, call in calls.items():
    try:
        call()
        results[name] = None
    except ModuleNotFoundError as e:
        results[name] = [type(e).__name__, str(e)]
results["folder_made"] = os.path.exists(sys.argv[1])
print(json.dumps(results))
'''


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("nt") / "dump_here"
    env = dict(os.environ, PYTHONPATH=str(SRC))
    done = subprocess.run([sys.executable, "-c", PROGRAM, str(folder)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("feature,name", [("prepare_debug", "depyf.prepare_debug"), ("debug", "depyf.debug"),
                                          ("dump_src", "depyf.explain.dump_src")])
def test_one_clear_line(results: dict, feature: str, name: str) -> None:
    kind, message = results[feature]
    assert kind == "TorchNotInstalled"  # a ModuleNotFoundError, so `except ImportError` still works
    assert message.startswith(f"{name} needs torch, which is not installed (pip install torch)")
    assert "\n" not in message and "2.2" not in message


def test_no_folder_is_made(results: dict) -> None:
    assert results["folder_made"] is False


def test_the_decompiler_still_works(results: dict) -> None:
    assert results["decompile"] is True


def test_too_old_torch_is_named(monkeypatch) -> None:
    from importlib import metadata

    from depyf.dynamo import adapter

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: object())
    monkeypatch.setattr(metadata, "version", lambda name: "2.1.2+cpu")
    with pytest.raises(adapter.TorchNotInstalled, match=r"needs torch >= 2\.2, but torch 2\.1\.2\+cpu is installed"):
        adapter.require_torch("depyf.prepare_debug")
