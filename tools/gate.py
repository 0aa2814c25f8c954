#!/usr/bin/env python3
"""The decompiler's gate: record every definition's outcome, and check a later run against it.

    python tools/gate.py record --name base              # every corpus, every Python 3.8-3.13
    python tools/gate.py check --against base            # run this worktree, compare, exit 1 if worse
    python tools/gate.py check --against base --quick    # construct corpus, ten modules, some fuzz seeds
    python tools/gate.py compare base other              # two recordings, nothing run
    python tools/gate.py show base [--outcome differs]   # a recording's counts (and definitions)
    python tools/gate.py gaps base                       # its corpus failures vs known_gaps.py
    python tools/gate.py list                            # the recordings there are

Options of record and check: --corpus a,b (see `--help`), --versions 3.11,3.12, --jobs N,
--quick, --fuzz-seeds 0-999, --expr-seeds 0-299, --timeout S. Recordings live in
$DEPYF_CACHE/gate/<name>/ (default ~/.cache/depyf/gate/). Each interpreter runs this
worktree's src/ in a subprocess, whichever worktree the command is run from.

`check` reuses the recording's verdicts for definitions whose decompiled text has not changed
(the oracle's verdict is a function of the source and the text; it is reused only when the
oracle, the checks, the interpreter and the source file are the same); --full measures all anew.
See docs/gate.md for what counts as a regression.
"""
from __future__ import annotations

