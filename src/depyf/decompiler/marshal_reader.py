"""Read the code object of a `.pyc` file without `marshal.loads`, which trusts its input.

CPython's own reader allocates whatever sizes a file declares (a 21-byte file can ask for a tuple
of 2**31-1 items: 16 GiB), expands shared references without bound (a few hundred bytes of nested
tuples that share their halves print as hundreds of megabytes) and builds code objects from any
bytes (3.11+: one whose last instruction lacks its inline caches crashes the interpreter when it
is read). This reader, for the marshal format of the running interpreter (version 4, as written
by CPython 3.8-3.13; 5 adds slices, 3.14; 6 frozendicts, 3.15), checks every size against the bytes that are left, bounds the nesting depth
and the size of the value once shared references are expanded (by an allowance proportional to
the input's size), refuses references to objects still being read (no cycles), and builds each
code object with `code.replace` only after its fields have the types and its bytecode the shape
the compiler gives them. Nothing read is ever executed.

    code = read_code(data)   # data: what follows the 16-byte header; MarshalError if refused
"""
import builtins
import struct
import sys
from types import CodeType
from typing import Any, Dict, List, Optional, Tuple

from depyf.decompiler.code_check import raw_code_problem
from depyf.decompiler.versions import BytecodeVersion, host

MAX_DEPTH = 500  # nested containers and code objects (the compiler's own limits are lower)
MAX_LONG_DIGITS = 1 << 14  # 15-bit digits of one int: about 70,000 decimal digits
# The value's size once shared references are expanded, in units of about one printed
# character: a fixed allowance plus one proportional to the input. Compiled code shares its
# names and constants a few times over; a file built to explode stays well past this.
EXPANDED_BASE = 1 << 20
EXPANDED_PER_BYTE = 32

_FLAG_REF = 0x80
_UNFINISHED = object()  # (a reference slot whose object is still being read)
_LOCAL, _CELL, _FREE = 0x20, 0x40, 0x80  # kinds of `co_localspluskinds` (3.11+)


class MarshalError(ValueError):
    """The data is not a marshal stream this reader accepts; the message says why and where."""


