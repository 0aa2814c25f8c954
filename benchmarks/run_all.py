#!/usr/bin/env python3
"""Round-trip benchmark of the decompiler on every CPython found whose opcode tables depyf has.

    python benchmarks/run_all.py                    # ten stdlib modules, every interpreter
    python benchmarks/run_all.py --stdlib-all       # every Lib/**/*.py (tests excluded)
    python benchmarks/run_all.py --set sweep        # a named corpus: unseen, sweep, fresh, pip
    python benchmarks/run_all.py --failures 15      # also the most common first differences
    python benchmarks/run_all.py --control          # the oracle's own check: must be 100%
    python benchmarks/run_all.py --write-readme --write-failures

For each interpreter, a worker process of that interpreter (``benchmarks/_roundtrip_worker.py``)
checks every function, method and lambda defined at module level or in a class body with the
round-trip oracle (``src/depyf/verify``): decompile, splice into the file, recompile, compare
the bytecode.  It reports per version: definitions, % decompiled without exception, % whose
splice compiles, % bytecode-equal, decompile time and peak memory relative to
``list(dis.get_instructions(code))`` on the same code objects (nested included).

Side by side, depyf 0.20 from PyPI runs on the same definitions with the same oracle, from a
virtual environment per interpreter cached in ``~/.cache/depyf/baseline/<version>``.  Its
results are cached too (``~/.cache/depyf/baseline/results/``, keyed by interpreter, corpus,
options and the oracle's source), since they cannot change; ``--fresh-baseline`` re-measures.

Interpreters: ``--python PATH`` (repeatable), else ``DEPYF_PYTHONS`` (set by ``make bench``),
else every python3.X on PATH, under ``pyenv root`` and set up by ``tools/debian_pythons.py``. A
version whose tables exist but that ``versions.SUPPORTED`` does not list yet is measured only with
``DEPYF_EXPERIMENTAL_VERSIONS=1`` (its row says "unavailable" otherwise). Third-party code (the
*pip* set) is what the interpreter can import: pass a virtual environment's python where the
interpreter itself has no pip (Debian's).  A definition that hangs past
``--timeout`` or crashes its worker is recorded as a decompile error and the run goes on; each
interpreter's run stops at ``--time-limit``.
"""
from __future__ import annotations

import argparse
import collections
import datetime
import hashlib
import json
import os
import select
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools"))
import debian_pythons  # noqa: E402  (the 3.14/3.15 interpreters set up from Debian's packages)

WORKER = REPO / "benchmarks" / "_roundtrip_worker.py"
VERIFY = REPO / "src" / "depyf" / "verify"  # the oracle package, loaded by path
README = REPO / "README.md"
FAILURES_FILE = REPO / "benchmarks" / "LATEST_FAILURES.md"
BASELINE_ROOT = Path(os.environ.get("DEPYF_BASELINE_CACHE", "~/.cache/depyf/baseline")).expanduser()
BASELINE_REQUIREMENT = "depyf==0.20.0"
# The versions whose opcode tables depyf has (`versions.TABLED`): those it can be measured on.
SUPPORTED = ((3, 8), (3, 9), (3, 10), (3, 11), (3, 12), (3, 13), (3, 14), (3, 15))
README_START, README_END = "<!-- bench:roundtrip -->", "<!-- /bench:roundtrip -->"

LABELS = {"ours": "depyf (this)", "baseline": "depyf 0.20", "control": "control (original source)"}


# --------------------------------------------------------------------------------------------
# Interpreters


@dataclass(frozen=True)
class Interpreter:
    path: str
    version: Tuple[int, int, int]

    @property
    def minor(self) -> str:
        return "%d.%d" % self.version[:2]

    @property
    def full(self) -> str:
        return "%d.%d.%d" % self.version


