"""The round trip itself: decompile each definition, splice it into its file, recompile the file in
the canonical layout and compare; `SourceRoundTrip` batches the splices of one file.
"""
from __future__ import annotations

import ast
import time
from types import CodeType
from typing import Dict, List, Optional, Sequence, Tuple

from .compare import code_difference
from .model import (
    CodeKey, Decompile, DECOMPILE_ERROR, Definition, Difference, DIFFERS, EQUAL, NO_COMPILE,
    Result,
)
from .source import (
    canonical_compile, canonical_source, compile_module, definitions_in_source, find_code,
    is_code, splice, tokenizer_lines,
)


def describe_exception(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def _describe_syntax_error(exc: SyntaxError, spliced: str) -> str:
    where = f" at line {exc.lineno}" if exc.lineno else ""
    line = ""
    if exc.lineno:
        lines = tokenizer_lines(spliced)
        if 0 < exc.lineno <= len(lines):
            line = f": {lines[exc.lineno - 1].strip()[:80]!r}"
    return f"{type(exc).__name__}: {exc.msg}{where}{line}"


def _default_decompile() -> Decompile:
    import depyf  # late: this module must load without the package (benchmarks load it by path)

    return depyf.decompile


def _kept_apart(module: CodeType, canonical: CodeType, key: CodeKey) -> bool:
    """Does the canonical compile have the same code objects as the original along ``key``?

    The canonical layout can put identical definitions on one line (a dict of ``lambda x:
    True`` entries), where they compile to equal code objects that the compiler stores once; the
    numbering of the ones after them shifts, and no comparison could tell them apart.
    """
    original, layout = module, canonical
    for name, n in key:
        in_original = [c for c in original.co_consts if is_code(c) and c.co_name == name]
        in_layout = [c for c in layout.co_consts if is_code(c) and c.co_name == name]
        if len(in_original) != len(in_layout) or n >= len(in_original):
            return False
        original, layout = in_original[n], in_layout[n]
    return True


class SourceRoundTrip:
    """The round trip over one source file, one definition at a time.

    Compiles the original once (as it is, and in the canonical layout); `check` then runs steps
    2-4 for one definition.  `roundtrip_source_file` is the whole-file shortcut; benchmarks use
    this class to time, guard and report each definition separately.
    """

    def __init__(self, source: str, filename: str, *, exception_table: bool = True) -> None:
        self.source = source
        self.filename = filename
        self.exception_table = exception_table
        self.module = compile_module(source, filename)
        self._canonical = canonical_compile(source, filename)
        # Only the definitions the canonical layout keeps apart can be compared (see
        # `_kept_apart`); the others are not checked rather than compared with a neighbour.
        self.definitions: List[Definition] = [
            d for d in definitions_in_source(source, filename) if _kept_apart(self.module, self._canonical, d.key)]

    def code(self, definition: Definition) -> CodeType:
        """The definition's code object, as compiled from the original file."""
        return find_code(self.module, definition.key)

    def check(self, definition: Definition, decompile: Decompile) -> Result:
        """Decompile, splice, recompile and compare one definition."""
        code = self.code(definition)
        started = time.perf_counter()
        try:
            text = decompile(code)
            if not isinstance(text, str):
                raise TypeError(f"decompiler returned {type(text).__name__}, not str")
        except Exception as exc:  # the decompiler under test may fail in any way
            return Result(definition, DECOMPILE_ERROR, describe_exception(exc),
                          decompile_seconds=time.perf_counter() - started)
        seconds = time.perf_counter() - started
        return self.check_text(definition, text, seconds)

    def check_text(self, definition: Definition, text: str, decompile_seconds: float = 0.0) -> Result:
        """Steps 3-4 for a definition's already decompiled ``text``."""
        spliced = splice(self.source, definition, text)
        try:
            tree = ast.parse(spliced, self.filename)
            layout = canonical_source(tree)
            try:
                # The canonical source has the same AST, so it compiles exactly when the spliced
                # file does; one compile is enough.
                spliced_code = compile_module(layout if layout is not None else tree, self.filename)
            except SyntaxError:
                compile_module(tree, self.filename)  # the error again, with the spliced file's lines
                raise
        except SyntaxError as exc:
            return Result(definition, NO_COMPILE, _describe_syntax_error(exc, spliced), decompiled=text,
                          decompile_seconds=decompile_seconds)
        except Exception as exc:  # e.g. ValueError for NUL bytes, RecursionError on deep nesting
            return Result(definition, NO_COMPILE, describe_exception(exc), decompiled=text,
                          decompile_seconds=decompile_seconds)
        original = find_code(self._canonical, definition.key)
        try:
            candidate = find_code(spliced_code, definition.key)
        except KeyError:
            missing = Difference(definition.qualname, "code object", None, f"<code {original.co_name}>",
                                 "<missing>", category=("code object", "missing"))
            return Result(definition, DIFFERS, str(missing), missing, text, decompile_seconds)
        found = code_difference(original, candidate, definition.qualname, self.exception_table)
        if found is not None:
            return Result(definition, DIFFERS, str(found), found, text, decompile_seconds)
        return Result(definition, EQUAL, "", None, text, decompile_seconds)


    def check_texts(self, items: Sequence[Tuple[Definition, str]]) -> List[Result]:
        """`check_text` for many definitions of the file, with far fewer compiles; same results.

        Compiling the whole spliced file is most of a check's cost, and a file of n definitions
        costs n compiles.  Here definitions whose spans do not overlap are spliced together and
        compiled once; each whose code object comes out equal is equal.  Every other one (and
        every one of a group that does not compile, after halving it down to one) is checked
        alone with `check_text`, so a differing definition's verdict and detail are exactly
        its own.  The shortcut is sound because a definition's code object depends only on its
        own text, the classes around it (their names, for mangling) and the module's
        ``__future__`` imports, none of which a neighbouring definition's text changes; the
        neighbours only move lines, which the canonical layout makes irrelevant.
        """
        results: Dict[int, Result] = {}
        for group in _non_overlapping_groups([d for d, _ in items]):
            self._check_group([(i, items[i][0], items[i][1]) for i in group], results)
        return [results[i] for i in range(len(items))]

    def _check_group(self, group: List[Tuple[int, Definition, str]], results: Dict[int, Result]) -> None:
        if len(group) == 1:
            index, definition, text = group[0]
            results[index] = self.check_text(definition, text)
            return
        spliced = self.source
        for _, definition, text in sorted(group, key=lambda item: (item[1].lineno, item[1].col_offset), reverse=True):
            spliced = splice(spliced, definition, text)
        try:
            tree = ast.parse(spliced, self.filename)
            layout = canonical_source(tree)
            together = compile_module(layout if layout is not None else tree, self.filename)
        except Exception:  # one of the texts does not compile: find it (them) by halves
            half = len(group) // 2
            self._check_group(group[:half], results)
            self._check_group(group[half:], results)
            return
        for index, definition, text in group:
            original = find_code(self._canonical, definition.key)
            try:
                candidate = find_code(together, definition.key)
            except KeyError:
                candidate = None
            if candidate is not None and code_difference(original, candidate, definition.qualname, self.exception_table) is None:
                results[index] = Result(definition, EQUAL, "", None, text)
            else:
                results[index] = self.check_text(definition, text)


def _non_overlapping_groups(definitions: Sequence[Definition]) -> List[List[int]]:
    """Indices of ``definitions`` in groups whose spans do not overlap (a lambda in a default
    value lies inside its ``def``), first fit in source order."""
    groups: List[List[int]] = []
    ends: List[Tuple[int, int]] = []  # the end of the last span in each group
    order = sorted(range(len(definitions)), key=lambda i: (definitions[i].lineno, definitions[i].col_offset))
    for i in order:
        start = (definitions[i].lineno, definitions[i].col_offset)
        end = (definitions[i].end_lineno, definitions[i].end_col_offset)
        for g, last in enumerate(ends):
            if last <= start:
                groups[g].append(i)
                ends[g] = end
                break
        else:
            groups.append([i])
            ends.append(end)
    return groups


def roundtrip_source_file(
    source: str,
    filename: str,
    decompile: Optional[Decompile] = None,
    *,
    exception_table: bool = True,
) -> List[Result]:
    """Run the round trip on every definition of ``source``; one `Result` each, in source order.

    ``decompile`` defaults to ``depyf.decompile``.  Any exception it raises is recorded as
    ``decompile_error``; the oracle itself raises only if ``source`` does not compile.
    """
    if decompile is None:
        decompile = _default_decompile()
    trip = SourceRoundTrip(source, filename, exception_table=exception_table)
    return [trip.check(definition, decompile) for definition in trip.definitions]
