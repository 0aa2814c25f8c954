"""Comparing a run with a recording: counts before -> after, and every definition that changed.

A definition is matched by its key within the same corpus and Python minor. What counts:

* regression: its outcome got worse (`outcomes.is_regression`), or it is missing from a unit
  that the new run did run (a vanished definition proves nothing);
* improvement: its outcome got better;
* text change: the same outcome with another decompiled text (allowed; counted, listable);
* new: a definition the recording does not have (a new corpus case);
* units not run: units of the recording that the new run did not have (deleted corpus files, a
  smaller seed range); reported, not judged.
"""
from __future__ import annotations

import collections
import difflib
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Tuple

from . import outcomes
from .store import Record, Recording, Slice


@dataclass
class Change:
    key: str
    before: Optional[Record]
    after: Optional[Record]


@dataclass
class SliceComparison:
    corpus: str
    version: str
    before: collections.Counter = field(default_factory=collections.Counter)
    after: collections.Counter = field(default_factory=collections.Counter)
    regressions: List[Change] = field(default_factory=list)
    improvements: List[Change] = field(default_factory=list)
    text_changes: List[Change] = field(default_factory=list)
    new: List[str] = field(default_factory=list)
    units_not_run: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)


def _unit_of(key: str) -> str:
    return key.split("::", 1)[0]


def compare_slices(before: Slice, after: Slice) -> SliceComparison:
    result = SliceComparison(before.corpus, before.version)
    ran = set(after.units)
    result.units_not_run = sorted(set(before.units) - ran)
    if before.python != after.python:
        result.notes.append(f"interpreter {before.python} -> {after.python}")
    changed_units = sorted(u for u in ran & set(before.units) if before.units[u] != after.units[u])
    if changed_units:
        result.notes.append(f"{len(changed_units)} unit(s) with other content, e.g. {changed_units[0]}")
    result.notes += [f"problem: {p}" for p in after.problems if p not in before.problems]
    for key, old in before.records.items():
        if _unit_of(key) not in ran:
            continue
        result.before[old.outcome] += 1
        new = after.records.get(key)
        if new is None:
            result.regressions.append(Change(key, old, None))
        elif outcomes.is_regression(old.outcome, new.outcome):
            result.regressions.append(Change(key, old, new))
        elif outcomes.is_improvement(old.outcome, new.outcome):
            result.improvements.append(Change(key, old, new))
        elif old.sha != new.sha or old.outcome != new.outcome or (
                old.outcome == outcomes.DECOMPILE_ERROR and old.detail != new.detail):
            result.text_changes.append(Change(key, old, new))  # (an error's reason counts as its text)
    for key, new in after.records.items():
        result.after[new.outcome] += 1
        if key not in before.records:
            result.new.append(key)
    return result


@dataclass
class Comparison:
    slices: List[SliceComparison]
    missing: List[Tuple[str, str]]  # slices of the recording the run should have had but lacks
    texts: Dict[Tuple[str, str], Tuple[Slice, Slice]]

    @property
    def regressions(self) -> int:
        return sum(len(s.regressions) for s in self.slices) + len(self.missing)


def compare(base: Recording, after: Iterable[Slice], expected: Iterable[Tuple[str, str]] = ()) -> Comparison:
    """Compare run slices with the recording's slices of the same corpus and version."""
    found: List[SliceComparison] = []
    pairs: Dict[Tuple[str, str], Tuple[Slice, Slice]] = {}
    seen = set()
    for piece in sorted(after, key=lambda p: (p.corpus, _minor_key(p.version))):
        seen.add((piece.corpus, piece.version))
        old = base.load_slice(piece.corpus, piece.version)
        if old is None:
            empty = Slice(piece.corpus, piece.version, piece.python)
            comparison = compare_slices(empty, piece)
            comparison.notes.append(f"not in recording {base.name}: nothing to compare")
            found.append(comparison)
            continue
        found.append(compare_slices(old, piece))
        pairs[(piece.corpus, piece.version)] = (old, piece)
    missing = [s for s in expected if s not in seen and base.load_slice(*s) is not None]
    return Comparison(found, missing, pairs)


def _minor_key(version: str) -> Tuple[int, ...]:
    return tuple(int(p) for p in version.split(".") if p.isdigit())


# --------------------------------------------------------------------------------------------
# Reports


def _cell(before: int, after: int) -> str:
    return str(after) if before == after else f"{before} -> {after}"


