"""Simple statements: assignments of every target kind, del, global/nonlocal, assert, raise, imports."""
from _cases import cases

counter = 0
registry_name = "initial"


class Box:
    def __init__(self):
        self.n = 0
        self.items = [0, 0, 0]
        self.child = None


@cases((1,), (5,))
def chained_assignment(v):
    a = b = c = v
    x = y = [v]
    x.append(1)
    d = {}
    d["k"] = d["j"] = v
    return a, b, c, y, d


@cases((2,),)
def augmented_targets(v):
    box = Box()
    box.n += v
    box.n += 1
    box.items[1] += v
    box.items[-1] -= 1
    d = {"k": 1}
    d["k"] *= 10
    box.child = Box()
    box.child.n |= 4
    box.child.items[v] += 3
    s = "a"
    s += "b"
    return box.n, box.items, d, box.child.n, box.child.items, s


@cases(([1, 2, 3, 4, 5],), ([1, 2],))
def unpacking(seq):
    a, b, *rest = seq
    *init, last = seq
    first, *middle, final = seq
    (x, y), z = (1, 2), 3
    [p, q] = [x, y]
    i, (j, *k) = 0, (1, 2, 3)
    a, b = b, a
    a, b, c = c_val = (3, 2, 1)
    return a, b, rest, init, last, first, middle, final, x, y, z, p, q, i, j, k, c, c_val


@cases((3,),)
def attribute_and_subscript_targets(v):
    box = Box()
    box.n = v
    box.items[0] = v
    box.items[1:] = [v, v]
    box.child = Box()
    box.child.items[box.n % 3] = "set"
    grid = [[0] * 3 for _ in range(3)]
    grid[1][2] = v
    for box.child.n in range(2):
        pass
    for grid[0][0], grid[0][1] in [(1, 2)]:
        pass
    return box.n, box.items, box.child.items, box.child.n, grid


@cases(())
def deletions():
    a = 1
    b = [1, 2, 3, 4]
    c = {"x": 1, "y": 2}
    box = Box()
    box.extra = 5
    del a
    del b[0], c["x"]
    del b[1:]
    del box.extra
    try:
        a
    except NameError:
        missing = True
    return missing, b, c, hasattr(box, "extra")


@cases(())
def global_statement():
    global counter, registry_name
    counter = counter + 1
    counter += 1
    registry_name = "changed-%d" % counter
    return counter, registry_name


@cases(())
def global_delete():
    global registry_name
    old = registry_name
    del registry_name
    try:
        registry_name
    except NameError:
        gone = True
    registry_name = old
    return gone


@cases((1,),)
def nonlocal_statement(start):
    total = start

    def add(v):
        nonlocal total
        total += v
        return total

    def reset():
        nonlocal total
        total = 0

    add(2)
    add(3)
    before = total
    reset()
    return before, total


@cases((1,),)
def nonlocal_never_used(start):
    # `nonlocal` alone makes `cell` a cell: the nested function never names it again.
    cell = start

    def touch():
        nonlocal cell

    touch()
    return cell, touch.__closure__[0].cell_contents


@cases((1,), (-1,), (0,))
def asserts(v):
    assert v is not None
    assert v >= 0, "negative: %r" % (v,)
    assert v, f"falsy {v}"
    return v


@cases((1,), (0,), (0, "why", 2))
def raise_assertion_error_with_star_args(cond, *args):
    # Not an assert: an assert message is one expression, never `*args`.
    if not cond:
        raise AssertionError(*args)


@cases((0,), (1,), (2,), (3,))
def raises(kind):
    if kind == 0:
        raise ValueError("plain")
    if kind == 1:
        raise KeyError
    if kind == 2:
        try:
            {}["missing"]
        except KeyError as exc:
            raise RuntimeError("wrapped") from exc
    if kind == 3:
        try:
            1 / 0
        except ZeroDivisionError:
            raise TypeError("suppressed context") from None
    return kind


@cases(())
def reraise():
    try:
        try:
            raise ValueError(1)
        except ValueError:
            raise
    except ValueError as e:
        return e.args


@cases(())
def import_forms():
    import os
    import os.path
    import os.path as osp
    import xml.etree.ElementTree as ET
    import collections.abc
    from os import sep
    from os import sep as separator, curdir
    from os.path import join, split as split_path
    from collections import (OrderedDict,
                             defaultdict as dd)
    import json, copy
    return (os.sep, osp.join("a", "b"), ET.__name__, collections.abc.Mapping.__name__, sep,
            separator, curdir, join("x", "y"), split_path("a/b"), OrderedDict.__name__,
            dd.__name__, json.__name__, copy.copy([1]))


def relative_imports():
    from . import sibling
    from .sibling import thing
    from .. import parent_thing as pt
    from ...pkg.mod import deep
    return sibling, thing, pt, deep


@cases(())
def import_copy_idiom():
    import copy
    return copy.deepcopy({"a": [1]})


@cases(())
def just_pass():
    pass


@cases(())
def return_none_explicit():
    return None


@cases(())
def return_nothing():
    return


@cases((1,),)
def expression_statements(v):
    v + 1
    [v]
    print_nothing = len
    print_nothing([v])
    "not a docstring since it is not first" if v else None
    return v


@cases(())
def multiple_targets_and_swaps():
    a, b, c = 1, 2, 3
    a, b, c = c, a, b
    a, b = b, a
    x = [1, 2, 3]
    x[0], x[2] = x[2], x[0]
    return a, b, c, x


@cases((1,), (2,))
def swap_into_slices(i):
    # 3.12+ store `seq[a:]` with STORE_SLICE: the pair is still one assignment (it was read
    # with a temporary, `__temp_0 = tail[i:]`).
    head, tail = [1, 2, 3], [4, 5, 6]
    head[i:], tail[:] = tail[:i], tail[i:]
    return head, tail


@cases((0,), (1,))
def assert_false_with_message(flag):
    # The test of `assert False` is dropped by the compiler; LOAD_ASSERTION_ERROR stays (3.9+).
    if flag:
        return "ok"
    assert False, "flag must be set"


@cases((None,), ([],), ([3],))
def procedure_with_early_return(items):
    # Only bare returns: `return None` and `return` compile alike, a procedure is written with
    # `return`.
    if items is None:
        return
    items.sort()


@cases((0,), (1,), (2,))
def explicit_return_none_among_values(n):
    if n == 0:
        return None
    if n == 1:
        return "one"
    return n


@cases((1, 5), (0, None))
def if_is_not_raise_assertion_error(x, h):
    """`is not` that raises AssertionError: no assert, whose test would be `is` (3.8)."""
    if x:
        x = 1
    elif h is not None:
        raise AssertionError("set")
    return x


@cases((1, [2]), (3, []))
def if_in_raise_assertion_error(h, k):
    assert h not in k
    if h in k:
        raise AssertionError
    return h


@cases((1,), (0,))
def constant_or_call_statement(v):
    # 3.10+: `return v` is copied into both branches; a constant dropped as a statement of its
    # own would be no code, so the branches are one conditional expression statement.
    out = []
    "yes" if v else out.append(v)
    return out
@cases((0, []), (2, [1]))
def conditional_constant_statement_before_copied_return(v, w):
    # The statement's arms only drop constants; the return after it is copied into the first
    # arm (3.10+), whose constant 3.12+ drop altogether.
    w = w + [v]
    0 if v else None
    return w
