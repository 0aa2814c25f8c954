"""and/or values and conditional expressions whose operands or arms are chained comparisons,
nested and/or groups or constants (shapes found by the expression fuzzer,
`tools/fuzz_control_flow.py --expressions`): a chained comparison that ends a value leaves by a
jump over its cleanup, which the compiler threads on (3.8/3.9/3.11) or replaces by a copy of
the block where the value goes (3.10+; 3.8/3.9 a bare return); a constant true arm of a
conditional expression used as a test leaves no code of its own."""
from itertools import product

from _cases import cases

VALUES = list(product((0, 1, 2), repeat=4)) + [(None, 1, 0, 1), (1, None, 2, 0)]


@cases(*VALUES)
def chained_comparison_first_arm(a, b, c, d):
    x = (a < b < c) if d else a
    return x


@cases(*VALUES)
def chained_comparison_first_arm_under_not(a, b, c, d):
    x = not ((a < b < 1) if c else d)
    return x


@cases(*VALUES)
def and_then_chained_comparison(a, b, c, d):
    x = d and (a < b < c)
    return x


@cases(*VALUES)
def chained_comparisons_or(a, b, c, d):
    x = (a < b < c) or (c < d < 2)
    return x


@cases(*VALUES)
def return_and_then_chained_comparison(a, b, c, d):
    return d and a <= b < c


@cases(*VALUES)
def or_conditional_with_chained_first_arm(a, b, c, d):
    return b or (d < a != b if d else b)


@cases(*VALUES)
def or_conditional_with_chained_second_arm(a, b, c, d):
    return b or (d if d else a < b < c)


@cases(*VALUES)
def assign_or_conditional_with_chained_first_arm(a, b, c, d):
    x = b or (d < a != b if d else b)
    return x


@cases(*VALUES)
def and_of_or_group(a, b, c, d):
    return (a or (b and c)) and d


@cases(*VALUES)
def conditional_with_true_arm_or(a, b, c, d):
    if (a if b else True) or c:
        return 4
    return 5


@cases(*VALUES)
def conditional_with_chained_arm_and_true_arm_or(a, b, c, d):
    if (a == d == c if b else True) or c:
        return 4
    return 5
