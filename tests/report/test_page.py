"""The page rendered from a hand-made dump: every part of the contract is there, escaped, linked."""
import os
from pathlib import Path
from urllib.parse import unquote

import pytest

from depyf.report import render_report, write_report
from handmade_dump import HOSTILE, write_dump
from page_parse import by_class, ids, parse


@pytest.fixture
def dump(tmp_path: Path) -> str:
    return write_dump(str(tmp_path / "dump"))


@pytest.fixture
def page(dump: str):
    return parse(render_report(dump))


def test_one_section_per_function_and_resume_function(page) -> None:
    functions = by_class(page, "function")
    assert [f.attrs["data-names"] for f in functions] == ["toy __resume_at_30_0"]
    resumes = by_class(page, "resume")
    assert len(resumes) == 1 and resumes[0].attrs["id"] == "dump-fn-__resume_at_30_0"
    # three cache entries in all: two of toy, one of its resume function
    assert [e.attrs["id"] for e in by_class(page, "entry")] == ["dump-entry-toy-0_0", "dump-entry-toy-0_1", "dump-entry-__resume_at_30_0-1_0"]


def test_flow_picture_has_a_node_per_step(page) -> None:
    nodes = [e for e in page.elements if e.tag == "g" and "node" in e.classes]
    kinds = [n.attrs["data-kind"] for n in nodes]
    # toy -> guard_0 -> code -> (graph 0, resume -> guard_2 -> code -> graph 1); -> guard_1 -> code -> (graph 2, resume seen above)
    assert kinds.count("function") == 1
    assert kinds.count("guard") == 3
    assert kinds.count("code") == 3
    assert kinds.count("graph") == 3
    assert kinds.count("resume") == 2
    assert kinds.count("fallback") == 1  # no guard holds: compiled again
    names = [n.attrs["data-name"] for n in nodes]
    assert names[:2] == ["toy", "guard_0"]
    assert "__resume_at_30_0" in names
    assert len([e for e in page.elements if e.tag == "svg" and "flow" in e.classes]) == 1


def test_every_link_inside_the_page_has_a_target(page) -> None:
    targets = set(ids(page))
    internal = [e.attrs["href"][1:] for e in page.elements if e.tag == "a" and (e.attrs.get("href") or "").startswith("#")]
    assert internal
    missing = [h for h in internal if h not in targets]
    assert not missing
    assert len(targets) == len(ids(page)), "ids must be unique"


def test_links_to_dumped_files_resolve(dump: str, page) -> None:
    files = [e.attrs["href"] for e in page.elements if e.tag == "a" and "file" in e.classes]
    assert "__compiled_fn_0.aot_forward_graph.py" in files
    for href in files:
        assert os.path.isfile(os.path.join(dump, unquote(href))), href


def test_links_are_relative_to_where_the_report_goes(tmp_path: Path, dump: str) -> None:
    out = tmp_path / "elsewhere" / "page.html"
    out.parent.mkdir()
    assert write_report(dump, str(out)) == str(out)
    page = parse(out.read_text(encoding="utf-8"))
    hrefs = [e.attrs["href"] for e in page.elements if e.tag == "a" and "file" in e.classes]
    assert hrefs and all(h.startswith("../dump/") for h in hrefs)
    for href in hrefs:
        assert (out.parent / unquote(href)).is_file()


def test_code_guards_and_reasons_are_shown(page) -> None:
    text = page.all_text
    assert "def __transformed_code_0_for_toy(a, b):" in text
    assert "def __resume_at_30_0(b):" in text
    checks = [e for e in page.elements if e.tag == "table" and "guard-checks" in e.classes]
    assert len(checks) == 3
    cells = [e.full_text for e in page.elements if e.tag in ("code", "td")]
    assert "L['a'].size(0) == 2" in cells and "a < b  # user line" in cells
    breaks = by_class(page, "graph-breaks")
    assert len(breaks) == 1
    items = [e for e in page.elements if e.tag == "span" and "reason" in e.classes]
    assert any("Call to `print` <unsupported>" in e.text for e in items)
    assert any("size mismatch at index 0" in e.text for e in items)
    assert any(e.tag == "table" and "skipped" in e.classes for e in page.elements)
    assert "skipfiles: <not compiled>" in text
    assert "toy: a problem <noted>" in text


