#!/usr/bin/env python3
"""Hostile-input fuzzers: mutated code objects through `depyf.decompile`, damaged .pyc files
through `depyf decompile`.

    python tools/fuzz_hostile.py [--kind code|pyc|both] [--count N] [--seed S] [--show K] [--json]

Runs under whichever interpreter starts it (use each of 3.8-3.13 in turn) with the package from
`src/`. Cases run in a child process, one after the other; the parent reads one result line per
case, so an interpreter crash or a hang (no answer within `--case-seconds`) costs one case and a
restart, never the run. The child runs under a memory limit (`--memory-mb`).

code: real code objects (the functions of a few stdlib modules) with one to three random changes
    via `code.replace`: bytes, opcodes and arguments of `co_code`, its length (a last instruction
    without its inline caches included), constants, names (not identifiers, keywords, duplicates,
    line breaks, NUL), counts, flags, exception and line tables, nested code. Each object that
    CPython accepts is decompiled with on_error="raise" and "comment".
pyc: .pyc files (a module with a side effect, and a stdlib module) with random bytes, truncation,
    bit flips, copied chunks, and crafted marshal data (huge declared sizes, shared nested
    references, deep nesting), through the command line in both error modes.

Counted failures (each must be 0): `crash` (the child died), `hang`, `escaped` (an exception other
than DecompilationError from `decompile`, or exit code 3 / a traceback from the command line),
`internal` (a DecompilationError that wraps an internal exception: a bug turned into an error at
the API boundary), `no_compile` (comment-mode text, or exit-0 output, that does not compile),
`injected` (output where a name's line break became code), `ran` (the input's code ran),
`stderr` (an error that is not one line). Exit status 1 when any is nonzero.
"""
import argparse
import ast
import importlib.util
import json
import marshal
import os
import random
import select
import subprocess
import sys
import time
import types
from typing import Any, Dict, Iterator, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "src"))

FAILURES = ("crash", "hang", "escaped", "internal", "no_compile", "injected", "ran", "stderr")
# A marker that must only ever appear inside string literals or comments of the output.
INJECTED = "depyf_injected"
HOSTILE_NAMES = ["9abc", "if", "lambda", "None", "", " ", "a.b", "a-b", "x\rimport " + INJECTED,
                 "x\nimport " + INJECTED, "x\r\nimport " + INJECTED, "a\0b", "print(1)#", "\u2028",
                 "x\x0cimport " + INJECTED, "é", "__class__", ".0", "x"]
HOSTILE_CONSTS: List[Any] = [None, 0, -1, 2 ** 70, 1.5, 1j, "s", "x\rimport " + INJECTED, "9abc", "if",
                             b"b", (), (1, 2), ("a", "b"), ("x\nimport " + INJECTED,), ("a", "a"),
                             frozenset({1}), ..., ((1,), (2,)), "<lambda>", "<genexpr>", True]
CORPUS_MODULES = ("textwrap", "fnmatch", "colorsys", "bisect", "heapq", "shlex", "json.decoder", "string")
MAX_CODE_BYTES = 600  # (small functions: many cases per second)
SENTINEL_ENV = "DEPYF_FUZZ_SENTINEL"


# --- inputs -------------------------------------------------------------------------------------

def _corpus() -> List[types.CodeType]:
    """Code objects of the corpus modules' functions, compiled here from their source."""
    found: List[types.CodeType] = []

    def walk(code: types.CodeType) -> None:
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                if len(const.co_code) <= MAX_CODE_BYTES and "os" not in const.co_names:
                    found.append(const)
                walk(const)

    for name in CORPUS_MODULES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        with open(spec.origin, "rb") as f:
            walk(compile(f.read(), spec.origin, "exec", dont_inherit=True))
    return found


def _pick(rng: random.Random, options: List[Any]) -> Any:
    return options[rng.randrange(len(options))]


def _replace_item(rng: random.Random, items: tuple, choices: List[Any]) -> tuple:
    if not items:
        return (_pick(rng, choices),)
    k = rng.randrange(len(items))
    return items[:k] + (_pick(rng, choices),) + items[k + 1:]


def _flip(rng: random.Random, data: bytes) -> bytes:
    if not data:
        return bytes([rng.randrange(256)])
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


class CPythonUnsafe(Exception):
    """Bytecode that CPython itself corrupts memory on while building the code object."""


