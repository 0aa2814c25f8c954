"""Hostile inputs for the decompiler, run one per child process by test_bad_input.py.

A child builds one input, decompiles it with on_error="raise" and with on_error="comment", and
prints one JSON line saying what happened. Running in a child keeps an interpreter crash, a
hang or a runaway recursion from taking the test session down with it.

    python bad_input_cases.py CASE
"""
from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path
from types import CodeType
from typing import Any, Callable, Dict

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "src"))


def _template(a, b=2, *args, **kwargs):
    total = 0
    for i in range(a):
        if i % b:
            total += i
        else:
            try:
                total -= len(args)
            except TypeError:
                pass
    with open(kwargs.get("path", "x")) as f:
        total += len(f.read())
    return [total * x for x in args if x], {k: v for k, v in kwargs.items()}


def _random_code(seed: int, same_length: bool) -> CodeType:
    rng = random.Random(seed)
    code = _template.__code__
    n = len(code.co_code) if same_length else 2 * rng.randrange(1, 2 * len(code.co_code))
    return code.replace(co_code=bytes(rng.randrange(256) for _ in range(n)))


def _random_ops(seed: int) -> CodeType:
    """Known opcodes with random arguments: gets past the opcode check into the deeper layers."""
    import dis

    rng = random.Random(seed)
    code = _template.__code__
    ops = sorted(set(dis.opmap.values()))
    out = bytearray()
    while len(out) < len(code.co_code):
        out += bytes((rng.choice(ops), rng.randrange(256)))
    return code.replace(co_code=bytes(out))


def _truncated(fraction: float) -> CodeType:
    code = _template.__code__
    cut = int(len(code.co_code) * fraction) & ~1
    return code.replace(co_code=code.co_code[:cut])


def _compiles_at(depth: int, make: Callable[[int], str]) -> bool:
    try:
        compile(make(depth), "<deep>", "exec")
        return True
    except (SyntaxError, RecursionError, MemoryError, ValueError, OverflowError):
        return False