import argparse
import datetime
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gatelib import compare, corpora, outcomes, runner  # noqa: E402
from gatelib.store import Recording, gate_root, list_recordings  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _git(*argv: str) -> str:
    try:
        return subprocess.run(["git", *argv], cwd=str(REPO), capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--corpus", default="", help="comma-separated corpora (default all): " + ", ".join(corpora.ALL))
    parser.add_argument("--versions", default="", help="comma-separated minors, e.g. 3.11,3.12 (default all found)")
    parser.add_argument("--quick", action="store_true",
                        help=f"only {', '.join(corpora.QUICK)}, fuzz seeds 0-299 and 0-99 (a few minutes)")
    parser.add_argument("--fuzz-seeds", default="", help="control-flow fuzzer seeds, e.g. 0-999 (default; quick 0-299)")
    parser.add_argument("--expr-seeds", default="", help="expression fuzzer seeds, e.g. 0-299 (default; quick 0-99)")
    parser.add_argument("--jobs", type=int, default=2, help="workers at a time (default 2)")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per definition before it counts as hung")
    parser.add_argument("--exact", action="store_true",
                        help="compile each definition's splice alone (slow; confirms the batched oracle)")
    parser.add_argument("--python", action="append", default=[], metavar="PATH",
                        help="run this interpreter (repeatable) instead of the ones tools/pythons.py finds")
    parser.add_argument("--nice", type=int, default=10, help="niceness of the run (default 10: the machine is shared)")


def _seeds(args) -> Dict[str, Tuple[int, int]]:
    seeds = dict(corpora.QUICK_SEEDS if args.quick else corpora.DEFAULT_SEEDS)
    if args.fuzz_seeds:
        seeds["fuzz"] = corpora.parse_seeds(args.fuzz_seeds)
    if args.expr_seeds:
        seeds["fuzz-expr"] = corpora.parse_seeds(args.expr_seeds)
    return seeds


def _run(args, reuse: Optional[Recording]):
    """Measure the requested slices; (slices, seconds, what was asked)."""
    if args.nice:
        try:
            os.nice(args.nice)
        except OSError:
            pass
    names = corpora.resolve(args.corpus, args.quick)
    versions = [v.strip() for v in args.versions.split(",") if v.strip()] or None
    started = time.monotonic()
    the_plan = runner.plan(names, versions, _seeds(args), reuse, log, args.python)
    reusable = sum(len(k) for k in the_plan.known.values())
    log(f"gate: {len(the_plan.slices)} slice(s) ({', '.join(names)}) on "
        f"{', '.join(sorted({v for _, v in the_plan.slices}, key=lambda v: int(v.split('.')[1])))}"
        + (f"; {reusable} recorded verdicts reusable from {reuse.name}" if reuse is not None else ""))
    slices = runner.execute(the_plan, args.jobs, args.timeout, log, args.exact)
    return slices, time.monotonic() - started, names, versions


def _save(recording: Recording, slices, seconds: float, args, names, reused_from: str = "") -> None:
    for piece in slices:
        recording.save_slice(piece)
    meta = recording.meta()
    runs = meta.get("runs", [])
    runs.append({
        "at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "corpora": names, "versions": sorted({p.version for p in slices}), "seconds": round(seconds, 1),
        "jobs": args.jobs, "seeds": {k: list(v) for k, v in _seeds(args).items()}, "reused_from": reused_from,
    })
    recording.write_meta({
        "name": recording.name, "commit": _git("rev-parse", "HEAD"), "dirty": bool(_git("status", "--porcelain", "src")),
        "worktree": str(REPO), "branch": _git("rev-parse", "--abbrev-ref", "HEAD"), "runs": runs,
    })


def cmd_record(args) -> int:
    recording = Recording(args.name)
    if recording.exists() and args.fresh:
        recording.clear()
    reuse = Recording(args.reuse) if args.reuse else None
    if reuse is not None and not reuse.exists():
        log(f"no recording {args.reuse!r} to reuse")
        return 2
    slices, seconds, names, _ = _run(args, reuse)
    _save(recording, slices, seconds, args, names, args.reuse or "")
    print(compare.summary_table(sorted(slices, key=lambda s: (corpora.ALL.index(s.corpus), s.version.split(".")[1].zfill(2)))))
    problems = [f"{s.corpus} {s.version}: {p}" for s in slices for p in s.problems]
    for line in problems[:20]:
        print("problem: " + line)
    print(f"\nrecorded {recording.name} in {recording.path} ({seconds:.0f} s wall)")
    return 1 if any("worker unavailable" in p for p in problems) else 0


def cmd_check(args) -> int:
    base = Recording(args.against)
    if not base.exists():
        log(f"no recording {args.against!r} in {gate_root()} (make one with `tools/gate.py record --name NAME`)")
        return 2
    slices, seconds, names, versions = _run(args, None if args.full else base)
    saved = Recording(args.save)
    saved.clear()
    _save(saved, slices, seconds, args, names, "" if args.full else base.name)
    expected = [(c, v) for c, v in base.slices() if c in names and (not versions or v in versions)]
    result = compare.compare(base, slices, expected)
    print(compare.render(result, show_text=args.show_text, diff=args.diff, limit=args.limit))
    print(f"(this run: {seconds:.0f} s wall, saved as recording {saved.name!r})")
    return 1 if result.regressions else 0


def cmd_compare(args) -> int:
    base, other = Recording(args.base), Recording(args.other)
    for r in (base, other):
        if not r.exists():
            log(f"no recording {r.name!r} in {gate_root()}")
            return 2
    wanted = _filter(args)
    slices = [other.load_slice(c, v) for c, v in other.slices() if wanted(c, v)]
    # (a slice is expected of the other recording where it has that corpus and that version at all)
    corpora_there = {c for c, _ in other.slices()}
    versions_there = {v for _, v in other.slices()}
    expected = [(c, v) for c, v in base.slices() if wanted(c, v) and c in corpora_there and v in versions_there]
    result = compare.compare(base, [s for s in slices if s is not None], expected)
    print(compare.render(result, show_text=args.show_text, diff=args.diff, limit=args.limit))
    return 1 if result.regressions else 0


def _filter(args):
    names = set(corpora.resolve(args.corpus, False)) if args.corpus else None
    versions = {v.strip() for v in args.versions.split(",") if v.strip()}
    return lambda c, v: (names is None or c in names) and (not versions or v in versions)


def cmd_show(args) -> int:
    recording = Recording(args.name)
    if not recording.exists():
        log(f"no recording {args.name!r} in {gate_root()}")
        return 2
    wanted = _filter(args)
    slices = [s for s in (recording.load_slice(c, v) for c, v in recording.slices() if wanted(c, v)) if s is not None]
    slices.sort(key=lambda s: (corpora.ALL.index(s.corpus) if s.corpus in corpora.ALL else 99, int(s.version.split(".")[1])))
    meta = recording.meta()
    print(f"recording {recording.name}: commit {meta.get('commit', '?')[:12]}"
          f"{' (src changed)' if meta.get('dirty') else ''}, {meta.get('worktree', '?')}")
    print(compare.summary_table(slices))
    for s in slices:
        for problem in s.problems[:5]:
            print(f"problem: {s.corpus} {s.version}: {problem}")
        for key, record in sorted(s.records.items()):
            if args.outcome and record.outcome == args.outcome or args.key and args.key == key:
                print(f"{s.corpus} {s.version} {key}: {record.outcome}: {record.detail}")
                if args.key:
                    print(s.text(key) or "<no text>")
    return 0


def cmd_gaps(args) -> int:
    """The recording's construct-corpus failures against tests/decompiler/known_gaps.py."""
    recording = Recording(args.name)
    if not recording.exists():
        log(f"no recording {args.name!r} in {gate_root()}")
        return 2
    sys.path.insert(0, str(REPO / "tests"))
    from decompiler import known_gaps  # the test suite's list of expected failures

    checks = {"corpus": ("roundtrip", outcomes.EQUAL), "execution": ("execution", outcomes.RUNS_SAME)}
    unlisted = stale = checked = 0
    for corpus, version in recording.slices():
        if corpus not in checks:
            continue
        test, good = checks[corpus]
        piece = recording.load_slice(corpus, version)
        assert piece is not None
        failing = {k for k, r in piece.records.items() if r.outcome != good}
        checked += len(failing)
        for key in sorted(failing):
            if not known_gaps.gaps_for(test, key, version):
                unlisted += 1
                print(f"not a known gap: {test} {version} {key}: {piece.records[key].outcome}")
        for gap in known_gaps.GAPS:
            if gap.test == test and version in gap.versions and not any(
                    known_gaps.fnmatchcase(k, gap.case) for k in failing):
                stale += 1
                print(f"known gap that passes: {test} {version} {gap.case}")
    print(f"{checked} corpus failure(s): {unlisted} not in known_gaps.py; {stale} known gap(s) that pass")
    return 1 if unlisted or stale else 0


def cmd_list(args) -> int:
    for recording in list_recordings():
        meta = recording.meta()
        runs = meta.get("runs", [])
        last = runs[-1] if runs else {}
        print(f"{recording.name:24} commit {meta.get('commit', '?')[:10]} {last.get('at', '?')} "
              f"{len(list(recording.slices()))} slice(s), last run {last.get('seconds', '?')} s")
    print(f"(in {gate_root()})")
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    record = sub.add_parser("record", help="measure and save a recording")
    record.add_argument("--name", required=True)
    record.add_argument("--fresh", action="store_true", help="drop the recording's other slices first")
    record.add_argument("--reuse", default="", help="reuse verdicts of unchanged texts from this recording")
    _add_run_options(record)
    check = sub.add_parser("check", help="measure and compare with a recording; exit 1 on a regression")
    check.add_argument("--against", required=True)
    check.add_argument("--save", default=f"check-{REPO.name}",
                       help=f"save this run as a recording (default check-<worktree folder>: check-{REPO.name})")
    check.add_argument("--full", action="store_true", help="reuse no recorded verdict: check every text anew")
    _add_run_options(check)
    comp = sub.add_parser("compare", help="compare two recordings")
    comp.add_argument("base")
    comp.add_argument("other")
    comp.add_argument("--corpus", default="")
    comp.add_argument("--versions", default="")
    for p in (check, comp):
        p.add_argument("--show-text", action="store_true", help="list the text-only changes too")
        p.add_argument("--diff", action="store_true", help="print the text diff of each listed change")
        p.add_argument("--limit", type=int, default=200, help="changes listed per slice and kind (default 200)")
    show = sub.add_parser("show", help="a recording's counts")
    show.add_argument("name")
    show.add_argument("--corpus", default="")
    show.add_argument("--versions", default="")
    show.add_argument("--outcome", choices=outcomes.ORDER, help="also list the definitions with this outcome")
    show.add_argument("--key", default="", help="print one definition's record and text (UNIT::QUALNAME)")
    gaps = sub.add_parser("gaps", help="a recording's corpus failures against tests/decompiler/known_gaps.py")
    gaps.add_argument("name")
    sub.add_parser("list", help="the recordings")
    args = parser.parse_args(argv)
    return {"record": cmd_record, "check": cmd_check, "compare": cmd_compare, "show": cmd_show,
            "gaps": cmd_gaps, "list": cmd_list}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
