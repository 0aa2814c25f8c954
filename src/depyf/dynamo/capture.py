"""Record what each compilation produced while ``prepare_debug`` is active.

One :class:`CaptureSession` installs the hooks (through the adapter), and keeps, in the order
they happened: the frames Dynamo transformed (original code, transformed code, globals, compile
id), the graphs handed to the backend, AOTAutograd's forward/backward/inference graphs, Inductor's
output code, graph-break and recompile reasons, and frames that ran eagerly. The dump layer turns
these records into files.
"""
from __future__ import annotations

import types
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

from depyf.dynamo import adapter
from depyf.dynamo.names import Namer



@dataclass
class FrameRecord:
    """One frame compilation that produced new code."""

    code: types.CodeType
    new_code: types.CodeType
    frame_globals: Dict[str, Any]
    compile_id: str
    recompile_reasons: List[str] = field(default_factory=list)
    transformed_file: Optional[str] = None
    debuggable: bool = False
    # (file, line, function) of the user's frames that led to this compilation, outermost first.
    user_stack: List["tuple[str, int, str]"] = field(default_factory=list)


@dataclass
class GraphRecord:
    """One graph: Dynamo's (kind ``captured``) or one made from it by AOTAutograd/Inductor."""

    stable: str
    kind: str
    source: str
    gm: Optional["weakref.ReferenceType[Any]"] = None
    reason: Optional[str] = None
    file: Optional[str] = None


@dataclass
class SkipRecord:
    code: types.CodeType
    reason: str


