"""Build the seed-format explanation module for one compiled function.

Layout (the seed's order and naming style), for a function ``f``:

    for every cache entry of f:
        every resume function its transformed code calls, explained the same way (recursively)
        def guard_<k>(L, G, **___kwargs_ignored): ...     # the entry's guard, as an expression
        def __compiled_fn_<n>(...): ...                   # each captured graph, with its code
        def compiled_code_<k>(...): ...                   # Dynamo's transformed code
    def f(...): ...                                       # the original function
    def compiled_f(...): ...                              # how the guards choose what runs
    #============ end of f ============#
"""
from __future__ import annotations

import ast
import inspect
import linecache
import re
import textwrap
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

from depyf.dynamo import adapter
from depyf.dynamo.decompile import safe_decompile, signature_of
from depyf.dynamo.guards import RUNTIME_NAMES, RenderedGuard, guard_function_source, render_guards
from depyf.dynamo.names import Namer, identifier
from depyf.explain.readable import readable_view

NOTE_ORIGINAL = (
    "# Note: if there is a compiled version below, this function might well not be executed "
    "directly. Please check the compiled version if possible."
)
NOTE_FALLBACK = (
    "# Note: this function might well not be executed directly. It might well be compiled again, "
    "i.e. adding one more guards and compiled code."
)


@dataclass
class GraphArtifacts:
    """What is known about one captured graph."""

    dynamo_code: Optional[str] = None
    aot: List["tuple[str, str]"] = field(default_factory=list)
    inductor: List[str] = field(default_factory=list)
    reason: Optional[str] = None
    files: List[str] = field(default_factory=list)


GraphLookup = Callable[[str, Dict[str, Any]], GraphArtifacts]


def dig_graph(dynamo_name: str, frame_globals: Dict[str, Any]) -> GraphArtifacts:
    """Find a graph's code in the compiled callable Dynamo installed in the frame's globals."""
    compiled = frame_globals.get(dynamo_name)
    art = GraphArtifacts()
    if compiled is None:
        return art
    graphs, sources = adapter.dig_artifacts(compiled)
    for gm in graphs:
        code = adapter.graph_code(gm)
        if adapter.graph_backend_id(gm) == dynamo_name or (art.dynamo_code is None and "L_" in code):
            if art.dynamo_code is None:
                art.dynamo_code = code
                continue
        art.aot.append(("aot graph", code))
    art.inductor.extend(sources)
    return art


def graph_function(stable: str, art: GraphArtifacts) -> str:
    """The captured graph as ``def <stable>(...)``, or a stub that says where to find it."""
    lines: List[str] = []
    if art.reason:
        lines.extend(f"# {line}" for line in art.reason.splitlines())
    for f in art.files:
        lines.append(f"# dumped to: {f}")
    if art.dynamo_code:
        lines.append(_rename_forward(art.dynamo_code, stable))
    else:
        lines.append(f"def {stable}(*args, **kwargs):")
        lines.append("    # torch no longer holds this graph's code after compiling it. Run the program under")
        lines.append("    # depyf.prepare_debug(dump_dir), which captures every graph as it is made.")
        lines.append("    raise NotImplementedError")
        lines.append("")
    for i, (kind, code) in enumerate(art.aot):
        suffix = re.sub(r"\W+", "_", kind).strip("_")
        lines.append(f"# {kind} made by AOTAutograd from {stable}:")
        lines.append(_rename_forward(code, f"{stable}_{suffix}_{i}"))
    for i, src in enumerate(art.inductor):
        n = len(src.splitlines())
        lines.append(f"# Inductor generated a {n}-line Python module for {stable} (kernels and a `call` function);")
        lines.append("# depyf.prepare_debug(dump_dir) writes it to a file.")
    return "\n".join(lines).rstrip() + "\n"


_SELF = re.compile(r"\bself\b")
_FORWARD_SELF = re.compile(r"^def forward\(self(?:,\s*|(\)))")
_FORWARD = re.compile(r"^def forward\(")


