"""What ``prepare_debug`` writes, and under which names.

    full_code_for_<fn>.py                       the seed-format explanation of each compiled function
    __transformed_code_<i>_for_<fn>.py          Dynamo's transformed code, one per cache entry
    __resume_at_<offset>_<n>.py                 each resume function Dynamo made (decompiled)
    __transformed_code_<i>_for___resume_at_...  the transformed code of a resume function
    __compiled_fn_<n>.captured_graph.py         the graph Dynamo handed to the backend
    __compiled_fn_<n>.aot_forward_graph.py      AOTAutograd's graphs (also _backward_, _inference_)
    __compiled_fn_<n>.inductor_forward_code.py  Inductor's output module (also _backward_, _inference_)
    skipped_<fn>.py                             a frame Dynamo skipped or left to run eagerly, and why

Numbers come from depyf's own counters (never Dynamo's process-wide ones, never UUIDs), so the
same program gives the same names on every run.
"""
from __future__ import annotations

import re
import types
from typing import Any, Dict, List, Optional, Tuple

from depyf.dump.manifest import write_manifest
from depyf.decompiler.printer import has_source_form
from depyf.dump.writer import DumpWriter
from depyf.dynamo import adapter
from depyf.dynamo.capture import CaptureSession, FrameRecord, GraphRecord
from depyf.dynamo.debuggable import compile_like, remap_lines, swap_forward, swap_function_codes, wrap_for_layout
from depyf.dynamo.decompile import report_problems, safe_decompile, share_decompiled
from depyf.dynamo.names import code_label, identifier
from depyf.explain.render import Explainer, GraphArtifacts, dig_graph


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _comment_block(lines: List[str]) -> str:
    """One comment line per item: names and reasons come from the user's code and may hold a
    newline, a carriage return or a NUL, which must neither end the comment nor break the file."""
    return "".join(
        "# " + _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", " ".join(str(line).split())) + "\n" for line in lines
    )


