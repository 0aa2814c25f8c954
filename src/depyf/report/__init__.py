"""The HTML report of a dump folder: ``depyf report DUMP_DIR`` or :func:`write_report`.

It reads only the dump folder (its ``depyf_manifest.json`` and the dumped files), never torch, so
a dump made on one machine can be reported on another. With ``rank_<r>/`` folders (one per
process of a multi-process run) the page has a section per rank and says where ranks differ.
"""
import os
from typing import Optional

from depyf.report.format import MANIFEST_NAME, REPORT_NAME
from depyf.report.load import ReportError, find_dumps
from depyf.report.page import render_page

__all__ = ["write_report", "render_report", "ReportError", "MANIFEST_NAME", "REPORT_NAME"]


def render_report(dump_dir: str, report_dir: Optional[str] = None) -> str:
    """The page for ``dump_dir`` as text; links to files are relative to ``report_dir``."""
    dumps = find_dumps(dump_dir)
    title = f"depyf report: {os.path.basename(os.path.abspath(dump_dir))}"
    return render_page(dumps, os.path.abspath(report_dir or dump_dir), title)


def write_report(dump_dir: str, output: Optional[str] = None) -> str:
    """Write the report of ``dump_dir`` (default ``dump_dir/report.html``); return its path."""
    path = os.path.abspath(output or os.path.join(dump_dir, REPORT_NAME))
    text = render_report(dump_dir, os.path.dirname(path))
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)  # atomic: ranks finishing together never leave half a page
    except OSError as e:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise ReportError(f"cannot write {path}: {e.strerror or e}") from None
    return path
