"""A real prepare_debug run with a graph break and a recompile: the manifest says so, names files
that exist, and the report shows it."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, Iterator

import pytest
import torch

import depyf
from depyf.report import render_report
from depyf.report.format import MANIFEST_NAME


def breaks_once(x):
    y = x.sin()
    print("a print breaks the graph")
    return y.cos() + 1


def _walk(fn: Dict[str, Any]) -> Iterator[Dict[str, Any]]:
    yield fn
    for entry in fn["entries"]:
        for resume in entry["resume_functions"]:
            if not resume.get("shown_above"):
                yield from _walk(resume)


@pytest.fixture(scope="module")
def dump(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("report_dump")
    torch._dynamo.reset()
    compiled = torch.compile(breaks_once, backend="aot_eager")
    with depyf.prepare_debug(str(folder)):
        compiled(torch.randn(4))
        compiled(torch.randn(4, 2))  # another rank of tensor: a recompile
    torch._dynamo.reset()
    return folder


@pytest.fixture(scope="module")
def manifest(dump: Path) -> Dict[str, Any]:
    with open(dump / MANIFEST_NAME, encoding="utf-8") as f:
        return json.load(f)


def test_manifest_has_the_function_its_entries_and_resume_function(manifest: Dict[str, Any]) -> None:
    assert manifest["format"] == "depyf-dump-manifest" and manifest["rank"] is None
    [fn] = manifest["functions"]
    assert fn["name"] == "breaks_once" and fn["full_code_file"] == "full_code_for_breaks_once.py"
    assert len(fn["entries"]) == 2
    first, second = fn["entries"]
    assert first["guard"]["function"].startswith("guard_") and first["guard"]["lines"]
    assert any("L['x']" in line["expr"] for line in first["guard"]["lines"])
    assert second["recompile_reasons"] and "x" in second["recompile_reasons"][0]
    [graph] = first["graphs"]
    assert graph["reason"].startswith("graph break:") and "print" in graph["reason"]
    kinds = {a["kind"] for a in graph["artifacts"]}
    assert "captured_graph" in kinds and any(k.startswith("aot_") for k in kinds)
    [resume] = first["resume_functions"]
    assert resume["kind"] == "resume" and resume["code_file"] == f"{resume['name']}.py"
    assert resume["entries"] and resume["entries"][0]["graphs"]


def test_every_file_the_manifest_names_exists(dump: Path, manifest: Dict[str, Any]) -> None:
    named = _named_files(manifest)
    assert None not in named
    for name in named:
        assert (dump / name).is_file(), name
    written = sorted(f for f in os.listdir(dump) if f.endswith(".py"))
    assert manifest["files"] == written


def test_report_shows_the_graph_break_and_recompile(dump: Path, manifest: Dict[str, Any]) -> None:
    from html import escape

    html = render_report(str(dump))
    assert 'class="graph-breaks"' in html and 'class="recompiles"' in html
    first, second = manifest["functions"][0]["entries"]
    assert escape(first["graphs"][0]["reason"]) in html
    assert escape(second["recompile_reasons"][0]) in html
    assert html.count('data-kind="resume"') >= 1
    assert "full_code_for_breaks_once.py" in html


# Every program and backend of test_dump.py (their dumps are made once per session, shared).
from torch_cases import cases, outcome  # noqa: E402

CASES = cases()


def _named_files(manifest: Dict[str, Any]) -> set:
    named = set()
    for top in manifest["functions"]:
        for fn in _walk(top):
            named.update(f for f in (fn.get("full_code_file"), fn.get("code_file")) if f)
            for entry in fn["entries"]:
                named.add(entry["transformed_code_file"])
                if entry["guard"]:
                    named.add(entry["guard"]["file"])
                named.update(a["file"] for g in entry["graphs"] for a in g["artifacts"])
    named.update(s["file"] for s in manifest["skipped"] if s["file"])
    return named


@pytest.mark.parametrize("name,backend", CASES, ids=[f"{n}-{b}" for n, b in CASES])
def test_manifest_of_every_program(name: str, backend: str, tmp_path: Path) -> None:
    out = outcome(name, backend)
    with open(os.path.join(out.folder, MANIFEST_NAME), encoding="utf-8") as f:
        manifest = json.load(f)
    names = [fn["name"] for top in manifest["functions"] for fn in _walk(top)]
    assert len(names) == len(set(names)), "the report anchors functions by name"
    named = _named_files(manifest)
    assert None not in named
    assert named <= set(out.files), named - set(out.files)
    assert manifest["files"] == [f for f in out.files if f != MANIFEST_NAME]
    # Two runs of the same program are two ranks that compiled the same things.
    import shutil

    shutil.copytree(out.folder, tmp_path / "rank_0")
    shutil.copytree(out.folder2, tmp_path / "rank_1")
    from depyf.report.compare import compare_dumps
    from depyf.report.load import find_dumps

    comparison = compare_dumps(find_dumps(str(tmp_path)))
    assert comparison.functions and not comparison.differing_functions
    assert 'id="comparison"' in render_report(str(tmp_path))


def test_ranks_that_compiled_different_things(tmp_path: Path, monkeypatch) -> None:
    """Two ranks (RANK set as torchrun sets it): rank 1 sees another input shape and recompiles."""
    shapes = {0: [(4,)], 1: [(4,), (4, 2)]}
    for rank, calls in shapes.items():
        monkeypatch.setenv("RANK", str(rank))
        torch._dynamo.reset()
        compiled = torch.compile(breaks_once, backend="eager")
        with depyf.prepare_debug(str(tmp_path)) as folder:
            for shape in calls:
                compiled(torch.randn(*shape))
        assert folder == str(tmp_path / f"rank_{rank}")
    torch._dynamo.reset()
    from depyf.report.compare import compare_dumps
    from depyf.report.load import find_dumps

    dumps = find_dumps(str(tmp_path))
    assert [d.manifest["rank"] for d in dumps] == [0, 1]
    comparison = compare_dumps(dumps)
    [row] = comparison.differing_functions
    assert row.name == "breaks_once"
    assert row.cells[0].startswith("1 cache entry;") and row.cells[1].startswith("2 cache entries;")
    only_rank_1 = [r.name for r in comparison.differing_files if r.cells[0] is None]
    assert "__transformed_code_1_for_breaks_once.py" in only_rank_1
    html = render_report(str(tmp_path))
    assert 'id="differing-functions"' in html and 'id="rank1-fn-breaks_once"' in html


def test_depyf_run_writes_the_report(tmp_path: Path) -> None:
    import subprocess
    import sys

    script = tmp_path / "prog.py"
    script.write_text(
        "import torch\n"
        "def with_break(x):\n"
        "    x = x + 1\n"
        "    torch._dynamo.graph_break()\n"
        "    return x * 2\n"
        "torch.compile(with_break, backend='eager')(torch.ones(3))\n"
    )
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = dict(os.environ, TORCHINDUCTOR_FORCE_DISABLE_CACHES="1", PYTHONPATH=src)
    dump = tmp_path / "dump"
    done = subprocess.run(
        [sys.executable, "-m", "depyf.cli", "run", "--dump-dir", str(dump), str(script)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = dump / "report.html"
    assert f"report in {report}" in done.stderr
    html = report.read_text(encoding="utf-8")
    assert 'id="dump-fn-with_break"' in html and 'class="graph-breaks"' in html
