"""Decode a code object into one instruction model shared by every Python version.

The decoder reads raw `co_code` with the opcode tables of the bytecode's version (never the host's
`dis`), folds EXTENDED_ARG, skips inline caches, resolves arguments to Python-level values and turns
every jump into the *index* of its target instruction. Version differences that do not matter for
reading source are normalised away here, so that the structuring passes see one vocabulary:

* forward/backward/absolute variants of a jump share one name (`JUMP`, `POP_JUMP_IF_FALSE`, ...);
* fused instructions (3.13's `LOAD_FAST_LOAD_FAST`, 3.12's `RETURN_CONST`) are split in two;
* `LOAD_METHOD` becomes `LOAD_ATTR` with `flag=True` (the 3.12 spelling);
* 3.14's spellings of older instructions take the older name: `LOAD_FAST_BORROW` (and its pair)
  is `LOAD_FAST`, `LOAD_SMALL_INT` and a `LOAD_COMMON_CONSTANT` of a plain value are `LOAD_CONST`,
  its `AssertionError` is `LOAD_ASSERTION_ERROR`, `POP_ITER` is `POP_TOP`, `BINARY_OP []` is
  `BINARY_SUBSCR`, and `NOT_TAKEN` (a marker for branch monitoring) is dropped;
* bookkeeping instructions (NOP, RESUME, CACHE, PRECALL, MAKE_CELL, COPY_FREE_VARS, GEN_START,
  RETURN_GENERATOR and its POP_TOP) are dropped, and jumps to them move to the next kept instruction;
* 3.11+ exception-table entries become `ExceptionRegion`s over instruction indices.
"""
import itertools
from operator import attrgetter
from types import CodeType
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from depyf.decompiler.code_check import check_code, check_flags, check_module_names, check_names
from depyf.decompiler.errors import DecompilationError
from depyf.decompiler.versions import BytecodeVersion

_DROPPED = frozenset({
    "NOP", "RESUME", "CACHE", "PRECALL", "MAKE_CELL", "COPY_FREE_VARS", "GEN_START",
    "EXTENDED_ARG", "EXTENDED_ARG_QUICK", "RETURN_GENERATOR", "NOT_TAKEN",
})

_JUMP_ALIASES = {
    "JUMP_FORWARD": "JUMP",
    "JUMP_ABSOLUTE": "JUMP",
    "JUMP_BACKWARD": "JUMP",
    "JUMP_BACKWARD_NO_INTERRUPT": "JUMP",
    "JUMP_NO_INTERRUPT": "JUMP",
    "POP_JUMP_FORWARD_IF_FALSE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_BACKWARD_IF_FALSE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_FORWARD_IF_TRUE": "POP_JUMP_IF_TRUE",
    "POP_JUMP_BACKWARD_IF_TRUE": "POP_JUMP_IF_TRUE",
    "POP_JUMP_FORWARD_IF_NONE": "POP_JUMP_IF_NONE",
    "POP_JUMP_BACKWARD_IF_NONE": "POP_JUMP_IF_NONE",
    "POP_JUMP_FORWARD_IF_NOT_NONE": "POP_JUMP_IF_NOT_NONE",
    "POP_JUMP_BACKWARD_IF_NOT_NONE": "POP_JUMP_IF_NOT_NONE",
    "LOAD_FAST_CHECK": "LOAD_FAST",
    "LOAD_FAST_BORROW": "LOAD_FAST",  # (3.14: the same load, without a new reference)
    "POP_ITER": "POP_TOP",  # (3.14: pops a loop's iterator, which 3.13 popped with POP_TOP)
    "LOAD_METHOD": "LOAD_ATTR",
    "CALL_METHOD": "CALL_FUNCTION",
}

_OPNAME = attrgetter("opname")

_SPLIT_FAST_PAIRS = {
    "LOAD_FAST_LOAD_FAST": ("LOAD_FAST", "LOAD_FAST"),
    "STORE_FAST_LOAD_FAST": ("STORE_FAST", "LOAD_FAST"),
    "STORE_FAST_STORE_FAST": ("STORE_FAST", "STORE_FAST"),
    "LOAD_FAST_BORROW_LOAD_FAST_BORROW": ("LOAD_FAST", "LOAD_FAST"),
}
# Raw instructions the decoder splits in two: each half acts as its own (decoded) name.
SPLIT_RAW = frozenset(_SPLIT_FAST_PAIRS) | {"RETURN_CONST"}

# Instructions that leave the code (return, raise, re-raise), and those after which control never
# falls through to the next instruction (the same plus the unconditional jump).
TERMINAL = frozenset({"RETURN_VALUE", "RAISE_VARARGS", "RERAISE"})
ENDS_FLOW = TERMINAL | {"JUMP"}
# Bound on the blocks 3.10+ compilers copy into the paths that jump to them (they copy exit blocks
# of up to four instructions; the bound leaves room for one extended form).
MAX_COPY = 5

