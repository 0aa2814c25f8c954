"""Returns of a conditional expression whose test is itself a conditional expression, where
the arms are small blocks that end the function (`return x if (x if x else x) else x`).

3.10 and 3.12+ copy the `return` into each arm, so the code reads as an if whose test is the
inner conditional expression; its first branch, when true, falls into a copy of the body
(`return x`) in place of a JUMP to it. When every arm is the same `return x`, that copy also
equals the block where the test goes when false: the copy must be read as the JUMP to the body,
not to the false exit (which would give nested ifs, other bytecode). The same name in every
place is the hard case; distinct names and deeper nestings are the same shape.
"""
from itertools import product

from _cases import cases

BITS = list(product((0, 1), repeat=3))


@cases((0,), (1,), ("",), ("a",))
def same_name_everywhere(x):
    return x if (x if x else x) else x


@cases((0,), (1,), ([],), ([0],))
def same_name_three_deep(x):
    return x if (x if (x if x else x) else x) else x


@cases(*BITS)
def distinct_arms(a, b, c):
    return a if (b if c else a) else c


@cases(*BITS)
def same_arms_distinct_tests(a, b, c):
    return a if (b if c else b) else a


@cases(*BITS)
def if_statement_form(a, b, c):
    if (b if c else a):
        return a
    return a


@cases(*BITS)
def test_in_the_other_arm(a, b, c):
    return a if c else (a if (a if b else c) else a)
