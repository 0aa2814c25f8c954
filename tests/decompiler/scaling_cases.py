"""Huge and deep inputs for the decompiler, and a child process that measures one of them.

Each case makes, for a size, the source of a module that defines `f`. Two kinds:

* `LONG` cases grow in length (terms of an expression, elements of a literal, `elif`s,
  statements): every size compiles, and decompiling must take time linear in the size;
* `DEEP` cases grow in nesting (parentheses, blocks, lambdas): CPython itself stops compiling them
  at some depth, which differs by version and construct; `deepest` finds it.

Run as a script (`python scaling_cases.py CASE SIZE [REPEAT]`, SIZE `deepest` or `deepest:CEILING`
for the deepest nesting that compiles, up to 10,000 or CEILING), this module compiles the
input, decompiles `f` with `depyf.decompile`, compiles the text back, compares bytecode with
`depyf.verify.compare_code`, and prints one JSON line: the status, the size, and the time of the
decompilation against `list(dis.get_instructions(code))` over the same code objects. It is run in
a child process because on 3.8 overflowing the C stack aborts the interpreter.

Only the standard library and `depyf` are used; `tools/scaling.py` loads this file by path.
"""
from __future__ import annotations

import dis
import json
import sys
import time
from pathlib import Path
from types import CodeType
from typing import Callable, Dict, Iterator, List

Make = Callable[[int], str]


def _function(body: List[str], params: str = "x") -> str:
    return "\n".join([f"def f({params}):"] + ["    " + line for line in body]) + "\n"


# --- long inputs: size is a count of terms, elements or statements -------------------------------


def _joined(op: str) -> Make:
    return lambda size: _function([f"return {op.join(['x'] * size)}"])


def _ifexp_chain(size: int) -> str:
    # (3.10 copies the store and the return into each arm: a row of if statements, each of
    # whose tests is followed by a copy of the block the next arm ends in)
    return _function(["z = " + "".join(f"x if y == {i} else " for i in range(size)) + "x", "return z"], "x, y")


def _ifexp_returns(size: int) -> str:
    # (3.10, 3.12+ copy the `return` into each arm)
    return _function(["return " + "".join(f"x if y == {i} else " for i in range(size)) + "x"], "x, y")


def _compare_chain(size: int) -> str:
    return _function(["return " + " < ".join(["x"] * size)])


def _elif_chain(size: int) -> str:
    lines = []
    for i in range(size):
        lines += [f"{'if' if i == 0 else 'elif'} x == {i}:", f"    y = {i}"]
    lines += ["else:", "    y = -1", "return y"]
    return _function(lines)


def _elif_returns(size: int) -> str:
    lines = []
    for i in range(size):
        lines += [f"{'if' if i == 0 else 'elif'} x == {i}:", f"    return {i}"]
    lines += ["return -1"]
    return _function(lines)


def _statements(size: int) -> str:
    lines = ["a0 = x"]
    for i in range(1, size):
        kind = i % 5
        if kind == 0:
            lines.append(f"a{i} = a{i - 1} + {i}")
        elif kind == 1:
            lines += [f"if a{i - 1} > {i}:", f"    a{i} = a{i - 1} - 1", "else:", f"    a{i} = a{i - 1}"]
        elif kind == 2:
            lines.append(f"a{i} = [a{i - 1}, {i}][0]")
        elif kind == 3:
            lines += [f"for j in range(a{i - 1}):", f"    a{i - 1} += j"]
            lines.append(f"a{i} = a{i - 1}")
        else:
            lines.append(f"a{i} = g(a{i - 1}, k={i})")
    lines.append(f"return a{size - 1}")
    return _function(lines)


def _literal(open_: str, close: str, item: Callable[[int], str]) -> Make:
    return lambda size: _function([f"return {open_}{', '.join(item(i) for i in range(size))}{close}"])


def _chain(suffix: str) -> Make:
    return lambda size: _function([f"return x{suffix * size}"])