# The conditional jump that jumps exactly when the other falls through (3.12+ spells a backward
# conditional jump as the opposite one over a JUMP back).
OPPOSITE_JUMPS = {"POP_JUMP_IF_FALSE": "POP_JUMP_IF_TRUE", "POP_JUMP_IF_TRUE": "POP_JUMP_IF_FALSE",
                  "POP_JUMP_IF_NONE": "POP_JUMP_IF_NOT_NONE", "POP_JUMP_IF_NOT_NONE": "POP_JUMP_IF_NONE"}


class Instr:
    """One decoded instruction.

    `argval` is the resolved argument: a constant, a name, a comparison or operator symbol, or for
    jumps the index of the target instruction (also in `target`). `flag` carries the extra bit some
    instructions pack with their argument (push NULL, method load, negation for IS_OP/CONTAINS_OP).
    """

    # `target`, `target_offset`, `flag` and `line` keep their usual value (None, None, False,
    # None) as class attributes: an instruction gets its own, in `__dict__`, only where it
    # differs (a jump, a flagged argument). Setting all four on every decoded instruction cost
    # more than those few dicts do (2% of the instructions the interpreter runs to decompile,
    # on 3.10). The six set on every instruction stay slots.
    __slots__ = ("index", "offset", "opname", "raw_opname", "arg", "argval", "__dict__")
    target: Optional[int] = None
    # The raw offset a jump goes to: two jumps to the same `target` may differ there when one
    # goes to a dropped instruction in front of it (a NOP that carries a line).
    target_offset: Optional[int] = None
    flag: bool = False
    line: Optional[int] = None

    @property
    def is_jump(self) -> bool:
        return self.target is not None

    def __repr__(self) -> str:
        extra = f" ->{self.target}" if self.target is not None else ""
        return f"<{self.index}@{self.offset} {self.opname} {self.argval!r}{extra}>"


def make_instr(offset: int, opname: str, raw_opname: str, arg: Optional[int], argval: Any,
               flag: bool = False, line: Optional[int] = None, index: int = -1) -> Instr:
    """A new instruction. (`Instr` has no `__init__`: the decoding loops call `Instr()` and set
    the six fields themselves, which costs half of what a call of `object.__new__` does.)"""
    instr = Instr()
    instr.index = index
    instr.offset = offset
    instr.opname = opname
    instr.raw_opname = raw_opname
    instr.arg = arg
    instr.argval = argval
    if flag is not False:
        instr.flag = flag
    if line is not None:
        instr.line = line
    return instr


def redirected(ins: Instr, target: int) -> Instr:
    """A copy of the jump `ins` that goes to `target` (its other fields kept).

    Decoded instructions are never changed: a reading that takes a jump to go elsewhere (a
    handler's way out pointed at the clause's end) puts such a copy in its own list of
    instructions, the overlay `CodeBuilder.redirect` keeps; the decoded `Bytecode` stays as the
    decoder made it."""
    new = Instr()
    new.index = ins.index
    new.offset = ins.offset
    new.opname = ins.opname
    new.raw_opname = ins.raw_opname
    new.arg = ins.arg
    new.argval = ins.argval
    new.__dict__.update(ins.__dict__)
    new.target = new.argval = target
    return new


class ExceptionRegion:
    """A protected range [start, end) of instruction indices whose exceptions go to `handler`."""

    __slots__ = ("start", "end", "handler", "depth", "lasti")

    def __init__(self, start: int, end: int, handler: int, depth: int, lasti: bool) -> None:
        self.start = start
        self.end = end
        self.handler = handler
        self.depth = depth
        self.lasti = lasti

    def __repr__(self) -> str:
        return f"<region [{self.start},{self.end}) -> {self.handler} depth={self.depth}{' lasti' if self.lasti else ''}>"


class Bytecode:
    """The decoded instructions of one code object, plus its exception regions."""

    def __init__(self, code: CodeType, version: BytecodeVersion, instrs: List[Instr],
                 regions: List[ExceptionRegion], raw_targets: Optional[Dict[int, int]] = None,
                 jumps: Optional[List[Instr]] = None) -> None:
        self.code = code
        self.version = version
        self.instrs = instrs
        self.regions = regions
        # Jump index -> the byte offset it jumps to. Two jumps to one index may still differ
        # there: one lands on a dropped NOP (a `while` line's), the other on what follows.
        self.raw_targets: Dict[int, int] = raw_targets if raw_targets is not None else {}
        # The jumps among `instrs`, in order, where the decoder lists them (every decoded code
        # object); None: to be picked out of `instrs` (the passes that make new instructions,
        # or lay code out again, may turn an instruction into a jump).
        self.jumps = jumps
        self._opnames: Optional[FrozenSet[str]] = None
        # The control-flow graph of these instructions (`graph.FlowGraph.of` makes it on first
        # use and keeps it here: every reading of this code asks the same one).
        self.graph: Optional[Any] = None

    def __len__(self) -> int:
        return len(self.instrs)

    def opnames(self) -> FrozenSet[str]:
        """The opnames the instructions have (taken once: the passes that look for a rare
        instruction ask this first, instead of each scanning every instruction)."""
        found = self._opnames
        if found is None:
            found = self._opnames = frozenset(map(_OPNAME, self.instrs))
        return found


