"""Colours (Pygments when installed, plain text without), compile time per stage, the user's stack
that led to each compilation, and the graph-break count of the summary."""
import json
import sys
from pathlib import Path

import pytest

from depyf.report import highlight, render_report
from depyf.report.timing import StageTimes, seconds
from handmade_dump import EAGER_TIMES, INDUCTOR_TIMES, TRAINING_TIMES, write_dump
from page_parse import by_class, parse


@pytest.fixture
def dump(tmp_path: Path) -> str:
    return write_dump(str(tmp_path / "dump"))


@pytest.fixture
def without_pygments(monkeypatch):
    """Pygments made unimportable (as when the `report` extra is not installed)."""
    monkeypatch.setitem(sys.modules, "pygments", None)
    for name in [n for n in sys.modules if n.startswith("pygments.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(highlight, "_checked", False)
    monkeypatch.setattr(highlight, "_pygments", None)
    yield
    highlight._checked = False  # the next test looks again


def _code_blocks(page):
    return [e for e in page.elements if e.tag == "pre"]


def test_with_pygments_every_code_block_is_coloured(dump: str) -> None:
    pytest.importorskip("pygments")
    highlight._checked = False
    html = render_report(dump)
    page = parse(html)
    blocks = _code_blocks(page)
    assert blocks and all("hl" in b.classes for b in blocks)
    keywords = [e for e in page.elements if e.tag == "span" and e.classes == ["k"]]
    assert {"def", "return"} <= {k.text for k in keywords}
    # the colours travel inside the page, scoped to highlighted code
    style = [e for e in page.elements if e.tag == "style"][0].text
    assert ".hl .k {" in style and "@import" not in style and "url(" not in style
    # the text is the file's, character for character
    assert "def __transformed_code_0_for_toy(a, b):\n    return __compiled_fn_0(a, b)\n" in page.all_text
    # guard checks are coloured too
    checks = [e for e in page.elements if e.tag == "code" and "hl" in e.classes and "size(0)" in e.full_text]
    assert len(checks) == 6
    assert "<b>" not in [e.tag for e in page.elements]  # still escaped


def test_without_pygments_code_is_plain_escaped_text(dump: str, without_pygments) -> None:
    assert not highlight.available()
    page = parse(render_report(dump))
    blocks = _code_blocks(page)
    assert blocks and not any("hl" in b.classes for b in blocks)
    assert not [e for e in page.elements if e.tag == "span" and e.classes == ["k"]]
    style = [e for e in page.elements if e.tag == "style"][0].text
    assert ".hl ." not in style
    codes = [e.text for e in page.elements if e.tag == "code"]
    assert "def __transformed_code_0_for_toy(a, b):\n    return __compiled_fn_0(a, b)\n" in codes
    assert "L['a'].size(0) == 2" in codes
    assert not any(e.tag == "b" for e in page.elements)


def test_very_long_files_stay_plain() -> None:
    text = "x = 1\n" * (highlight.MAX_HIGHLIGHTED_CHARS // 6 + 1)
    assert highlight.code_html(text) == f"<pre><code>{text}</code></pre>"


@pytest.mark.parametrize(
    "times,expected",
    [
        # total 2.5 = Dynamo 0.5 + backend 2.0; backend = AOTAutograd's own 0.5 + Inductor 1.5
        (INDUCTOR_TIMES, {"dynamo": 0.5, "aot": 0.5, "inductor": 1.5, "other_backend": None, "backward": None}),
        (EAGER_TIMES, {"dynamo": 0.249, "aot": None, "inductor": None, "other_backend": 0.001, "backward": None}),
        (TRAINING_TIMES, {"dynamo": 0.25, "aot": 0.25, "inductor": 0.5, "other_backend": None, "backward": 0.625}),
    ],
)
def test_each_stage_gets_its_own_share(times, expected) -> None:
    stages = StageTimes(times).stages
    assert set(stages) == set(expected)
    for key, value in expected.items():
        assert stages[key] == (pytest.approx(value) if value is not None else None), key


def test_shares_add_up_to_what_torch_measured() -> None:
    assert StageTimes(INDUCTOR_TIMES).total == pytest.approx(2.5)
    assert StageTimes(TRAINING_TIMES).total == pytest.approx(1.0 + 0.625)
    assert not StageTimes(None).recorded and not StageTimes({"forward": {"total_s": "x"}}).recorded


def test_seconds_are_readable() -> None:
    assert [seconds(v) for v in (2.5, 0.25, 0.0004, None)] == ["2.50 s", "250 ms", "0.4 ms", "\u2013"]


def test_compile_time_table(dump: str) -> None:
    page = parse(render_report(dump))
    [table] = by_class(page, "compile-times")
    rows = [e for e in page.elements if e.tag == "tr"]
    first = [e.full_text for e in page.elements if e.tag == "td" and "total" in e.classes]
    assert first == ["2.50 s", "250 ms", "1.62 s"]  # toy 0/0, toy 0/1, the resume function's 1/0
    assert rows
    assert "3 compilations, 4.38 s in all" in page.all_text
    bars = by_class(page, "time-bar")
    widths = [e.attrs["style"] for e in page.elements if e.tag == "span" and "stage" in e.classes]
    assert len(bars) == 3 and "width:60.00%" in widths[2]  # Inductor's 1.5 s of the longest, 2.5 s
    entry_times = [e.full_text for e in by_class(page, "entry-time")]
    assert entry_times[0] == "Compiled in 2.50 s (Dynamo 500 ms, AOTAutograd 500 ms, Inductor 1.50 s)."


def test_overview_has_each_function_s_compile_time(dump: str) -> None:
    page = parse(render_report(dump))
    head = [e.text for e in page.elements if e.tag == "th"][:8]
    assert head[-1] == "compile time"
    cells = [e.full_text for e in page.elements if e.tag == "td"][:8]
    assert cells[-1] == "4.38 s"  # toy's two entries and its resume function's


def test_no_recorded_times_is_said(tmp_path: Path) -> None:
    folder = Path(write_dump(str(tmp_path / "dump")))
    path = folder / "depyf_manifest.json"
    data = json.loads(path.read_text())
    _strip(data["functions"][0], "compile_time")
    path.write_text(json.dumps(data))
    html = render_report(str(folder))
    assert "torch recorded no compile times" in html and 'class="compile-times"' not in html
    cells = [e.full_text for e in parse(html).elements if e.tag == "td"][:8]
    assert cells[-1] == "\u2013"


def _strip(fn, key):
    for entry in fn.get("entries", []):
        entry.pop(key, None)
        for resume in entry.get("resume_functions", []):
            _strip(resume, key)


def test_user_stack_of_each_compilation(dump: str) -> None:
    page = parse(render_report(dump))
    stacks = by_class(page, "user-stack")
    assert len(stacks) == 2  # toy 0/0 and the resume function; toy 0/1 recorded none
    items = [e.full_text for e in page.elements if e.tag == "li" and "/work/prog.py:" in e.full_text]
    assert any(i.startswith("/work/prog.py:5 in toy") and "print(a)" in i for i in items)
    assert any("toy(a, b)  # </code><b>" in i for i in items)  # shown as text
    assert not any(e.tag == "b" for e in page.elements)


def test_a_graph_break_before_any_graph_is_counted(tmp_path: Path) -> None:
    """A break at a function's first line captures no graph, but still leaves a resume function:
    the summary counts it, as the flow picture shows it."""
    folder = Path(write_dump(str(tmp_path / "dump")))
    path = folder / "depyf_manifest.json"
    data = json.loads(path.read_text())
    for entry in data["functions"][0]["entries"]:
        entry["graphs"] = []
    path.write_text(json.dumps(data))
    page = parse(render_report(str(folder)))
    [overview] = by_class(page, "overview")
    cells = [e.full_text for e in page.elements if e.tag == "td"]
    head = [e.text for e in page.elements if e.tag == "th"][:7]
    row = cells[: len(head)]
    assert row[head.index("graph breaks")] == "2"  # both entries of toy hand over to the resume function
    [breaks] = by_class(page, "graph-breaks")
    assert "before any graph was captured" in breaks.full_text


def test_graph_break_count_is_one_per_entry(dump: str) -> None:
    page = parse(render_report(dump))
    cells = [e.full_text for e in page.elements if e.tag == "td"]
    head = [e.text for e in page.elements if e.tag == "th"][:7]
    assert cells[head.index("graph breaks")] == "2"


def test_odd_times_and_stack_frames_do_not_break_the_page(tmp_path: Path) -> None:
    """Shapes a hand-edited or future manifest may hold: shown where they make sense, else left out."""
    folder = Path(write_dump(str(tmp_path / "dump")))
    path = folder / "depyf_manifest.json"
    data = json.loads(path.read_text())
    entry = data["functions"][0]["entries"][0]
    entry["compile_time"] = {"forward": {"total_s": -1, "backend_s": "soon", "inductor_s": True}, "backward": 3}
    entry["user_stack"] = ["not a frame", {"file": "/work/prog.py"}]
    path.write_text(json.dumps(data))
    page = parse(render_report(str(folder)))
    stack = by_class(page, "user-stack")[0].full_text
    assert "/work/prog.py:? in ?" in stack and "not a frame" not in stack
    totals = [e.full_text for e in page.elements if e.tag == "td" and "total" in e.classes]
    assert totals[0] == "\u2013"  # nothing usable recorded for that entry
