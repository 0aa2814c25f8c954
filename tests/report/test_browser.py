"""Open the report in headless Chromium and check the DOM it renders (and that its script ran).

Skipped when Chromium is not installed, except under CI=true, where it must run (.ci/run
installs it)."""
import os
import shutil
import struct
import subprocess
import zlib
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

from depyf.report import highlight, write_report
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
    assert len(by_class(dom, "time-bar")) == 3 and len(by_class(dom, "user-stack")) == 2
    coloured = [e for e in dom.elements if e.tag == "span" and e.classes == ["k"]]
    assert bool(coloured) == highlight.available(), "code is coloured exactly when Pygments is installed"


def test_rank_report_renders_in_chromium(browser: str, tmp_path: Path) -> None:
    write_dump(str(tmp_path / "dump"), rank=0)
    write_dump(str(tmp_path / "dump"), rank=1, graph_source="a = 2")
    page = Path(write_report(str(tmp_path / "dump")))
    dom = parse(_rendered_dom(browser, page, tmp_path / "profile"))
    assert {"comparison", "rank0", "rank1", "differing-files"} <= set(ids(dom))
    hrefs = [e.attrs.get("href") for e in dom.elements if e.tag == "a" and "file" in e.classes]
    assert "rank_1/__compiled_fn_0.captured_graph.py" in hrefs


# -- a screenshot, as a person would see the page ---------------------------------------------


def _png_pixels(data: bytes) -> Tuple[int, int, List[Tuple[int, int, int]]]:
    """(width, height, RGB pixels) of an 8-bit RGB or RGBA PNG, decoded with the standard library."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour_type = header[:4]
    assert depth == 8 and colour_type in (2, 6), header
    channels = 3 if colour_type == 2 else 4
    raw, stride = zlib.decompress(idat), width * channels
    rows: List[bytearray] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):  # undo the PNG row filter (None, Sub, Up, Average, Paeth)
            left = line[i - channels] if i >= channels else 0
            up, up_left = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else up_left)) & 255
        rows.append(line)
        previous = line
    pixels = [tuple(row[x:x + 3]) for row in rows for x in range(0, stride, channels * 4)]  # every 4th pixel
    return width, height, pixels


def test_screenshot_of_the_report(browser: str, tmp_path: Path) -> None:
    """The page as Chromium paints it, saved as report.png (in $DEPYF_SCREENSHOT_DIR when set,
    so CI keeps it): not blank, and in colour (flow boxes, stage bars, highlighted code)."""
    dump = write_dump(str(tmp_path / "dump"))
    page = Path(write_report(dump))
    out_dir = Path(os.environ.get("DEPYF_SCREENSHOT_DIR") or tmp_path)
    out_dir.mkdir(parents=True, exist_ok=True)
    shot = out_dir / "report.png"
    cmd = [browser, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,1400",
           "--hide-scrollbars", f"--screenshot={shot}", page.as_uri()]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    print(f"screenshot of the report: {shot}")
    width, height, pixels = _png_pixels(shot.read_bytes())
    assert (width, height) == (1280, 1400)
    ink = [p for p in pixels if min(p) < 200]
    colour = [p for p in pixels if max(p) - min(p) > 60]
    assert len(ink) > len(pixels) // 100, "the page looks blank"
    assert len(colour) > 200, "the page has no colour: flow boxes and stage bars are missing"