class CaptureSession:
    """Holds the hooks and the records of one ``prepare_debug`` block."""

    def __init__(
        self,
        on_frame: Callable[[FrameRecord], Optional[types.CodeType]],
        on_graph: Callable[[GraphRecord], None],
        on_module: Callable[[types.ModuleType], None],
    ) -> None:
        self.namer = Namer()
        self.frames: List[FrameRecord] = []
        self.graphs: Dict[str, List[GraphRecord]] = {}
        self.skips: List[SkipRecord] = []
        self._on_frame = on_frame
        self._on_graph = on_graph
        self._on_module = on_module
        self._pending_reasons: Dict[int, List[str]] = {}
        self._transformed_ids: set = set()
        self._current_graph: List[str] = []
        self._aot_to_graph: Dict[str, str] = {}
        self._handles: List[Any] = []
        self.errors: List[str] = []
        self._inductor_hooked = False
        self._stacks: List[List["tuple[str, int, str]"]] = []  # one per compilation in progress
        # compile id -> phase ("forward"/"backward") -> the times torch recorded for it
        self.compile_times: Dict[str, Dict[str, Dict[str, Any]]] = {}
        self._started_us = 0

    # -- installation --------------------------------------------------------------------------

    def install(self) -> None:
        self._handles.append(adapter.register_bytecode_hook(self._bytecode_hook))
        for patch in (
            adapter.patch_user_compiler(self._dynamo_graph),
            adapter.patch_recompile_reasons(self._recompile_reasons),
            adapter.patch_frame_compile(self._frame_compiled, self._frame_starting),
            adapter.patch_inductor_module_loading(self._on_module),
        ):
            if patch is not None:
                self._handles.append(patch)
        self._handles.extend(adapter.patch_aot_graph_logging(self._aot_graph))
        self._started_us = adapter.now_us()
        self._inductor_hooked = False
        self._ensure_inductor_hook(None)

    def _ensure_inductor_hook(self, compiler_fn: Any) -> None:
        """Hook Inductor's output code once Inductor is in use (not before: it is slow to import)."""
        if self._inductor_hooked or not adapter.inductor_in_use(compiler_fn):
            return
        self._inductor_hooked = True
        self._handles.append(adapter.InductorCodeHook(self._inductor_code))

    def uninstall(self) -> None:
        self.collect_compile_times()  # backward graphs compile lazily, after their frame
        for handle in reversed(self._handles):
            try:
                (handle.remove if hasattr(handle, "remove") else handle.undo)()
            except Exception as e:  # pragma: no cover - a hook that cannot be removed
                self.errors.append(f"could not remove a hook: {e!r}")
        self._handles.clear()

    # -- hooks -----------------------------------------------------------------------------------

    def _bytecode_hook(self, code: types.CodeType, new_code: types.CodeType) -> Optional[types.CodeType]:
        try:
            frame_globals = adapter.compiling_frame_globals() or {}
            for name in new_code.co_names:
                if name.startswith("__resume_at_"):
                    resume = frame_globals.get(name)
                    self.namer.stable_resume(name, getattr(resume, "__code__", None))
                elif adapter.is_dynamo_generated_name(name):
                    self.namer.stable(name)
            record = FrameRecord(
                code=code,
                new_code=new_code,
                frame_globals=frame_globals,
                compile_id=adapter.current_compile_id() or "?",
                recompile_reasons=self._pending_reasons.pop(id(code), []),
                user_stack=list(self._stacks[-1]) if self._stacks else [],
            )
            self.frames.append(record)
            self._transformed_ids.add(id(code))
            return self._on_frame(record)
        except Exception as e:
            self.errors.append(f"bytecode hook: {e!r}")
            return None

    def _dynamo_graph(self, gm: Any, compiler_fn: Any = None) -> None:
        self._ensure_inductor_hook(compiler_fn)
        backend_id = adapter.graph_backend_id(gm) or f"__compiled_fn_unnamed_{len(self.graphs)}"
        stable = self.namer.stable(backend_id)
        reason = adapter.graph_compile_reason(gm)
        reason_text = None
        if reason is not None:
            text, is_break, stack = reason
            where = f" at {stack[-1]}" if stack else ""
            reason_text = " ".join((("graph break: " if is_break else "graph ends: ") + text + where).split())
        self._current_graph[:] = [stable]
        self._add(GraphRecord(stable, "captured_graph", adapter.graph_code(gm), weakref.ref(gm), reason_text))

    def _aot_graph(self, kind: str, gm: Any, aot_id: Optional[str] = None) -> None:
        stable = self._current_graph[0] if self._current_graph else "__compiled_fn_unknown"
        if aot_id is not None:
            self._aot_to_graph[aot_id] = stable
        self._add(GraphRecord(stable, f"aot_{kind}_graph", adapter.graph_code(gm), weakref.ref(gm)))

    def _inductor_code(self, source: str) -> None:
        aot_id, kind = adapter.inductor_code_origin(source)
        stable = self._aot_to_graph.get(aot_id) if aot_id is not None else None
        if stable is None:
            stable = self._current_graph[0] if self._current_graph else "__compiled_fn_unknown"
        self._add(GraphRecord(stable, f"inductor_{kind}_code", source))

    def _recompile_reasons(self, code: types.CodeType, reasons: List[str]) -> None:
        self._pending_reasons.setdefault(id(code), []).extend(reasons)

    def _frame_starting(self, code: types.CodeType) -> None:
        self._stacks.append(adapter.user_stack())

    def collect_compile_times(self) -> None:
        """Keep the compile times torch recorded since install (torch holds only its last 64)."""
        for record in adapter.compilation_metrics_since(self._started_us):
            self.compile_times.setdefault(record["compile_id"], {})[record["phase"]] = record

    def _frame_compiled(self, code: types.CodeType, error: Optional[BaseException]) -> None:
        if self._stacks:
            self._stacks.pop()
        self.collect_compile_times()
        if id(code) in self._transformed_ids and error is None:
            return
        if error is not None:
            reason = f"{type(error).__name__}: {error}"
        else:
            reason = "Dynamo produced no new code for this frame (nothing to compile, or the frame was skipped)"
        if id(code) not in self._transformed_ids:
            self.skips.append(SkipRecord(code, " ".join(reason.split())[:2000]))

    def _add(self, record: GraphRecord) -> None:
        self.graphs.setdefault(record.stable, []).append(record)
        self._on_graph(record)

    # -- queries ---------------------------------------------------------------------------------

    def top_level_frames(self) -> List[FrameRecord]:
        """Frames of user functions (not resume functions), one per code object, first seen first."""
        seen = set()
        out = []
        for rec in self.frames:
            if adapter.is_resume_code(rec.code) or id(rec.code) in seen:
                continue
            seen.add(id(rec.code))
            out.append(rec)
        return out

    def frame_for(self, new_code: types.CodeType) -> Optional[FrameRecord]:
        for rec in self.frames:
            if rec.new_code is new_code:
                return rec
        return None
