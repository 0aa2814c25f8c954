"""The dump's machine-readable table of contents: ``depyf_manifest.json``.

Written once at the end of ``prepare_debug`` from what the capture session and the explainer
already hold (no file is read back, nothing is decompiled again), so it costs next to nothing.
The report (:mod:`depyf.report`) reads it on any machine, without torch. Layout, per compiled
function::

    {"name", "code_name", "kind": "function" | "resume", "source", "full_code_file", "code_file",
     "entries": [{"compile_id", "transformed_code_file", "readable_code", "recompile_reasons",
                  "user_stack": [{"file", "line", "function", "code"}],   # the calls that led here
                  "compile_time": {"forward": {...}, "backward": {...}},  # as torch recorded it
                  "guard": {"function", "file", "lines": [{"expr", "comment", "stand_in"}]},
                  "graphs": [{"name", "reason", "artifacts": [{"kind", "file"}]}],
                  "resume_functions": [<function>, or {"name", "shown_above": true}]}]}

Every file name is relative to the dump folder. ``compile_time`` holds, per phase, the seconds
torch measured (see :func:`depyf.dynamo.adapter.compilation_metrics_since`); it and
``user_stack`` are absent or empty where torch records nothing.
"""
from __future__ import annotations

import json
import linecache
import os
import platform
import re
import types
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Set

from depyf.dump.writer import atomic_write
from depyf.dynamo import adapter
from depyf.dynamo.capture import CaptureSession, FrameRecord
from depyf.dynamo.names import code_label
from depyf.report.format import MANIFEST_FORMAT, MANIFEST_NAME, MANIFEST_VERSION

if TYPE_CHECKING:  # the layout imports this module; only its type is needed here
    from depyf.dump.layout import DumpLayout
    from depyf.explain.render import Explainer

_RANK_FOLDER = re.compile(r"^rank_(\d+)$")


def _base(path: Optional[str]) -> Optional[str]:
    return os.path.basename(path) if path else None


def _source(code: types.CodeType) -> str:
    return f"{code.co_filename}:{code.co_firstlineno}"


def _display_name(code: types.CodeType) -> str:
    """``Net.forward``, ``make_closure.inner``: what a reader calls the function."""
    return str(getattr(code, "co_qualname", code.co_name)).replace(".<locals>.", ".")


_TIME_FIELDS = ("total_s", "backend_s", "aot_autograd_s", "inductor_s", "code_gen_s")


def _compile_time(phases: Dict[str, Dict[str, Any]]) -> Dict[str, Dict[str, Any]]:
    """The recorded seconds of each phase, rounded to the microsecond torch measures in."""
    out: Dict[str, Dict[str, Any]] = {}
    for phase, record in phases.items():
        values: Dict[str, Any] = {k: round(record[k], 6) for k in _TIME_FIELDS if isinstance(record.get(k), float)}
        if record.get("failure"):
            values["failure"] = str(record["failure"])[:500]
        out[phase] = values
    return out


def _unique(name: str, used: Set[str]) -> str:
    """The report anchors and compares functions by name, so two ``forward`` of two modules
    that share a qualified name get ``forward`` and ``forward (2)``."""
    candidate, n = name, 1
    while candidate in used:
        n += 1
        candidate = f"{name} ({n})"
    used.add(candidate)
    return candidate


