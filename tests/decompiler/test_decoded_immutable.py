"""Decoded instructions are never changed by a reading (issue 20: one instruction model, immutable).

The rule that re-points a jump (`_fall_out`, by `CodeBuilder.redirect`) replaces the entry of the
reading's own list of instructions by a copy; the decoded `Bytecode` stays as the decoder made it,
so a reading that fails leaves it ready for the next one (the reading does not decode the code
again). The other jumps a reading used to re-point are respelled by passes (`chain_none_tests`,
`finally_reraises`), which make a new `Bytecode` and leave the decoded one alone too."""
import inspect
import textwrap
from typing import Any, Dict, List, Set, Tuple

import pytest

from depyf.decompiler import builder, decompile, passes
from depyf.decompiler.errors import DecompilationError
from depyf.decompiler.instructions import Bytecode, Instr, decode
from depyf.decompiler.printer import Printer
from depyf.decompiler.versions import host

# Constructs whose reading re-points jumps on some version (a handler's way out pointed at the
# clause's end, 3.11+), whose passes respell jumps (a chained comparison ending in `is None`,
# 3.11+; conditional jumps to a copy of a finally body's closing re-raise, 3.10+), and others.
SOURCES = [
    """
    def f(a):
        try:
            g(a)
        except ValueError:
            h()
        except KeyError as e:
            if a:
                h(e)
        return a
    """,
    """
    def f(a, b, c):
        assert a is b is not None
        return a < b is None
    """,
    """
    def f(a, b):
        try:
            g()
        finally:
            if a and b:
                h()
    """,
    """
    def f(xs):
        for x in xs:
            try:
                g(x)
            except OSError:
                continue
            while x:
                x = x - 1
                if x == 3:
                    break
            else:
                h()
        with open(xs) as fh:
            return fh.read()
    """,
]


def _fields(ins: Instr) -> Tuple[Any, ...]:
    return (ins.index, ins.offset, ins.opname, ins.raw_opname, ins.arg, repr(ins.argval),
            sorted(vars(ins).items()))


def _state(bytecode: Bytecode) -> List[Tuple[Any, ...]]:
    return [_fields(ins) for ins in bytecode.instrs]


def _codes(source: str) -> List[Any]:
    work, found = [compile(textwrap.dedent(source), "<test>", "exec")], []
    while work:
        code = work.pop()
        found.append(code)
        work.extend(c for c in code.co_consts if inspect.iscode(c))
    return found


@pytest.fixture
def guarded(monkeypatch: pytest.MonkeyPatch) -> List[str]:
    """Every decoding of the decompiler's readings registers its instructions; an assignment to
    one of them afterwards is recorded (and refused)."""
    frozen: Set[int] = set()
    keep: List[Bytecode] = []  # (alive, so that no new object reuses a registered id)
    violations: List[str] = []

    def registering_decode(code: Any, version: Any) -> Bytecode:
        bytecode = decode(code, version)
        keep.append(bytecode)
        if "(nothing decoded yet)" in violations:
            violations.remove("(nothing decoded yet)")
        frozen.update(id(ins) for ins in bytecode.instrs)
        return bytecode

    def refusing(self: Instr, name: str, value: Any) -> None:
        if id(self) in frozen:
            violations.append(f"{self!r}.{name} = {value!r}")
            raise AttributeError(f"decoded instruction {self!r} is read-only")
        object.__setattr__(self, name, value)

    # (every reading decodes through `passes.read`: its decoded instructions are the ones frozen)
    monkeypatch.setattr(passes, "decode", registering_decode)
    monkeypatch.setattr(Instr, "__setattr__", refusing)
    violations.append("(nothing decoded yet)")  # removed by the first decoding: proof it was watched
    return violations


@pytest.mark.parametrize("source", SOURCES)
def test_reading_never_assigns_to_decoded_instructions(guarded: List[str], source: str) -> None:
    decompile(compile(textwrap.dedent(source), "<test>", "exec"))
    assert guarded == []


def test_failed_reading_leaves_decoding_as_fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reading that fails right after re-pointing a jump leaves the decoded instructions equal
    to a fresh decoding of the same code."""
    redirected: List[int] = []
    real = builder.CodeBuilder.redirect

    def redirect_then_fail(self: builder.CodeBuilder, k: int, *args: Any, **kwargs: Any) -> None:
        real(self, k, *args, **kwargs)
        redirected.append(k)
        raise DecompilationError("made to fail after a redirect")

    monkeypatch.setattr(builder.CodeBuilder, "redirect", redirect_then_fail)
    version = host()
    for source in SOURCES:
        for code in _codes(source):
            bytecode = decode(code, version)
            before = len(redirected)
            try:
                builder.CodeBuilder(bytecode, lambda *a, **k: [], code.co_name, Printer()).run()
            except DecompilationError:
                pass
            if len(redirected) > before:
                assert _state(bytecode) == _state(decode(code, version))
    if not redirected:
        pytest.skip("no reading re-points a jump on this version")


def test_redirect_changes_only_the_readings_view() -> None:
    code = _codes(SOURCES[0])[-1]
    bytecode = decode(code, host())
    jump = next(ins for ins in bytecode.instrs if ins.target is not None)
    reading = builder.CodeBuilder(bytecode, lambda *a, **k: [], code.co_name, Printer())
    reading.redirect(jump.index, target=0)
    seen: Dict[str, Any] = {"target": reading.instrs[jump.index].target,
                            "opname": reading.instrs[jump.index].opname}
    assert seen == {"target": 0, "opname": jump.opname}
    assert bytecode.instrs[jump.index] is jump and _state(bytecode) == _state(decode(code, host()))