def test_code_is_escaped(dump: str) -> None:
    html = render_report(dump)
    assert HOSTILE not in html
    assert "window.hacked" in html  # shown, as text
    page = parse(html)
    scripts = [e for e in page.elements if e.tag == "script"]
    assert len(scripts) == 1 and "hacked" not in page.script_text
    assert not any(e.tag == "b" for e in page.elements)


def test_page_is_self_contained(page) -> None:
    for e in page.elements:
        for attr in ("src", "href"):
            value = e.attrs.get(attr) or ""
            assert not value.startswith(("http:", "https:", "//")), value
        assert e.tag not in ("link", "iframe", "img")


def test_missing_dumped_file_is_noted_not_fatal(dump: str) -> None:
    os.unlink(os.path.join(dump, "__compiled_fn_0.captured_graph.py"))
    assert "the file is not in the dump folder" in render_report(dump)


def test_manifest_naming_files_outside_the_dump_is_not_followed(dump: str, tmp_path: Path) -> None:
    import json

    (tmp_path / "secret.py").write_text("TOP_SECRET = 1\n")
    path = os.path.join(dump, "depyf_manifest.json")
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    data["functions"][0]["entries"][0]["transformed_code_file"] = "../secret.py"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
    html = render_report(dump)
    assert "TOP_SECRET" not in html
    assert 'href="../secret.py"' not in html


def test_dump_without_functions(tmp_path: Path) -> None:
    import json

    from depyf.report.format import MANIFEST_FORMAT, MANIFEST_NAME

    (tmp_path / MANIFEST_NAME).write_text(json.dumps({"format": MANIFEST_FORMAT, "version": 1, "functions": []}))
    assert "No function was compiled" in render_report(str(tmp_path))


def test_resume_function_listed_on_its_own(tmp_path: Path) -> None:
    import json

    folder = Path(write_dump(str(tmp_path / "dump")))
    path = folder / "depyf_manifest.json"
    data = json.loads(path.read_text())
    toy = data["functions"][0]
    orphan = toy["entries"][0]["resume_functions"][0]
    toy["entries"][0]["resume_functions"] = []
    toy["entries"][1]["resume_functions"] = []
    data["functions"].append(orphan)
    path.write_text(json.dumps(data))
    page = parse(render_report(str(folder)))
    all_ids = ids(page)
    assert len(all_ids) == len(set(all_ids))
    assert [f.attrs["id"] for f in by_class(page, "function")] == ["dump-fn-toy", "dump-fn-__resume_at_30_0"]
    assert len(by_class(page, "resume")) == 1


def test_stand_in_guards_are_marked(tmp_path: Path) -> None:
    import json

    folder = Path(write_dump(str(tmp_path / "dump")))
    path = folder / "depyf_manifest.json"
    data = json.loads(path.read_text())
    data["functions"][0]["entries"][0]["guard"]["lines"].append(
        {"expr": "___guard_stand_in('LAMBDA_GUARD')", "comment": "LAMBDA_GUARD: prose <here>", "stand_in": True}
    )
    path.write_text(json.dumps(data))
    page = parse(render_report(str(folder)))
    rows = [e for e in page.elements if e.tag == "tr" and "stand-in" in e.classes]
    assert len(rows) == 1


def test_readable_view_shown_above_the_exact_text(dump: str) -> None:
    import json

    path = os.path.join(dump, "depyf_manifest.json")
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    entry = data["functions"][0]["entries"][0]
    entry["readable_code"] = "def compiled_code_0(a, b):\n    return a < b\n"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
    html = render_report(dump)
    readable = html.index("Transformed code (readable view):")
    assert html.index("return a &lt; b") > readable  # the view's text, escaped
    assert html.index("Exact decompiled text:", readable) < html.index(entry["transformed_code_file"] + '"', readable)
    assert html.count("Transformed code (readable view):") == 1  # only the entry that has one