def _local_names(code: CodeType, version: BytecodeVersion) -> Tuple[Sequence[str], Sequence[str]]:
    """Names indexed by local-variable and by cell/free-variable instructions."""
    if version.locals_plus:
        plus = list(code.co_varnames)
        plus += [name for name in code.co_cellvars if name not in code.co_varnames]
        plus += list(code.co_freevars)
        return plus, plus
    return code.co_varnames, code.co_cellvars + code.co_freevars


def _parse_exception_table(table: bytes) -> List[Tuple[int, int, int, int, bool]]:
    """Entries (start, end, target, depth, lasti) in code units, from the varint-packed table."""
    entries = []
    pos = 0

    def varint() -> int:
        nonlocal pos
        byte = table[pos]
        pos += 1
        value = byte & 63
        while byte & 64:
            byte = table[pos]
            pos += 1
            value = (value << 6) | (byte & 63)
        return value

    try:
        while pos < len(table):
            start = varint()
            length = varint()
            target = varint()
            depth_lasti = varint()
            entries.append((start, start + length, target, depth_lasti >> 1, bool(depth_lasti & 1)))
    except IndexError:
        raise DecompilationError("truncated exception table") from None
    return entries


class _Tables:
    """Per-version lookup tables, built once: opcode number -> name, argument kind, cache size."""

    def __init__(self, version: BytecodeVersion) -> None:
        tables = version.tables
        self.version = version
        self.names: Dict[int, str] = {num: name for name, num in tables["opmap"].items()}
        self.kind = kinds = _argument_kinds(version)
        self.jrel = frozenset(tables["hasjrel"])
        self.jabs = frozenset(tables["hasjabs"])
        self.backward = frozenset(tables["backward_jumps"])
        self.cache = {name: 2 * count for name, count in tables["cache_entries"].items()}
        self.cmp_op = tables["cmp_op"]
        self.nb_ops = tables["nb_ops"]
        self.common_constants = [_common_constant(entry) for entry in tables.get("common_constants", [])]
        self.special_methods = tables.get("special_methods", [])
        self.have_argument = tables["have_argument"]
        self.unit = 2 if version.jump_args_in_instructions else 1
        self.cmp_shift = version.compare_op_shift
        # Opcodes of the instructions `_finish` drops (EXTENDED_ARG is folded, never decoded):
        # code with none of them keeps every instruction as decoded.
        self.dropped_ops = frozenset(num for num, name in self.names.items()
                                     if name in _DROPPED and name not in ("EXTENDED_ARG", "EXTENDED_ARG_QUICK"))
        self.extended_ops = frozenset(num for num, name in self.names.items()
                                      if name in ("EXTENDED_ARG", "EXTENDED_ARG_QUICK"))
        self.no_caches = not any(self.cache.values())  # (before 3.11)
        self.info = self._opcode_info(kinds)
        self.opname_of = self._decoded_names(kinds)

    def _decoded_names(self, kinds: Dict[str, int]) -> List[Optional[str]]:
        """Opcode number -> the opname `_decode_units` gives its instruction, where that is
        always the same one (None: it depends on the argument, or no instruction has it), so
        that `Bytecode.opnames` can be taken from the opcodes present instead of every
        instruction."""
        names: List[Optional[str]] = [None] * 256
        for num, (name, kind, _, alias, _) in enumerate(self.info):
            if kind == _METHOD:
                names[num] = "LOAD_ATTR"
            elif kind == _NEGATABLE:
                names[num] = name
            elif kind not in (_SPECIAL, _UNKNOWN, _EXTENDED):
                names[num] = alias
        return names

    def _opcode_info(self, kinds: Dict[str, int]) -> List[Tuple[str, int, int, str, int]]:
        """Everything the decoding loops need about an opcode, in one lookup by its number:
        (name, argument kind, cache bytes after it, normalized name, jump kind), from the
        version's tables (the `dis` data of that CPython, never the host's).
        An opcode no table names gets `_UNKNOWN`, which the loops report as an error."""
        info: List[Tuple[str, int, int, str, int]] = [
            (f"<{num}>", _UNKNOWN, 0, f"<{num}>", _NO_JUMP) for num in range(256)]
        for num, name in self.names.items():
            if num > 255:
                continue  # a pseudo-instruction of the compiler (3.12+): never in co_code
            if name in ("EXTENDED_ARG", "EXTENDED_ARG_QUICK"):
                kind = _EXTENDED
            else:
                kind = kinds.get(name, _PLAIN)
            if name in self.jabs:
                jump = _JUMP_ABSOLUTE
            elif name in self.jrel:
                jump = _JUMP_BACKWARD if name in self.backward else _JUMP_FORWARD
            else:
                jump = _NO_JUMP
            if kind != _PLAIN:
                jump = _NO_JUMP  # (only a plain argument is a jump's distance or target)
            if num < self.have_argument:
                # Below HAVE_ARGUMENT the argument byte means nothing: `arg` and `argval` are None.
                # Every such instruction is a plain one (the loops rely on it: no check there).
                if kind != _PLAIN or jump:
                    raise AssertionError(f"{name}: an instruction without argument that is not plain")
                kind = _NO_ARG
            # (an instruction whose argument is a constant, a name or a comparison keeps its name)
            alias = name if kind in (_CONST, _NAME, _FREE, _COMPARE) else _JUMP_ALIASES.get(name, name)
            info[num] = (name, kind, self.cache.get(name, 0), alias, jump)
        return info


