"""The code-object files of prepare_debug(log_bytecode=True): saved, loaded back, compared."""
from __future__ import annotations

import pickle
import subprocess
import sys
import types

from depyf.dump.code_objects import dumps_code, load_code, save_code


def sample(x):
    def nested(y):
        return (y, "MARK")

    return nested(x), "MARK"


def _with_constant(code: types.CodeType, value: object) -> types.CodeType:
    consts = []
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            consts.append(_with_constant(c, value))
        elif c == "MARK":
            consts.append(value)
        else:
            consts.append(c)
    return code.replace(co_consts=tuple(consts))


def same_code(a: types.CodeType, b: types.CodeType) -> bool:
    """Equal code, constants compared with ``==`` (code objects compare other objects by identity)."""
    if (a.co_code, a.co_names, a.co_varnames, a.co_freevars, a.co_cellvars) != \
            (b.co_code, b.co_names, b.co_varnames, b.co_freevars, b.co_cellvars):
        return False
    if len(a.co_consts) != len(b.co_consts):
        return False
    for x, y in zip(a.co_consts, b.co_consts):
        if isinstance(x, types.CodeType) and isinstance(y, types.CodeType):
            if not same_code(x, y):
                return False
        elif type(x) is not type(y) or x != y:
            return False
    return True


def test_round_trip_is_equal(tmp_path):
    path = save_code(str(tmp_path / "f.original_bytecode"), sample.__code__)
    loaded = load_code(path)
    assert loaded == sample.__code__
    assert loaded.co_filename == sample.__code__.co_filename


def test_plain_pickle_loads_it_without_depyf(tmp_path):
    path = save_code(str(tmp_path / "f.transformed_bytecode"), sample.__code__)
    script = ("import pickle, sys; sys.modules['depyf'] = None; "
              f"c = pickle.load(open({path!r}, 'rb')); print(c.co_name, c.co_argcount)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["sample", "1"]


class Holder:
    def __init__(self, value: int) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Holder) and other.value == self.value


def test_constants_marshal_rejects_are_pickled_apart(tmp_path):
    code = _with_constant(sample.__code__, Holder(7))
    path = save_code(str(tmp_path / "h"), code)
    loaded = load_code(path)
    assert same_code(loaded, code)  # Holder compares by value: the constants came back, nested ones too
    f = types.FunctionType(loaded, globals())
    (inner, _), outer = f(1)
    assert isinstance(outer, Holder) and outer.value == 7


def test_unpicklable_constants_come_back_as_a_description(tmp_path):
    code = _with_constant(sample.__code__, {"module": types})
    loaded = pickle.loads(dumps_code(code))
    assert loaded.co_code == code.co_code and loaded.co_names == code.co_names
    marks = [c for c in loaded.co_consts if isinstance(c, str) and c.startswith("<depyf: unpicklable constant")]
    assert marks and "module" in marks[0]
