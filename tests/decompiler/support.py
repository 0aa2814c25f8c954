"""Shared helpers of the decompiler tests: the corpus, time limits, running decompiled code."""
from __future__ import annotations

import ast
import contextlib
import functools
import importlib.util
import re
import signal
import sys
import textwrap
import time
import types
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
CORPUS_DIR = HERE / "corpus"
SRC_DIR = HERE.parent.parent / "src"
VERSION = sys.version_info[:2]
VERSION_KEY = "%d.%d" % VERSION

# A corpus file named like `match_py310.py` needs Python 3.10 to compile.
_MIN_VERSION_SUFFIX = re.compile(r"_py3(\d+)$")

if str(CORPUS_DIR) not in sys.path:
    # Appended, not prepended: corpus file names must never shadow the standard library.
    sys.path.append(str(CORPUS_DIR))

import _cases  # noqa: E402  (needs CORPUS_DIR on sys.path)


def min_version(path: Path) -> Tuple[int, int]:
    match = _MIN_VERSION_SUFFIX.search(path.stem)
    return (3, int(match.group(1))) if match else (3, 8)


def corpus_files() -> List[Path]:
    """The corpus modules this interpreter can compile, in a stable order (subfolders too)."""
    return [
        p
        for p in sorted(CORPUS_DIR.rglob("*.py"))
        if not p.name.startswith("_") and min_version(p) <= VERSION
    ]


def corpus_id(path: Path) -> str:
    """How test ids name a corpus file: its path under corpus/, without `.py`."""
    return path.relative_to(CORPUS_DIR).with_suffix("").as_posix()


def corpus_file(name: str) -> Path:
    return CORPUS_DIR / f"{name}.py"


_MODULES: Dict[Path, types.ModuleType] = {}


def load_corpus_module(path: Path) -> types.ModuleType:
    """Import a corpus file once, under a name that cannot clash with anything else."""
    module = _MODULES.get(path)
    if module is None:
        name = "depyf_corpus_" + corpus_id(path).replace("/", "_")
        spec = importlib.util.spec_from_file_location(name, str(path))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        _MODULES[path] = module
    return module


def registered(path: Path) -> List["_cases.Entry"]:
    """The `@cases` entries of a corpus file, in definition order."""
    module = load_corpus_module(path)
    return list(_cases.REGISTRY.get(module.__name__, []))


@functools.lru_cache(maxsize=None)
def source_of(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@functools.lru_cache(maxsize=None)
def _top_level_nodes(path: Path) -> Dict[str, ast.stmt]:
    return {
        node.name: node
        for node in ast.parse(source_of(path)).body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }


_VERIFY: Optional[types.ModuleType] = None


def verify() -> types.ModuleType:
    """`depyf.verify`, loaded from its file: it is self-contained by design, and loading it this
    way keeps collection (and the corpus self-check) working while the package cannot import."""
    global _VERIFY
    if _VERIFY is None:
        package = SRC_DIR / "depyf" / "verify"
        # (a package: its modules import each other relatively, under whatever name it is given)
        spec = importlib.util.spec_from_file_location("depyf_tests_verify", str(package / "__init__.py"),
                                                      submodule_search_locations=[str(package)])
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up by name
        spec.loader.exec_module(module)
        _VERIFY = module
    return _VERIFY


def definition_ids(path: Path) -> List[str]:
    """Test ids of the definitions `depyf.verify` checks in a file: qualname, #n when repeated."""
    ids = []
    seen: Dict[str, int] = {}
    for definition in verify().definitions_in_source(source_of(path), str(path)):
        n = seen.get(definition.qualname, 0) + 1
        seen[definition.qualname] = n
        ids.append(definition.qualname if n == 1 else f"{definition.qualname}#{n}")
    return ids


class Timeout(BaseException):
    """Raised inside code that ran past its time limit (a BaseException so `except Exception`
    in the code under test cannot swallow it)."""


@contextlib.contextmanager
def deadline(seconds: float, what: str) -> Iterator[None]:
    """Interrupt the block after `seconds`: a decompiler or a decompiled loop must never hang
    the suite. Uses SIGALRM, so only in the main thread on POSIX; elsewhere it is a no-op.
    An alarm armed outside (pytest-timeout's) is put back afterwards with its remaining time."""
    if not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise Timeout(f"{what} took more than {seconds} s")

    try:
        previous = signal.signal(signal.SIGALRM, expire)
    except ValueError:  # not the main thread
        yield
        return
    started = time.monotonic()
    outer_delay, outer_interval = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer_delay:
            left = outer_delay - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(left, 0.001), outer_interval)


def compiled_definition(source: str, name: str = "f") -> types.CodeType:
    """The code object of the definition `name` in `source` (dedented), compiled by the running
    interpreter: what the graph and structure tests read."""
    module = compile(textwrap.dedent(source), "<test>", "exec")
    for const in module.co_consts:
        if isinstance(const, types.CodeType) and const.co_name == name:
            return const
    raise LookupError(name)


def loads_of(instrs: Sequence[Any], name: str) -> List[int]:
    """The indices where the global (or module-level) `name` is loaded: how a structure test
    finds "the call of g" in the running version's code."""
    return [ins.index for ins in instrs if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and ins.argval == name]


def first_load_of(instrs: Sequence[Any], name: str) -> int:
    found = loads_of(instrs, name)
    assert found, name
    return found[0]


def exec_definition(text: str, globals_: Dict[str, Any], name: str, filename: str) -> Any:
    """Execute decompiled source of one definition in `globals_` and return what it defined."""
    code = compile(text, filename, "exec", dont_inherit=True)
    exec(code, globals_)
    return globals_[name]


def first_statement(text: str) -> Optional[ast.stmt]:
    body = ast.parse(text).body
    return body[0] if body else None


def original_text(path: Path, name: str) -> str:
    """The source of a module-level definition, without its decorators (as a decompiler would
    give it back): the yardstick for the corpus self-check."""
    node = _top_level_nodes(path).get(name)
    if node is None:
        raise LookupError(f"no module-level definition {name!r} in {path.name}")
    lines = source_of(path).splitlines(keepends=True)
    return "".join(lines[node.lineno - 1 : node.end_lineno])


DECOMPILE_SECONDS = 10.0


def bounded_decompile(obj: Any) -> str:
    """`depyf.decompile` that gives up after DECOMPILE_SECONDS with an ordinary exception, which
    `depyf.verify` records as a decompile error (a `Timeout` would escape it)."""
    import depyf

    try:
        with deadline(DECOMPILE_SECONDS, "decompile"):
            return depyf.decompile(obj)
    except Timeout as exc:
        raise RuntimeError(str(exc)) from None


_DECOMPILED: Dict[int, Tuple[Any, Any]] = {}


def cached_decompile(obj: Any) -> str:
    """`bounded_decompile`, once per object per session (results and errors): several checks
    read the same output, and decompiling the whole corpus twice would double their time."""
    key = id(obj)
    if key not in _DECOMPILED:
        try:
            _DECOMPILED[key] = (obj, bounded_decompile(obj))
        except Exception as exc:
            _DECOMPILED[key] = (obj, exc)
    result = _DECOMPILED[key][1]
    if isinstance(result, Exception):
        raise result
    return result
