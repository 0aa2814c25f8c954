"""Where the ranks of a multi-process run compiled different things.

Dumped names are stable (the same program gives the same names in every process), so ranks are
compared name by name: which functions each rank compiled and into what (cache entries, graphs,
resume functions), and which dumped files differ in content. Object ids that guards embed
(``___check_obj_id(G['torch'], 140589902728784)``) differ between any two processes, so long
numbers are masked before contents are compared.
"""
import hashlib
import re
from typing import Any, Dict, List, Optional, Sequence

from depyf.report.load import Dump

_PROCESS_NUMBER = re.compile(rb"\b\d{10,}\b")


class Row:
    """One compared thing: a cell per rank (None where that rank lacks it) and whether all agree."""

    def __init__(self, name: str, cells: List[Optional[str]]) -> None:
        self.name = name
        self.cells = cells
        self.same = all(c is not None for c in cells) and len(set(cells)) == 1


class RankComparison:
    def __init__(self, labels: List[str], functions: List[Row], files: List[Row]) -> None:
        self.labels = labels
        self.functions = functions
        self.files = files

    @property
    def differing_functions(self) -> List[Row]:
        return [r for r in self.functions if not r.same]

    @property
    def differing_files(self) -> List[Row]:
        return [r for r in self.files if not r.same]


def content_digest(data: bytes) -> str:
    return hashlib.sha1(_PROCESS_NUMBER.sub(b"<id>", data)).hexdigest()[:12]


def function_summary(fn: Dict[str, Any]) -> str:
    """What a function was compiled into, in words that are equal when the compilations are."""
    entries = fn.get("entries", [])
    graphs: List[str] = []
    resumes: List[str] = []
    _collect(fn, graphs, resumes)
    text = f"{len(entries)} cache entr{'y' if len(entries) == 1 else 'ies'}"
    if graphs:
        text += "; graphs " + ", ".join(graphs)
    if resumes:
        text += "; resume " + ", ".join(resumes)
    return text


def _collect(fn: Dict[str, Any], graphs: List[str], resumes: List[str]) -> None:
    for entry in fn.get("entries", []):
        graphs.extend(g["name"] for g in entry.get("graphs", []))
        for resume in entry.get("resume_functions", []):
            if resume["name"] not in resumes:
                resumes.append(resume["name"])
            if not resume.get("shown_above"):
                _collect(resume, graphs, resumes)


def compare_dumps(dumps: Sequence[Dump]) -> RankComparison:
    labels = [d.label for d in dumps]
    function_cells: Dict[str, List[Optional[str]]] = {}
    for i, dump in enumerate(dumps):
        for fn in dump.manifest.get("functions", []):
            function_cells.setdefault(fn["name"], [None] * len(dumps))[i] = function_summary(fn)
        for skip in dump.manifest.get("skipped", []):
            # A function one rank compiled and another ran eagerly is a difference too.
            cells = function_cells.setdefault(str(skip["name"]), [None] * len(dumps))
            if cells[i] is None:
                cells[i] = "run eagerly: " + " ".join(str(skip.get("reason", "")).split())[:120]
    file_cells: Dict[str, List[Optional[str]]] = {}
    for i, dump in enumerate(dumps):
        for name in dump.manifest.get("files", []):
            if not isinstance(name, str):
                continue
            data = dump.read_bytes(name)
            cell = content_digest(data) if data is not None else None
            file_cells.setdefault(name, [None] * len(dumps))[i] = cell
    functions = [Row(name, cells) for name, cells in function_cells.items()]
    files = [Row(name, cells) for name, cells in sorted(file_cells.items())]
    return RankComparison(labels, functions, files)
