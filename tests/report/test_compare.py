"""Several rank_<r>/ folders: a section per rank, and a comparison that shows what differs."""
from pathlib import Path

from depyf.report import render_report
from depyf.report.compare import compare_dumps, content_digest
from depyf.report.load import find_dumps
from handmade_dump import write_dump
from page_parse import by_class, ids, parse


def test_identical_ranks(tmp_path: Path) -> None:
    for rank in (0, 1):
        write_dump(str(tmp_path), rank=rank)
    page = parse(render_report(str(tmp_path)))
    assert [e.attrs["id"] for e in by_class(page, "dump")] == ["rank0", "rank1"]
    assert "comparison" in ids(page)
    assert by_class(page, "same-functions") and by_class(page, "same-files")
    # each rank has its own anchors, so links of one rank never land in another
    assert "rank0-fn-toy" in ids(page) and "rank1-fn-toy" in ids(page)


def test_ranks_that_compiled_different_things(tmp_path: Path) -> None:
    write_dump(str(tmp_path), rank=0)
    write_dump(str(tmp_path), rank=1, graph_source="a = 2", extra_function=True)
    write_dump(str(tmp_path), rank=2)
    comparison = compare_dumps(find_dumps(str(tmp_path)))
    assert comparison.labels == ["rank 0", "rank 1", "rank 2"]
    assert [r.name for r in comparison.differing_functions] == ["only_here"]
    assert comparison.differing_functions[0].cells[0] is None
    assert [r.name for r in comparison.differing_files] == ["__compiled_fn_0.captured_graph.py"]
    page = parse(render_report(str(tmp_path)))
    table = [e for e in page.elements if e.attrs.get("id") == "differing-files"]
    assert table
    cells = [e for e in page.elements if e.tag == "td" and ("differs" in e.classes or "missing" in e.classes)]
    assert len([c for c in cells if "missing" in c.classes]) == 2  # only_here on ranks 0 and 2
    assert len([c for c in cells if "differs" in c.classes]) >= 4
    # the rank that compiled it flags the function in its own overview too
    badges = by_class(page, "differs-badge")
    assert len(badges) == 1 and badges[0].attrs["href"] == "#comparison"


def test_ranks_sorted_numerically(tmp_path: Path) -> None:
    for rank in (10, 2):
        write_dump(str(tmp_path), rank=rank)
    assert [d.label for d in find_dumps(str(tmp_path))] == ["rank 2", "rank 10"]


def test_object_ids_do_not_count_as_differences() -> None:
    assert content_digest(b"___check_obj_id(G['torch'], 140589902728784)") == content_digest(
        b"___check_obj_id(G['torch'], 139912345678901)"
    )
    assert content_digest(b"x = 1") != content_digest(b"x = 2")


def test_single_dump_has_no_comparison(tmp_path: Path) -> None:
    write_dump(str(tmp_path))
    assert "comparison" not in ids(parse(render_report(str(tmp_path))))


def test_function_run_eagerly_on_one_rank_only(tmp_path: Path) -> None:
    import json

    from depyf.report.format import MANIFEST_NAME

    write_dump(str(tmp_path), rank=0)
    other = Path(write_dump(str(tmp_path), rank=1))
    data = json.loads((other / MANIFEST_NAME).read_text())
    data["skipped"] = []
    (other / MANIFEST_NAME).write_text(json.dumps(data))
    comparison = compare_dumps(find_dumps(str(tmp_path)))
    [row] = comparison.differing_functions
    assert row.name == "helper" and row.cells[0].startswith("run eagerly: skipfiles") and row.cells[1] is None