def _probe(path: str) -> Optional[Interpreter]:
    code = "import sys, platform; print(platform.python_implementation(), *sys.version_info[:3])"
    try:
        out = subprocess.run([path, "-c", code], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    parts = out.stdout.split()
    if out.returncode != 0 or len(parts) != 4 or parts[0] != "CPython":
        return None
    return Interpreter(path, tuple(int(p) for p in parts[1:]))  # type: ignore[arg-type]


def _candidate_paths() -> Iterable[str]:
    pyenv = shutil.which("pyenv")
    if pyenv:
        try:
            root = subprocess.run([pyenv, "root"], capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            root = ""
        if root:
            yield from (str(p) for p in sorted(Path(root, "versions").glob("*/bin/python3")))
    for minor in debian_pythons.MINORS:
        found = debian_pythons.installed(minor)
        if found is not None:
            yield str(found)
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if not directory or "shims" in Path(directory).parts:
            continue  # pyenv shims dispatch to the binaries listed above
        for minor in SUPPORTED:
            exe = Path(directory, "python%d.%d" % minor)
            if exe.is_file() and os.access(str(exe), os.X_OK):
                yield str(exe)


def find_interpreters(explicit: List[str]) -> List[Interpreter]:
    """One interpreter per supported minor version, oldest first."""
    if explicit:
        paths: Iterable[str] = explicit
    elif os.environ.get("DEPYF_PYTHONS"):
        paths = [p for p in os.environ["DEPYF_PYTHONS"].split(os.pathsep) if p]
    else:
        paths = _candidate_paths()
    chosen: Dict[Tuple[int, int], Interpreter] = {}
    for path in paths:
        found = _probe(path)
        if found and found.version[:2] in SUPPORTED and found.version[:2] not in chosen:
            chosen[found.version[:2]] = found
    return [chosen[m] for m in sorted(chosen)]


# --------------------------------------------------------------------------------------------
# The depyf 0.20 baseline


def baseline_python(interp: Interpreter, log) -> Tuple[Optional[str], str]:
    """The baseline venv's python for this interpreter (created on first use), or a reason."""
    venv = BASELINE_ROOT / interp.minor
    python = venv / "bin" / "python"
    marker = venv / ".installed"
    if marker.exists() and python.exists():
        return str(python), ""
    log(f"[{interp.minor}] creating the depyf 0.20 baseline environment in {venv}")
    if venv.exists():
        shutil.rmtree(str(venv))
    steps = [[interp.path, "-m", "venv", str(venv)]]
    wheel = debian_pythons.pip_wheel_for(Path(interp.path))
    if wheel is not None:  # (Debian's interpreters have no ensurepip: pip from its saved wheel)
        steps = [[interp.path, "-m", "venv", "--without-pip", str(venv)],
                 [str(python), str(wheel) + "/pip", "install", "--quiet", str(wheel)]]
    steps.append([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                  BASELINE_REQUIREMENT])
    for step in steps:
        try:
            out = subprocess.run(step, capture_output=True, text=True, timeout=900)
        except (OSError, subprocess.SubprocessError) as exc:
            return None, f"{' '.join(step[:3])}: {exc}"
        if out.returncode != 0:
            lines = (out.stderr or out.stdout).strip().splitlines()
            return None, f"{' '.join(step[1:4])} failed: {lines[-1] if lines else out.returncode}"
    marker.write_text(BASELINE_REQUIREMENT + "\n")
    return str(python), ""


# --------------------------------------------------------------------------------------------
# Running one (interpreter, decompiler) pair


@dataclass
class Outcome:
    """Everything measured for one interpreter and one decompiler."""

    interp: Interpreter
    decompiler: str
    unavailable: str = ""
    results: List[Dict[str, Any]] = field(default_factory=list)
    files: int = 0
    files_skipped: List[str] = field(default_factory=list)
    crashes: int = 0
    stopped: str = ""
    seconds: float = 0.0

    def count(self, *statuses: str) -> int:
        return sum(r["status"] in statuses for r in self.results)


class _Worker:
    """A worker subprocess with line-by-line reads under a deadline."""

    def __init__(self, argv: List[str], env: Dict[str, str]) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, cwd=str(REPO), text=True, bufsize=1)
        self._buffer = ""

    def send(self, request: Dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()

    def read(self, timeout: float) -> Optional[Dict[str, Any]]:
        """The next event, or None if the worker died or said nothing for ``timeout`` s."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while "\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 16).decode("utf-8", errors="replace")
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split("\n", 1)
        try:
            return json.loads(line)
        except ValueError:
            return {"event": "noise", "text": line}

    def stop(self) -> str:
        """End the worker; its last stderr line, for the report."""
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            _, err = self.proc.communicate(timeout=10)
        except (subprocess.SubprocessError, ValueError, OSError):
            err = ""
        lines = (err or "").strip().splitlines()
        return lines[-1][:200] if lines else f"exit code {self.proc.returncode}"


def run_pair(interp: Interpreter, decompiler: str, python: str, files: List[str], args, log,
             worker_script: Path = WORKER, worker_flags: Iterable[str] = (),
             request_extra: Optional[Callable[[str], Dict[str, Any]]] = None) -> Outcome:
    """Every definition of ``files`` through a worker of ``python``, restarted past hangs and crashes.

    The gate (``tools/gate.py``) passes its own worker script, which speaks the same protocol,
    extra flags for it, and ``request_extra(file)`` for what each request adds (known digests).
    """
    outcome = Outcome(interp, decompiler)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")
    env.pop("PYTHONPATH", None)
    if decompiler == "ours":
        env["PYTHONPATH"] = str(REPO / "src")
    argv = [python, str(worker_script), "--verify", str(VERIFY), "--decompiler", decompiler,
            "--timeout", str(args.timeout)]
    if not args.no_memory:
        argv.append("--memory")
    argv += ["--repeat", str(args.repeat)] + list(worker_flags)
    started = time.monotonic()
    worker: Optional[_Worker] = None
    per_definition = args.timeout * 2 + 30  # decompile twice (memory pass) plus compiles
    queue = [(path, set()) for path in files]  # type: List[Tuple[str, set]]
    while queue:
        if time.monotonic() - started > args.time_limit:
            outcome.stopped = f"time limit ({args.time_limit:g} s) reached after {outcome.files} of {len(files)} files"
            break
        path, skip = queue.pop(0)
        if worker is None:
            worker = _Worker(argv, env)
        request: Dict[str, Any] = {"file": path, "skip": sorted(skip)}
        if request_extra is not None:
            request.update(request_extra(path))
        worker.send(request)
        current: Optional[Dict[str, Any]] = None
        counted = False
        while True:
            event = worker.read(per_definition if current else args.timeout + 120)
            if event is None:
                reason = worker.stop()
                worker = None
                if current is None and not counted:
                    # Died or hung before even listing the file's definitions.
                    if decompiler != "control" and not outcome.results and not outcome.files:
                        outcome.unavailable = f"worker failed: {reason}"
                        return outcome
                    outcome.files_skipped.append(f"{path}: worker failed ({reason})")
                    break
                index = current["index"] if current else -1
                outcome.crashes += 1
                outcome.results.append({
                    "file": path, "index": index, "qualname": current.get("qualname", "?") if current else "?",
                    "key": current.get("key") if current else None,
                    "lineno": current.get("lineno", 0) if current else 0, "status": "decompile_error",
                    "detail": f"worker hung or crashed: {reason}", "group": "worker hung or crashed",
                    "decompile_s": 0.0, "dis_s": 0.0,
                })
                queue.insert(0, (path, skip | {index} | done_indices(outcome, path)))
                break
            kind = event.get("event")
            if kind == "fatal":
                outcome.unavailable = event["reason"]
                worker.stop()
                return outcome
            if kind == "skip_file":
                outcome.files_skipped.append(f"{path}: {event['reason']}")
                break
            if kind == "file":
                if not counted and not skip:
                    outcome.files += 1
                counted = True
            elif kind == "start":
                current = event
            elif kind == "result":
                event["file"] = path
                outcome.results.append(event)
                current = None
            elif kind == "done":
                break
    if worker is not None:
        worker.stop()
    outcome.seconds = time.monotonic() - started
    log(f"[{interp.minor}] {LABELS[decompiler]}: {len(outcome.results)} definitions in {outcome.seconds:.0f} s")
    return outcome


def _baseline_cache_file(interp: Interpreter, files: List[str], args) -> Path:
    """Where a baseline outcome is kept: depyf 0.20 never changes, so its numbers only depend on
    the interpreter, the corpus, the oracle and the options."""
    digest = hashlib.sha256()
    # (the worker's source too: it decides how the timings are taken)
    oracle = b"".join(p.read_bytes() for p in sorted(VERIFY.glob("*.py"))) + WORKER.read_bytes()
    for part in (oracle, interp.full.encode(), "\n".join(files).encode(),
                 f"{args.timeout} {args.repeat} {args.no_memory}".encode()):
        digest.update(part)
    return BASELINE_ROOT / "results" / f"{interp.full}-{digest.hexdigest()[:16]}.json"


def load_cached(path: Path, interp: Interpreter) -> Optional[Outcome]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    outcome = Outcome(interp, "baseline")
    for name in ("unavailable", "results", "files", "files_skipped", "crashes", "stopped", "seconds"):
        setattr(outcome, name, data[name])
    return outcome


def save_cached(path: Path, outcome: Outcome) -> None:
    if outcome.stopped or outcome.unavailable:
        return  # incomplete: measure again next time
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {name: getattr(outcome, name) for name in
            ("unavailable", "results", "files", "files_skipped", "crashes", "stopped", "seconds")}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data))
    tmp.replace(path)


_OUTCOME_FIELDS = ("unavailable", "results", "files", "files_skipped", "crashes", "stopped", "seconds")


def _outcome_json(outcome: Outcome) -> Dict[str, Any]:
    data = {name: getattr(outcome, name) for name in _OUTCOME_FIELDS}
    data.update(python=outcome.interp.full, path=outcome.interp.path, decompiler=outcome.decompiler)
    return data


def outcomes_from_json(paths: List[str]) -> List[Outcome]:
    """Outcomes saved with --json, to report again (or combine runs) without measuring again."""
    outcomes = []
    for path in paths:
        for data in json.loads(Path(path).read_text()):
            version = tuple(int(p) for p in data["python"].split("."))
            outcome = Outcome(Interpreter(data.get("path", ""), version), data["decompiler"])  # type: ignore[arg-type]
            for name in _OUTCOME_FIELDS:
                if name in data:
                    setattr(outcome, name, data[name])
            outcomes.append(outcome)
    order = {name: i for i, name in enumerate(LABELS)}
    return sorted(outcomes, key=lambda o: (o.interp.version, order.get(o.decompiler, 9)))


def done_indices(outcome: Outcome, path: str) -> set:
    return {r["index"] for r in outcome.results if r["file"] == path}


def list_corpus(python: str, args) -> List[str]:
    argv = [python, str(WORKER), "--verify", str(VERIFY), "--list", "stdlib-all" if args.stdlib_all else "default"]
    if args.modules:
        argv += ["--modules", args.modules]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=str(REPO))
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "cannot list corpus")
    return json.loads(out.stdout)


# --------------------------------------------------------------------------------------------
# Reports


def _percent(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.1f}%" if whole else "-"


def _ratio(outcome: Outcome, numerator: str, denominator: str) -> str:
    top = sum(r.get(numerator, 0.0) or 0.0 for r in outcome.results)
    bottom = sum(r.get(denominator, 0.0) or 0.0 for r in outcome.results)
    if not bottom or not top:
        return "-"
    value = top / bottom
    return f"{value:.2f}x" if value < 1 else f"{value:.1f}x" if value < 100 else f"{value:.0f}x"


def table(outcomes: List[Outcome]) -> str:
    rows = [
        "| Python | decompiler | functions | decompiled | compiles | bytecode-equal | time vs `dis` | peak memory vs `dis` |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for o in outcomes:
        if o.unavailable:
            rows.append(f"| {o.interp.full} | {LABELS[o.decompiler]} | unavailable: {o.unavailable.replace('|', '/')} "
                        "| | | | | |")
            continue
        n = len(o.results)
        rows.append(
            f"| {o.interp.full} | {LABELS[o.decompiler]} | {n}"
            f" | {_percent(n - o.count('decompile_error'), n)}"
            f" | {_percent(o.count('differs', 'equal'), n)}"
            f" | {_percent(o.count('equal'), n)}"
            f" | {_ratio(o, 'decompile_s', 'dis_s')}"
            f" | {_ratio(o, 'mem_decompile', 'mem_dis')} |"
        )
    return "\n".join(rows)


def notes(outcomes: List[Outcome]) -> List[str]:
    lines = []
    for o in outcomes:
        where = f"{o.interp.full} {LABELS[o.decompiler]}"
        if o.stopped:
            lines.append(f"- {where}: stopped: {o.stopped}")
        if o.crashes:
            lines.append(f"- {where}: {o.crashes} definition(s) hung or crashed the worker")
        if o.files_skipped:
            lines.append(f"- {where}: {len(o.files_skipped)} file(s) skipped (do not compile), e.g. {o.files_skipped[0]}")
    return lines


def failure_summary(outcomes: List[Outcome], top: int) -> str:
    """The most common first differences (and errors), per interpreter and decompiler.

    depyf 0.20's failures are left out when this decompiler was measured too: the summary is a
    to-do list for this one, the baseline only a yardstick in the table.
    """
    out: List[str] = []
    ours_measured = any(o.decompiler == "ours" for o in outcomes)
    for o in outcomes:
        if o.unavailable or not o.results or (ours_measured and o.decompiler == "baseline"):
            continue
        failing = [r for r in o.results if r["status"] != "equal"]
        out.append(f"### Python {o.interp.full}, {LABELS[o.decompiler]}: {len(failing)} of {len(o.results)} not equal")
        out.append("")
        for status in ("differs", "no_compile", "decompile_error"):
            these = [r for r in failing if r["status"] == status]
            if not these:
                continue
            groups = collections.Counter(r["group"] for r in these)
            out.append(f"**{status}** ({len(these)})")
            out.append("")
            out.append("| count | first difference / error | example |")
            out.append("|---:|---|---|")
            for group, count in groups.most_common(top):
                example = next(r for r in these if r["group"] == group)
                where = f"{Path(example['file']).name}:{example['lineno']}"
                if not example["detail"].startswith(example["qualname"]):
                    where += f" {example['qualname']}"
                detail = example["detail"].replace("|", "/").replace("\n", " ")[:220]
                out.append(f"| {count} | `{group.replace('|', '/')}` | {where}: {detail} |")
            out.append("")
    return "\n".join(out)


def corpus_note(args) -> str:
    corpus = "every `Lib/**/*.py` (test directories excluded)" if args.stdlib_all else (
        "`" + (args.modules or "textwrap, colorsys, heapq, bisect, json.decoder, shlex, fractions, "
               "statistics, argparse, dataclasses") + "`")
    return (f"Corpus: {corpus} of each interpreter; every function, method and lambda defined at module "
            f"level or in a class body. Measured {datetime.date.today().isoformat()} with "
            f"`python benchmarks/run_all.py{' --stdlib-all' if args.stdlib_all else ''}`.")


def write_readme(block: str) -> str:
    if not README.exists():
        return f"note: {README.name} does not exist; nothing written"
    text = README.read_text(encoding="utf-8")
    if README_START not in text or README_END not in text:
        return f"note: {README.name} has no {README_START} ... {README_END} markers; nothing written"
    head, rest = text.split(README_START, 1)
    _, tail = rest.split(README_END, 1)
    README.write_text(f"{head}{README_START}\n{block}\n{README_END}{tail}", encoding="utf-8")
    return f"{README.name}: benchmark table updated"


# --------------------------------------------------------------------------------------------


# A second corpus for checking that the figures hold on code the decompiler was not tuned on.
UNSEEN_MODULES = ("os", "functools", "inspect", "typing", "enum", "ast", "difflib", "logging", "tempfile",
                  "shutil", "subprocess", "csv", "calendar", "pprint", "configparser", "gettext", "optparse",
                  "tokenize", "copy", "pickle")

# Further named corpora (`--set NAME`). A module a version lacks is left out on that version.
MODULE_SETS = {
    "unseen": UNSEEN_MODULES,
    # About 5,000 definitions per version from 90 modules: the broad sweep that decompiler work
    # is checked against.
    "sweep": (
        "email.message", "email.utils", "email._header_value_parser", "email.feedparser", "http.client",
        "http.cookiejar", "urllib.parse", "urllib.request", "zipfile", "tarfile", "collections",
        "_pydatetime", "datetime", "_pydecimal", "asyncio.base_events", "asyncio.tasks", "unittest.case",
        "xml.dom.minidom", "xml.etree.ElementTree", "pathlib", "string", "locale", "random", "threading",
        "queue", "traceback", "warnings", "contextlib", "codecs", "base64", "uuid", "ipaddress", "glob",
        "fnmatch", "mailbox", "smtplib", "ftplib", "imaplib", "plistlib", "pdb", "cmd", "pydoc", "trace",
        "timeit", "pstats", "sre_parse", "sre_compile", "re._parser", "re._compiler", "gzip", "zipimport",
        "importlib._bootstrap_external", "importlib._bootstrap", "multiprocessing.connection",
        "concurrent.futures._base", "selectors", "socket", "ssl", "platform", "sysconfig", "getopt",
        "quopri", "html.parser", "xmlrpc.client", "wsgiref.handlers", "sqlite3.dump", "turtle", "dis",
        "pickletools", "lzma", "bz2", "netrc", "nntplib", "imghdr", "sndhdr", "telnetlib", "cgi",
        "mimetypes", "webbrowser", "zipapp", "runpy", "pkgutil", "modulefinder", "symtable", "code",
        "codeop", "numbers", "operator", "secrets", "hmac", "hashlib"),
    # Modules of none of the sets above; like the sweep, a set that failures are looked for in.
    "fresh": (
        "json.encoder", "http.server", "http.cookies", "logging.handlers", "logging.config",
        "asyncio.streams", "asyncio.events", "asyncio.selector_events", "asyncio.locks",
        "concurrent.futures.process", "concurrent.futures.thread", "multiprocessing.pool",
        "multiprocessing.managers", "xml.sax.saxutils", "xml.sax.expatreader", "xml.etree.ElementPath",
        "email.generator", "email.header", "email._policybase", "urllib.robotparser", "shelve",
        "filecmp", "fileinput", "linecache", "reprlib", "sched", "weakref", "_weakrefset",
        "unittest.mock", "unittest.loader", "unittest.result", "doctest", "bdb", "profile", "pyclbr",
        "tabnanny", "graphlib", "socketserver", "getpass", "poplib", "mailcap", "wave", "chunk",
        "aifc", "sunau", "xdrlib", "uu", "stringprep", "_strptime", "_collections_abc", "_compat_pickle", "compileall", "py_compile", "pty", "tty",
        "ntpath", "posixpath", "genericpath", "opcode", "keyword", "token", "types", "abc", "io",
        "_pyio", "nturl2path", "importlib.metadata", "importlib.util", "asyncio.subprocess",
        "asyncio.queues", "asyncio.unix_events", "venv", "zoneinfo._zoneinfo", "zoneinfo._tzpath",
        "tomllib._parser", "pydoc_data.topics", "ensurepip"),
    # Held out: application code (IDLE, tkinter, lib2to3) and library modules of none of the sets
    # above. Measured only to report, never used to find failures.
    "holdout": (
        "xmlrpc.server", "xml.dom.expatbuilder", "asyncio.proactor_events", "asyncio.sslproto", "site",
        "_osx_support", "email.headerregistry", "multiprocessing.shared_memory", "ctypes", "tracemalloc",
        "email._parseaddr", "email.charset", "xml.sax.handler", "wsgiref.validate", "_markupbase",
        "asyncio.futures", "multiprocessing.util", "ctypes.util", "unittest.suite", "xml.sax.xmlreader",
        "multiprocessing.queues", "cgitb", "xml.dom.xmlbuilder", "multiprocessing.synchronize",
        "multiprocessing.process", "multiprocessing.context", "multiprocessing.heap", "unittest.main",
        "xml.dom.pulldom", "dbm.dumb", "email.contentmanager", "email.policy", "unittest.runner",
        "multiprocessing.resource_tracker", "email.quoprimime", "encodings.idna", "encodings.punycode",
        "multiprocessing.spawn", "multiprocessing.reduction", "pipes", "asyncio.base_subprocess",
        "email._encoded_words", "rlcompleter", "curses.textpad", "copyreg", "_threading_local",
        "asyncio.runners", "xml.etree.ElementInclude", "wsgiref.headers", "cProfile", "_py_abc",
        "asyncio.staggered", "_compression", "wsgiref.util", "wsgiref.simple_server",
        "tkinter", "tkinter.ttk", "tkinter.filedialog", "tkinter.simpledialog", "tkinter.dnd", "tkinter.font",
        "idlelib.editor", "idlelib.pyshell", "idlelib.configdialog", "idlelib.config", "idlelib.run",
        "idlelib.debugger", "idlelib.autocomplete", "idlelib.hyperparser", "idlelib.pyparse", "idlelib.format",
        "idlelib.search", "idlelib.searchengine", "idlelib.tree", "idlelib.browser", "idlelib.calltip",
        "idlelib.codecontext", "idlelib.colorizer", "idlelib.iomenu", "idlelib.rpc", "idlelib.sidebar",
        "idlelib.undo", "idlelib.multicall", "lib2to3.refactor", "lib2to3.pytree", "lib2to3.fixer_util",
        "lib2to3.pgen2.pgen", "lib2to3.pgen2.tokenize", "lib2to3.pgen2.driver", "lib2to3.pgen2.conv",
        "lib2to3.main", "lib2to3.btm_matcher"),
    # Third-party code: modules of pip and its vendored libraries, installed with each interpreter.
    "pip": (
        "pip._vendor.rich.console", "pip._vendor.rich.text", "pip._vendor.rich.table",
        "pip._vendor.rich.progress", "pip._vendor.requests.models", "pip._vendor.requests.sessions",
        "pip._vendor.requests.adapters", "pip._vendor.urllib3.connectionpool", "pip._vendor.urllib3.response",
        "pip._vendor.urllib3.util.retry", "pip._vendor.pygments.lexer", "pip._vendor.pygments.formatters.html",
        "pip._vendor.pyparsing.core", "pip._vendor.packaging.version", "pip._vendor.packaging.specifiers",
        "pip._vendor.distlib.util", "pip._vendor.distlib.database", "pip._vendor.resolvelib.resolvers",
        "pip._vendor.tenacity", "pip._vendor.msgpack.fallback", "pip._vendor.chardet.universaldetector",
        "pip._vendor.idna.core", "pip._vendor.six", "pip._vendor.typing_extensions", "pip._vendor.tomli._parser",
        "pip._internal.req.req_install", "pip._internal.index.package_finder", "pip._internal.operations.prepare",
        "pip._internal.resolution.resolvelib.factory", "pip._internal.utils.misc",
        "pip._internal.cli.base_command", "pip._internal.network.session", "pip._vendor.pkg_resources"),
    # torch's own Python code (Dynamo and FX), for interpreters that have torch installed
    # (`--python` a torch environment's interpreter), measured first before any work on its failures.
    "torch": (
        "torch._dynamo._trace_wrapped_higher_order_op", "torch._dynamo.aot_compile",
        "torch._dynamo.aot_compile_types", "torch._dynamo.bytecode_analysis", "torch._dynamo.bytecode_debugger",
        "torch._dynamo.bytecode_transformation", "torch._dynamo.cache_size", "torch._dynamo.callback",
        "torch._dynamo.code_context", "torch._dynamo.codegen", "torch._dynamo.compiled_autograd",
        "torch._dynamo.comprehension_graph_break", "torch._dynamo.comptime", "torch._dynamo.config",
        "torch._dynamo.convert_frame", "torch._dynamo.create_parameter_op", "torch._dynamo.current_scope_id",
        "torch._dynamo.dce_extra_outputs", "torch._dynamo.debug_utils", "torch._dynamo.decorators",
        "torch._dynamo.device_interface", "torch._dynamo.distributed", "torch._dynamo.dynamo_profiler",
        "torch._dynamo.eval_frame", "torch._dynamo.exc", "torch._dynamo.external_utils",
        "torch._dynamo.funcname_cache", "torch._dynamo.functional_export", "torch._dynamo.graph_break_hints",
        "torch._dynamo.graph_bytecode_inputs", "torch._dynamo.graph_deduplication",
        "torch._dynamo.graph_id_filter", "torch._dynamo.graph_region_tracker", "torch._dynamo.graph_utils",
        "torch._dynamo.guards", "torch._dynamo.hooks", "torch._dynamo.logging", "torch._dynamo.metrics_context",
        "torch._dynamo.mutation_guard", "torch._dynamo.output_graph", "torch._dynamo.package",
        "torch._dynamo.pgo", "torch._dynamo.precompile_context", "torch._dynamo.profiler",
        "torch._dynamo.replay_record", "torch._dynamo.resume_execution", "torch._dynamo.side_effects",
        "torch._dynamo.source", "torch._dynamo.symbolic_convert", "torch._dynamo.tensor_version_op",
        "torch._dynamo.test_case", "torch._dynamo.test_dont_skip_tracing_functions",
        "torch._dynamo.test_minifier_common", "torch._dynamo.testing", "torch._dynamo.trace_rules",
        "torch._dynamo.types", "torch._dynamo.utils", "torch.fx._compatibility", "torch.fx._graph_pickler",
        "torch.fx._lazy_graph_module", "torch.fx._pytree", "torch.fx._symbolic_trace", "torch.fx._utils",
        "torch.fx.annotate", "torch.fx.config", "torch.fx.graph", "torch.fx.graph_module",
        "torch.fx.immutable_collections", "torch.fx.interpreter", "torch.fx.node", "torch.fx.operator_schemas",
        "torch.fx.proxy", "torch.fx.subgraph_rewriter", "torch.fx.tensor_type", "torch.fx.traceback"),
}


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", action="append", default=[], help="interpreter to run (repeatable)")
    parser.add_argument("--versions", default="", help="only these minors, e.g. 3.8,3.13")
    parser.add_argument("--stdlib-all", action="store_true", help="every Lib/**/*.py, not the ten modules")
    parser.add_argument("--modules", default="", help="comma-separated module names instead of the ten")
    parser.add_argument("--unseen", action="store_true",
                        help="twenty other stdlib modules, never used to tune the decompiler: " + ", ".join(UNSEEN_MODULES))
    parser.add_argument("--set", choices=sorted(MODULE_SETS), metavar="NAME",
                        help="a named corpus: " + ", ".join(sorted(MODULE_SETS)) + " (see MODULE_SETS)")
    parser.add_argument("--failures", type=int, default=0, metavar="N", help="print the N most common failures")
    parser.add_argument("--write-failures", action="store_true", help=f"write the summary to {FAILURES_FILE.name}")
    parser.add_argument("--write-readme", action="store_true", help="replace the table in README.md")
    parser.add_argument("--no-baseline", action="store_true", help="skip depyf 0.20")
    parser.add_argument("--baseline-only", action="store_true", help="only depyf 0.20")
    parser.add_argument("--fresh-baseline", action="store_true", help="re-measure depyf 0.20 (cached otherwise)")
    parser.add_argument("--control", action="store_true", help="only the control: original source as output")
    parser.add_argument("--no-memory", action="store_true", help="skip the tracemalloc pass")
    parser.add_argument("--repeat", type=int, default=5, help="timing runs per definition, best kept (default 5)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per definition (default 30)")
    parser.add_argument("--time-limit", type=float, default=0.0,
                        help="seconds per interpreter and decompiler (default 3600, 14400 with --stdlib-all)")
    parser.add_argument("--jobs", type=int, default=1, help="interpreter runs in parallel")
    parser.add_argument("--json", metavar="PATH", help="also write every result as JSON")
    parser.add_argument("--from-json", nargs="+", metavar="PATH",
                        help="report results saved with --json (several runs combine) instead of measuring")
    args = parser.parse_args(argv)
    if args.unseen:
        args.set = args.set or "unseen"
    if args.set:
        if args.modules or args.stdlib_all:
            parser.error("--unseen and --set name their own modules; not with --modules or --stdlib-all")
        args.modules = ",".join(MODULE_SETS[args.set])
    if not args.time_limit:
        args.time_limit = 14400.0 if args.stdlib_all else 3600.0

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    if args.from_json:
        return report(outcomes_from_json(args.from_json), args, log)

    interpreters = find_interpreters(args.python)
    if args.versions:
        wanted = set(args.versions.split(","))
        interpreters = [i for i in interpreters if i.minor in wanted]
    if not interpreters:
        log("no CPython %d.%d-%d.%d interpreter found" % (SUPPORTED[0] + SUPPORTED[-1]))
        return 2
    log("interpreters: " + ", ".join(f"{i.full} ({i.path})" for i in interpreters))

    decompilers = ["control"] if args.control else (["baseline"] if args.baseline_only else ["ours", "baseline"])
    if args.no_baseline and "baseline" in decompilers and len(decompilers) > 1:
        decompilers.remove("baseline")

    def run_interpreter(interp: Interpreter) -> List[Outcome]:
        try:
            files = list_corpus(interp.path, args)
        except (RuntimeError, subprocess.SubprocessError, ValueError) as exc:
            return [Outcome(interp, d, unavailable=f"corpus: {exc}") for d in decompilers]
        outcomes = []
        for decompiler in decompilers:
            python = interp.path
            if decompiler == "baseline":
                cache = _baseline_cache_file(interp, files, args)
                cached = None if args.fresh_baseline else load_cached(cache, interp)
                if cached is not None:
                    log(f"[{interp.minor}] depyf 0.20: cached results ({cache})")
                    outcomes.append(cached)
                    continue
                found, reason = baseline_python(interp, log)
                if found is None:
                    outcomes.append(Outcome(interp, decompiler, unavailable=reason))
                    continue
                python = found
            outcome = run_pair(interp, decompiler, python, files, args, log)
            if decompiler == "baseline":
                save_cached(cache, outcome)
            outcomes.append(outcome)
        return outcomes

    if args.jobs > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(args.jobs) as pool:
            grouped = list(pool.map(run_interpreter, interpreters))
    else:
        grouped = [run_interpreter(i) for i in interpreters]
    outcomes = [o for group in grouped for o in group]
    return report(outcomes, args, log)


def report(outcomes: List[Outcome], args, log) -> int:
    """Print the table (and failures); write the README block, failure file and JSON if asked."""
    block = "\n".join([table(outcomes), "", corpus_note(args)] + ([""] + notes(outcomes) if notes(outcomes) else []))
    print(block)
    if args.failures or args.write_failures:
        summary = failure_summary(outcomes, args.failures or 15)
        if args.failures:
            print()
            print(summary)
        if args.write_failures:
            header = (f"# Latest round-trip failures\n\nMost common first differences, grouped by opname pair "
                      f"(original -> decompiled), and errors. Regenerate with "
                      f"`python benchmarks/run_all.py --failures {args.failures or 15} --write-failures`.\n\n")
            FAILURES_FILE.write_text(header + block + "\n\n" + summary + "\n", encoding="utf-8")
            log(f"wrote {FAILURES_FILE.relative_to(REPO)}")
    if args.write_readme:
        log(write_readme(block))
    if args.json:
        Path(args.json).write_text(json.dumps([_outcome_json(o) for o in outcomes], indent=1))
    if args.control:
        # The control must be perfect; anything else means the oracle, not a decompiler, is wrong.
        return 0 if all(o.count("equal") == len(o.results) and not o.unavailable for o in outcomes) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
