""".pyc files built to hurt: declared sizes past the data, shared references that explode,
deep nesting, references to nothing, code objects CPython cannot read safely. The reader
(depyf/decompiler/marshal_reader.py) refuses each within time and memory proportional to the
file, the command line says so in one line with exit code 2, and nothing of the file runs."""
import dis
import importlib.util
import marshal
import struct
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest

from depyf import cli
from depyf.decompiler.marshal_reader import MAX_DEPTH, MarshalError, _Reader, read_code
from depyf.decompiler.versions import host

HEADER = importlib.util.MAGIC_NUMBER + b"\0" * 12
SRC = Path(__file__).resolve().parents[2] / "src"


def _run(capsys, path: Path, *extra: str):
    rc = cli.main(["decompile", str(path), *extra])
    out, err = capsys.readouterr()
    return rc, out, err


def _bad_file(tmp_path: Path, capsys, data: bytes, *fragments: str) -> str:
    path = tmp_path / "hostile.pyc"
    path.write_bytes(HEADER + data)
    for mode in ("raise", "comment"):
        rc, out, err = _run(capsys, path, "--on-error", mode)
        assert rc == 2, err
        assert out == ""
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("depyf: error:"), err
        for fragment in fragments:
            assert fragment in lines[0], lines[0]
    return err


def _small_tuple(items: bytes, count: int, ref: bool = False) -> bytes:
    return bytes([ord(")") | (0x80 if ref else 0), count]) + items


def test_same_objects_as_marshal() -> None:
    for name in ("textwrap", "json.decoder", "string"):
        origin = importlib.util.find_spec(name).origin
        with open(origin, "rb") as f:
            code = compile(f.read(), origin, "exec", dont_inherit=True)
        assert read_code(marshal.dumps(code)) == code


def test_constants_of_every_kind() -> None:
    source = ("x = (None, True, False, ..., 1, -2, 2**40, -(2**70), 1.5, -0.0, 2j, 'é', b'\\0', 'a' * 300,"
              " frozenset({1, 2}), ((1,), ()))\n"
              "def f(a, /, b, *c, d, **e):\n    def g():\n        return a\n    return g\n"
              "def h(a):\n    return a[1:2], a[::-1, 'k'], a[None:2**70]\n")  # (3.14+: slice constants)
    code = compile(source, "<kinds>", "exec", dont_inherit=True)
    assert read_code(marshal.dumps(code)) == code


@pytest.mark.skipif(host().marshal_version < 5, reason="slices are marshalled from 3.14 (format 5)")
def test_slice_constants() -> None:
    code = compile("def f(x):\n    return x[1:2], x[::-1], x['a':None:3]\n", "<slices>", "exec", dont_inherit=True)
    assert any(isinstance(c, slice) for c in code.co_consts[0].co_consts)  # (the compiler folds them)
    assert read_code(marshal.dumps(code)) == code
    # a slice's parts are read as any object: a truncated one is refused, not padded
    with pytest.raises(MarshalError, match="truncated"):
        read_code(marshal.dumps(slice(1, 2, None))[:-1])
    with pytest.raises(MarshalError, match="holds a slice"):
        read_code(marshal.dumps(slice(1, 2, None)))


@pytest.mark.skipif(host().marshal_version < 6, reason="frozendicts are marshalled from 3.15 (format 6)")
def test_frozendict_constants() -> None:
    import builtins

    frozen = builtins.frozendict({1: "a", "b": (2, 3)})  # type: ignore[attr-defined]
    code = compile("x = 1\n", "<fd>", "exec", dont_inherit=True)
    code = code.replace(co_consts=code.co_consts + (frozen, builtins.frozendict()))  # type: ignore[attr-defined]
    data = marshal.dumps(code)
    back = read_code(data)
    # (code objects compare frozendict constants by identity: even marshal.loads' is unequal)
    assert back.co_consts == code.co_consts and back.co_code == code.co_code
    one = marshal.dumps(frozen)
    assert _Reader(one, host()).object()[0] == frozen
    with pytest.raises(MarshalError, match="truncated"):  # (without the null that ends its pairs)
        _Reader(one[:-1], host()).object()


