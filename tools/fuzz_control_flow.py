#!/usr/bin/env python3
"""Random structured control flow, decompiled and checked: a search for silent wrong results.

    python tools/fuzz_control_flow.py [--seed S] [--count N] [--show K] [--wild | --expressions]

Runs under whichever interpreter starts it (use each of 3.8-3.13 in turn) with the package from
`src/`. Each program is one function `f(n, k)` built from random statements: ifs with elif/else,
bounded `for` and `while` loops (`while True:` included), `break`/`continue` at any depth,
try/except/else/finally, with statements (some of whose exits swallow the exception), returns
and raises; every statement appends to a log that the function returns. No dead code follows a
statement that always jumps, and finally bodies do not jump out (which swallows the exception in
flight) unless `--wild` asks for it. For each program the tool checks:

* execution: the original and the decompiled function give the same log (or the same
  exception) for a grid of inputs; a difference is a silent wrong result;
* round trip: the decompiled source compiles to the same bytecode (`depyf.verify`);
* decompilation: no `DecompilationError`.

With `--expressions` the programs are `f(a, b, c, d, e)` built instead from random boolean
expressions: names, comparisons (chained ones included), `and`, `or`, `not` and conditional
expressions nested three or four deep, used where their compiled shape differs: `if`/`elif`/`else`
tests, bounded `while` tests, `return <expr>`, `x = <expr>`, call arguments, `assert`,
comprehension `if` clauses, and (inside the expressions) as conditional-expression conditions and
arms. The names take bools, small ints and None over a grid of 48 inputs (every truth combination
of 0/1 and mixed values), and the same three checks apply.

Failures are printed with the program's source, smallest first. The programs depend only on the
seed, so a failure can be reproduced with `--seed S --count 1` (S as printed). Loops are bounded,
and each call of decompiled code runs under an alarm, so a lost `break` shows as a timeout, not a
hang.
"""
import argparse
import os
import random
import signal
import sys
import tempfile
from typing import Any, Callable, List, NamedTuple, Optional, Tuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))

import depyf  # noqa: E402
from depyf import verify  # noqa: E402

PRELUDE = '''
class Tracker:
    def __init__(self, log, tag):
        self.log, self.tag = log, tag

    def __enter__(self):
        self.log.append(("enter", self.tag))

    def __exit__(self, kind, value, tb):
        self.log.append(("exit", self.tag, kind.__name__ if kind else None))
        return self.tag % 3 == 0  # (some exits swallow the exception)
'''

INPUTS = [(n, k) for n in range(6) for k in range(3)]

EXPRESSION_PRELUDE = '''
def pair(x, key=None):
    return (x, key)
'''

# every truth combination of 0/1 for a..e, then mixed values (None, bools, 2, -1)
EXPRESSION_INPUTS = [tuple((bits >> i) & 1 for i in range(5)) for bits in range(32)]
EXPRESSION_INPUTS += [tuple(random.Random(i).choice([None, True, False, 0, 1, 2, -1]) for _ in range(5))
                      for i in range(16)]


class _Timeout(Exception):
    pass


def _alarm(*_: Any) -> None:
    raise _Timeout()