LONG: Dict[str, Make] = {
    "and_terms": _joined(" and "),
    "or_terms": _joined(" or "),
    "and_or_terms": lambda size: _function(["return " + " or ".join(["x and x"] * (size // 2)) + " or x"]),
    "sum_terms": _joined(" + "),
    "mixed_arith_terms": lambda size: _function(["return x" + "".join(f" {'+-*'[i % 3]} x" for i in range(size))]),
    "ifexp_chain": _ifexp_chain,
    "ifexp_returns": _ifexp_returns,
    "compare_chain": _compare_chain,
    "elif_chain": _elif_chain,
    "elif_returns": _elif_returns,
    "statements": _statements,
    "const_list": _literal("[", "]", str),
    "name_list": _literal("[", "]", lambda i: "x"),
    "name_tuple": _literal("(", ",)", lambda i: "x"),
    "name_set": _literal("{", "}", lambda i: f"x + {i}"),
    "const_dict": _literal("{", "}", lambda i: f"{i}: {i}"),
    "name_dict": _literal("{", "}", lambda i: f"'k{i}': x"),
    "call_args": lambda size: _function([f"return g({', '.join(['x'] * size)})"]),
    "call_keywords": lambda size: _function([f"return g({', '.join(f'k{i}=x' for i in range(size))})"]),
    "attribute_chain": _chain(".a"),
    "subscript_chain": _chain("[0]"),
    "call_chain": _chain("()"),
    "string_concat": lambda size: _function(["return " + " + ".join(f"'s{i}' + x" for i in range(size // 2))]),
    # (3.10+ could read `COPY 1; STORE a` as the start of a match statement at every copy)
    "chained_assignment": lambda size: _function([" = ".join(f"a{i}" for i in range(size)) + " = x",
                                                  "if a0:", "    x = a1", "return x"]),
}

# --- deep inputs: size is a depth of nesting -----------------------------------------------------


def _nested_blocks(head: Callable[[int], str], inner: str, tail: Callable[[int], List[str]] = lambda d: []) -> Make:
    def make(depth: int) -> str:
        lines: List[str] = []
        for d in range(depth):
            lines.append("    " * d + head(d))
        lines.append("    " * depth + inner)
        for d in reversed(range(depth)):
            lines += ["    " * d + line for line in tail(d)]
        lines.append("return x")
        return _function(lines, "x, n")
    return make


DEEP: Dict[str, Make] = {
    "nested_sum": lambda d: _function(["return " + "(x + " * d + "x" + ")" * d]),
    "nested_and_or": lambda d: _function(["return " + "(x and (x or " * d + "x" + "))" * d]),
    "nested_ifexp": lambda d: _function(["return " + "(x if " * d + "x" + " else x)" * d]),
    "nested_calls": lambda d: _function(["return " + "g(" * d + "x" + ")" * d]),
    "nested_lists": lambda d: _function(["return " + "[x, " * d + "x" + "]" * d]),
    "nested_dicts": lambda d: _function(["return " + "{1: " * d + "x" + "}" * d]),
    "nested_subscripts": lambda d: _function(["return " + "x[" * d + "0" + "]" * d]),
    "unary_minus": lambda d: _function(["return " + "-" * d + "x"]),
    "unary_not": lambda d: _function(["return " + "not " * d + "x"]),
    "power_chain": lambda d: _function(["return " + " ** ".join(["x"] * d)]),
    "nested_lambdas": lambda d: _function(["return " + "".join(f"lambda a{i}: " for i in range(d)) + "x"]),
    "nested_genexps": lambda d: _function(["return " + "".join("(" for _ in range(d)) + "x" +
                                           "".join(f" for a{i} in x)" for i in range(d))]),
    "nested_ifs": _nested_blocks(lambda d: f"if x > {d}:", "x = 0"),
    "nested_ifs_else": _nested_blocks(lambda d: f"if x > {d}:", "x = 0", lambda d: ["else:", f"    x = {d}"]),
    "nested_whiles": _nested_blocks(lambda d: f"while x > {d}:", "x -= 1"),
    "nested_fors": _nested_blocks(lambda d: f"for i{d} in n:", "x += 1"),
    "nested_try_except": _nested_blocks(lambda d: "try:", "x = 1 / x",
                                        lambda d: ["except ZeroDivisionError:", f"    x = {d}"]),
    "nested_try_finally": _nested_blocks(lambda d: "try:", "x = 1 / x", lambda d: ["finally:", f"    x = {d}"]),
    "nested_withs": _nested_blocks(lambda d: f"with n as m{d}:", "x += 1"),
    "nested_defs": _nested_blocks(lambda d: f"def h{d}(x):", "return x", lambda d: [f"return h{d}(x)"]),
}

CASES: Dict[str, Make] = {**LONG, **DEEP}


# --- what CPython compiles ---------------------------------------------------------------------


def compiles(source: str) -> bool:
    try:
        compile(source, "<scaling>", "exec", dont_inherit=True)
        return True
    except (SyntaxError, RecursionError, MemoryError, ValueError, OverflowError):
        return False


def deepest(make: Make, high: int) -> int:
    """The deepest nesting of `make` this interpreter compiles (at most `high`), found by halving
    (every depth below it compiles: nesting limits are thresholds)."""
    low = 1
    while low < high:
        mid = (low + high + 1) // 2
        if compiles(make(mid)):
            low = mid
        else:
            high = mid - 1
    return low


# --- one measurement ---------------------------------------------------------------------------


def _nested(code: CodeType) -> Iterator[CodeType]:
    """`code` and the code objects nested in it (without recursion: lambdas nest thousands deep)."""
    todo = [code]
    while todo:
        code = todo.pop()
        yield code
        todo.extend(c for c in reversed(code.co_consts) if isinstance(c, CodeType))


def _function_code(module: CodeType) -> CodeType:
    return next(c for c in module.co_consts if isinstance(c, CodeType) and c.co_name == "f")


def _best_time(action: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best


def measure(case: str, size: int, repeat: int = 1) -> Dict[str, object]:
    """Decompile case `case` at `size`; round-trip the text; time it against `dis`."""
    import depyf
    from depyf.decompiler.deep_stack import call_deep
    from depyf.verify import compare_code

    source = CASES[case](size)
    report: Dict[str, object] = {"case": case, "size": size, "python": "%d.%d" % sys.version_info[:2]}
    try:
        original = _function_code(compile(source, "<scaling>", "exec", dont_inherit=True))
    except (SyntaxError, RecursionError, MemoryError, ValueError, OverflowError) as exc:
        report.update(status="not_compiled", detail=f"{type(exc).__name__}: {exc}")
        return report
    codes = list(_nested(original))
    report["instructions"] = sum(len(list(dis.get_instructions(c))) for c in codes)
    try:
        started = time.perf_counter()
        text = depyf.decompile(original)
        seconds = time.perf_counter() - started
    except depyf.DecompilationError as exc:
        report.update(status="decompile_error", detail=str(exc)[:300])
        return report
    # Decompilations and dis runs alternate, so that both see the same load on the machine.
    dis_seconds = _best_time(lambda: [list(dis.get_instructions(c)) for c in codes], 3)
    for _ in range(repeat - 1):
        seconds = min(seconds, _best_time(lambda: depyf.decompile(original), 1))
        dis_seconds = min(dis_seconds, _best_time(lambda: [list(dis.get_instructions(c)) for c in codes], 3))
    report.update(seconds=seconds, dis_seconds=dis_seconds, ratio=seconds / dis_seconds if dis_seconds else 0.0)
    try:
        back = _function_code(compile(text, "<decompiled>", "exec", dont_inherit=True))
    except (SyntaxError, RecursionError, MemoryError, ValueError, OverflowError) as exc:
        report.update(status="no_compile", detail=f"{type(exc).__name__}: {exc}", head=text[:300])
        return report
    # (the oracle recurses into nested code objects: thousands of nested lambdas need the stack)
    difference = call_deep(lambda: compare_code(original, back))
    if difference is not None:
        report.update(status="differs", detail=difference[:300], head=text[:300])
        return report
    report["status"] = "equal"
    return report


def main(argv: List[str]) -> None:
    case, size_text = argv[0], argv[1]
    repeat = int(argv[2]) if len(argv) > 2 else 1
    if size_text.startswith("deepest"):  # "deepest" or "deepest:CEILING"
        size = deepest(CASES[case], int(size_text.partition(":")[2] or 10000))
    else:
        size = int(size_text)
    print(json.dumps(measure(case, size, repeat)), flush=True)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
    main(sys.argv[1:])
