"""Running the gate: every unit of every requested corpus through workers of each interpreter.

The workers are driven by `benchmarks/run_all.run_pair` (which restarts a worker past a hang or a
crash and records that definition as a decompile error), with the gate's worker script. Work is
cut into tasks (one interpreter, a few units) run `jobs` at a time. A unit listed by two corpora
(the stdlib sample and the ten modules share files) runs once.

With a recording to reuse, each request carries the digests of the texts recorded for its
definitions; a definition whose text is the same is not spliced, compiled or executed again,
and its recorded verdict is taken. That is sound only when whatever else decides the verdict is
the same too: the slice's fingerprint (oracle, checks, interpreter) and the unit's content.
"""
from __future__ import annotations

import argparse
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import corpora
from .corpora import Unit, run_all
from .store import Record, Recording, Slice

TOOLS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TOOLS))
import pythons  # noqa: E402  (tools/pythons.py: the one interpreter discovery)


@dataclass(frozen=True)
class Target:
    minor: str
    full: str
    python: str

    def interpreter(self) -> "run_all.Interpreter":
        return run_all.Interpreter(self.python, tuple(int(p) for p in self.full.split(".")))  # type: ignore[arg-type]


def base_targets(versions: Optional[Sequence[str]], explicit: Sequence[str] = ()) -> List[Target]:
    """The interpreters to run: `explicit` paths, else tools/pythons.py's discovery."""
    if explicit:
        # Named interpreters run whatever their version (3.14/3.15 before they are supported
        # need DEPYF_EXPERIMENTAL_VERSIONS=1 in the environment, which the workers inherit).
        probed = [run_all._probe(path) for path in explicit]
        chosen = {p.minor: Target(p.minor, p.full, p.path) for p in probed if p is not None}
        order = pythons.SUPPORTED_MINORS + pythons.NEWER_MINORS
    else:
        order = pythons.test_minors()  # 3.8-3.13 and the newer ones the checkout reads
        found = pythons.discover(order).chosen
        chosen = {m: Target(m, i.full_version, i.path) for m, i in found.items()}
    return [chosen[m] for m in order if m in chosen and (not versions or m in versions)]


def torch_targets(versions: Optional[Sequence[str]]) -> List[Target]:
    out = []
    for minor, python in sorted(corpora.torch_interpreters().items()):
        if versions and minor not in versions:
            continue
        probe = run_all._probe(python)
        if probe is not None:
            out.append(Target(minor, probe.full, python))
    return out


@dataclass
class Plan:
    """The slices to make and the tasks that make them."""

    slices: Dict[Tuple[str, str], Slice] = field(default_factory=dict)
    # per target: request -> the units (of several corpora, perhaps) it answers for
    requests: Dict[Target, Dict[str, List[Unit]]] = field(default_factory=dict)
    known: Dict[Tuple[Target, str], Dict[str, str]] = field(default_factory=dict)
    reuse_from: Dict[Tuple[str, str], Slice] = field(default_factory=dict)


def plan(corpus_names: Sequence[str], versions: Optional[Sequence[str]], seeds: Dict[str, Tuple[int, int]],
         reuse: Optional[Recording], log: Callable[[str], None], explicit: Sequence[str] = ()) -> Plan:
    result = Plan()
    base = [c for c in corpus_names if c != "torch"]
    groups: List[Tuple[Target, List[str]]] = []
    if base:
        groups += [(t, base) for t in base_targets(versions, explicit)]
    if "torch" in corpus_names:
        torch = torch_targets(versions)
        if not torch:
            log("torch: no torch environment (~/.cache/depyf/venvs/py3.X-torch*) ready; not measured")
        groups += [(t, ["torch"]) for t in torch]
    for target, names in groups:
        listing = corpora.units_for(names, target.python, target.minor, seeds)
        for corpus, units in listing.items():
            piece = Slice(corpus, target.minor, target.full, target.python,
                          corpora.fingerprint(corpus, target.full, target.python),
                          units={label: u.digest for u in units for label in u.labels()})
            result.slices[(corpus, target.minor)] = piece
            old = reuse.load_slice(corpus, target.minor) if reuse is not None else None
            usable = old is not None and old.fingerprint == piece.fingerprint
            if usable:
                result.reuse_from[(corpus, target.minor)] = old  # type: ignore[assignment]
            for unit in units:
                result.requests.setdefault(target, {}).setdefault(unit.request, []).append(unit)
                if usable and (target, unit.request) not in result.known:
                    result.known[(target, unit.request)] = _known_texts(old, unit)  # type: ignore[arg-type]
    return result


def _known_texts(old: Slice, unit: Unit) -> Dict[str, str]:
    """Worker item name -> recorded text digest, for the unit's items of unchanged content."""
    if unit.label:
        if old.units.get(unit.label) != unit.digest:
            return {}
        prefix = unit.label + "::"
        return {k[len(prefix):]: r.sha for k, r in old.records.items() if k.startswith(prefix) and r.sha}
    return {m: old.records[m].sha for m in unit.members  # type: ignore[misc]
            if old.units.get(m) == unit.digest and m in old.records and old.records[m].sha}


