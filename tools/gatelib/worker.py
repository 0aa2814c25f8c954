"""The gate's worker: runs under the interpreter being measured (started by run_all.run_pair).

It speaks the protocol of ``benchmarks/_roundtrip_worker.py`` (one JSON request per line in, one
JSON event per line out) and uses its pieces (the alarm, the corpus listing, the oracle loader).
A source file's definitions are all decompiled first, then judged by the oracle's
``SourceRoundTrip.check_texts`` (many definitions per compile, same verdicts as one by one).
Each result carries ``key`` (the qualname, ``#n`` from its second occurrence on), ``sha`` (a
digest of the text) and ``text``.  A request may say ``"known": {key: sha}``: an item whose text
has the known digest is not judged again, its result says ``"status": "reused"`` (a verdict is a
function of the text, given the same source, oracle and interpreter, which the gate checks).

The other corpora are named by units that are not paths:

  fuzz:control:START:COUNT      the control-flow fuzzer's programs, seeds START..START+COUNT-1
  fuzz:expressions:START:COUNT  the expression fuzzer's programs
  execution:PATH                the @cases definitions of a construct corpus file, executed
  dynamo:PATH                   one marshalled code object Dynamo made (read twice: as it comes
                                and with ``rewritten=True``)

Each of those is judged with the project's own checks: ``tools/fuzz_control_flow.examine``,
``tests/decompiler/execution.execution_mismatches`` and ``depyf.verify.first_difference``.
``--list-modules A,B`` and ``--list-corpus`` print a unit listing as JSON and exit.
"""
import argparse
import hashlib
import importlib.util
import json
import marshal
import os
import signal
import sys
import tempfile
import tokenize
from typing import Any, Callable, Dict, List, Optional

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNS_DIFFERENTLY = "runs_differently"
RUNS_SAME = "runs_same"
JUDGED_TOGETHER = 40  # definitions per `check_texts` call
EXACT = False  # --exact: one compile per definition (`check_text`), to confirm `check_texts`