def _argument_kinds(version: BytecodeVersion) -> Dict[str, int]:
    """Instruction name -> how its argument decodes (`_CONST`, `_NAME`, ...; `_SPECIAL` where it
    packs more than an index, or the instruction decodes to two); names not in it are `_PLAIN`."""
    tables = version.tables
    kinds: Dict[str, int] = {}
    for kind, key in ((_CONST, "hasconst"), (_NAME, "hasname"), (_LOCAL, "haslocal"),
                      (_FREE, "hasfree"), (_COMPARE, "hascompare")):
        for name in tables[key]:
            kinds[name] = kind
    for name in ("BINARY_OP", "CALL_INTRINSIC_1", "CALL_INTRINSIC_2"):
        kinds[name] = _SPECIAL
    for name in list(_SPLIT_FAST_PAIRS) + ["RETURN_CONST", "LOAD_SUPER_ATTR",
                                            "LOAD_SMALL_INT", "LOAD_COMMON_CONSTANT", "LOAD_SPECIAL"]:
        kinds[name] = _SPECIAL
    # (decoded by `_special` too, except in `_decode_units`, which makes them itself)
    kinds["LOAD_METHOD"] = _METHOD
    kinds["IS_OP"] = kinds["CONTAINS_OP"] = _NEGATABLE
    # (where no bit is packed with the name index, these decode as any name instruction)
    if version.load_global_pushes_null_bit:
        kinds["LOAD_GLOBAL"] = _SPECIAL
    if version.load_attr_method_bit:
        kinds["LOAD_ATTR"] = _SPECIAL
    if version.import_name_packs_lazy_bits:
        kinds["IMPORT_NAME"] = _SPECIAL
    return kinds


def _common_constant(entry: List[Any]) -> Tuple[str, Any]:
    """One entry of LOAD_COMMON_CONSTANT's table, as kept by the generator."""
    kind, value = entry
    if kind not in ("builtin", "value"):
        raise AssertionError(f"common constant of unknown kind {kind!r}")
    return kind, value


_PLAIN, _CONST, _NAME, _LOCAL, _FREE, _COMPARE, _SPECIAL, _EXTENDED, _NO_ARG, _UNKNOWN, _METHOD, _NEGATABLE = range(12)
_TABLE_KINDS = _COMPARE  # (the kinds below it take their value from a table indexed by the argument)
_NUMBERS = range(1 << 32)  # (the "table" of `_PLAIN`: each argument is its own value)
_NO_JUMP, _JUMP_ABSOLUTE, _JUMP_FORWARD, _JUMP_BACKWARD = range(4)
_TABLE_CACHE: Dict[Tuple[int, int], _Tables] = {}


def _tables(version: BytecodeVersion) -> _Tables:
    found = _TABLE_CACHE.get(version.key)
    if found is None:
        found = _TABLE_CACHE[version.key] = _Tables(version)
    return found


def decode(code: CodeType, version: BytecodeVersion) -> Bytecode:
    """Decode `code`, whose bytecode is of `version`, into a `Bytecode`; code that no compiler
    could have made (names no source spells, caches that do not fit) is refused first."""
    check_code(code, version)  # (before anything reads co_code: CPython may crash reading it)
    modules = check_names(code, version)
    check_flags(code, version)
    bytecode = _decode(code, version)
    if modules:
        check_module_names(bytecode.instrs, modules, version, code.co_name)
    return bytecode


def _decode(code: CodeType, version: BytecodeVersion) -> Bytecode:
    t = _tables(version)
    local_names, free_names = _local_names(code, version)
    raw = code.co_code
    if len(raw) % 2:
        raise DecompilationError("bytecode has an odd length", function=code.co_name,
                                 python_version=version.key)
    decoded: List[Instr] = []
    jumps: List[Tuple[Instr, int]] = []
    # Raw offset -> index of the first instruction decoded there (by the general loop); where
    # nothing is dropped these are the final indices.
    index_at: Dict[int, int] = {}
    ops = raw[::2]  # (every instruction's opcode is at an even position of the raw code)
    if t.no_caches:
        finished = _decode_units(code, version, t, local_names, free_names, decoded, jumps, index_at)
        if finished is not None:
            return finished
    else:
        _decode_general(code, version, t, local_names, free_names, decoded, jumps, index_at)
    keeps_all = t.dropped_ops.isdisjoint(ops)
    return _finish(code, version, decoded, jumps, index_at if keeps_all else None)


def _unknown_opcode(code: CodeType, version: BytecodeVersion, op: int, offset: int) -> DecompilationError:
    """An opcode the version's tables do not name: no compiler of that version made this code."""
    return DecompilationError(f"unknown opcode {op}", function=code.co_name, offset=offset,
                              opname=f"<{op}>", python_version=version.key)


