"""Find and read the dumps of a dump folder: one, or one per rank (``rank_<r>/``).

Everything read from disk is checked here, so the renderer can trust the shapes it gets and a
bad folder ends in one :class:`ReportError` that names the file, never in a traceback.
"""
import json
import os
import re
from typing import Any, Dict, List, Optional

from depyf.report.format import MANIFEST_FORMAT, MANIFEST_NAME, MANIFEST_VERSION

_RANK_FOLDER = re.compile(r"^rank_(\d+)$")
# A dumped file shown in the page is cut here: Inductor modules can be large.
MAX_SHOWN_CHARS = 200000


def is_dump_file_name(name: str) -> bool:
    """Whether ``name`` names a file of the dump folder itself (a manifest names nothing else)."""
    return bool(name) and os.path.basename(name) == name and name not in (".", "..")


class ReportError(Exception):
    """The folder cannot be reported on: not a dump, or a manifest that cannot be read."""


class Dump:
    """One dump folder and its manifest; ``label`` is ``rank 0``... or the folder's name."""

    def __init__(self, label: str, folder: str, manifest: Dict[str, Any], rank: Optional[int]) -> None:
        self.label = label
        self.folder = folder
        self.manifest = manifest
        self.rank = rank

    @property
    def anchor(self) -> str:
        return f"rank{self.rank}" if self.rank is not None else "dump"

    def read(self, name: Optional[str]) -> Optional[str]:
        """The text of a dumped file named in the manifest, or None when it is absent."""
        if not name or not is_dump_file_name(name):
            return None
        try:
            with open(os.path.join(self.folder, name), encoding="utf-8", errors="replace") as f:
                text = f.read(MAX_SHOWN_CHARS + 1)
        except OSError:
            return None
        if len(text) > MAX_SHOWN_CHARS:
            text = text[:MAX_SHOWN_CHARS] + "\n# ... (cut here by the report; the file goes on)\n"
        return text

    def read_bytes(self, name: str) -> Optional[bytes]:
        if not is_dump_file_name(name):
            return None
        try:
            with open(os.path.join(self.folder, name), "rb") as f:
                return f.read()
        except OSError:
            return None


def find_dumps(dump_dir: str) -> List[Dump]:
    """The dumps under ``dump_dir``: its ``rank_<r>`` folders by rank, else the folder itself."""
    if not os.path.exists(dump_dir):
        raise ReportError(f"{dump_dir}: no such folder")
    if not os.path.isdir(dump_dir):
        raise ReportError(f"{dump_dir}: not a folder (give the dump folder prepare_debug wrote)")
    try:
        entries = sorted(os.listdir(dump_dir))
    except OSError as e:
        raise ReportError(f"{dump_dir}: cannot list the folder: {e.strerror or e}") from None
    ranks = []
    for name in entries:
        match = _RANK_FOLDER.match(name)
        path = os.path.join(dump_dir, name)
        if match and os.path.isfile(os.path.join(path, MANIFEST_NAME)):
            ranks.append((int(match.group(1)), path))
    if ranks:
        return [Dump(f"rank {r}", path, load_manifest(path), r) for r, path in sorted(ranks)]
    if os.path.isfile(os.path.join(dump_dir, MANIFEST_NAME)):
        label = os.path.basename(os.path.abspath(dump_dir))
        return [Dump(label, dump_dir, load_manifest(dump_dir), None)]
    what = "an empty folder" if not entries else f"no {MANIFEST_NAME} in it or in rank_<r>/ folders"
    raise ReportError(
        f"{dump_dir}: not a depyf dump ({what}); make one with depyf.prepare_debug(dir) or `depyf run`"
    )


def load_manifest(folder: str) -> Dict[str, Any]:
    """Read and check ``folder/depyf_manifest.json``."""
    path = os.path.join(folder, MANIFEST_NAME)
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise ReportError(f"{path}: cannot read the manifest: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise ReportError(f"{path}: corrupt manifest (not UTF-8 text: {e.reason})") from None
    except ValueError as e:  # json.JSONDecodeError
        raise ReportError(f"{path}: corrupt manifest (not valid JSON: {e})") from None
    problem = manifest_problem(data)
    if problem:
        raise ReportError(f"{path}: corrupt manifest ({problem})")
    return data


def manifest_problem(data: Any) -> Optional[str]:
    """What is wrong with a parsed manifest, or None when the renderer can use it."""
    if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
        return f"expected a JSON object with \"format\": \"{MANIFEST_FORMAT}\""
    version = data.get("version")
    if not isinstance(version, int) or version < 1:
        return "no valid \"version\""
    if version > MANIFEST_VERSION:
        return f"version {version} is newer than this depyf reads ({MANIFEST_VERSION}); update depyf"
    for key in ("functions", "skipped", "problems", "files"):
        if not isinstance(data.get(key, []), list):
            return f"\"{key}\" is not a list"
    for i, fn in enumerate(data.get("functions", [])):
        problem = _function_problem(fn, f"functions[{i}]")
        if problem:
            return problem
    for i, skip in enumerate(data.get("skipped", [])):
        if not isinstance(skip, dict) or not isinstance(skip.get("name"), str):
            return f"skipped[{i}] is not an object with a name"
    return None


def _function_problem(fn: Any, where: str) -> Optional[str]:
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
        return f"{where} is not an object with a name"
    if fn.get("shown_above"):
        return None
    entries = fn.get("entries", [])
    if not isinstance(entries, list):
        return f"{where}.entries is not a list"
    for j, entry in enumerate(entries):
        here = f"{where}.entries[{j}]"
        if not isinstance(entry, dict):
            return f"{here} is not an object"
        for key in ("graphs", "resume_functions", "recompile_reasons"):
            if not isinstance(entry.get(key, []), list):
                return f"{here}.{key} is not a list"
        if not isinstance(entry.get("user_stack") or [], list):
            return f"{here}.user_stack is not a list"
        if not isinstance(entry.get("compile_time") or {}, dict):
            return f"{here}.compile_time is not an object"
        guard = entry.get("guard")
        if guard is not None and not (isinstance(guard, dict) and isinstance(guard.get("lines", []), list)):
            return f"{here}.guard is not an object with a list of lines"
        for k, graph in enumerate(entry.get("graphs", [])):
            if not isinstance(graph, dict) or not isinstance(graph.get("name"), str):
                return f"{here}.graphs[{k}] is not an object with a name"
            if not isinstance(graph.get("artifacts", []), list):
                return f"{here}.graphs[{k}].artifacts is not a list"
        for k, resume in enumerate(entry.get("resume_functions", [])):
            problem = _function_problem(resume, f"{here}.resume_functions[{k}]")
            if problem:
                return problem
    return None
