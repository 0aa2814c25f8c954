"""Open the report in headless Chromium and check the DOM it renders (and that its script ran).

Skipped when Chromium is not installed, except under CI=true, where it must run (.ci/run
installs it)."""
import os
import shutil
import subprocess
from pathlib import Path
from typing import Optional

import pytest

from depyf.report import write_report
from handmade_dump import write_dump
from page_parse import by_class, ids, parse

BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome")
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--virtual-time-budget=5000",
)


def _browser() -> Optional[str]:
    for name in BROWSER_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def require_browser() -> str:
    """The browser's path; without one, skip, except under CI=true, where that is a failure."""
    found = _browser()
    if found is None:
        message = "Chromium is not installed (apt-get install chromium); the browser check did not run"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message + " and CI=true requires it")
        pytest.skip(message)
    return found


@pytest.fixture(scope="module")
def browser() -> str:
    return require_browser()


@pytest.mark.parametrize("ci,outcome", [("true", pytest.fail.Exception), ("", pytest.skip.Exception)])
def test_missing_browser_fails_only_on_ci(monkeypatch, ci: str, outcome: type) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome) as info:
        require_browser()
    assert "Chromium is not installed" in str(info.value)


def _rendered_dom(browser: str, page: Path, profile: Path) -> str:
    cmd = [browser, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_report_renders_in_chromium(browser: str, tmp_path: Path) -> None:
    dump = write_dump(str(tmp_path / "dump"))
    page = Path(write_report(dump))
    dom = parse(_rendered_dom(browser, page, tmp_path / "profile"))
    body = [e for e in dom.elements if e.tag == "body"]
    assert body and body[0].attrs.get("data-ready") == "yes", "the page's script did not run to its end"
    assert [e.attrs["id"] for e in by_class(dom, "function")] == ["dump-fn-toy"]
    nodes = [e for e in dom.elements if e.tag == "g" and "node" in e.classes]
    assert len(nodes) == 13
    assert {"function", "guard", "code", "graph", "resume", "fallback"} == {n.attrs["data-kind"] for n in nodes}
    graph_tips = [e.text for e in dom.elements if e.tag == "title" and "__compiled_fn_0" in e.text]
    assert any("Call to `print`" in tip for tip in graph_tips), "a graph's tooltip carries its break reason"
    assert [e for e in dom.elements if e.tag == "a" and e.attrs.get("href") == "__compiled_fn_0.aot_forward_graph.py"]
    assert by_class(dom, "graph-breaks") and by_class(dom, "recompiles")
    assert not [e for e in dom.elements if e.tag == "b"], "dumped code reached the DOM unescaped"


def test_rank_report_renders_in_chromium(browser: str, tmp_path: Path) -> None:
    write_dump(str(tmp_path / "dump"), rank=0)
    write_dump(str(tmp_path / "dump"), rank=1, graph_source="a = 2")
    page = Path(write_report(str(tmp_path / "dump")))
    dom = parse(_rendered_dom(browser, page, tmp_path / "profile"))
    assert {"comparison", "rank0", "rank1", "differing-files"} <= set(ids(dom))
    hrefs = [e.attrs.get("href") for e in dom.elements if e.tag == "a" and "file" in e.classes]
    assert "rank_1/__compiled_fn_0.captured_graph.py" in hrefs
