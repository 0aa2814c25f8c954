"""What the gate measures: the corpora, and the units each one has on one interpreter.

A unit is what one worker request names (a source file, a corpus file to execute, a Dynamo
sample, a block of fuzz seeds); its label is how record keys name it (`<label>::<definition>`),
the same on every interpreter where the unit exists.
"""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

REPO = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).resolve().parent / "worker.py"
TESTS = REPO / "tests" / "decompiler"
DYNAMO_SAMPLES = TESTS / "dynamo_samples"
FUZZ_BLOCK = 50  # seeds per worker request

sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(TESTS))
import run_all  # noqa: E402  (the benchmark's module sets and its worker driver)

# The stdlib sample of tests/decompiler/stdlib_sample.py (read from there, not copied).
_SAMPLE_SOURCE = (TESTS / "stdlib_sample.py").read_text(encoding="utf-8")


def _stdlib_sample_modules() -> Tuple[str, ...]:
    import ast

    for node in ast.parse(_SAMPLE_SOURCE).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "MODULES" for t in node.targets):
            return tuple(name.replace("/", ".") for name in ast.literal_eval(node.value))
    raise RuntimeError("tests/decompiler/stdlib_sample.py has no MODULES")


# name -> module names, for the corpora that are lists of modules
MODULE_CORPORA: Dict[str, Tuple[str, ...]] = {
    "stdlib": _stdlib_sample_modules(),
    "ten": tuple(__import__("_roundtrip_worker").DEFAULT_MODULES),
}
MODULE_CORPORA.update((name, tuple(modules)) for name, modules in run_all.MODULE_SETS.items())

# Every corpus, in report order. "torch" runs only on interpreters of a torch environment.
ALL = ("corpus", "execution", "stdlib", "ten", "unseen", "sweep", "fresh", "holdout", "pip", "torch",
       "dynamo", "fuzz", "fuzz-expr")
QUICK = ("corpus", "execution", "stdlib", "ten", "dynamo", "fuzz", "fuzz-expr")
DEFAULT_SEEDS = {"fuzz": (0, 1000), "fuzz-expr": (0, 300)}
QUICK_SEEDS = {"fuzz": (0, 300), "fuzz-expr": (0, 100)}

DESCRIPTIONS = {
    "corpus": "tests/decompiler/corpus/*: round trip of every definition",
    "execution": "tests/decompiler/corpus/*: @cases definitions executed (runs the same or not)",
    "stdlib": "the stdlib sample of tests/decompiler/stdlib_sample.py",
    "ten": "benchmarks/run_all.py's default ten modules",
    "dynamo": "tests/decompiler/dynamo_samples/*.marshal on the version that made them, two readings",
    "fuzz": "tools/fuzz_control_flow.py programs (control flow)",
    "fuzz-expr": "tools/fuzz_control_flow.py --expressions programs",
}


@dataclass(frozen=True)
class Unit:
    corpus: str
    label: str  # how keys name it: "<label>::<definition>"; "" for fuzz blocks, whose keys are seeds
    request: str  # what the worker is asked (a path or a "kind:..." name)
    digest: str  # of its content: a recorded verdict is reused only for the same content
    weight: float  # rough cost, to balance parallel workers
    members: Tuple[str, ...] = ()  # the unit labels it stands for in a slice, if not (label,)

    def labels(self) -> Tuple[str, ...]:
        return self.members or (self.label,)

    def key(self, name: str) -> str:
        """The record key of the worker's item `name` (a definition key, or a seed)."""
        return f"{self.label}::{name}" if self.label else name


def file_digest(path: Path) -> str:
    return hashlib.sha1(path.read_bytes()).hexdigest()[:20]


def _list(python: str, flags: List[str]) -> List[List[str]]:
    argv = [python, str(WORKER), "--verify", str(REPO / "src" / "depyf" / "verify")] + flags
    out = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=str(REPO),
                         env=dict(run_all.os.environ, PYTHONPATH=str(REPO / "src"), PYTHONDONTWRITEBYTECODE="1"))
    if out.returncode != 0:
        lines = out.stderr.strip().splitlines()
        raise RuntimeError(f"{python}: listing failed: {lines[-1] if lines else out.returncode}")
    return json.loads(out.stdout)


def parse_seeds(text: str) -> Tuple[int, int]:
    """'0-999' -> (0, 1000): a start and an end, exclusive."""
    first, _, last = text.partition("-")
    start, end = int(first), int(last or first) + 1
    if end <= start:
        raise ValueError(f"empty seed range {text!r}")
    return start, end


def fuzz_units(corpus: str, seeds: Tuple[int, int], digest: str) -> List[Unit]:
    """Blocks of FUZZ_BLOCK seeds, one request each; every seed is a unit of its own (its key is
    the seed), so that runs of other seed ranges compare on the seeds they share."""
    mode = "expressions" if corpus == "fuzz-expr" else "control"
    units = []
    start, end = seeds
    for lo in range(start, end, FUZZ_BLOCK):
        hi = min(lo + FUZZ_BLOCK, end)
        units.append(Unit(corpus, "", f"fuzz:{mode}:{lo}:{hi - lo}", digest, 1500.0 * (hi - lo),
                          tuple(str(seed) for seed in range(lo, hi))))
    return units


