"""Conditional expressions whose arms hold an and/or (shapes found by the expression fuzzer,
`tools/fuzz_control_flow.py --expressions`): 3.12+ copy the rest of the statement into the path
through the and/or's right operand, and the and/or's own jump lands on a copy of that rest that
the arms share. The arms are values of one statement: two statements would each join their
and/or before their own copy."""
from itertools import product

from _cases import cases

VALUES = list(product((0, 1, None), repeat=4))


@cases(*VALUES)
def or_arm_stored_in_tuple(a, b, c, d):
    x = ((a or b) if c else c) if d else b, 1
    return x


@cases(*VALUES)
def or_of_chain_arm(a, b, c, d):
    return (((d == d != a) or b) if c else b) if b else d, a


@cases(*VALUES)
def or_of_chain_under_nested_test(a, b, c, d):
    return (((d == d != a) or b) if (a if c else c) else b) if b else d, a


@cases(*VALUES)
def and_arm_stored_in_tuple(a, b, c, d):
    x = ((a and b) if c else c) if d else b, 1
    return x



@cases(*VALUES)
def and_of_same_name_returned(a, b, c, d):
    return ((c and c) if c else c) if d else b


@cases(*VALUES)
def inner_arms_returned(a, b, c, d):
    return (a if c else c) if d else b