class ProgramWriter:
    """Writes one random function; `loops` and `handlers` say what the current point is inside."""

    def __init__(self, rng: random.Random, size: int, wild: bool = False) -> None:
        self.rng = rng
        self.wild = wild  # also jumps out of finally bodies
        self.budget = size
        self.tags = 0
        self.names = 0
        self.lines: List[str] = []

    def tag(self) -> int:
        self.tags += 1
        return self.tags

    def name(self, prefix: str) -> str:
        self.names += 1
        return f"{prefix}{self.names}"

    def condition(self, loop_vars: List[str]) -> str:
        rng = self.rng
        atoms = ["n > %d" % rng.randrange(5), "k == %d" % rng.randrange(3), "n % 2", "len(log) > %d" % rng.randrange(8),
                 "n + k > %d" % rng.randrange(6)]
        atoms += ["%s > %d" % (v, rng.randrange(3)) for v in loop_vars]
        atoms += ["(n + %s) %% 3 == %d" % (v, rng.randrange(3)) for v in loop_vars]
        first = rng.choice(atoms)
        shape = rng.random()
        if shape < 0.6:
            return first
        if shape < 0.75:
            return f"not {first}" if " " not in first else f"not ({first})"
        second = rng.choice(atoms)
        op = rng.choice(["and", "or"])
        return f"{first} {op} {second}"

    def block(self, depth: int, pad: str, loops: List[str], in_finally: bool) -> bool:
        """A statement list of one to three statements at `pad`; True when it always jumps."""
        count = 1 + self.rng.randrange(3)
        for _ in range(count):
            if self.statement(depth, pad, loops, in_finally):
                return True  # (what follows would be dead code, which the compiler drops)
        return False

    def statement(self, depth: int, pad: str, loops: List[str], in_finally: bool) -> bool:
        """Write one statement; True when it always jumps (break, continue, return, raise)."""
        rng = self.rng
        emit = self.lines.append
        self.budget -= 1
        simple = self.budget <= 0 or depth >= 4
        kinds = ["log"] * 3 + ["raise"]
        if not in_finally or self.wild:
            # (a jump out of a finally body swallows the exception in flight: rare in real code)
            kinds += ["return"] + (["break", "continue"] if loops else [])
        if not simple:
            kinds += ["if", "if", "for", "while", "while_true", "try", "try", "with"]
        kind = rng.choice(kinds)
        if kind == "log":
            emit(f"{pad}log.append({self.tag()})")
        elif kind == "break":
            if rng.random() < 0.5:
                emit(f"{pad}log.append({self.tag()})")
            emit(f"{pad}break")
        elif kind == "continue":
            emit(f"{pad}continue")
        elif kind == "return":
            emit(f"{pad}return log" if rng.random() < 0.7 else f"{pad}return {self.tag()}")
        elif kind == "raise":
            emit(f"{pad}raise ValueError({self.tag()})")
        elif kind == "if":
            emit(f"{pad}if {self.condition(loops)}:")
            leaves = self.block(depth + 1, pad + "    ", loops, in_finally)
            while rng.random() < 0.3:
                emit(f"{pad}elif {self.condition(loops)}:")
                leaves = self.block(depth + 1, pad + "    ", loops, in_finally) and leaves
            if rng.random() < 0.5:
                emit(f"{pad}else:")
                return self.block(depth + 1, pad + "    ", loops, in_finally) and leaves
        elif kind == "for":
            var = self.name("i")
            emit(f"{pad}for {var} in range({rng.randrange(1, 4)}):")
            self.block(depth + 1, pad + "    ", loops + [var], False)
            self.loop_else(depth, pad, loops, in_finally)
        elif kind == "while":
            var = self.name("w")
            emit(f"{pad}{var} = 0")
            emit(f"{pad}while {var} < {rng.randrange(1, 4)}:")
            emit(f"{pad}    {var} += 1")
            self.block(depth + 1, pad + "    ", loops + [var], False)
            self.loop_else(depth, pad, loops, in_finally)
        elif kind == "while_true":
            var = self.name("w")
            emit(f"{pad}{var} = 0")
            emit(f"{pad}while True:")
            emit(f"{pad}    {var} += 1")
            emit(f"{pad}    if {var} > {rng.randrange(1, 4)}:")
            emit(f"{pad}        break")
            self.block(depth + 1, pad + "    ", loops + [var], False)
        elif kind == "try":
            emit(f"{pad}try:")
            body_leaves = self.block(depth + 1, pad + "    ", loops, in_finally)
            leaves = False
            handled = rng.random() < 0.75
            if handled:
                name = " as e" if rng.random() < 0.3 else ""
                emit(f"{pad}except ValueError{name}:")
                leaves = self.block(depth + 1, pad + "    ", loops, in_finally)
                if not body_leaves and rng.random() < 0.3:
                    emit(f"{pad}else:")
                    body_leaves = self.block(depth + 1, pad + "    ", loops, in_finally)
                leaves = leaves and body_leaves
            else:
                leaves = body_leaves
            if not handled or rng.random() < 0.3:
                emit(f"{pad}finally:")
                leaves = self.block(depth + 1, pad + "    ", loops, True) or leaves
            return leaves
        elif kind == "with":
            tag = self.tag()
            emit(f"{pad}with Tracker(log, {tag}):")
            leaves = self.block(depth + 1, pad + "    ", loops, in_finally)
            # (an exit that swallows the exception goes on after the statement)
            return leaves and tag % 3 != 0
        return kind in ("break", "continue", "return", "raise")

    def loop_else(self, depth: int, pad: str, loops: List[str], in_finally: bool) -> None:
        if self.rng.random() < 0.25:
            self.lines.append(f"{pad}else:")
            self.block(depth + 1, pad + "    ", loops, in_finally)

    def function(self) -> str:
        self.lines = ["def f(n, k):", "    log = []"]
        self.block(1, "    ", [], False)
        while self.budget > 0:
            if self.statement(1, "    ", [], False):
                return "\n".join(self.lines) + "\n"
        self.lines.append("    return log")
        return "\n".join(self.lines) + "\n"