def _tasks(the_plan: Plan, jobs: int) -> List[Tuple[Target, List[str]]]:
    """Cut each interpreter's requests into tasks of about equal cost, biggest first."""
    weights = {(t, r): units[0].weight for t, requests in the_plan.requests.items() for r, units in requests.items()}
    total = sum(weights.values()) or 1.0
    # several tasks per job keep every worker busy to the end; one per interpreter when serial
    # (a task costs a worker start, a fraction of a second: small tasks also show progress)
    target_weight = total / max(jobs * 4, 8 * len(the_plan.requests)) if jobs > 1 else float("inf")
    tasks: List[Tuple[Target, List[str]]] = []
    for target, requests in the_plan.requests.items():
        ordered = sorted(requests, key=lambda r: -weights[(target, r)])
        current: List[str] = []
        size = 0.0
        for request in ordered:
            current.append(request)
            size += weights[(target, request)]
            if size >= target_weight:
                tasks.append((target, current))
                current, size = [], 0.0
        if current:
            tasks.append((target, current))
    return sorted(tasks, key=lambda task: -sum(weights[(task[0], r)] for r in task[1]))


def execute(the_plan: Plan, jobs: int, timeout: float, log: Callable[[str], None], exact: bool = False) -> List[Slice]:
    """Run every task; fill and return the plan's slices."""
    tasks = _tasks(the_plan, max(1, jobs))
    args = argparse.Namespace(timeout=timeout, no_memory=True, repeat=1, time_limit=1e9)
    lock = threading.Lock()
    done = [0]
    started = time.monotonic()

    def run(task: Tuple[Target, List[str]]) -> None:
        target, requests = task
        began = time.monotonic()

        def extra(request: str) -> Dict[str, object]:
            return {"known": the_plan.known.get((target, request), {})}

        outcome = run_all.run_pair(target.interpreter(), "ours", target.python, requests, args, lambda m: None,
                                   worker_script=corpora.WORKER, worker_flags=["--exact"] if exact else [],
                                   request_extra=extra)
        with lock:
            _collect(the_plan, target, requests, outcome)
            elapsed = time.monotonic() - began
            for request in requests:
                for unit in the_plan.requests[target][request]:
                    the_plan.slices[(unit.corpus, target.minor)].seconds += elapsed / len(requests)
            done[0] += 1
            log(f"[{done[0]}/{len(tasks)} {time.monotonic() - started:.0f}s] {target.minor}: "
                f"{len(requests)} unit(s), {len(outcome.results)} results in {elapsed:.0f}s")

    if jobs > 1:
        with ThreadPoolExecutor(jobs) as pool:
            list(pool.map(run, tasks))
    else:
        for task in tasks:
            run(task)
    return list(the_plan.slices.values())


def _collect(the_plan: Plan, target: Target, requests: List[str], outcome: "run_all.Outcome") -> None:
    if outcome.unavailable:
        for request in requests:
            for unit in the_plan.requests[target][request]:
                the_plan.slices[(unit.corpus, target.minor)].problems.append(
                    f"{unit.label or unit.request}: worker unavailable: {outcome.unavailable}")
    for skipped in outcome.files_skipped:
        request = skipped.split(": ", 1)[0]
        for unit in the_plan.requests[target].get(request, []):
            the_plan.slices[(unit.corpus, target.minor)].problems.append(f"{unit.label or unit.request}: skipped: {skipped}")
    if outcome.stopped:
        for request in requests:
            for unit in the_plan.requests[target][request]:
                the_plan.slices[(unit.corpus, target.minor)].problems.append(f"{unit.label or unit.request}: {outcome.stopped}")
    for event in outcome.results:
        units = the_plan.requests[target].get(event["file"], [])
        name = event.get("key") or f"{event.get('qualname', '?')}#crashed{event.get('index', -1)}"
        record, text = Record(event["status"], event.get("detail") or "", event.get("sha")), event.get("text")
        if record.outcome == "reused":
            record, text = _recorded(the_plan, target, units, name)
        for unit in units:
            piece = the_plan.slices[(unit.corpus, target.minor)]
            piece.records[unit.key(name)] = record
            if record.sha and text is not None:
                piece.texts[record.sha] = text


def _recorded(the_plan: Plan, target: Target, units: List[Unit], name: str) -> Tuple[Record, Optional[str]]:
    """The record (and text) a "reused" result stands for, from the recording being reused."""
    for unit in units:
        old = the_plan.reuse_from.get((unit.corpus, target.minor))
        found = old.records.get(unit.key(name)) if old is not None else None
        if found is not None:
            return Record(found.outcome, found.detail, found.sha), old.texts.get(found.sha or "")
    raise KeyError(f"a reused verdict that the recording does not have: {name}")