def test_huge_declared_tuple_is_refused_without_allocating(tmp_path: Path, capsys) -> None:
    started = time.perf_counter()
    _bad_file(tmp_path, capsys, b"(" + struct.pack("<i", 2 ** 31 - 1) + b"NN", "corrupt", "declared size")
    assert time.perf_counter() - started < 5  # (a bound far above the milliseconds it takes, not a benchmark)


@pytest.mark.parametrize("kind", [b"s", b"u", b"a", b"["])
def test_huge_declared_string_or_list(tmp_path: Path, capsys, kind: bytes) -> None:
    _bad_file(tmp_path, capsys, kind + struct.pack("<i", 2 ** 31 - 1) + b"xx", "corrupt")


def _doubling_tuples(levels: int) -> bytes:
    """A tuple whose item k is (item k-1, item k-1), by reference: 2**k once expanded."""
    items = _small_tuple(b"NN", 2, ref=True)
    for k in range(1, levels):
        ref = b"r" + struct.pack("<I", k - 1)
        items += _small_tuple(ref + ref, 2, ref=True)
    return _small_tuple(items, levels)


def test_shared_nested_tuples_are_refused(tmp_path: Path, capsys) -> None:
    """Each level holds the previous one twice: 2**60 once expanded, which marshal.loads accepts
    in a few hundred bytes and the decompiler would print as an endless constant."""
    data = _doubling_tuples(60)
    assert len(data) < 800
    assert isinstance(marshal.loads(data), tuple)  # (CPython's reader takes it)
    started = time.perf_counter()
    with pytest.raises(MarshalError, match="expands past"):
        read_code(data)
    assert time.perf_counter() - started < 5
    _bad_file(tmp_path, capsys, data, "corrupt", "expands past")


def test_shared_references_of_real_code_are_fine() -> None:
    """Compiled code shares its names many times over: well inside the allowance."""
    code = compile("\n".join(f"def f{k}(self, other):\n    return self.value + other.value" for k in range(500)),
                   "<shared>", "exec")
    assert read_code(marshal.dumps(code)) == code


def test_deep_nesting(tmp_path: Path, capsys) -> None:
    _bad_file(tmp_path, capsys, b")\x01" * (MAX_DEPTH + 10) + b"N", "corrupt", "nested")
    _bad_file(tmp_path, capsys, b")\x01" * 200000 + b"N", "corrupt", "nested")


@pytest.mark.parametrize("data", [b"r\0\0\0\0", b"\xa9\x01r\0\0\0\0", b"r\xff\xff\xff\xff"])
def test_references_to_nothing(tmp_path: Path, capsys, data: bytes) -> None:
    _bad_file(tmp_path, capsys, data, "corrupt", "reference")


def test_trailing_and_unknown(tmp_path: Path, capsys) -> None:
    good = marshal.dumps(compile("x = 1\n", "<m>", "exec"))
    _bad_file(tmp_path, capsys, good + b"N", "corrupt", "after the code object")
    _bad_file(tmp_path, capsys, b"\x01", "corrupt", "unknown type code")
    _bad_file(tmp_path, capsys, marshal.dumps({"a": 1}), "dict")


def test_slices_only_where_the_format_has_them(tmp_path: Path, capsys) -> None:
    if host().marshal_version >= 5:
        _bad_file(tmp_path, capsys, b":NN", "corrupt", "truncated")  # (start, stop, but no step)
        _bad_file(tmp_path, capsys, b":NNN", "corrupt", "holds a slice, not code")
    else:
        _bad_file(tmp_path, capsys, b":NNN", "corrupt", "unknown type code 0x3a")


def test_huge_int(tmp_path: Path, capsys) -> None:
    _bad_file(tmp_path, capsys, b"l" + struct.pack("<i", 2 ** 30) + b"\1\0" * 4, "corrupt", "int")