class ExpressionWriter:
    """Writes one random function of a..e whose statements test random boolean expressions."""

    NAMES = ["a", "b", "c", "d", "e"]

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.tags = 0
        self.lines: List[str] = []

    def tag(self) -> int:
        self.tags += 1
        return self.tags

    def atom(self, extra: List[str]) -> str:
        rng = self.rng
        names = self.NAMES + extra
        name = rng.choice(names)
        shape = rng.random()
        if shape < 0.45:
            return name
        if shape < 0.6:
            op = rng.choice(["==", "!=", "<", ">=", "is", "is not"])
            other = "None" if op.startswith("is") else str(rng.randrange(-1, 3))
            return f"{name} {op} {other}"
        if shape < 0.7:
            return f"{name} {rng.choice(['==', '!=', '<', '<='])} {rng.choice(names)}"
        if shape < 0.8:  # chained
            low, high = rng.randrange(-1, 2), rng.randrange(1, 3)
            return f"{low} <= {name} {rng.choice(['<', '<='])} {high}"
        if shape < 0.87:
            return f"{name} {rng.choice(['==', '<'])} {rng.choice(names)} {rng.choice(['==', '!=', '<'])} {rng.choice(names)}"
        return f"{name} in (0, None)"

    def expr(self, depth: int, extra: List[str] = ()) -> str:
        """An expression nested up to `depth` levels; compound parts are parenthesized."""
        rng = self.rng
        extra = list(extra)
        if depth <= 0 or rng.random() < 0.2:
            return self.atom(extra)

        def part() -> str:
            text = self.expr(depth - 1, extra)
            return f"({text})" if " " in text else text

        shape = rng.random()
        if shape < 0.55:
            op = rng.choice(["and", "or"])
            return f" {op} ".join(part() for _ in range(2 + (rng.random() < 0.3)))
        if shape < 0.7:
            return f"not {part()}"
        return f"{part()} if {part()} else {part()}"

    def body(self, pad: str, depth: int, ends: bool = True) -> None:
        """A small statement list: a log entry, sometimes an inner if or a return."""
        rng = self.rng
        emit = self.lines.append
        shape = rng.random()
        if depth < 2 and shape < 0.25:
            emit(f"{pad}if {self.expr(2)}:")
            self.body(pad + "    ", depth + 1)
            if rng.random() < 0.4:
                emit(f"{pad}else:")
                self.body(pad + "    ", depth + 1)
        elif ends and shape < 0.45:
            emit(f"{pad}return {self.tag()}")
        else:
            emit(f"{pad}log.append({self.tag()})")

    def statement(self, pad: str) -> None:
        rng = self.rng
        emit = self.lines.append
        depth = 3 + (rng.random() < 0.5)
        kind = rng.choice(["if", "if", "if", "while", "assign", "call", "assert", "comprehension", "return_if"])
        if kind == "if":
            emit(f"{pad}if {self.expr(depth)}:")
            self.body(pad + "    ", 0)
            while rng.random() < 0.35:
                emit(f"{pad}elif {self.expr(depth)}:")
                self.body(pad + "    ", 0)
            if rng.random() < 0.5:
                emit(f"{pad}else:")
                self.body(pad + "    ", 0)
        elif kind == "while":
            emit(f"{pad}w = 0")
            emit(f"{pad}while {self.expr(depth, ['w'])}:")
            emit(f"{pad}    w += 1")
            emit(f"{pad}    log.append({self.tag()})")
            emit(f"{pad}    if w > {rng.randrange(1, 4)}:")
            emit(f"{pad}        break")
            if rng.random() < 0.25:
                emit(f"{pad}else:")
                emit(f"{pad}    log.append({self.tag()})")
        elif kind == "assign":
            emit(f"{pad}x = {self.expr(depth)}")
            emit(f"{pad}log.append(x)")
        elif kind == "call":
            emit(f"{pad}log.append(pair({self.expr(depth)}, key={self.expr(depth - 1)}))")
        elif kind == "assert":
            emit(f"{pad}assert {self.expr(depth)}, {self.tag()}")
        elif kind == "comprehension":
            test = self.expr(depth, ["v"])  # (a conditional expression needs parentheses there)
            emit(f"{pad}log.append([v for v in range(3) if {test if ' if ' not in test else f'({test})'}])")
        else:  # a test that returns, then the rest of the function
            emit(f"{pad}if {self.expr(depth)}:")
            emit(f"{pad}    return {self.tag()}")

    def function(self) -> str:
        self.lines = ["def f(a, b, c, d, e):", "    log = []"]
        for _ in range(1 + self.rng.randrange(4)):
            self.statement("    ")
        if self.rng.random() < 0.5:
            self.lines.append(f"    return {self.expr(3)}, log")
        else:
            self.lines.append("    return log")
        return "\n".join(self.lines) + "\n"