def _load(name: str, path: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


rt = _load("_depyf_gate_roundtrip_worker", os.path.join(REPO, "benchmarks", "_roundtrip_worker.py"))
_emit = rt._emit


def _tests_package():
    """The decompiler test package (tests/decompiler), imported as gap_report.py does."""
    tests = os.path.join(REPO, "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    from decompiler import execution, support  # noqa: E402

    return execution, support


# --------------------------------------------------------------------------------------------
# Listings


def list_modules(names: List[str]) -> List[List[str]]:
    """[module name, path] for each module this interpreter has as a .py file."""
    found = []
    for name in names:
        for path in rt.corpus("default", [name]):
            found.append([name, path])
    return found


def list_corpus() -> List[List[str]]:
    """[corpus id, path] of the construct corpus files this interpreter can compile."""
    _, support = _tests_package()
    return [[support.corpus_id(p), str(p)] for p in support.corpus_files()]


# --------------------------------------------------------------------------------------------
# Units that are not source files


def text_digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def definition_keys(definitions) -> List[str]:
    """One stable key per definition of a file: its qualname, `#n` for the n-th repeat."""
    keys = []
    seen: Dict[str, int] = {}
    for definition in definitions:
        n = seen.get(definition.qualname, 0) + 1
        seen[definition.qualname] = n
        keys.append(definition.qualname if n == 1 else "%s#%d" % (definition.qualname, n))
    return keys


def _fields(result) -> Dict[str, Any]:
    return {"status": result.status, "detail": result.detail, "text": result.decompiled}


def run_source_file(path: str, skip: List[int], known: Dict[str, str], verify, guard) -> None:
    import depyf

    try:
        with tokenize.open(path) as handle:
            source = handle.read()
        trip = verify.SourceRoundTrip(source, path)
    except (SyntaxError, ValueError, UnicodeDecodeError, OSError, RecursionError, MemoryError) as exc:
        _emit({"event": "skip_file", "file": path, "reason": ("%s: %s" % (type(exc).__name__, exc))[:200]})
        return
    keys = definition_keys(trip.definitions)
    unit = _Unit(path, skip, known)
    pending: List[int] = []
    texts: Dict[int, str] = {}

    def decompile(index: int, key: str, known_sha: Optional[str]) -> Optional[Dict[str, Any]]:
        try:
            text = guard.call(depyf.decompile, trip.code(trip.definitions[index]))
            if not isinstance(text, str):
                raise TypeError("decompiler returned %s, not str" % type(text).__name__)
        except rt._Timeout:
            return {"status": "decompile_error", "detail": "TimeoutError: decompiling took more than %g s" % guard.seconds}
        except Exception as exc:  # what the oracle's own `check` records for a failing decompiler
            return {"status": "decompile_error", "detail": verify.describe_exception(exc)}
        if known_sha is not None and text_digest(text) == known_sha:
            return {"status": "reused", "sha": known_sha}
        texts[index] = text
        pending.append(index)
        return None

    def judge_pending(emit: Callable[[int, Dict[str, Any]], None]) -> None:
        # In blocks, each answered at once: run_pair takes a long silence for a hang.
        for start in range(0, len(pending), JUDGED_TOGETHER):
            block = pending[start:start + JUDGED_TOGETHER]
            items = [(trip.definitions[i], texts[i]) for i in block]
            results = [trip.check_text(*item) for item in items] if EXACT else trip.check_texts(items)
            for index, result in zip(block, results):
                emit(index, _fields(result))

    # (first every text, then the verdicts, many definitions per compile)
    unit.run(keys, decompile, judge_pending)


class _Unit:
    """Emits one unit's events; `judge(index, key, known_sha)` gives each item's result fields."""

    def __init__(self, unit: str, skip: List[int], known: Dict[str, str]) -> None:
        self.unit = unit
        self.skip = set(skip)
        self.known = known

    def run(self, keys: List[str], judge: Callable[[int, str, Optional[str]], Optional[Dict[str, Any]]],
            finish: Optional[Callable[[Callable[[int, Dict[str, Any]], None]], None]] = None) -> None:
        """Judge each item not skipped; `judge` may answer None and leave the verdict to `finish`,
        called once every item has been seen with the function that emits a result."""
        _emit({"event": "file", "file": self.unit, "definitions": len(keys)})
        for index, key in enumerate(keys):
            if index in self.skip:
                continue
            _emit({"event": "start", "index": index, "qualname": key, "lineno": 0, "key": key})
            fields = judge(index, key, self.known.get(key))
            if fields is not None:
                self._result(index, key, fields)
        if finish is not None:
            finish(lambda index, fields: self._result(index, keys[index], fields))
        _emit({"event": "done", "file": self.unit})

    @staticmethod
    def _result(index: int, key: str, fields: Dict[str, Any]) -> None:
        event = {"event": "result", "index": index, "qualname": key, "lineno": 0, "key": key,
                 "detail": "", "group": "", "decompile_s": 0.0, "dis_s": 0.0}
        event.update(fields)
        if event.get("text") is not None and "sha" not in event:
            event["sha"] = text_digest(event["text"])
        event["detail"] = (event.get("detail") or "")[:400]
        _emit(event)


def _reused_or(text: Optional[str], known_sha: Optional[str]) -> Optional[Dict[str, Any]]:
    if text is not None and known_sha is not None and text_digest(text) == known_sha:
        return {"status": "reused", "sha": known_sha}
    return None


_FUZZ_STATUS = {"decompile": "decompile_error", "syntax": "no_compile", "execution": RUNS_DIFFERENTLY}


def run_fuzz(unit: _Unit, mode: str, start: int, count: int) -> None:
    fuzz = _load("_depyf_gate_fuzz", os.path.join(REPO, "tools", "fuzz_control_flow.py"))
    expressions = mode == "expressions"
    keys = [str(seed) for seed in range(start, start + count)]
    previous = signal.signal(signal.SIGALRM, fuzz._alarm)  # the fuzzer's per-call alarm
    try:
        with tempfile.TemporaryDirectory() as workdir:

            def judge(index: int, key: str, known_sha: Optional[str]) -> Dict[str, Any]:
                seed = start + index
                known = (lambda text: text_digest(text) == known_sha) if known_sha else None
                found = fuzz.examine(seed, workdir, expressions=expressions, known=known)
                if found.problem is None and found.roundtrip is None:
                    return {"status": "reused", "sha": known_sha}
                fields: Dict[str, Any] = {"text": found.text}
                if found.problem is None:
                    fields["status"] = found.roundtrip or "equal"
                    return fields
                kind, detail, _ = found.problem
                fields["status"] = found.roundtrip if kind == "roundtrip" else _FUZZ_STATUS[kind]
                # (the fuzzer's detail repeats the text; the record keeps the text apart)
                fields["detail"] = detail.split("\n--- decompiled ---\n")[0]
                return fields

            unit.run(keys, judge)
    finally:
        signal.signal(signal.SIGALRM, previous)


def run_execution(unit: _Unit, path: str, verify, guard) -> None:
    from pathlib import Path

    execution, support = _tests_package()
    file = Path(path).resolve()
    entries = support.registered(file)
    keys = definition_keys(entries)  # (entries have a qualname, as definitions do)

    def judge(index: int, key: str, known_sha: Optional[str]) -> Dict[str, Any]:
        made: Dict[str, Any] = {}

        class _Known(BaseException):
            pass

        def to_text(obj: Any) -> str:
            try:
                text = guard.call(__import__("depyf").decompile, obj)
            except rt._Timeout:
                raise TimeoutError("decompiling took more than %g s" % guard.seconds) from None
            made["text"] = text
            if _reused_or(text, known_sha):
                raise _Known()
            return text

        try:
            problems = execution.execution_mismatches(file, index, to_text)
        except _Known:
            return {"status": "reused", "sha": known_sha}
        except Exception as exc:  # from the decompiler: a loud failure
            return {"status": "decompile_error", "detail": verify.describe_exception(exc)}
        except BaseException as exc:  # support.Timeout: a decompiled loop that does not stop
            return {"status": RUNS_DIFFERENTLY, "text": made.get("text"), "detail": "%s: %s" % (type(exc).__name__, exc)}
        if not problems:
            return {"status": RUNS_SAME, "text": made.get("text")}
        status = "no_compile" if problems[0].startswith("the text does not execute: SyntaxError") else RUNS_DIFFERENTLY
        return {"status": status, "text": made.get("text"), "detail": problems[0]}

    unit.run(keys, judge)


def run_dynamo(unit: _Unit, path: str, verify, guard) -> None:
    import depyf

    with open(path, "rb") as handle:
        code = marshal.loads(handle.read())
    readings = [("as given", {}), ("rewritten", {"rewritten": True})]

    def judge(index: int, key: str, known_sha: Optional[str]) -> Dict[str, Any]:
        try:
            text = guard.call(lambda: depyf.decompile(code, **readings[index][1]))
        except rt._Timeout:
            return {"status": "decompile_error", "detail": "TimeoutError: decompiling took more than %g s" % guard.seconds}
        except Exception as exc:
            return {"status": "decompile_error", "detail": verify.describe_exception(exc)}
        reused = _reused_or(text, known_sha)
        if reused:
            return reused
        try:
            module = compile(text, path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as exc:
            return {"status": "no_compile", "text": text, "detail": verify.describe_exception(exc)}
        candidate = next((c for c in verify.code_objects(module) if c.co_name == code.co_name), None)
        if candidate is None:
            return {"status": "differs", "text": text, "detail": "no code object named %s" % code.co_name}
        found = verify.first_difference(code, candidate)
        return {"status": "differs" if found else "equal", "text": text, "detail": str(found) if found else ""}

    unit.run([name for name, _ in readings], judge)


# --------------------------------------------------------------------------------------------


def handle(request: Dict[str, Any], verify, guard) -> None:
    unit_name = request["file"]
    skip = request.get("skip", [])
    known = request.get("known") or {}
    kind, _, rest = unit_name.partition(":")
    if kind == "fuzz":
        mode, start, count = rest.split(":")
        run_fuzz(_Unit(unit_name, skip, known), mode, int(start), int(count))
    elif kind == "execution":
        run_execution(_Unit(unit_name, skip, known), rest, verify, guard)
    elif kind == "dynamo":
        run_dynamo(_Unit(unit_name, skip, known), rest, verify, guard)
    else:
        run_source_file(unit_name, skip, known, verify, guard)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--verify", required=True)
    parser.add_argument("--decompiler", default="ours")
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--memory", action="store_true")  # (accepted from run_pair; not measured)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--exact", action="store_true", help="judge each definition alone")
    parser.add_argument("--list-modules")
    parser.add_argument("--list-corpus", action="store_true")
    args = parser.parse_args()
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    if args.list_modules is not None:
        print(json.dumps(list_modules([m for m in args.list_modules.split(",") if m])))
        return 0
    if args.list_corpus:
        print(json.dumps(list_corpus()))
        return 0
    global EXACT
    EXACT = args.exact
    verify = rt._load_verify(args.verify)
    try:
        import depyf  # noqa: F401  (the code under test: PYTHONPATH is the worktree's src)
    except BaseException as exc:
        _emit({"event": "fatal", "reason": "%s: %s" % (type(exc).__name__, exc)})
        return 1
    guard = rt._Guard(args.timeout)
    for line in sys.stdin:
        if line.strip():
            handle(json.loads(line), verify, guard)
    return 0


if __name__ == "__main__":
    sys.exit(main())