def _built_unsafely(raw: bytes) -> bool:
    """Would building a code object of `raw` make CPython write past its buffer (3.12+ prepare
    each instruction's caches on creation) or read monitoring data that does not exist? Such
    objects cannot be given to depyf: the damage is done before depyf sees them."""
    from depyf.decompiler.code_check import _layout, _overrun
    from depyf.decompiler.versions import host, host_is

    if not host_is((3, 12)) or len(raw) % 2:
        return False
    layout = _layout(host())
    ops = raw[::2]
    opmap = host().tables["opmap"]
    external = {opmap.get(name, -1) for name in ("INSTRUMENTED_LINE", "INSTRUMENTED_INSTRUCTION", "ENTER_EXECUTOR")}
    return _overrun(ops, layout.adaptive, layout.longest) is not None or any(op in external for op in ops)


def _replace(code: types.CodeType, **changes: Any) -> types.CodeType:
    if "co_code" in changes and _built_unsafely(changes["co_code"]):
        raise CPythonUnsafe()
    return code.replace(**changes)


def mutate_code(code: types.CodeType, rng: random.Random, corpus: List[types.CodeType],
                depth: int = 0) -> types.CodeType:
    """`code` with one random change, made through `code.replace` (which CPython may refuse)."""
    import dis

    raw = code.co_code
    kind = rng.randrange(14)
    if kind == 0:
        return _replace(code, co_code=_flip(rng, raw))
    if kind in (1, 2):  # an opcode, or an argument
        out = bytearray(raw)
        pos = 2 * rng.randrange(max(1, len(raw) // 2)) + (kind - 1)
        if pos < len(out):
            out[pos] = _pick(rng, sorted(dis.opmap.values())) if kind == 1 else rng.randrange(256)
        return _replace(code, co_code=bytes(out))
    if kind == 3:  # cut, or a last instruction without its caches
        cut = 2 * rng.randrange(1, max(2, len(raw) // 2))
        tail = bytes([_pick(rng, sorted(dis.opmap.values())), rng.randrange(256)]) if rng.random() < 0.5 else b""
        return _replace(code, co_code=raw[:cut] + tail)
    if kind == 4:
        return code.replace(co_consts=_replace_item(rng, code.co_consts, HOSTILE_CONSTS + [_pick(rng, corpus)]))
    if kind == 5:
        return code.replace(co_names=_replace_item(rng, code.co_names, HOSTILE_NAMES))
    if kind == 6 and code.co_varnames:
        return code.replace(co_varnames=_replace_item(rng, code.co_varnames, HOSTILE_NAMES + list(code.co_varnames)))
    if kind == 7:
        changes: Dict[str, Any] = {"co_name": _pick(rng, HOSTILE_NAMES + ["<lambda>", "<genexpr>", "<listcomp>"])}
        if hasattr(code, "co_qualname"):
            changes["co_qualname"] = changes["co_name"]
        return code.replace(**changes)
    if kind == 8 and hasattr(code, "co_exceptiontable"):
        return code.replace(co_exceptiontable=_flip(rng, code.co_exceptiontable))
    if kind == 9:
        field = "co_linetable" if hasattr(code, "co_linetable") else "co_lnotab"
        return code.replace(**{field: _flip(rng, getattr(code, field))})
    if kind == 10:
        return code.replace(co_flags=code.co_flags ^ (1 << rng.randrange(10)))
    if kind == 11:
        field = _pick(rng, ["co_argcount", "co_kwonlyargcount", "co_posonlyargcount"])
        return code.replace(**{field: rng.randrange(0, code.co_nlocals + 1)})
    if kind == 12 and depth < 2:  # a nested code object's change
        nested = [k for k, c in enumerate(code.co_consts) if isinstance(c, types.CodeType)]
        if nested:
            k = _pick(rng, nested)
            inner = mutate_code(code.co_consts[k], rng, corpus, depth + 1)
            return code.replace(co_consts=code.co_consts[:k] + (inner,) + code.co_consts[k + 1:])
    if kind == 13 and code.co_cellvars + code.co_freevars:
        field = "co_cellvars" if code.co_cellvars else "co_freevars"
        return code.replace(**{field: _replace_item(rng, getattr(code, field), HOSTILE_NAMES)})
    return _replace(code, co_code=raw[:-2] if len(raw) > 2 else raw)  # (the last unit: its caches, from 3.11)


SAMPLE_MODULE = '''
import os as _os
_os.environ.get("x")
open(__import__("os").environ["%s"], "w").write("module ran")

def f(a, b=2, *args, **kw):
    """doc"""
    total = 0
    for i in range(a):
        if i %% b:
            total += i
        else:
            try:
                total -= len(args)
            except TypeError:
                pass
    return [total * x for x in args if x], {k: v for k, v in kw.items()}, lambda y: y + a

class C:
    x: int = 1
    def m(self, y):
        return f"{self.x!r:>{y}}" + str(y)
''' % SENTINEL_ENV


def _pyc(code: types.CodeType) -> bytes:
    return importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps(code)


def _crafted(rng: random.Random) -> bytes:
    """marshal data no compiler writes: declared sizes past the data, refs, deep or shared nesting."""
    header = importlib.util.MAGIC_NUMBER + b"\0" * 12
    kind = rng.randrange(6)
    if kind == 0:  # a tuple declaring 2**31-1 items
        return header + b"(" + (2 ** 31 - 1).to_bytes(4, "little") + b"N" * rng.randrange(4)
    if kind == 1:  # a string declaring more bytes than there are
        return header + b"s" + rng.randrange(2 ** 20, 2 ** 31).to_bytes(4, "little") + b"x" * 8
    if kind == 2:  # tuples holding the one before twice, by reference: exponential once expanded
        levels = rng.randrange(20, 60)
        items = b"\xa9\x02NN"  # a flagged small tuple (None, None): reference 0
        for level in range(1, levels):
            ref = b"r" + (level - 1).to_bytes(4, "little")
            items += b"\xa9\x02" + ref + ref
        return header + b")" + bytes([levels]) + items
    if kind == 3:  # deep nesting
        depth = rng.randrange(1000, 100000)
        return header + b")\x01" * depth + b"N"
    if kind == 4:  # a reference to nothing yet, or out of range
        return header + b"r" + rng.randrange(2 ** 32).to_bytes(4, "little")
    # a long whose digit count is huge
    return header + b"l" + rng.randrange(2 ** 20, 2 ** 31).to_bytes(4, "little") + b"\x01\x00" * 4


def mutate_pyc(data: bytes, rng: random.Random) -> bytes:
    kind = rng.randrange(6)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 200)))
    if kind == 1:
        return data[:rng.randrange(len(data))]
    if kind == 2:  # bit flips after the header
        out = bytearray(data)
        for _ in range(rng.randint(1, 5)):
            pos = rng.randrange(16, len(out))
            out[pos] ^= 1 << rng.randrange(8)
        return bytes(out)
    if kind == 3:  # a byte replaced
        out = bytearray(data)
        out[rng.randrange(16, len(out))] = rng.randrange(256)
        return bytes(out)
    if kind == 4:  # a chunk copied elsewhere
        a, b = sorted(rng.randrange(16, len(data)) for _ in range(2))
        at = rng.randrange(16, len(data))
        return data[:at] + data[a:b] + data[at:]
    return _crafted(rng)


# --- the child: runs cases, one result line each ---------------------------------------------

def _injected(text: str) -> bool:
    """Does the marker appear in `text` as code (not in a string literal or a comment)?"""
    if INJECTED not in text:
        return False
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False  # (a text that does not compile is counted as that)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and INJECTED in node.id:
            return True
        if isinstance(node, ast.alias) and INJECTED in node.name:
            return True
        if isinstance(node, ast.Attribute) and INJECTED in node.attr:
            return True
    return False


def _compile_problem(text: str) -> str:
    try:
        compile(text, "<decompiled>", "exec", dont_inherit=True)
        return ""
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as exc:
        return f"{type(exc).__name__}: {exc}"


def _decompile_outcome(target: Any, on_error: str) -> Tuple[str, str]:
    import depyf

    try:
        text = depyf.decompile(target, on_error=on_error)
    except depyf.DecompilationError as exc:
        if getattr(exc, "internal", False):
            return "internal", str(exc)[:300]
        if on_error == "comment":
            return "escaped", "comment mode raised: " + str(exc)[:300]
        return "error", ""
    except BaseException as exc:  # (KeyboardInterrupt included: the parent never sends one)
        import traceback

        where = traceback.extract_tb(exc.__traceback__)[-1]
        return "escaped", f"{type(exc).__name__}: {str(exc)[:200]} at {os.path.basename(where.filename)}:{where.lineno}"
    problem = _compile_problem(text)
    if problem:
        return "no_compile", problem + "\n" + text[:400]
    if _injected(text):
        return "injected", text[:400]
    return "text", ""


def _unsafe_to_read(code: types.CodeType) -> bool:
    """Would reading `co_code` of `code` (or of a code object in it) crash CPython (3.11+)?"""
    from depyf.decompiler.code_check import check_code
    from depyf.decompiler.errors import DecompilationError
    from depyf.decompiler.versions import host

    try:
        check_code(code, host())
    except DecompilationError:
        return True
    return any(_unsafe_to_read(c) for c in code.co_consts if isinstance(c, types.CodeType))


def _code_case(rng: random.Random, corpus: List[types.CodeType]) -> Dict[str, Any]:
    code = _pick(rng, corpus)
    try:
        for _ in range(rng.randint(1, 3)):
            code = mutate_code(code, rng, corpus)
            if _unsafe_to_read(code):
                break  # (reading it again for the next change would crash CPython itself)
    except (ValueError, TypeError, SystemError, OverflowError, MemoryError):
        return {"outcomes": ["rejected"]}  # CPython refused the object: nothing to decompile
    except CPythonUnsafe:
        return {"outcomes": ["cpython_unsafe"]}  # (CPython would corrupt its own memory building it)
    print("built", flush=True)
    outcomes, details = [], []
    for mode in ("raise", "comment"):
        outcome, detail = _decompile_outcome(code, mode)
        outcomes.append(outcome)
        details.append(detail)
    return {"outcomes": outcomes, "detail": next((d for d in details if d), "")}


def _pyc_case(rng: random.Random, bases: List[bytes], workdir: str) -> Dict[str, Any]:
    import contextlib
    import io

    from depyf import cli

    data = mutate_pyc(_pick(rng, bases), rng)
    path = os.path.join(workdir, "case.pyc")
    with open(path, "wb") as f:
        f.write(data)
    outcomes, details = [], []
    for mode in ("raise", "comment"):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = cli.main(["decompile", path, "--on-error", mode])
            except BaseException as exc:
                rc = -1
                err.write(f"{type(exc).__name__}: {exc}\n")
        text, message = out.getvalue(), err.getvalue()
        if rc in (-1, 3) or "Traceback" in message:
            outcomes.append("escaped")
            details.append(f"exit {rc}: {message[-300:]}")
        elif rc != 0 and len(message.strip().splitlines()) != 1:
            outcomes.append("stderr")
            details.append(f"exit {rc}: {message[-300:]!r}")
        elif rc == 0:
            problem = _compile_problem(text)
            if problem:
                outcomes.append("no_compile")
                details.append(problem + "\n" + text[:300])
            elif _injected(text):
                outcomes.append("injected")
                details.append(text[:300])
            else:
                outcomes.append("text")
                details.append("")
        else:
            outcomes.append("exit%d" % rc)
            details.append("")
    if os.path.exists(os.environ[SENTINEL_ENV]):
        outcomes.append("ran")
        details.append("the .pyc's module code ran")
        os.remove(os.environ[SENTINEL_ENV])
    return {"outcomes": outcomes, "detail": next((d for d in details if d), ""), "size": len(data)}


def child(kind: str, seed: int, start: int, count: int, memory_mb: int) -> None:
    try:
        import resource

        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass
    import tempfile

    corpus = _corpus() if kind == "code" else []
    workdir = tempfile.mkdtemp(prefix="depyf-fuzz-")
    os.environ[SENTINEL_ENV] = os.path.join(workdir, "ran")
    bases: List[bytes] = []
    if kind == "pyc":
        bases.append(_pyc(compile(SAMPLE_MODULE, "sample.py", "exec", dont_inherit=True)))
        spec = importlib.util.find_spec("textwrap")
        with open(spec.origin, "rb") as f:  # type: ignore[union-attr,arg-type]
            bases.append(_pyc(compile(f.read(), spec.origin, "exec", dont_inherit=True)))  # type: ignore[arg-type]
    for case in range(start, start + count):
        rng = random.Random(f"{seed}:{kind}:{case}")
        print(json.dumps({"start": case}), flush=True)
        started = time.perf_counter()
        result = _code_case(rng, corpus) if kind == "code" else _pyc_case(rng, bases, workdir)
        result.update(case=case, seconds=round(time.perf_counter() - started, 3))
        print(json.dumps(result), flush=True)


# --- the parent: restarts the child after a crash or a hang -----------------------------------

def _lines(proc: "subprocess.Popen[str]", seconds: float) -> Iterator[Optional[str]]:
    """The child's lines; None where none came within `seconds`."""
    assert proc.stdout is not None
    buffer = ""
    while True:
        ready, _, _ = select.select([proc.stdout], [], [], seconds)
        if not ready:
            yield None
            return
        chunk = os.read(proc.stdout.fileno(), 65536).decode("utf-8", "replace")
        if not chunk:
            return
        buffer += chunk
        while "\n" in buffer:
            line, buffer = buffer.split("\n", 1)
            yield line


def run(kind: str, seed: int, count: int, case_seconds: float, memory_mb: int) -> Dict[str, Any]:
    counts: Dict[str, int] = {}
    examples: Dict[str, List[str]] = {}
    seconds: List[float] = []
    next_case = 0

    def note(outcome: str, case: int, detail: str) -> None:
        counts[outcome] = counts.get(outcome, 0) + 1
        if outcome in FAILURES:
            examples.setdefault(outcome, []).append(f"case {case}: {detail}")

    while next_case < count:
        proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", kind, str(seed),
                                 str(next_case), str(count - next_case), str(memory_mb)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        current: Optional[int] = None
        built = False
        for line in _lines(proc, case_seconds):
            if line is None:
                proc.kill()
                note("hang", current if current is not None else next_case, "no answer")
                next_case = (current if current is not None else next_case) + 1
                current = None
                break
            if line == "built":
                built = True
                continue
            if not line.startswith("{"):
                continue
            record = json.loads(line)
            if "start" in record:
                current, built = record["start"], False
                continue
            for outcome in record["outcomes"]:
                note(outcome, record["case"], record.get("detail", ""))
            seconds.append(record["seconds"])
            next_case = record["case"] + 1
            current = None
        proc.wait()
        if current is not None:  # the child died inside a case
            _, err = proc.communicate()
            if built or kind == "pyc":
                note("crash", current, f"status {proc.returncode}: {(err or '')[-300:]}")
            else:
                note("cpython_crash_building", current, "")
            next_case = current + 1
    seconds.sort()
    return {"kind": kind, "python": "%d.%d" % sys.version_info[:2], "cases": count, "seed": seed,
            "counts": dict(sorted(counts.items())), "failures": sum(counts.get(f, 0) for f in FAILURES),
            "slowest_seconds": seconds[-1] if seconds else 0.0,
            "median_seconds": seconds[len(seconds) // 2] if seconds else 0.0, "examples": examples}


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        kind, seed, start, count, memory = sys.argv[2:7]
        child(kind, int(seed), int(start), int(count), int(memory))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", choices=("code", "pyc", "both"), default="both")
    parser.add_argument("--count", type=int, default=1000, help="cases per kind")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--case-seconds", type=float, default=30.0, help="a case taking longer is a hang")
    parser.add_argument("--memory-mb", type=int, default=2048, help="the child's address-space limit")
    parser.add_argument("--show", type=int, default=3, help="examples shown per kind of failure")
    parser.add_argument("--json", action="store_true", help="one JSON object per kind instead of text")
    args = parser.parse_args()
    failed = 0
    for kind in (("code", "pyc") if args.kind == "both" else (args.kind,)):
        report = run(kind, args.seed, args.count, args.case_seconds, args.memory_mb)
        failed += report["failures"]
        if args.json:
            print(json.dumps(report))
            continue
        print(f"{kind} fuzzer on Python {report['python']}: {report['cases']} cases (seed {args.seed}), "
              f"median {report['median_seconds']:.3f} s, slowest {report['slowest_seconds']:.3f} s")
        for outcome, number in report["counts"].items():
            mark = "  <-- failure" if outcome in FAILURES else ""
            print(f"  {outcome:24} {number}{mark}")
        for outcome, found in report["examples"].items():
            for example in found[:args.show]:
                print(f"  [{outcome}] {example}")
        print(f"  failures: {report['failures']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