def counts_table(comparisons: List[SliceComparison]) -> str:
    columns = [o for o in outcomes.ORDER if any(c.before[o] or c.after[o] for c in comparisons)]
    header = ["corpus", "python", "definitions"] + [outcomes.LABELS[o] for o in columns] + ["worse", "better", "text"]
    rows = [header, ["---"] * 3 + ["---:"] * (len(header) - 3)]
    for c in comparisons:
        rows.append([c.corpus, c.version, _cell(sum(c.before.values()), sum(c.after.values()))]
                    + [_cell(c.before[o], c.after[o]) for o in columns]
                    + [str(len(c.regressions)), str(len(c.improvements)), str(len(c.text_changes))])
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def _describe(record: Optional[Record]) -> str:
    if record is None:
        return "missing"
    label = outcomes.LABELS.get(record.outcome, record.outcome)
    return f"{label} ({record.detail[:160]})" if record.detail else label


def change_lines(comparison: SliceComparison, changes: List[Change], limit: int) -> List[str]:
    lines = []
    for change in changes[:limit]:
        lines.append(f"  {comparison.corpus} {comparison.version} {change.key}: "
                     f"{_describe(change.before)} -> {_describe(change.after)}")
    if len(changes) > limit:
        lines.append(f"  ... and {len(changes) - limit} more in {comparison.corpus} {comparison.version}")
    return lines


def text_diff(pair: Tuple[Slice, Slice], key: str) -> List[str]:
    old, new = pair
    a, b = old.text(key) or "", new.text(key) or ""
    return ["    " + line.rstrip("\n") for line in
            difflib.unified_diff(a.splitlines(), b.splitlines(), "before", "after", lineterm="", n=1)]


def render(result: Comparison, *, show_text: bool = False, diff: bool = False, limit: int = 200) -> str:
    out = [counts_table(result.slices), ""]
    for corpus, version in result.missing:
        out.append(f"MISSING: {corpus} {version} is in the recording but was not measured")
    for title, attribute in (("REGRESSIONS (worse than recorded)", "regressions"), ("Improvements", "improvements")):
        lines: List[str] = []
        for c in result.slices:
            changes = getattr(c, attribute)
            lines += change_lines(c, changes, limit)
            if diff:
                for change in changes[:limit]:
                    if (c.corpus, c.version) in result.texts:
                        lines += text_diff(result.texts[(c.corpus, c.version)], change.key)
        if lines:
            out += [f"{title}:"] + lines + [""]
    texts = sum(len(c.text_changes) for c in result.slices)
    out.append(f"text-only changes (same or equivalent outcome, other text): {texts}"
               + ("" if show_text or not texts else " (list them with --show-text)"))
    if show_text:
        for c in result.slices:
            for change in c.text_changes[:limit]:
                out.append(f"  {c.corpus} {c.version} {change.key}")
                if diff and (c.corpus, c.version) in result.texts:
                    out += text_diff(result.texts[(c.corpus, c.version)], change.key)
    new = sum(len(c.new) for c in result.slices)
    if new:
        out.append(f"new definitions (not in the recording): {new}")
    not_run: Dict[Tuple[str, int, str], List[str]] = {}
    for c in result.slices:
        if c.units_not_run:
            not_run.setdefault((c.corpus, len(c.units_not_run), c.units_not_run[0]), []).append(c.version)
    for (corpus, count, example), versions in not_run.items():
        out.append(f"{corpus} {', '.join(versions)}: {count} recorded unit(s) not run (not judged), e.g. {example}")
    for c in result.slices:
        for note in c.notes:
            out.append(f"{c.corpus} {c.version}: {note}")
    out.append("")
    out.append(f"gate: {'FAILED' if result.regressions else 'passed'}: {result.regressions} regression(s), "
               f"{sum(len(c.improvements) for c in result.slices)} improvement(s), {texts} text change(s)")
    return "\n".join(out)


def summary_table(slices: List[Slice]) -> str:
    """Counts of one recording (no comparison): today's numbers."""
    columns = [o for o in outcomes.ORDER if any(r.outcome == o for s in slices for r in s.records.values())]
    header = ["corpus", "python", "definitions"] + [outcomes.LABELS[o] for o in columns] + ["equal %", "seconds"]
    rows = [header, ["---"] * 3 + ["---:"] * (len(header) - 3)]
    for s in slices:
        counts = collections.Counter(r.outcome for r in s.records.values())
        total = sum(counts.values())
        best = counts[outcomes.EQUAL] + counts[outcomes.RUNS_SAME]
        rows.append([s.corpus, s.python or s.version, str(total)] + [str(counts[o]) for o in columns]
                    + [f"{100.0 * best / total:.2f}" if total else "-", f"{s.seconds:.0f}"])
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)