def _argument_tables(consts: tuple, names: tuple, local_names: Sequence[str],
                     free_names: Sequence[str]) -> List[Any]:
    """Argument kind -> the table its argument indexes, for the kinds below `_TABLE_KINDS`
    (`_PLAIN`: the number itself), so that `_decode_units` reads a value in one lookup."""
    by_kind: List[Any] = [None] * _TABLE_KINDS
    by_kind[_PLAIN], by_kind[_CONST], by_kind[_NAME] = _NUMBERS, consts, names
    by_kind[_LOCAL], by_kind[_FREE] = local_names, free_names
    return by_kind


def _out_of_range(code: CodeType, version: BytecodeVersion, offset: int, name: str) -> DecompilationError:
    return DecompilationError("argument out of range", function=code.co_name,
                              offset=offset, opname=name, python_version=version.key)


def _arguments(raw: bytes, ops: bytes, extended: FrozenSet[int]) -> Tuple[Sequence[int], Dict[int, int]]:
    """Each code unit's argument, and where EXTENDED_ARG prefixes (before 3.11) come first, with
    their bits folded in as `_decode_general` folds them; and each prefixed instruction's raw
    offset -> its first prefix's (its offset: jumps to it go there). `bytes.find` visits only
    the prefixes."""
    k = min((k for k in map(ops.find, extended) if k >= 0), default=-1)
    if k < 0:
        return raw[1::2], {}  # (the common case)
    args, starts, count = list(raw[1::2]), {}, len(ops)
    while k >= 0:
        first, ext = k, 0
        while k < count and ops[k] in extended:
            ext = (args[k] | ext) << 8
            k += 1
        if k == count:
            break  # (a prefix of nothing, at the end: ignored, as `_decode_general` ignores it)
        args[k] |= ext
        starts[2 * k] = 2 * first
        k = min((k for k in (ops.find(op, k + 1) for op in extended) if k >= 0), default=-1)
    return args, starts


def _decode_units(code: CodeType, version: BytecodeVersion, t: _Tables, local_names: Sequence[str],
                  free_names: Sequence[str], decoded: List[Instr], jumps: List[Tuple[Instr, int]],
                  index_at: Dict[int, int]) -> Optional[Bytecode]:
    """Code without caches (before 3.11): the same instructions as `_decode_general` makes, made
    faster. Commonly one code unit per instruction (no prefix, none decoding to two): offset 2k
    is the k-th. Prefixes (EXTENDED_ARG) make none: `_arguments` folds their bits in, indices
    and offsets are set after the loop. The finished bytecode where nothing is dropped, else
    None (`decoded`, `jumps` and `index_at` filled for `_finish`)."""
    info, unit, cmp_op, cmp_shift = t.info, t.unit, t.cmp_op, t.cmp_shift
    consts, names, raw = code.co_consts, code.co_names, code.co_code
    size, ops = len(raw), raw[::2]
    args, starts = _arguments(raw, ops, t.extended_ops)
    append, new = decoded.append, Instr  # (`Instr` has no __init__: its fields are set below)
    offset, name = 0, ""  # (named by the error below)
    # One handler around the whole loop: an argument out of range is the only IndexError there.
    try:
        # The argument's value, for the kinds that index a table: one lookup, no test per kind.
        by_kind = _argument_tables(consts, names, local_names, free_names)
        for index, offset, op, oparg in zip(itertools.count(), range(0, size, 2), ops, args):
            name, kind, _, alias, jump = info[op]
            if kind < _TABLE_KINDS:  # (most instructions)
                arg, argval = oparg, by_kind[kind][oparg]
            elif kind == _NO_ARG:
                arg = argval = None
            elif kind == _COMPARE:
                arg, argval, alias = oparg, cmp_op[oparg >> cmp_shift], name
            elif kind == _UNKNOWN:
                raise _unknown_opcode(code, version, op, offset)
            elif kind == _EXTENDED:
                continue  # (its bits are in the next unit's argument)
            elif kind == _METHOD or kind == _NEGATABLE:
                # (what `_special` makes of these, its commonest before 3.12, without its calls)
                instr = new()
                instr.index, instr.offset = index, offset
                instr.raw_opname, instr.arg = name, oparg
                if kind == _METHOD:
                    instr.opname, instr.argval, instr.flag = "LOAD_ATTR", names[oparg], True
                else:
                    instr.opname, instr.argval = name, oparg
                    if oparg:
                        instr.flag = True  # (`is not`, `not in`)
                append(instr)
                continue
            else:
                _special(decoded, t, name, oparg, offset, consts, names, local_names)
                continue
            # `make_instr(offset, alias, name, arg, argval, False, None, index)`, inlined (the
            # call was a third of the time of this loop before 3.11); the other attributes
            # keep their class-level values
            instr = new()
            instr.index = index
            instr.offset = offset
            instr.opname = alias
            instr.raw_opname = name
            instr.arg = arg
            instr.argval = argval
            if jump:
                if jump == _JUMP_ABSOLUTE:
                    target = oparg * unit
                elif jump == _JUMP_BACKWARD:
                    target = offset + 2 - oparg * unit
                else:
                    target = offset + 2 + oparg * unit
                jumps.append((instr, target))
            append(instr)
    except IndexError:
        raise _out_of_range(code, version, offset, name) from None
    if starts or len(decoded) != size // 2:  # (prefixes: fewer instructions than units)
        for k, instr in enumerate(decoded):
            instr.index, instr.offset = k, starts.get(instr.offset, instr.offset)
            index_at.setdefault(instr.offset, k)
    elif t.dropped_ops.isdisjoint(ops):
        bytecode = _finish_in_place(code, version, decoded, jumps)
        # (each instruction decoded from one opcode: the opnames are those of the opcodes present,
        # a few dozen, where each has a fixed one)
        present = [t.opname_of[op] for op in set(ops)]
        if None not in present:
            bytecode._opnames = frozenset(present)
        return bytecode
    return None