def _rename_forward(code: str, name: str) -> str:
    """Turn a GraphModule's ``def forward(self, ...)`` into ``def <name>(...)``."""
    text = textwrap.dedent(code).strip("\n")
    head, sep, body = text.partition("\n")
    if _SELF.search(body) is None:
        head = _FORWARD_SELF.sub(lambda m: f"def {name}(" + (")" if m.group(1) else ""), head, count=1)
    head = _FORWARD.sub(lambda m: f"def {name}(", head, count=1)
    out = head + sep + body + "\n"
    try:
        compile(out, "<graph>", "exec")
    except SyntaxError:
        return "\n".join("# " + line for line in out.splitlines()) + f"\n{name} = None\n"
    return out


def original_source(fn: Any, code: types.CodeType, name: str, problems: Optional[List[str]] = None) -> str:
    """The user's function as written (decorators dropped), else decompiled."""
    try:
        src = textwrap.dedent(_source_block(code, getattr(fn, "__globals__", None)))
        tree = ast.parse(src)
        node = tree.body[0]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name:
            lines = src.splitlines()[node.lineno - 1 : node.end_lineno]
            text = "\n".join(lines)
            if name != node.name:
                text = re.sub(rf"^(\s*(?:async\s+)?def\s+){re.escape(node.name)}\b", rf"\g<1>{name}", text, count=1)
            text = _insert_note(text) + "\n"
            # Alone at module level a closure's `nonlocal` has no binding: compile to be sure.
            compile(text, code.co_filename, "exec", dont_inherit=True)
            return text
    except (OSError, TypeError, SyntaxError, IndexError):
        pass
    text, problem = safe_decompile(code, name)
    if problem and problems is not None:
        problems.append(problem)
    return _insert_note(text.rstrip("\n")) + "\n"


def _source_block(code: types.CodeType, module_globals: Optional[Dict[str, Any]]) -> str:
    """The source lines of the definition `code` was compiled from, as `inspect.getsource` finds
    them, without its search of every loaded module for the file (slow with torch loaded)."""
    lines = linecache.getlines(code.co_filename, module_globals)
    if not lines or code.co_firstlineno < 1:
        raise OSError(f"no source for {code.co_filename}")
    last = _last_line(code)
    if last is not None and last <= len(lines) and not _block_goes_on(lines, code.co_firstlineno - 1, last):
        block = "".join(lines[code.co_firstlineno - 1 : last])
        try:
            ast.parse(textwrap.dedent(block))
            return block
        except SyntaxError:
            pass  # the positions stop inside a statement: let the tokenizer find the end
    return "".join(inspect.getblock(lines[code.co_firstlineno - 1:]))


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _block_goes_on(lines: List[str], first: int, last: int) -> bool:
    """Whether code lines indented deeper than the definition follow line ``last`` (statements
    that left no position behind, such as a final ``pass`` or code after a ``return``)."""
    for line in lines[last:]:
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return _indent(line) > _indent(lines[first])
    return False


def _last_line(code: types.CodeType) -> Optional[int]:
    """The last source line of a definition, from the positions its bytecode records (nested
    code included); None where code objects record no end positions (Python < 3.11)."""
    if not hasattr(code, "co_positions"):
        return None
    last = 0
    stack = [code]
    while stack:
        current = stack.pop()
        for _, end_line, _, _ in current.co_positions():
            if end_line is not None and end_line > last:
                last = end_line
        stack.extend(c for c in current.co_consts if isinstance(c, types.CodeType))
    return last or None


def _insert_note(func_text: str) -> str:
    """Put the seed's "might not be executed directly" note on the first line of the body."""
    lines = func_text.splitlines()
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(("def ", "async def ")) and line.rstrip().endswith(":"):
            body_indent = None
            for later in lines[i + 1 :]:
                if later.strip():
                    body_indent = later[: len(later) - len(later.lstrip())]
                    break
            if body_indent is None:
                return func_text
            lines.insert(i + 1, body_indent + NOTE_ORIGINAL)
            return "\n".join(lines)
    return func_text


def _compile_order(compile_id: str) -> "tuple[int, ...]":
    """``"2/0"`` -> (2, 0): frame, then its recompilation (``"!0/1/0"`` for compiled autograd)."""
    return tuple(int(n) for n in re.findall(r"\d+", compile_id))


