"""`not` over an `is`/`in` comparison (shapes found by the expression fuzzer). 3.8-3.13 rewrite
`not (a is b)` as `a is not b` before compiling, so either spelling makes the same code; 3.14
keeps the `not`: a test compiles `is` and jumps the other way, and `not a is None` as a value is
`is` then `not` (other values still fuse to `is not`)."""
from itertools import product

from _cases import cases

VALUES = list(product((0, 1, None), repeat=3)) + [((0, 1), 1, 2), ("ab", "a", None)]


@cases(*VALUES)
def value_not_is_none(a, b, c):
    x = not a is None
    return x


@cases(*VALUES)
def value_not_is_not_none(a, b, c):
    return not a is not None, b


@cases(*VALUES)
def value_not_in(a, b, c):
    return not a in (0, None)


@cases(*VALUES)
def argument_not_is_not_none(a, b, c):
    return pair(a, key=not c is not None)


@cases(*VALUES)
def if_not_in(a, b, c):
    if not a in (0, None):
        return 1
    return 2


@cases(*VALUES)
def if_not_is(a, b, c):
    if not a is b:
        return 1
    return 2


@cases(*VALUES)
def if_not_is_none_and(a, b, c):
    if not a is None and b:
        return 1
    return 2


@cases(*VALUES)
def if_not_in_or_not(a, b, c):
    if not b in (0, None) or not c:
        return 1
    return 2


@cases(*VALUES)
def while_not_in(a, b, c):
    w = 0
    while not b in (0, 1):
        w += 1
        if w > 2:
            break
    return w


@cases(*VALUES)
def assert_not_in(a, b, c):
    try:
        assert not a in (1, 2), b
    except AssertionError:
        return 1
    return 2


@cases(*VALUES)
def comprehension_not_is(a, b, c):
    return [v for v in (0, 1, None) if not v is a]


def pair(value, key):
    return (value, key)