def _decode_general(code: CodeType, version: BytecodeVersion, t: _Tables, local_names: Sequence[str],
                    free_names: Sequence[str], decoded: List[Instr], jumps: List[Tuple[Instr, int]],
                    index_at: Dict[int, int]) -> None:
    """Decode any version's code (EXTENDED_ARG prefixes, inline caches) into `decoded`, the jumps
    with their target offsets into `jumps` and each instruction's index into `index_at`."""
    info, unit, have_argument, cmp_op, cmp_shift = t.info, t.unit, t.have_argument, t.cmp_op, t.cmp_shift
    consts, names, raw = code.co_consts, code.co_names, code.co_code
    size, append, new = len(raw), decoded.append, Instr
    ext, pos, prefix_start = 0, 0, -1  # (the EXTENDED_ARG bits so far; where its prefix starts)
    offset, name = 0, ""  # (named by the error below)
    try:
        while pos < size:
            op = raw[pos]
            name, kind, cache_bytes, alias, jump = info[op]
            if kind == _UNKNOWN:
                raise _unknown_opcode(code, version, op, pos)
            oparg = raw[pos + 1] | ext
            offset = pos
            pos += 2
            if kind == _EXTENDED:
                ext = oparg << 8
                if prefix_start < 0:
                    prefix_start = offset
                continue
            # Jumps target the first EXTENDED_ARG of a prefixed instruction.
            if prefix_start < 0:
                instr_offset = offset
            else:
                instr_offset = prefix_start
                prefix_start = -1
            ext = 0
            pos += cache_bytes
            arg = oparg if op >= have_argument else None
            index = index_at[instr_offset] = len(decoded)
            if kind == _PLAIN or kind == _LOCAL or kind == _NO_ARG:
                argval = local_names[oparg] if kind == _LOCAL else arg
            elif kind == _CONST:
                argval, alias = consts[oparg], name
            elif kind == _NAME:
                argval, alias = names[oparg], name
            elif kind == _FREE:
                argval, alias = free_names[oparg], name
            elif kind == _COMPARE:
                argval, alias = cmp_op[oparg >> cmp_shift], name
            else:
                _special(decoded, t, name, oparg, instr_offset, consts, names, local_names)
                continue
            # `make_instr(instr_offset, alias, name, arg, argval, False, None, index)`, as in `_decode_units`
            instr = new()
            instr.index = index
            instr.offset = instr_offset
            instr.opname = alias
            instr.raw_opname = name
            instr.arg = arg
            instr.argval = argval
            if jump:
                if jump == _JUMP_ABSOLUTE:
                    target = oparg * unit
                elif jump == _JUMP_BACKWARD:
                    target = pos - oparg * unit
                else:
                    target = pos + oparg * unit
                jumps.append((instr, target))
            append(instr)
    except IndexError:
        raise _out_of_range(code, version, offset, name) from None