class Explainer:
    """Renders explanations; one instance per dump so numbering is shared and stable.

    Every piece of an explanation compiles on its own (decompiled code and graph code are
    compiled when made, the original source above, guards are built from expressions checked
    one by one, the rest is generated from identifiers), and pieces that each consist of whole
    module-level statements still compile when joined: the dump writes the explanation without
    compiling it whole a second time."""

    def __init__(
        self,
        namer: Optional[Namer] = None,
        graph_lookup: GraphLookup = dig_graph,
        notes_for_code: Optional[Callable[[types.CodeType], List[str]]] = None,
        notes_for_entry: Optional[Callable[[str], List[str]]] = None,
        exact_file_for_entry: Optional[Callable[[str], Optional[str]]] = None,
    ) -> None:
        self.namer = namer or Namer()
        self.graph_lookup = graph_lookup
        self.notes_for_code = notes_for_code or (lambda code: [])
        self.notes_for_entry = notes_for_entry or (lambda compile_id: [])
        # compile id -> the file with the exact decompiled transformed code (a dump's), if any
        self.exact_file_for_entry = exact_file_for_entry or (lambda compile_id: None)
        self.problems: List[str] = []
        self._done: Dict[int, str] = {}
        # compile id -> k of guard_<k>/compiled_code_<k>, given in compile-id order (see _number_entries)
        self._entry_numbers: Dict[str, int] = {}
        # compile id -> (guard function name, its guards): kept so the dump manifest reuses them.
        self.guards_by_entry: Dict[str, "tuple[str, List[RenderedGuard]]"] = {}
        # compile id -> the readable view of its transformed code, as explained (for the report)
        self.readable_by_entry: Dict[str, str] = {}

    def header(self, what: str) -> str:
        helpers = ", ".join(RUNTIME_NAMES)
        return (
            f"# What torch.compile did for {what}, explained by depyf (torch {adapter.torch_version()}).\n"
            "# Guards are Python expressions over the frame's locals L and globals G; where torch only\n"
            "# describes a guard in prose, a stand-in that holds is written, with the description as a comment.\n"
            "import torch\n"
            f"from depyf.dynamo.guard_runtime import {helpers}\n"
            "\n"
            "G = globals()  # the guards read the compiled function's module globals; here, this module's\n"
            "\n"
        )

    def explain(self, fn: Any, code: types.CodeType, frame_globals: Dict[str, Any], name: Optional[str] = None) -> str:
        """The explanation of ``code`` (a user function) without the module header."""
        self._number_entries(code, frame_globals)
        return self._explain_code(code, frame_globals, name or identifier(code.co_name), fn)

    def _number_entries(self, code: types.CodeType, frame_globals: Dict[str, Any]) -> None:
        """Number the cache entries of ``code`` and of every resume function it leads to in the
        order torch compiled them (their compile ids), so that ``guard_<k>`` goes up with the
        ``# cache entry`` above it, wherever the layout puts each one."""
        found: Dict[str, None] = {}
        seen_codes = set()
        stack = [code]
        while stack:
            current = stack.pop()
            if id(current) in seen_codes:
                continue
            seen_codes.add(id(current))
            for entry in adapter.cache_entries(current):
                found.setdefault(adapter.entry_compile_id(entry), None)
                for global_name in adapter.entry_code(entry).co_names:
                    resume = getattr(frame_globals.get(global_name), "__code__", None)
                    if global_name.startswith("__resume_at_") and isinstance(resume, types.CodeType):
                        stack.append(resume)
        for compile_id in sorted((c for c in found if c not in self._entry_numbers and c != "?"), key=_compile_order):
            self._entry_numbers[compile_id] = self.namer.next("entry")

    def _explain_code(self, code: types.CodeType, frame_globals: Dict[str, Any], name: str, fn: Any) -> str:
        chunks: List[str] = []
        entries = adapter.cache_entries(code)
        # torch checks entries most recently used first; they are written oldest first, and
        # numbered (with their graphs) before the resume functions they call, as in the seed.
        numbered = []
        for entry in reversed(entries):
            compile_id = adapter.entry_compile_id(entry)
            k = self._entry_numbers[compile_id] if compile_id in self._entry_numbers else self.namer.next("entry")
            for global_name in adapter.entry_code(entry).co_names:
                if global_name.startswith("__compiled_fn"):
                    self.namer.stable(global_name)
                elif global_name.startswith("__resume_at_"):
                    resume = frame_globals.get(global_name)
                    self.namer.stable_resume(global_name, getattr(resume, "__code__", None))
            numbered.append((k, entry))
        for k, entry in numbered:
            chunks.append(self._explain_entry(entry, k, frame_globals))
        dispatch = [(f"guard_{k}", f"compiled_code_{k}") for k, _ in reversed(numbered)]
        for note in self.notes_for_code(code):
            chunks.append("\n".join(f"# {line}" for line in note.splitlines()) + "\n")
        chunks.append(original_source(fn, code, name, self.problems))
        chunks.append(self._dispatcher(code, name, dispatch))
        chunks.append(f"#============ end of {name} ============#\n")
        return "\n".join(chunks)

    def _explain_entry(self, entry: Any, k: int, frame_globals: Dict[str, Any]) -> str:
        new_code = adapter.entry_code(entry)
        parts: List[str] = []
        # Resume functions first, as in the seed: they are called from the transformed code below.
        for global_name in new_code.co_names:
            if global_name.startswith("__resume_at_"):
                text = self._explain_resume(global_name, frame_globals)
                if text:
                    parts.append(text)
        guards = render_guards(adapter.guard_leaves(adapter.entry_guard_manager(entry)))
        compile_id = adapter.entry_compile_id(entry)
        self.guards_by_entry[compile_id] = (f"guard_{k}", guards)
        notes = "".join(f"# {' '.join(n.split())}\n" for n in self.notes_for_entry(compile_id))
        parts.append(
            f"# cache entry {compile_id} (torch's compile id): guard_{k} decides whether compiled_code_{k} runs\n"
            + notes + guard_function_source(f"guard_{k}", guards)
        )
        for global_name in new_code.co_names:
            if global_name.startswith("__compiled_fn"):
                art = self.graph_lookup(global_name, frame_globals)
                parts.append(graph_function(self.namer.stable(global_name), art))
        parts.append(self._transformed_code(new_code, f"compiled_code_{k}", compile_id, frame_globals))
        return "\n".join(parts)

    def _transformed_code(self, new_code: types.CodeType, name: str, compile_id: str,
                          frame_globals: Dict[str, Any]) -> str:
        """The readable view of Dynamo's transformed code (see `depyf.explain.readable`), or the
        exact decompiled text where there is none."""
        shown: Dict[str, str] = {}
        for global_name in new_code.co_names:
            if global_name.startswith("__compiled_fn"):
                shown[global_name] = self.namer.stable(global_name)
            elif global_name.startswith("__resume_at_"):
                resume = frame_globals.get(global_name)
                shown[global_name] = self.namer.stable_resume(global_name, getattr(resume, "__code__", None))
        view = readable_view(new_code, name, shown, self.exact_file_for_entry(compile_id), frame_globals)
        if view is not None:
            self.readable_by_entry[compile_id] = view.text
            return view.text
        text, problem = safe_decompile(new_code, name, transformed=True)
        if problem:
            self.problems.append(problem)
        return self.namer.rename_in(text)

    def _explain_resume(self, global_name: str, frame_globals: Dict[str, Any]) -> str:
        fn = frame_globals.get(global_name)
        code = getattr(fn, "__code__", None)
        stable = self.namer.stable_resume(global_name, code)
        if code is None:
            return f"# {stable}: the resume function is no longer in the frame's globals\n"
        if id(code) in self._done:
            return ""
        self._done[id(code)] = stable
        return self._explain_code(code, frame_globals, stable, None)

    def _dispatcher(self, code: types.CodeType, name: str, dispatch: List["tuple[str, str]"]) -> str:
        params, call, names = signature_of(code)
        lines = [f"def compiled_{name}({params}):"]
        lines.append("    L = {" + ", ".join(f"{n!r}: {n}" for n in names) + "}")
        if len(dispatch) > 1:
            lines.append("    # torch tries the cache entries most recently used first")
        for guard, compiled in dispatch:
            lines.append(f"    if {guard}(L, G):")
            lines.append(f"        return {compiled}({call})")
        lines.append(f"    {NOTE_FALLBACK}")
        lines.append(f"    return {name}({call})")
        return "\n".join(lines) + "\n"
