"""Opcode tables of CPython 3.8 to 3.15, kept as data: one generated module per version.

Each `py3X.py` is written by tools/gen_opcode_tables.py from that interpreter's own `opcode`
module (do not edit them); a new Python version is one more module, listed below. Keys of
`TABLES`: (major, minor). Keys of a table: `opmap`, `have_argument`, the `has*` lists, `cmp_op`,
`nb_ops`, `intrinsic1`/`intrinsic2`, `cache_entries`, `backward_jumps`, `magic`, and:

- `hasjrel` on 3.13+ lists every relative jump, since 3.13 folded the distinction into `hasjump`;
- `adaptive_forms` (3.11+): name -> [number, base instruction] of the specialized and
  instrumented opcodes that only appear in a live code object's adaptive copy;
- `common_constants` (3.14+): LOAD_COMMON_CONSTANT's table, ['builtin', name] or ['value', literal];
- `special_methods` (3.14+): LOAD_SPECIAL's method names;
- `stack_effects` (3.15+): name -> stack effect of the instructions whose effect does not depend
  on their argument.
"""
from typing import Any, Dict, Tuple

from depyf.decompiler.opcode_tables import py38, py39, py310, py311, py312, py313, py314, py315

TABLES: Dict[Tuple[int, int], Dict[str, Any]] = {
    (3, 8): py38.TABLE,
    (3, 9): py39.TABLE,
    (3, 10): py310.TABLE,
    (3, 11): py311.TABLE,
    (3, 12): py312.TABLE,
    (3, 13): py313.TABLE,
    (3, 14): py314.TABLE,
    (3, 15): py315.TABLE,
}