class _ManifestBuilder:
    """Walks from each user function through its cache entries to graphs and resume functions."""

    def __init__(self, layout: "DumpLayout", session: CaptureSession, explainer: "Explainer") -> None:
        self.layout = layout
        self.session = session
        self.explainer = explainer
        self.frames_by_code: Dict[int, List[FrameRecord]] = {}
        for record in session.frames:
            self.frames_by_code.setdefault(id(record.code), []).append(record)
        self._unclaimed = list(layout.writer.written)
        self._shown: Set[str] = set()
        self._shown_codes: Set[int] = set()

    def claim_file(self, stem: str) -> Optional[str]:
        """The first written ``stem.py`` / ``stem_<n>.py`` not yet given to another function
        (the layout names files in the order this builder walks them)."""
        if stem + ".py" in self._unclaimed:
            self._unclaimed.remove(stem + ".py")
            return stem + ".py"
        pattern = re.compile(re.escape(stem) + r"_\d+\.py$")
        for name in self._unclaimed:
            if pattern.match(name):
                self._unclaimed.remove(name)
                return name
        return None

    def function(self, code: types.CodeType, name: str, kind: str, guard_file: Optional[str]) -> Dict[str, Any]:
        self._shown.add(name)
        self._shown_codes.add(id(code))
        entries = [self.entry(record, guard_file) for record in self.frames_by_code.get(id(code), [])]
        return {
            "name": name,
            "code_name": code.co_name,
            "kind": kind,
            "source": _source(code),
            "full_code_file": guard_file if kind == "function" else None,
            "code_file": f"{name}.py" if kind == "resume" and f"{name}.py" in self.layout.writer.written else None,
            "entries": entries,
        }

    def entry(self, record: FrameRecord, guard_file: Optional[str]) -> Dict[str, Any]:
        guard = None
        known = self.explainer.guards_by_entry.get(record.compile_id)
        if known is not None:
            function, guards = known
            guard = {
                "function": function,
                "file": guard_file,
                "lines": [{"expr": g.expr, "comment": g.comment, "stand_in": g.stand_in} for g in guards],
            }
        names = record.new_code.co_names
        return {
            "compile_id": record.compile_id,
            "transformed_code_file": _base(record.transformed_file),
            # the same code as the explanation shows it: Dynamo's bookkeeping in words (or None)
            "readable_code": self.explainer.readable_by_entry.get(record.compile_id),
            "debuggable": record.debuggable,
            "recompile_reasons": list(record.recompile_reasons),
            "user_stack": [
                {"file": f, "line": line, "function": fn, "code": linecache.getline(f, line).strip()[:300]}
                for f, line, fn in record.user_stack
            ],
            "compile_time": _compile_time(self.session.compile_times.get(record.compile_id, {})),
            "guard": guard,
            "graphs": [self.graph(n) for n in names if n.startswith("__compiled_fn")],
            "resume_functions": [
                self.resume(n, record, guard_file) for n in names if n.startswith("__resume_at_")
            ],
        }

    def graph(self, dynamo_name: str) -> Dict[str, Any]:
        stable = self.session.namer.names.get(dynamo_name) or self.session.namer.stable(dynamo_name)
        reason = None
        artifacts = []
        for rec in self.session.graphs.get(stable, []):
            if rec.kind == "captured_graph":
                reason = rec.reason
            artifacts.append({"kind": rec.kind, "file": _base(rec.file)})
        return {"name": stable, "reason": reason, "artifacts": artifacts}

    def resume(self, dynamo_name: str, record: FrameRecord, guard_file: Optional[str]) -> Dict[str, Any]:
        code = getattr(record.frame_globals.get(dynamo_name), "__code__", None)
        stable = self.session.namer.stable_resume(dynamo_name, code)
        if stable in self._shown or not isinstance(code, types.CodeType):
            return {"name": stable, "shown_above": True}
        return self.function(code, stable, "resume", guard_file)

    def skipped(self) -> List[Dict[str, Any]]:
        out = []
        seen = set()
        for skip in self.session.skips:
            key = (skip.code.co_name, skip.code.co_filename, skip.code.co_firstlineno)
            if key in seen:
                continue
            seen.add(key)
            out.append(
                {
                    "name": skip.code.co_name,
                    "source": _source(skip.code),
                    "reason": skip.reason,
                    "file": self.claim_file(f"skipped_{code_label(skip.code)}"),
                }
            )
        return out

    def build(self) -> Dict[str, Any]:
        functions = []
        used: Set[str] = set()
        for record in self.session.top_level_frames():
            full_code = self.claim_file(f"full_code_for_{code_label(record.code)}")
            functions.append(self.function(record.code, _unique(_display_name(record.code), used), "function", full_code))
        for record in self.session.frames:
            # A resume function no explained entry leads to (its global was gone): still listed.
            if id(record.code) not in self._shown_codes:
                kind = "resume" if adapter.is_resume_code(record.code) else "function"
                functions.append(self.function(record.code, self.layout.base_name(record), kind, None))
        folder = self.layout.writer.folder
        match = _RANK_FOLDER.match(os.path.basename(folder))
        return {
            "format": MANIFEST_FORMAT,
            "version": MANIFEST_VERSION,
            "torch_version": adapter.torch_version(),
            "python_version": platform.python_version(),
            "rank": int(match.group(1)) if match else None,
            "functions": functions,
            "skipped": self.skipped(),
            "problems": list(self.layout.problems) + list(self.layout.undecompiled) + list(self.session.errors),
            "files": sorted(n for n in self.layout.writer.written if n != MANIFEST_NAME),
        }


def build_manifest(layout: "DumpLayout", session: CaptureSession, explainer: "Explainer") -> Dict[str, Any]:
    return _ManifestBuilder(layout, session, explainer).build()


def write_manifest(layout: "DumpLayout", session: CaptureSession, explainer: "Explainer") -> str:
    """Write ``depyf_manifest.json`` into the dump folder; return its path."""
    path = layout.writer.path(MANIFEST_NAME)
    # No indent: only then does json use its C encoder, and this runs inside the measured dump time.
    text = json.dumps(build_manifest(layout, session, explainer), separators=(",", ":"))
    atomic_write(path, text + "\n")
    return path