def _special(out: List[Instr], t: _Tables, name: str, arg: int, offset: int, consts: tuple,
             names: tuple, local_names: Sequence[str]) -> None:
    """Instructions whose argument packs more than an index, or that decode to two instructions."""
    version = t.version
    index = len(out)
    if name == "LOAD_METHOD":  # (first: the most common of these before 3.12)
        out.append(make_instr(offset, "LOAD_ATTR", name, arg, names[arg], True, None, index))
    elif name in _SPLIT_FAST_PAIRS:
        first, second = _SPLIT_FAST_PAIRS[name]
        out.append(make_instr(offset, first, name, arg, local_names[arg >> 4], False, None, index))
        out.append(make_instr(offset, second, name, arg, local_names[arg & 15], False, None, index + 1))
    elif name == "RETURN_CONST":
        out.append(make_instr(offset, "LOAD_CONST", name, arg, consts[arg], False, None, index))
        out.append(make_instr(offset, "RETURN_VALUE", name, None, None, False, None, index + 1))
    elif name == "LOAD_GLOBAL" and version.load_global_pushes_null_bit:
        out.append(make_instr(offset, name, name, arg, names[arg >> 1], bool(arg & 1), None, index))
    elif name == "LOAD_ATTR" and version.load_attr_method_bit:
        out.append(make_instr(offset, name, name, arg, names[arg >> 1], bool(arg & 1), None, index))
    elif name == "IMPORT_NAME":  # (3.15: bit 0 lazy, bit 1 eager, the name index above them)
        out.append(make_instr(offset, name, name, arg, names[arg >> 2], bool(arg & 1), None, index))
    elif name == "LOAD_SUPER_ATTR":
        out.append(make_instr(offset, name, name, arg, names[arg >> 2], bool(arg & 1), None, index))
    elif name in ("LOAD_GLOBAL", "LOAD_ATTR", "LOAD_METHOD"):
        out.append(make_instr(offset, "LOAD_ATTR" if name == "LOAD_METHOD" else name, name, arg, names[arg],
                         name == "LOAD_METHOD", None, index))
    elif name in ("IS_OP", "CONTAINS_OP"):
        out.append(make_instr(offset, name, name, arg, arg, bool(arg), None, index))
    elif name == "BINARY_OP":
        if t.nb_ops[arg][0] == "NB_SUBSCR":  # (3.14: a subscript is a binary operator)
            out.append(make_instr(offset, "BINARY_SUBSCR", name, None, None, False, None, index))
        else:
            out.append(make_instr(offset, name, name, arg, t.nb_ops[arg][1], False, None, index))
    elif name == "LOAD_SMALL_INT":
        out.append(make_instr(offset, "LOAD_CONST", name, arg, arg, False, None, index))
    elif name == "LOAD_COMMON_CONSTANT":
        kind, value = t.common_constants[arg]
        if kind == "value":
            out.append(make_instr(offset, "LOAD_CONST", name, arg, value, False, None, index))
        elif value == "AssertionError":
            out.append(make_instr(offset, "LOAD_ASSERTION_ERROR", name, None, None, False, None, index))
        else:  # (a builtin the compiler loads by itself: argval is its name)
            out.append(make_instr(offset, name, name, arg, value, False, None, index))
    elif name == "LOAD_SPECIAL":
        out.append(make_instr(offset, name, name, arg, t.special_methods[arg], False, None, index))
    elif name == "CALL_INTRINSIC_1":
        out.append(make_instr(offset, name, name, arg, version.tables["intrinsic1"][arg], False, None, index))
    elif name == "CALL_INTRINSIC_2":
        out.append(make_instr(offset, name, name, arg, version.tables["intrinsic2"][arg], False, None, index))
    else:
        out.append(make_instr(offset, name, name, arg, arg, False, None, index))


def _nested_loop_heads(decoded: List[Instr], jumps: List[Tuple[Instr, int]],
                       table: List[Tuple[int, int, int, int, bool]]) -> Set[int]:
    """Offsets of NOPs kept because two loops start there: a loop whose body begins with
    `while True:` (or a try holding it, 3.11+) jumps back to the NOP of that line, the inner loop
    to the instruction after it. Dropped, both would jump back to one index, and the reader
    would see one loop."""
    if not decoded:
        return set()  # (nothing dropped: the common case before 3.11)
    back_sources: Dict[int, List[int]] = {}
    for instr, target in jumps:
        if target <= instr.offset:
            back_sources.setdefault(target, []).append(instr.offset)
    kept: Set[int] = set()
    for k, instr in enumerate(decoded):
        if instr.raw_opname != "NOP" or instr.offset not in back_sources:
            continue
        # 3.12+: a loop whose except clause's `continue` goes to its `while` line's NOP and whose
        # body's end goes to the next head (another NOP, when that is an inner loop's line).
        head = next((x for x in decoded[k + 1:] if x.raw_opname not in _DROPPED or x.offset in back_sources), None)
        if head is not None and head.offset in back_sources and _continues_from_own_handler(
                decoded, table, back_sources[instr.offset], head.offset, max(back_sources[head.offset])):
            continue
        after = next((x for x in decoded[k + 1:] if x.raw_opname not in _DROPPED), None)
        if after is not None and after.offset in back_sources:
            kept.add(instr.offset)
    return kept


def _continues_from_own_handler(decoded: List[Instr], table: List[Tuple[int, int, int, int, bool]],
                                sources: List[int], head: int, closing: int) -> bool:
    """Are the jumps at `sources` (to a `while` line's NOP) all an except clause's `continue`
    whose try lies inside the loop from `head` to its closing jump at `closing`? Then the NOP
    and `head` start one loop: 3.12+ send the clause's `continue` to the NOP and the body's end
    to the statement after it. (An outer loop's head reached from a handler belongs to a try
    after the inner loop.)"""
    position = {instr.offset: k for k, instr in enumerate(decoded)}
    for src in sources:
        k = position.get(src)
        if k is None:
            return False
        before = k - 1
        while before >= 0 and decoded[before].raw_opname in ("LOAD_CONST", "STORE_FAST", "DELETE_FAST"):
            before -= 1  # (a named clause's `e = None; del e`)
        if before < 0 or decoded[before].raw_opname != "POP_EXCEPT":
            return False
        entry = next((x.offset for x in reversed(decoded[:before]) if x.raw_opname == "PUSH_EXC_INFO"), None)
        starts = [start * 2 for start, _, handler, _, _ in table if handler * 2 == entry]
        if not starts or not head <= min(starts) < closing:
            return False
    return True