class DumpLayout:
    """Turns capture records into files as they arrive, and the explanations at the end."""

    def __init__(self, writer: DumpWriter) -> None:
        self.writer = writer
        self.session: Optional[CaptureSession] = None
        self.problems: List[str] = []
        self.undecompiled: List[str] = []
        self.inductor_files: Dict[str, str] = {}  # source text -> path
        self.inductor_modules: List[types.ModuleType] = []
        self._transformed_counts: Dict[str, int] = {}
        self._reasons_by_id: Optional[Dict[str, List[str]]] = None
        self._explained_label: Dict[int, str] = {}  # id(resume code) -> label of its user function
        self._keep_alive: List[types.CodeType] = []  # (so the ids above stay unique)

    # -- while compiling -------------------------------------------------------------------------

    def base_name(self, record: FrameRecord) -> str:
        """``toy_example`` for a user function, ``__resume_at_102_0`` for a resume function."""
        if adapter.is_resume_code(record.code):
            known = self.session.namer.resume_name_for(record.code) if self.session else None
            if known:
                return known
            for name, value in record.frame_globals.items():
                if name.startswith("__resume_at_") and getattr(value, "__code__", None) is record.code:
                    return self.session.namer.stable(name) if self.session else name
        return code_label(record.code)

    def on_frame(self, record: FrameRecord) -> Optional[types.CodeType]:
        base = self.base_name(record)
        i = self._transformed_counts.get(base, 0)
        self._transformed_counts[base] = i + 1
        stem = f"__transformed_code_{i}_for_{base}"
        name = self.writer.unique_name(stem)
        path = self.writer.path(name)
        text, problem = safe_decompile(record.new_code, stem, transformed=True)
        header = _comment_block(
            [f"Dynamo's transformed code for {record.code.co_name} (cache entry {record.compile_id})."]
            + [f"A readable view of it: compiled_code_* for cache entry {record.compile_id} in "
               f"full_code_for_{self._explained_in(record)}.py."]
            + [f"recompiled because: {r}" for r in record.recompile_reasons]
            + self._graph_lines(record)
        )
        if problem:
            self.undecompiled.append(problem)
            record.transformed_file = self.writer.write_py(name, header + text)
            return None
        source = wrap_for_layout(text, stem, record.new_code)
        if not adapter.source_can_match(record.new_code):
            code, why = None, "Dynamo calls its pregraph markers in an order plain source cannot express"
        elif not all(has_source_form(c) or isinstance(c, types.CodeType) for c in record.new_code.co_consts):
            code, why = None, "Dynamo loads constants that no literal can write"
        else:
            code, why = compile_like(header + source, stem, record.new_code, path)
        if code is not None:
            # Code whose file could not be written would point debuggers at nothing: keep Dynamo's.
            record.transformed_file = self.writer.write_py(name, header + source, compiled=True)
            if record.transformed_file is None:
                return None
            record.debuggable = True
            share_decompiled(code, record.new_code, transformed=True)
            return code
        # Not bytecode-equal: keep Dynamo's own bytecode (exact semantics) and point its lines at
        # the statements of this file that show each step, so breakpoints here still stop.
        note = _comment_block(
            [
                "Under depyf.debug(), Dynamo's own bytecode runs with its lines mapped onto this file",
                f"(the decompiled text is not bytecode-identical: {why[:300]}).",
            ]
        )
        full = header + note + text
        record.transformed_file = self.writer.write_py(name, full, compiled=True)  # comments + compiled text
        if record.transformed_file is None:
            return None
        def_line = next((i + 1 for i, line in enumerate(full.splitlines()) if line.startswith(f"def {stem}(")), 1)
        remapped = remap_lines(record.new_code, full, path, def_line)
        if remapped is None:
            self.problems.append(f"{stem}: not used for debugging ({why})")
            return None
        record.debuggable = True
        share_decompiled(remapped, record.new_code, transformed=True)
        return remapped

    def _explained_in(self, record: FrameRecord) -> str:
        """The label of the user function whose explanation shows this frame's code (a resume
        function is explained with the function it continues), and remember it for the resume
        functions this frame calls."""
        label = self._explained_label.get(id(record.code)) or code_label(record.code)
        for name in record.new_code.co_names:
            resume = getattr(record.frame_globals.get(name), "__code__", None) if name.startswith("__resume_at_") else None
            if resume is not None:
                self._explained_label[id(resume)] = label
                self._keep_alive.append(resume)
        return label

    def _graph_lines(self, record: FrameRecord) -> List[str]:
        """Which graph each ``__compiled_fn`` global is, and why Dynamo ended that graph; which
        resume function each ``__resume_at`` global is (this file keeps Dynamo's own names, so
        its bytecode can match; the rest of the dump uses depyf's stable ones)."""
        lines = []
        for n in record.new_code.co_names:
            if n.startswith("__resume_at_") and self.session is not None:
                code = getattr(record.frame_globals.get(n), "__code__", None)
                stable = self.session.namer.stable_resume(n, code)
                lines.append(f"resume function {stable} (file {stable}.py) is the global {n}")
                continue
            if not n.startswith("__compiled_fn") or self.session is None:
                continue
            stable = self.session.namer.stable(n)
            lines.append(f"graph {stable} is the global {n}")
            for rec in self.session.graphs.get(stable, []):
                if rec.kind == "captured_graph" and rec.reason:
                    lines.append(f"{stable}: {rec.reason}")
        return lines

    def on_graph(self, record: GraphRecord) -> None:
        name = self.writer.unique_name(f"{record.stable}.{record.kind}")
        # Graph code is what torch itself compiled (plus comments and imports): no need to check it.
        record.file = self.writer.write_py(name, self.graph_text(record, record.source), compiled=True)
        if record.file is not None and record.kind.startswith("inductor_"):
            self.inductor_files[record.source] = record.file

    def on_module(self, module: types.ModuleType) -> None:
        self.inductor_modules.append(module)

    def graph_text(self, record: GraphRecord, source: str) -> str:
        if record.kind.startswith("inductor_"):
            return source  # exactly as Inductor wrote it, so it can run from this file
        lines = [f"{record.kind.replace('_', ' ')} of {record.stable}"]
        if record.reason:
            lines.append(record.reason)
        return _comment_block(lines) + "import torch\nfrom torch import device\n\n" + source.strip("\n") + "\n"

    # -- at the end of prepare_debug ------------------------------------------------------------

    def finish(self, session: CaptureSession) -> None:
        self.refresh_graph_files(session)
        explainer = Explainer(
            namer=session.namer,
            graph_lookup=lambda n, g: self._graph_artifacts(session, n, g),
            notes_for_code=lambda code: self._notes_for_code(session, code),
            notes_for_entry=lambda cid: self._notes_for_entry(session, cid),
            exact_file_for_entry=lambda cid: self._exact_file_for_entry(session, cid),
        )
        for record in session.top_level_frames():
            name = identifier(record.code.co_name)
            fn = self._function_for(record)
            body = explainer.explain(fn, record.code, record.frame_globals, name)
            label = code_label(record.code)
            text = explainer.header(label) + body  # compiles: see Explainer
            self.writer.write_py(self.writer.unique_name(f"full_code_for_{label}"), text, compiled=True)
        for record in session.frames:
            if adapter.is_resume_code(record.code):
                base = self.base_name(record)
                if f"{self.writer.file_stem(base)}.py" in self.writer.written:
                    continue
                text, problem = safe_decompile(record.code, base)
                if problem:
                    self.undecompiled.append(problem)
                note = _comment_block([f"resume function {base}: Dynamo made it to continue {record.code.co_name} after a graph break"])
                self.writer.write_py(self.writer.unique_name(base), note + text, compiled=True)
        seen = set()
        for skip in session.skips:
            key = (skip.code.co_name, skip.code.co_filename, skip.code.co_firstlineno)
            if key in seen:
                continue
            seen.add(key)
            text = _comment_block(
                [
                    f"Dynamo did not compile {skip.code.co_name} ({skip.code.co_filename}:{skip.code.co_firstlineno}); it runs as plain Python.",
                    f"why: {skip.reason}",
                ]
            )
            self.writer.write_py(self.writer.unique_name(f"skipped_{code_label(skip.code)}"), text)
        self.undecompiled.extend(explainer.problems)
        report_problems(self.undecompiled, f"prepare_debug({self.writer.folder})")
        write_manifest(self, session, explainer)

    def _function_for(self, record: FrameRecord) -> Any:
        for value in record.frame_globals.values():
            if getattr(value, "__code__", None) is record.code:
                return value
        return None

    def _graph_artifacts(self, session: CaptureSession, dynamo_name: str, frame_globals: Dict[str, Any]) -> GraphArtifacts:
        stable = session.namer.stable(dynamo_name)
        records = session.graphs.get(stable)
        if not records:
            return dig_graph(dynamo_name, frame_globals)
        art = GraphArtifacts()
        for rec in records:
            if rec.file:
                art.files.append(rec.file.rsplit("/", 1)[-1])
            if rec.kind == "captured_graph":
                art.dynamo_code = rec.source
                art.reason = rec.reason
            elif rec.kind.startswith("aot_"):
                art.aot.append((rec.kind, self._current_source(rec)))
            else:
                art.inductor.append(rec.source)
        return art

    def _current_source(self, rec: GraphRecord) -> str:
        gm = rec.gm() if rec.gm is not None else None
        return adapter.graph_code(gm) if gm is not None else rec.source

    def _notes_for_code(self, session: CaptureSession, code: types.CodeType) -> List[str]:
        return []

    def _exact_file_for_entry(self, session: CaptureSession, compile_id: str) -> Optional[str]:
        for record in session.frames:
            if record.compile_id == compile_id and record.transformed_file:
                return record.transformed_file.rsplit("/", 1)[-1]
        return None

    def _notes_for_entry(self, session: CaptureSession, compile_id: str) -> List[str]:
        if self._reasons_by_id is None:
            self._reasons_by_id = {r.compile_id: r.recompile_reasons for r in session.frames if r.recompile_reasons}
        return [f"recompiled because: {r}" for r in self._reasons_by_id.get(compile_id, [])]

    # -- keeping graph files and running graphs in step ------------------------------------------

    def refresh_graph_files(self, session: CaptureSession) -> None:
        """Rewrite graph files whose GraphModule was regenerated after capture (boxed calling)."""
        for records in session.graphs.values():
            for rec in records:
                if rec.gm is None or rec.file is None:
                    continue
                gm = rec.gm()
                if gm is None:
                    continue
                current = adapter.graph_code(gm)
                if current != rec.source:
                    rec.source = current
                    self.writer.write_py(rec.file.rsplit("/", 1)[-1], self.graph_text(rec, current), compiled=True)

    def run_from_files(self, session: CaptureSession) -> List[Tuple[Any, types.CodeType]]:
        """Make graph forwards and Inductor modules run from the dumped files; return undo pairs."""
        self.refresh_graph_files(session)
        swaps: List[Tuple[Any, types.CodeType]] = []
        for records in session.graphs.values():
            for rec in records:
                gm = rec.gm() if rec.gm is not None else None
                if gm is None or rec.file is None:
                    continue
                forward = getattr(type(gm), "forward", None)
                if isinstance(forward, types.FunctionType):
                    done = swap_forward(forward, self.graph_text(rec, rec.source), rec.file)
                    if done:
                        swaps.append(done)
        for module in self.inductor_modules:
            path = getattr(module, "__file__", None)
            try:
                with open(path, encoding="utf-8") as f:
                    source = f.read()
            except (OSError, TypeError):
                continue
            dumped = self.inductor_files.get(source)
            if dumped:
                swaps.extend(swap_function_codes(vars(module), source, dumped))
        return swaps