def program(seed: int, wild: bool = False, expressions: bool = False) -> str:
    if expressions:
        return ExpressionWriter(random.Random(seed)).function()
    rng = random.Random(seed)
    return ProgramWriter(rng, size=4 + rng.randrange(10), wild=wild).function()


def _outcome(func: Any, args: Tuple[int, int]) -> Any:
    signal.alarm(2)
    try:
        return ("value", func(*args))
    except _Timeout:
        return ("timeout",)
    except Exception as exc:  # the program's own raise, or an error of wrong code
        return ("raised", type(exc).__name__, exc.args)
    finally:
        signal.alarm(0)


class Examination(NamedTuple):
    """Everything one program's check found: the first problem (None: none), the decompiled
    text (None: the decompiler failed) and the round trip's status (None: not reached)."""

    problem: Optional[Tuple[str, str, str]]
    text: Optional[str]
    roundtrip: Optional[str]


def examine(seed: int, workdir: str, wild: bool = False, expressions: bool = False,
            known: Optional[Callable[[str], bool]] = None) -> Examination:
    """Check program `seed`: decompile, compile, execute on the inputs, round trip.

    With `known`, stop (problem None, roundtrip None) when `known(text)` says the decompiled text
    is one whose verdict the caller has already (the gate).
    """
    source = program(seed, wild, expressions)
    prelude, inputs = (EXPRESSION_PRELUDE, EXPRESSION_INPUTS) if expressions else (PRELUDE, INPUTS)
    namespace: dict = {}
    exec(compile(prelude + source, f"<fuzz {seed}>", "exec"), namespace)
    original = namespace["f"]
    try:
        text = depyf.decompile(original)
    except Exception as exc:
        return Examination(("decompile", f"{type(exc).__name__}: {exc}", source), None, None)
    if known is not None and known(text):
        return Examination(None, text, None)
    rebuilt: dict = {}
    try:
        exec(compile(prelude + text, f"<decompiled {seed}>", "exec"), rebuilt)
    except SyntaxError as exc:
        return Examination(("syntax", str(exc), source), text, None)
    for args in inputs:
        want, got = _outcome(original, args), _outcome(rebuilt["f"], args)
        if want != got:
            return Examination(("execution", f"f{args}: {want!r} != {got!r}\n--- decompiled ---\n{text}", source),
                               text, None)
    path = os.path.join(workdir, f"fuzz_{seed}.py")
    with open(path, "w") as handle:
        handle.write(source)
    trip = verify.SourceRoundTrip(source, path)
    for definition in trip.definitions:
        result = trip.check(definition, depyf.decompile)
        if result.status != "equal":
            return Examination(("roundtrip", f"{result.status}: {result.detail}\n--- decompiled ---\n{text}", source),
                               text, result.status)
    return Examination(None, text, "equal")


def check(seed: int, workdir: str, wild: bool = False,
          expressions: bool = False) -> Optional[Tuple[str, str, str]]:
    """(kind, detail, source) of the first problem with program `seed`, or None."""
    return examine(seed, workdir, wild, expressions).problem


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--count", type=int, default=500, help="number of programs")
    parser.add_argument("--show", type=int, default=5, help="failures of each kind to print in full")
    parser.add_argument("--wild", action="store_true", help="also break, continue and return in finally bodies")
    parser.add_argument("--expressions", action="store_true",
                        help="programs built from random and/or/not/conditional expressions instead")
    args = parser.parse_args()
    signal.signal(signal.SIGALRM, _alarm)
    sys.setrecursionlimit(10000)
    found: dict = {}
    with tempfile.TemporaryDirectory() as workdir:
        for seed in range(args.seed, args.seed + args.count):
            problem = check(seed, workdir, args.wild, args.expressions)
            if problem is not None:
                found.setdefault(problem[0], []).append((seed, problem))
    version = "%d.%d" % sys.version_info[:2]
    summary = ", ".join(f"{kind} {len(items)}" for kind, items in sorted(found.items())) or "none"
    mode = " expression" if args.expressions else ""
    print(f"Python {version}: {args.count}{mode} programs (seeds {args.seed}..{args.seed + args.count - 1}); problems: {summary}")
    for kind in ("execution", "decompile", "syntax", "roundtrip"):
        items = sorted(found.get(kind, []), key=lambda item: len(item[1][2]))
        for seed, (_, detail, source) in items[:args.show]:
            print(f"\n=== {kind}, seed {seed}\n{source}--- problem ---\n{detail}")
        if len(items) > args.show:
            print(f"\n({kind}: {len(items) - args.show} more: seeds {[s for s, _ in items[args.show:]]})")
    return 1 if found.get("execution") or found.get("decompile") or found.get("syntax") else 0


if __name__ == "__main__":
    sys.exit(main())