def _finish_in_place(code: CodeType, version: BytecodeVersion, decoded: List[Instr],
                     jumps: List[Tuple[Instr, int]]) -> Bytecode:
    """`_finish` for code that keeps every instruction as decoded, one code unit each (the common
    case before 3.11): the instruction at offset 2k is the k-th, so a jump's target offset gives
    its index without a table."""
    last = len(code.co_code)
    raw_targets: Dict[int, int] = {}
    for instr, target in jumps:
        if not 0 <= target <= last:
            raise DecompilationError("jump target outside the code", function=code.co_name,
                                     offset=instr.offset, opname=instr.raw_opname, python_version=version.key)
        instr.target = instr.argval = target >> 1
        instr.target_offset = target
        raw_targets[instr.index] = target
    return Bytecode(code, version, decoded, [], raw_targets, [instr for instr, _ in jumps])


def _finish(code: CodeType, version: BytecodeVersion, decoded: List[Instr],
            jumps: List[Tuple[Instr, int]], decoded_index_at: Optional[Dict[int, int]] = None) -> Bytecode:
    """Drop bookkeeping instructions, index what is left and resolve jump targets.
    `decoded_index_at`: where nothing is to be dropped, the raw offsets' indices as decoded."""
    # Each raw offset maps to the index the instruction there (or the next kept one) gets.
    kept: List[Instr] = []
    index_at: Dict[int, int] = {}
    to_filter = decoded
    if decoded_index_at is not None:
        # The common case before 3.11: nothing to drop, every instruction is kept, with the
        # index it was decoded with (3.13's split pairs share their offset: the first's).
        kept, to_filter, index_at = decoded, [], decoded_index_at
    table = _parse_exception_table(code.co_exceptiontable) if version.has_exception_table else []
    _keep_instructions(to_filter, _nested_loop_heads(to_filter, jumps, table), kept, index_at)
    index_at[len(code.co_code)] = len(kept)
    raw_targets: Dict[int, int] = {}
    kept_jumps: List[Instr] = []  # (in order: the jumps were decoded in it)
    for instr, target in jumps:
        if instr.index < 0:
            continue
        idx = index_at.get(target)
        instr.target = instr.argval = idx if idx is not None else _index_after(code, version, index_at, target, instr)
        instr.target_offset = target
        raw_targets[instr.index] = target
        kept_jumps.append(instr)
    regions: List[ExceptionRegion] = []
    if version.has_exception_table:
        # The error names the code's last instruction, a dropped one (RESUME) if that is all.
        at = kept[-1] if kept else (decoded[-1] if decoded else None)
        for start, stop, handler, depth, lasti in table:
            region = ExceptionRegion(_index_after(code, version, index_at, start * 2, at),
                                     _index_after(code, version, index_at, stop * 2, at),
                                     _index_after(code, version, index_at, handler * 2, at), depth, lasti)
            if region.start < region.end:
                regions.append(region)
    return Bytecode(code, version, kept, regions, raw_targets, kept_jumps)


def _keep_instructions(to_filter: List[Instr], kept_nops: Set[int], kept: List[Instr],
                       index_at: Dict[int, int]) -> None:
    """Append to `kept` the instructions of `to_filter` that are not bookkeeping (`_DROPPED`,
    and the POP_TOP that follows 3.11+'s RETURN_GENERATOR: it pops the generator object the
    frame's creation left), each indexed; a dropped one's offset maps to the next kept one."""
    pending: List[int] = []
    skip_pop_after_gen = False
    for instr in to_filter:
        name = instr.raw_opname
        if name in _DROPPED or skip_pop_after_gen:  # (most instructions: neither)
            drop = name in _DROPPED and instr.offset not in kept_nops
            if skip_pop_after_gen and instr.opname == "POP_TOP":
                drop, skip_pop_after_gen = True, False
            if name == "RETURN_GENERATOR":
                skip_pop_after_gen = True  # (and the POP_TOP after it)
            if drop:
                instr.index = -1  # (not kept: no index)
                pending.append(instr.offset)
                continue
        index = instr.index = len(kept)
        if instr.offset not in index_at:
            index_at[instr.offset] = index
        if pending:
            for off in pending:
                index_at[off] = index
            pending.clear()
        kept.append(instr)
    end = len(kept)
    for off in pending:
        index_at[off] = end


def _index_after(code: CodeType, version: BytecodeVersion, index_at: Dict[int, int], offset: int,
                 instr: Optional[Instr] = None) -> int:
    """The index of the instruction at raw `offset`, or where that is the middle of a cache or
    an EXTENDED_ARG prefix (a jump there), of the next instruction."""
    idx = index_at.get(offset)
    if idx is None:
        later = [o for o in index_at if o > offset]
        if not later:
            raise DecompilationError("jump target outside the code", function=code.co_name,
                                     offset=instr.offset if instr else None,
                                     opname=instr.raw_opname if instr else None,
                                     python_version=version.key)
        idx = index_at[min(later)]
    return idx