class _Reader:
    def __init__(self, data: bytes, version: BytecodeVersion) -> None:
        self.data = data
        self.pos = 0
        self.version = version
        self.refs: List[Tuple[Any, int]] = []  # (object, expanded size)
        self.budget = EXPANDED_BASE + EXPANDED_PER_BYTE * len(data)
        self.depth = 0

    # --- bytes -----------------------------------------------------------------------------

    def fail(self, reason: str) -> MarshalError:
        return MarshalError(f"{reason} (at byte {self.pos})")

    def take(self, count: int) -> bytes:
        if count < 0 or self.pos + count > len(self.data):
            raise self.fail(f"{count} bytes declared, {len(self.data) - self.pos} left")
        chunk = self.data[self.pos:self.pos + count]
        self.pos += count
        return chunk

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise self.fail("truncated")
        value = self.data[self.pos]
        self.pos += 1
        return value

    def int32(self) -> int:
        return struct.unpack("<i", self.take(4))[0]

    def size(self, minimum_each: int = 1, small: bool = False) -> int:
        """A declared count of items (or bytes), which the bytes left must be able to hold."""
        count = self.byte() if small else self.int32()
        if count < 0 or count * minimum_each > len(self.data) - self.pos:
            raise self.fail(f"a declared size of {count} that the {len(self.data) - self.pos} bytes left cannot hold")
        return count

    def spend(self, units: int) -> None:
        self.budget -= units
        if self.budget < 0:
            raise self.fail("the data expands past the size allowed for its length (shared references)")

    # --- objects ---------------------------------------------------------------------------

    def object(self) -> Tuple[Any, int]:
        """The next object and its expanded size."""
        start = self.pos
        code = self.byte()
        flagged = bool(code & _FLAG_REF)
        kind = chr(code & ~_FLAG_REF)
        if kind == "r":
            index = struct.unpack("<I", self.take(4))[0]
            if index >= len(self.refs) or self.refs[index][0] is _UNFINISHED:
                raise self.fail(f"a reference to object {index}, which is not read yet")
            value, weight = self.refs[index]
            self.spend(weight)
            return value, weight
        slot = -1
        if flagged:
            slot = len(self.refs)
            self.refs.append((_UNFINISHED, 0))
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(f"nested more than {MAX_DEPTH} deep")
        try:
            value, weight = self._value(kind, start)
        finally:
            self.depth -= 1
        if slot >= 0:
            self.refs[slot] = (value, weight)
        return value, weight

    def _value(self, kind: str, start: int) -> Tuple[Any, int]:
        simple = _SIMPLE.get(kind, _SIMPLE)
        if simple is not _SIMPLE:
            self.spend(1)
            return simple, 1
        if kind == "i":
            self.spend(1)
            return self.int32(), 1
        if kind == "l":
            return self._long()
        if kind == "g":
            self.spend(1)
            return struct.unpack("<d", self.take(8))[0], 1
        if kind == "y":
            self.spend(1)
            real, imag = struct.unpack("<dd", self.take(16))
            return complex(real, imag), 1
        if kind in ("f", "x"):
            parts = [self._text_float() for _ in range(1 if kind == "f" else 2)]
            self.spend(1)
            return (parts[0] if kind == "f" else complex(parts[0], parts[1])), 1
        if kind == "s":
            data = self.take(self.size())
            self.spend(1 + len(data))
            return data, 1 + len(data)
        if kind in ("u", "t", "a", "A", "z", "Z"):
            return self._text(kind)
        if kind in ("(", ")", ">"):
            return self._items(kind)
        if kind == "c":
            return self._code()
        if kind == ":" and self.version.marshal_version >= 5:
            return self._slice()
        if kind == "}" and self.version.marshal_version >= 6:
            return self._frozendict()
        names = {"[": "list", "{": "dict", "<": "set", "0": "null", "?": "unknown"}
        if kind in names:
            # (compiled code holds none of these: only constants that are immutable)
            raise self.fail(f"a {names[kind]}, which compiled code never holds")
        raise self.fail(f"unknown type code {ord(kind):#x}")

    def _text(self, kind: str) -> Tuple[str, int]:
        """A str: UTF-8 (`u`, `t`), or ASCII-only (`a`, `A`, and `z`, `Z` with a one-byte size),
        read as latin-1; `t`, `A` and `Z` are the interned ones."""
        raw = self.take(self.size(small=kind in ("z", "Z")))
        try:
            text = raw.decode("utf-8", "surrogatepass") if kind in ("u", "t") else raw.decode("latin-1")
        except UnicodeDecodeError:
            raise self.fail("a string that is not UTF-8") from None
        if kind in ("t", "A", "Z"):
            text = sys.intern(text) if "\0" not in text else text
        self.spend(1 + len(text))
        return text, 1 + len(text)

    def _items(self, kind: str) -> Tuple[Any, int]:
        """A tuple (`(`, and `)` with a one-byte size) or a frozenset (`>`) and its items."""
        count = self.size(small=kind == ")")
        items = []
        weight = 1
        for _ in range(count):
            item, item_weight = self.object()
            items.append(item)
            weight += item_weight
        self.spend(1)
        if kind != ">":
            return tuple(items), weight
        try:
            return frozenset(items), weight
        except TypeError:
            raise self.fail("a frozenset of unhashable items") from None

    def _slice(self) -> Tuple[slice, int]:
        parts, weight = [], 1
        for _ in range(3):  # (start, stop, step)
            part, part_weight = self.object()
            parts.append(part)
            weight += part_weight
        self.spend(1)
        return slice(*parts), weight

    def _frozendict(self) -> Tuple[Any, int]:
        """Key and value pairs up to a null key (3.15+)."""
        pairs, weight = [], 1
        while True:
            if self.pos < len(self.data) and self.data[self.pos] == ord("0"):
                self.pos += 1
                break
            key, key_weight = self.object()
            value, value_weight = self.object()
            pairs.append((key, value))
            weight += key_weight + value_weight
        self.spend(1)
        try:
            return getattr(builtins, "frozendict")(pairs), weight
        except TypeError:
            raise self.fail("a frozendict of unhashable keys") from None

    def _text_float(self) -> float:
        text = self.take(self.size(small=True))
        try:
            return float(text.decode("ascii"))
        except (UnicodeDecodeError, ValueError):
            raise self.fail("a float that is not a number") from None

    def _long(self) -> Tuple[int, int]:
        count = self.int32()
        digits = abs(count)
        if digits > MAX_LONG_DIGITS or 2 * digits > len(self.data) - self.pos:
            raise self.fail(f"an int of {digits} digits")
        raw = self.take(2 * digits)
        value = 0
        for k in range(digits - 1, -1, -1):
            digit = raw[2 * k] | (raw[2 * k + 1] << 8)
            if digit >= 1 << 15:
                raise self.fail("an int digit out of range")
            value = (value << 15) | digit
        if digits and raw[-2:] == b"\0\0":
            raise self.fail("an int that is not normalized")
        weight = 1 + digits
        self.spend(weight)
        return (-value if count < 0 else value), weight

    # --- code objects ----------------------------------------------------------------------

    def _field(self, types: Any, what: str) -> Tuple[Any, int]:
        value, weight = self.object()
        if not isinstance(value, types) or isinstance(value, bool) and types is not bool:
            raise self.fail(f"a code object whose {what} is a {type(value).__name__}")
        return value, weight

    def _strings(self, what: str) -> Tuple[Tuple[str, ...], int]:
        value, weight = self._field(tuple, what)
        if not all(type(x) is str for x in value):
            raise self.fail(f"a code object whose {what} are not all strings")
        return value, weight

    def _count(self, what: str) -> int:
        value = self.int32()
        if value < 0:
            raise self.fail(f"a code object with a negative {what}")
        return value

    def _code(self) -> Tuple[CodeType, int]:
        v = self.version
        fields: Dict[str, Any] = {}
        weight = 1
        fields["co_argcount"] = self._count("argument count")
        fields["co_posonlyargcount"] = self._count("positional-only count")
        fields["co_kwonlyargcount"] = self._count("keyword-only count")
        if not v.locals_plus:
            fields["co_nlocals"] = self._count("local count")
        fields["co_stacksize"] = self._count("stack size")
        fields["co_flags"] = self._count("flags")
        for key, types, what in (("co_code", bytes, "bytecode"), ("co_consts", tuple, "constants")):
            fields[key], w = self._field(types, what)
            weight += w
        fields["co_names"], w = self._strings("names")
        weight += w
        if v.locals_plus:
            names, w = self._strings("local names")
            kinds, w2 = self._field(bytes, "local kinds")
            weight += w + w2
            if len(kinds) != len(names):
                raise self.fail("a code object with a kind for each of fewer or more locals")
            fields["co_varnames"] = tuple(x for x, k in zip(names, kinds) if k & _LOCAL)
            fields["co_cellvars"] = tuple(x for x, k in zip(names, kinds) if k & _CELL)
            fields["co_freevars"] = tuple(x for x, k in zip(names, kinds) if k & _FREE)
            if any(not k & (_LOCAL | _CELL | _FREE) for k in kinds):
                raise self.fail("a code object with a local of no kind")
            fields["co_nlocals"] = len(fields["co_varnames"])
        else:
            for key, what in (("co_varnames", "local names"), ("co_freevars", "free names"),
                              ("co_cellvars", "cell names")):
                fields[key], w = self._strings(what)
                weight += w
        fields["co_filename"], w = self._field(str, "file name")
        weight += w
        fields["co_name"], w = self._field(str, "name")
        weight += w
        if v.locals_plus:
            fields["co_qualname"], w = self._field(str, "qualified name")
            weight += w
        fields["co_firstlineno"] = self._count("first line")
        fields[v.line_table_field], w = self._field(bytes, "line table")
        weight += w
        if v.has_exception_table:
            fields["co_exceptiontable"], w = self._field(bytes, "exception table")
            weight += w
        problem = raw_code_problem(fields["co_code"], v)
        if problem is not None:
            raise self.fail(f"a code object that CPython cannot read safely: {problem}")
        try:
            return _TEMPLATE.replace(**fields), weight
        except (ValueError, TypeError, OverflowError, SystemError, MemoryError) as exc:
            raise self.fail(f"a code object CPython refuses: {exc}") from None


_SIMPLE: Dict[str, Any] = {"N": None, "F": False, "T": True, "S": StopIteration, ".": Ellipsis}
_TEMPLATE = compile("", "<template>", "exec", dont_inherit=True)


def read_code(data: bytes, version: Optional[BytecodeVersion] = None) -> CodeType:
    """The code object that `data` (a .pyc file's bytes after its header) holds."""
    version = version or host()
    if version is not host():
        raise ValueError("code objects can only be built for the running interpreter")
    reader = _Reader(bytes(data), version)
    # One Python frame per level of nesting: make room for the deepest accepted.
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(max(saved, saved + MAX_DEPTH + 100))
    try:
        value, _ = reader.object()
    except RecursionError:
        raise reader.fail("nested too deeply") from None
    finally:
        sys.setrecursionlimit(saved)
    if not isinstance(value, CodeType):
        raise MarshalError(f"holds a {type(value).__name__}, not code")
    if reader.pos != len(reader.data):
        raise MarshalError(f"{len(reader.data) - reader.pos} bytes after the code object")
    return value
