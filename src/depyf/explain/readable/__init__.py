"""A readable view of Dynamo's transformed code, for the explanation.

The dump's `__transformed_code_*` files hold the exact decompiled text (its bytecode is compared
with Dynamo's for debugging). The explanation (`full_code_for_*`, `dump_src`, the report) shows
this view instead: the same function's statement tree, rewritten by the passes below, each of
which keeps what the code computes (see their docstrings), then printed. Dynamo's bookkeeping
becomes words or simple code: the pregraph profiler markers (`markers.py`), the frame-value lists
built for resume functions (`frame_lists.py`), temporaries that only pass values through, and
statements without effect (`passes.py`); graph names lose their UUID suffixes (an alias, with the
full name in a comment).

`check.py` checks a view: it compiles, and no statement in it is without effect; tests also run
views in place of Dynamo's code and compare the results.
"""
from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Set

from depyf.decompiler import nodes as n
from depyf.decompiler.temporaries import TEMP_PREFIX
from depyf.explain.readable import passes
from depyf.explain.readable.frame_lists import fold_frame_value_lists
from depyf.explain.readable.markers import describe_pregraph_markers
from depyf.explain.readable.tree import stored_names, unshare

__all__ = ["ReadableCode", "readable_view", "PASSES"]


@dataclass
class ReadableCode:
    """One readable view: its text (a `def`), and what running it needs besides the frame's
    globals: `aliases` (new global name -> Dynamo's global it stands for) and `constants`
    (names given to constants no literal can write -> the objects)."""

    text: str
    aliases: Dict[str, str] = field(default_factory=dict)
    constants: Dict[str, object] = field(default_factory=dict)
    applied: List[str] = field(default_factory=list)  # the passes that changed something

    def namespace(self, frame_globals: Dict[str, object]) -> Dict[str, object]:
        """Globals under which the view runs as the transformed code does under `frame_globals`."""
        ns = dict(frame_globals)
        for alias, original in self.aliases.items():
            if original in frame_globals:
                ns[alias] = frame_globals[original]
        ns.update(self.constants)
        return ns


Pass = Callable[[n.FunctionDef, Set[str]], bool]

# In order. The list folding runs after the walrus and `del` clean-up (which make its items plain
# names) and before the inlining (which then puts each value where it is used). A pass that
# finds nothing it may change leaves the tree as it is.
PASSES: List["tuple[str, Pass]"] = [
    ("drop dead deletes", passes.drop_dead_deletes),
    ("drop unread walrus targets", passes.drop_unread_walrus),
    ("merge walrus aliases", passes.merge_walrus_aliases),
    ("forward copies of parameters", passes.forward_copies),
    ("describe pregraph markers", lambda func, private: describe_pregraph_markers(func)),
    ("fold frame-value lists", lambda func, private: fold_frame_value_lists(func, private) is None),
    ("splice starred displays", passes.splice_starred_displays),
    ("drop dead stores", passes.drop_dead_stores),
    ("drop dead deletes", passes.drop_dead_deletes),
    ("inline single-use temporaries", passes.inline_single_use),
    ("drop statements without effect", passes.drop_statements_without_effect),
]


def private_locals(code: types.CodeType, func: n.FunctionDef) -> Set[str]:
    """Local variables of `code` that no other code can read or bind (cells are shared), and
    the decompiler's temporaries in `func` (values that lived on the stack, which nothing else
    sees either)."""
    temporaries = {name for name in stored_names(func.body) if name.startswith(TEMP_PREFIX)}
    return (set(code.co_varnames) | temporaries) - set(code.co_cellvars) - set(code.co_freevars) - set(code.co_names)


def readable_view(code: types.CodeType, name: str, graph_names: Optional[Dict[str, str]] = None,
                  exact_file: Optional[str] = None,
                  frame_globals: Optional[Dict[str, object]] = None) -> Optional[ReadableCode]:
    """The readable view of Dynamo's transformed code `code`, as `def name(...)`, or None where
    the decompiler cannot read it (the caller shows the exact text then).

    `graph_names`: Dynamo's global names (`__compiled_fn_9_<uuid>`, `__resume_at_102_10`) -> the
    names to show (`__compiled_fn_0`). `exact_file`: where the exact text is, named in the view's
    first comment. `frame_globals`: the frame's globals, where the resume functions are (values
    handed to one are named after its parameters).
    """
    try:
        from depyf.decompiler.api import decompile_function
        from depyf.decompiler.printer import has_literal_form

        decompiled = decompile_function(code, name=name, rewritten=True)
        func = decompiled.node
        unshare(func)
        private = private_locals(code, func)
        applied: List[str] = []
        for label, run in PASSES:
            if run(func, private):
                applied.append(label)
        if passes.name_values_after_parameters(func, private, _resume_parameters(code, frame_globals)):
            applied.append("name values after resume parameters")
        aliases: Dict[str, str] = {}
        if graph_names:
            shown = {old: new for old, new in graph_names.items() if old in code.co_names}
            if passes.rename_globals(func, shown, set(code.co_varnames)):
                aliases = {new: old for old, new in shown.items() if old != new}
                applied.append("short graph names")
        constants = passes.name_unwritable_constants(func, has_literal_form)
        func.body[0:0] = _header(exact_file, aliases, constants)
        text = decompiled.text()
        compile(text, "<readable view>", "exec")
        return ReadableCode(text, aliases, constants, applied)
    except Exception:  # the view is optional: never let it take the explanation down
        return None


def _resume_parameters(code: types.CodeType, frame_globals: Optional[Dict[str, object]]) -> Dict[str, List[str]]:
    """The positional parameters of each resume function `code` calls (a plain function: one
    made from cells by a factory is left out)."""
    out: Dict[str, List[str]] = {}
    for global_name in code.co_names:
        fn = (frame_globals or {}).get(global_name) if global_name.startswith("__resume_at_") else None
        resume = getattr(fn, "__code__", None)
        if isinstance(resume, types.CodeType) and not resume.co_freevars:
            out[global_name] = list(resume.co_varnames[:resume.co_argcount])
    return out


def _header(exact_file: Optional[str], aliases: Dict[str, str], constants: Dict[str, object]) -> List[n.Stmt]:
    lines = ["Readable view of Dynamo's transformed code (same effects; its bookkeeping said in words).",
             "Exact decompiled text: " + (exact_file or "the __transformed_code_* files depyf.prepare_debug writes.")]
    for alias, original in sorted(aliases.items()):
        lines.append(f"{alias} is the global {original}")
    for name, value in constants.items():
        lines.append(f"{name}: a constant no literal can write ({type(value).__name__})")
    return [n.Comment(lines)]
