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


def test_transformed_code_maps_resume_globals_to_their_files(dump: Path, manifest: Dict[str, Any]) -> None:
    """The transformed-code file keeps Dynamo's names (its bytecode must match); a note maps each
    resume function's global to the stable name and file the rest of the dump uses."""
    import re

    entry = manifest["functions"][0]["entries"][0]
    [resume] = entry["resume_functions"]
    text = (dump / entry["transformed_code_file"]).read_text(encoding="utf-8")
    [(stable, file, dynamo_name)] = re.findall(r"# resume function (\S+) \(file (\S+)\) is the global (__resume_at_\d+_\d+)\n", text)
    assert stable == resume["name"] and file == resume["code_file"] and (dump / file).is_file()
    body = text[text.index("\ndef "):]
    assert f"{dynamo_name}(" in body


def test_guard_numbers_follow_compile_ids(dump: Path) -> None:
    import re

    text = (dump / "full_code_for_breaks_once.py").read_text(encoding="utf-8")
    found = re.findall(r"# cache entry (\d+)/(\d+) \(torch's compile id\): guard_(\d+) decides whether compiled_code_\3 runs\n"
                       r"(?:#.*\n)*def guard_\3\(", text)
    assert len(found) == 4  # two entries of breaks_once (a recompile), two of its resume function
    by_compile_id = sorted(found, key=lambda f: (int(f[0]), int(f[1])))
    assert [int(k) for _, _, k in by_compile_id] == [0, 1, 2, 3]


def test_each_compilation_has_its_time_and_the_calls_that_led_to_it(dump: Path, manifest: Dict[str, Any]) -> None:
    entries = [e for top in manifest["functions"] for fn in _walk(top) for e in fn["entries"]]
    assert len(entries) >= 3  # two of breaks_once, at least one of its resume function
    this_file = os.path.abspath(__file__)
    for entry in entries:
        forward = entry["compile_time"]["forward"]
        assert 0 < forward["total_s"] < 600 and 0 <= forward["backend_s"] <= forward["total_s"]
        stack = entry["user_stack"]
        assert stack, entry["compile_id"]
        files = [os.path.abspath(f["file"]) for f in stack]
        own_dirs = [os.path.dirname(os.path.abspath(m.__file__)) + os.sep for m in (torch, depyf)]
        assert not [f for f in files if any(f.startswith(d) for d in own_dirs)]
        # the call in the fixture above that compiled it is the stack's innermost frame of this file
        ours = [f for f in stack if os.path.abspath(f["file"]) == this_file]
        assert ours and ours[-1]["function"] == "dump" and ours[-1]["code"].startswith("compiled(torch.randn(4")
    top_entries = manifest["functions"][0]["entries"]
    assert [s["code"] for s in top_entries[0]["user_stack"] if s["function"] == "dump"] == ["compiled(torch.randn(4))"]
    assert [s["code"] for s in top_entries[1]["user_stack"] if s["function"] == "dump"] == ["compiled(torch.randn(4, 2))  # another rank of tensor: a recompile"]


def test_report_shows_compile_times_and_stacks(dump: Path) -> None:
    html = render_report(str(dump))
    assert 'class="compile-times"' in html and html.count('class="time-bar"') >= 3
    import re

    text = re.sub(r"<[^>]+>", "", html)  # highlighted code is many spans
    assert html.count('class="user-stack"') >= 3 and "compiled(torch.randn(4, 2))" in text


def test_inductor_stages_are_timed(tmp_path: Path) -> None:
    """With Inductor, torch records AOTAutograd's and Inductor's shares, and a backward graph
    compiled at the first backward call gets its own time, after its frame's compilation."""
    torch._dynamo.reset()

    def train_step(x):
        return (x.sin() * 2).sum()

    compiled = torch.compile(train_step)
    with depyf.prepare_debug(str(tmp_path)):
        compiled(torch.randn(8, requires_grad=True)).backward()
    torch._dynamo.reset()
    with open(tmp_path / MANIFEST_NAME, encoding="utf-8") as f:
        [entry] = json.load(f)["functions"][0]["entries"]
    times = entry["compile_time"]
    forward, backward = times["forward"], times["backward"]
    assert 0 < forward["inductor_s"] <= forward["aot_autograd_s"] <= forward["total_s"]
    assert backward["inductor_s"] > 0
    from depyf.report.timing import StageTimes

    stages = StageTimes(times).stages
    assert stages["inductor"] > 0 and stages["aot"] >= 0 and stages["dynamo"] > 0 and stages["backward"] > 0
    assert StageTimes(times).total == pytest.approx(forward["total_s"] + stages["backward"], rel=1e-3)


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
    env = dict(os.environ, PYTHONPATH=src)
    env.pop("TORCHINDUCTOR_FORCE_DISABLE_CACHES", None)  # as a user runs it
    dump = tmp_path / "dump"
    done = subprocess.run(
        [sys.executable, "-m", "depyf", "run", "--dump-dir", str(dump), str(script)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "dynamo_pgo force disabled" not in done.stderr, "depyf's own cache setting made torch warn"
    with open(dump / MANIFEST_NAME, encoding="utf-8") as f:
        entry = json.load(f)["functions"][0]["entries"][0]
    # the script's own line; not depyf's command line, not runpy
    assert [(Path(s["file"]).name, s["line"], s["code"]) for s in entry["user_stack"]] == [
        ("prog.py", 6, "torch.compile(with_break, backend='eager')(torch.ones(3))")
    ]
    report = dump / "report.html"
    assert f"report in {report}" in done.stderr
    html = report.read_text(encoding="utf-8")
    assert 'id="dump-fn-with_break"' in html and 'class="graph-breaks"' in html


def test_caches_are_off_inside_prepare_debug_only(tmp_path: Path) -> None:
    """Each cache is switched off by itself (not with force_disable_caches, which also disables
    PGO and makes torch warn on every run), and put back afterwards."""
    inductor, functorch = torch._inductor.config, torch._functorch.config
    before = (inductor.fx_graph_cache, functorch.enable_autograd_cache, inductor.force_disable_caches)
    with depyf.prepare_debug(str(tmp_path)):
        assert inductor.fx_graph_cache is False and functorch.enable_autograd_cache is False
        assert inductor.force_disable_caches == before[2]
    assert (inductor.fx_graph_cache, functorch.enable_autograd_cache, inductor.force_disable_caches) == before