def units_for(corpora: Sequence[str], python: str, minor: str, seeds: Dict[str, Tuple[int, int]]) -> Dict[str, List[Unit]]:
    """Every requested corpus's units on the interpreter `python` (Python `minor`)."""
    out: Dict[str, List[Unit]] = {}
    modules = sorted({m for c in corpora if c in MODULE_CORPORA for m in MODULE_CORPORA[c]})
    located: Dict[str, str] = {}
    if modules:
        located = dict((name, path) for name, path in _list(python, ["--list-modules", ",".join(modules)]))
    construct: List[List[str]] = []
    if "corpus" in corpora or "execution" in corpora:
        construct = _list(python, ["--list-corpus"])
    fuzz_digest = file_digest(REPO / "tools" / "fuzz_control_flow.py")
    for corpus in corpora:
        if corpus in MODULE_CORPORA:
            out[corpus] = [Unit(corpus, name, located[name], file_digest(Path(located[name])),
                                float(Path(located[name]).stat().st_size))
                           for name in MODULE_CORPORA[corpus] if name in located]
        elif corpus == "corpus":
            out[corpus] = [Unit(corpus, ident, path, file_digest(Path(path)), float(Path(path).stat().st_size))
                           for ident, path in construct]
        elif corpus == "execution":
            out[corpus] = [Unit(corpus, ident, "execution:" + path, file_digest(Path(path)),
                                2.0 * Path(path).stat().st_size) for ident, path in construct]
        elif corpus == "dynamo":
            suffix = ".py%s.marshal" % minor.replace(".", "")
            out[corpus] = [Unit(corpus, p.name[: -len(suffix)], "dynamo:" + str(p), file_digest(p), 4000.0)
                           for p in sorted(DYNAMO_SAMPLES.glob("*" + suffix))]
        elif corpus in DEFAULT_SEEDS:
            out[corpus] = fuzz_units(corpus, seeds[corpus], fuzz_digest)
        else:
            raise ValueError(f"unknown corpus {corpus!r}")
    return out


# --------------------------------------------------------------------------------------------
# What decides a verdict besides the decompiled text: a recorded verdict is reused only when
# all of it is the same.

# (the oracle is the whole package src/depyf/verify/: each of its modules decides verdicts)
_ORACLE = sorted(str(p.relative_to(REPO)) for p in (REPO / "src" / "depyf" / "verify").glob("*.py"))
_HARNESS = {
    "*": _ORACLE,
    "execution": ["tests/decompiler/execution.py", "tests/decompiler/outcomes.py", "tests/decompiler/support.py",
                  "tests/decompiler/corpus/_cases.py"],
    "fuzz": ["tools/fuzz_control_flow.py"],
    "fuzz-expr": ["tools/fuzz_control_flow.py"],
    "dynamo": ["tools/gatelib/worker.py"],
}
VERDICT_RULES = "1"  # raise when the gate changes how it turns checks into outcomes


def fingerprint(corpus: str, python_full: str, interpreter: str) -> str:
    digest = hashlib.sha1(f"{VERDICT_RULES} {corpus} {python_full} {interpreter}".encode())
    for name in _HARNESS["*"] + _HARNESS.get(corpus, []):
        digest.update((REPO / name).read_bytes())
    return digest.hexdigest()[:20]


def torch_interpreters() -> Dict[str, str]:
    """minor -> python of a ready torch environment (~/.cache/depyf/venvs/py3.X-torch*), newest torch."""
    root = Path(run_all.os.environ.get("DEPYF_CACHE", "~/.cache/depyf")).expanduser() / "venvs"
    found: Dict[str, Tuple[Tuple[int, ...], str]] = {}
    for env in sorted(root.glob("py3.*-torch*")):
        python = env / "bin" / "python"
        if not (env / "depyf-env.json").exists() or not python.exists():
            continue
        minor, _, torch = env.name[2:].partition("-torch")
        try:
            key = tuple(int(p) for p in torch.split("."))
        except ValueError:
            continue
        if minor not in found or key > found[minor][0]:
            found[minor] = (key, str(python))
    return {minor: python for minor, (_, python) in found.items()}


def describe(corpus: str) -> str:
    if corpus in DESCRIPTIONS:
        return DESCRIPTIONS[corpus]
    return f"benchmarks/run_all.py MODULE_SETS[{corpus!r}] ({len(MODULE_CORPORA.get(corpus, ()))} modules)"


def resolve(names: Optional[str], quick: bool) -> List[str]:
    if not names:
        return list(QUICK if quick else ALL)
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [n for n in wanted if n not in ALL]
    if unknown:
        raise ValueError(f"unknown corpus {', '.join(unknown)} (known: {', '.join(ALL)})")
    return [n for n in ALL if n in wanted]