def _deepest(make: Callable[[int], str], high: int) -> CodeType:
    """The most deeply nested version of `make` that this interpreter still compiles."""
    low = 1
    while low < high:
        mid = (low + high + 1) // 2
        if _compiles_at(mid, make):
            low = mid
        else:
            high = mid - 1
    while True:
        # the compiler's own limit depends a little on the stack it starts from: back off
        try:
            module = compile(make(low), "<deep>", "exec")
            break
        except (SyntaxError, RecursionError, MemoryError, ValueError, OverflowError):
            low = max(1, low * 19 // 20)
    code = next(c for c in module.co_consts if isinstance(c, CodeType))
    return code.replace(co_name=f"{code.co_name}_depth_{low}")


def _deep_expression(depth: int) -> str:
    return "def f(x):\n    return " + "(x + " * depth + "x" + ")" * depth + "\n"


def _deep_boolean(depth: int) -> str:
    return "def f(x):\n    return " + "(x and (x or " * depth + "x" + "))" * depth + "\n"


def _deep_calls(depth: int) -> str:
    return "def f(g, x):\n    return " + "g(" * depth + "x" + ")" * depth + "\n"


def _deep_ifs(depth: int) -> str:
    lines = ["def f(x):"]
    for d in range(depth):
        lines.append("    " * (d + 1) + f"if x > {d}:")
    lines.append("    " * (depth + 1) + "return x")
    lines.append("    return -1")
    return "\n".join(lines) + "\n"


def _deep_loops(depth: int) -> str:
    lines = ["def f(n):", "    t = 0"]
    for d in range(depth):
        lines.append("    " * (d + 1) + f"for i{d} in range(n):")
    lines.append("    " * (depth + 1) + "t += 1")
    lines.append("    return t")
    return "\n".join(lines) + "\n"


def _deep_try(depth: int) -> str:
    lines = ["def f(x):"]
    for d in range(depth):
        lines.append("    " * (d + 1) + "try:")
    lines.append("    " * (depth + 1) + "x = 1 / x")
    for d in reversed(range(depth)):
        lines.append("    " * (d + 1) + "except ZeroDivisionError:")
        lines.append("    " * (d + 2) + f"x = {d}")
    lines.append("    return x")
    return "\n".join(lines) + "\n"


def _deep_defs(depth: int) -> str:
    lines = []
    for d in range(depth):
        lines.append("    " * d + f"def f{d}(x{d}):")
    lines.append("    " * depth + "return " + " + ".join(f"x{d}" for d in range(depth)))
    for d in reversed(range(depth - 1)):
        lines.append("    " * (d + 1) + f"return f{d + 1}")
    return "\n".join(lines) + "\n"


def _huge(statements: int) -> CodeType:
    lines = ["def f(x):", "    a0 = x"]
    for i in range(1, statements):
        kind = i % 4
        if kind == 0:
            lines.append(f"    a{i} = a{i - 1} + {i}")
        elif kind == 1:
            lines.append(f"    if a{i - 1} > {i}:\n        a{i} = a{i - 1} - 1\n    else:\n        a{i} = a{i - 1}")
        elif kind == 2:
            lines.append(f"    a{i} = [a{i - 1}, {i}][0]")
        else:
            lines.append(f"    a{i} = g(a{i - 1}, k={i})")
    lines.append(f"    return a{statements - 1}")
    module = compile("\n".join(lines) + "\n", "<huge>", "exec")
    return next(c for c in module.co_consts if isinstance(c, CodeType))


def _long_sum(terms: int) -> str:
    return "def f(x):\n    return " + " + ".join(["x"] * terms) + "\n"


def _deep_unary(depth: int) -> str:
    return "def f(x):\n    return " + "-" * depth + "x\n"


def _deep_subscript(depth: int) -> str:
    return "def f(x):\n    return x" + "[0]" * depth + "\n"


BUILT = "input built"

CASES: Dict[str, Callable[[], Any]] = {
    **{f"random_bytes_{seed}": (lambda seed=seed: _random_code(seed, True)) for seed in range(8)},
    **{f"random_length_{seed}": (lambda seed=seed: _random_code(100 + seed, False)) for seed in range(4)},
    **{f"random_ops_{seed}": (lambda seed=seed: _random_ops(seed)) for seed in range(8)},
    "truncated_half": lambda: _truncated(0.5),
    "truncated_most": lambda: _truncated(0.9),
    "truncated_one_instruction": lambda: _truncated(2 / len(_template.__code__.co_code)),
    "empty_code": lambda: _template.__code__.replace(co_code=b""),
    "consts_missing": lambda: _template.__code__.replace(co_consts=()),
    "names_missing": lambda: _template.__code__.replace(co_names=()),
    "huge_function": lambda: _huge(3000),
    "deep_expression": lambda: _deepest(_deep_expression, 3000),
    "deep_boolean": lambda: _deepest(_deep_boolean, 1500),
    "deep_calls": lambda: _deepest(_deep_calls, 3000),
    "long_sum": lambda: _deepest(_long_sum, 20000),
    "deep_unary": lambda: _deepest(_deep_unary, 20000),
    "deep_subscript": lambda: _deepest(_deep_subscript, 20000),
    "deep_ifs": lambda: _deepest(_deep_ifs, 200),
    "deep_loops": lambda: _deepest(_deep_loops, 60),
    "deep_try": lambda: _deepest(_deep_try, 60),
    "deep_defs": lambda: _deepest(_deep_defs, 200),
}
# corrupted bytecode: an error must name the instruction
BYTECODE_CASES = [c for c in CASES if c.startswith(("random_", "truncated_", "consts_", "names_"))]


def _attempt(target: Any, on_error: str) -> Dict[str, Any]:
    import depyf

    started = time.perf_counter()
    try:
        text = depyf.decompile(target, on_error=on_error)
    except depyf.DecompilationError as exc:
        return {
            "kind": "error",
            "message": str(exc)[:300],
            "function": exc.function,
            "offset": exc.offset,
            "opname": exc.opname,
            "python_version": list(exc.python_version) if exc.python_version else None,
            "seconds": time.perf_counter() - started,
        }
    except BaseException as exc:  # what must never happen: report it, with where it came from
        import traceback

        return {"kind": "escaped", "message": f"{type(exc).__name__}: {str(exc)[:300]}",
                "traceback": traceback.format_exc()[-2000:], "seconds": time.perf_counter() - started}
    seconds = time.perf_counter() - started
    try:
        compile(text, "<decompiled>", "exec")
        compiles = ""
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        compiles = f"{type(exc).__name__}: {exc}"
    return {"kind": "text", "compile_error": compiles, "chars": len(text), "seconds": seconds,
            "head": text[:300]}


def main(case: str) -> None:
    target = CASES[case]()
    # Some corrupt code objects crash CPython itself, when built or when co_code is read (3.13
    # quickens bytecode on creation and de-optimizes it on reading): the parent tells such a
    # crash from a decompiler crash by this line.
    if isinstance(target, CodeType):
        bytes(target.co_code)
    print(BUILT, flush=True)
    report = {"case": case, "python_version": list(sys.version_info[:2])}
    for mode in ("raise", "comment"):
        report[mode] = _attempt(target, mode)
    print(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1])