def test_code_object_field_of_the_wrong_type(tmp_path: Path, capsys) -> None:
    code = compile("x = 1\n", "<m>", "exec")
    data = marshal.dumps(code.replace(co_filename="FILENAME"))
    # the file name replaced by an int: (`z` + length + text) -> `i` + 4 bytes + padding removed
    blob = marshal.dumps("FILENAME")
    start = data.index(blob[1:]) - 1
    tampered = data[:start] + b"i\1\0\0\0" + data[start + len(blob):]
    _bad_file(tmp_path, capsys, tampered, "corrupt", "file name is a int")


def _function_without_caches() -> types.CodeType:
    """A module whose function ends in LOAD_ATTR without its inline caches."""
    module = compile("def f(x):\n    return x.y\n", "<m>", "exec", dont_inherit=True)
    return module


@pytest.mark.skipif(not host().has_inline_caches, reason="inline caches exist from 3.11")
def test_function_whose_last_instruction_lacks_its_caches(tmp_path: Path, capsys) -> None:
    """Valid header, valid marshal data: CPython would build (and crash on) the object; depyf
    refuses the file instead of printing `pass` bodies."""
    module = _function_without_caches()
    f = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    raw = f.co_code
    load_attr = bytes([dis.opmap["LOAD_ATTR"], 0])
    data = marshal.dumps(module)
    index = data.index(raw)
    # the bytes keep their length: the function now ends in LOAD_ATTR where its return was
    bad = raw[:-len(load_attr)] + load_attr
    tampered = data[:index] + bad + data[index + len(raw):]
    _bad_file(tmp_path, capsys, tampered, "corrupt", "inline caches")


def test_reading_never_runs_the_code(tmp_path: Path, capsys) -> None:
    sentinel = tmp_path / "ran"
    source = (f"open({str(sentinel)!r}, 'w').write('module')\n"
              f"def f():\n    open({str(sentinel)!r}, 'w').write('f')\n"
              f"class C:\n    open({str(sentinel)!r}, 'w').write('class body')\n")
    pyc = tmp_path / "side.pyc"
    pyc.write_bytes(HEADER + marshal.dumps(compile(source, "side.py", "exec")))
    py = tmp_path / "side.py"
    py.write_text(source)
    for path in (pyc, py):
        for extra in ((), ("--function", "f"), ("--function", "C"), ("--on-error", "comment")):
            rc, out, err = _run(capsys, path, *extra)
            assert rc == 0, err
            compile(out, "<out>", "exec")
    assert not sentinel.exists()


def test_reader_memory_stays_small_for_a_lying_file() -> None:
    """In a child under a 1 GiB address-space limit: the 16 GiB tuple is refused, not allocated."""
    child = (
        "import resource, sys, struct\n"
        f"sys.path.insert(0, {str(SRC)!r})\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "from depyf.decompiler.marshal_reader import read_code, MarshalError\n"
        "try:\n    read_code(b'(' + struct.pack('<i', 2**31 - 1) + b'N')\n"
        "except MarshalError as e:\n    print('refused')\n"
    )
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "refused", out.stderr[-2000:]


def _deep_source(kind: str) -> str:
    if kind == "sum":
        return "x = " + "+".join(["x"] * 200000) + "\n"
    if kind == "parens":
        return "x = " + "(" * 1000 + ")" * 1000 + "\n"
    return "x = " + "-" * 200000 + "x\n"


@pytest.mark.parametrize("kind", ["sum", "parens", "unary"])
def test_source_that_cpython_cannot_compile_is_bad_input(tmp_path: Path, capsys, kind: str) -> None:
    path = tmp_path / "deep.py"
    path.write_text(_deep_source(kind))
    rc, out, err = _run(capsys, path)
    assert rc == 2, err
    assert len(err.strip().splitlines()) == 1 and "deep.py" in err
