"""Tests made of conditional expressions whose way out is a small block that ends the function
(`return 1`): 3.10+ copy that block to every branch that reaches it, so the chain's true exit,
where the if body is read, may itself be one of the copies; and a while loop's test copied to
the bottom of the body, with the exit block copied into it where a conditional expression's
arm leaves."""
from itertools import product

from _cases import cases

VALUES = list(product((0, 1), repeat=5))


@cases(*VALUES)
def or_conditional_with_nested_arms(a, b, c, d, e):
    if d or ((b or (a if a else d)) if (c if e else b) else (not e)):
        return 1
    return 2


@cases(*VALUES)
def or_conditional_with_or_arm(a, b, c, d, e):
    if d or ((b or (a if a else d)) if c else (not e)):
        return 1
    return 2


@cases(*VALUES)
def or_conditional_with_plain_arm(a, b, c, d, e):
    if d or ((b or (a if a else d)) if c else e):
        return 1
    return 2


@cases(*[v[:4] for v in VALUES[::2]])
def while_or_conditional_with_conditional_test(a, b, d, e):
    log = []
    w = 0
    while a or (e if (a if d else b) else d):
        w += 1
        log.append(w)
        if w > 3:
            break
    return log


@cases(*[v[:4] for v in VALUES[::2]])
def while_or_conditional_with_conditional_test_no_break(a, b, d, e):
    log = []
    w = 0
    while (a or (e if (a if d else b) else d)) and w < 4:
        w += 1
        log.append(w)
    return log


@cases(*[v[:4] for v in VALUES[::2]])
def conditional_arm_or_chained_comparison_and_more(b, c, d, e):
    if ((b or (-1 <= e <= 0)) if (c and d) else (c < d == b)) and d:
        return 3
    return 4


@cases(*[v[:4] for v in VALUES[::2]])
def conditional_arm_or_chained_comparison_then_and(b, c, d, e):
    if ((b or (-1 <= e <= 0)) if c else d) and d:
        return 3
    return 4


@cases(*[v[:4] for v in VALUES[::2]])
def conditional_arm_or_chained_comparison(b, c, d, e):
    if (b or (-1 <= e <= 0)) if c else d:
        return 3
    return 4


@cases(*[v[:4] for v in VALUES[::2]])
def conditional_arm_chained_comparison_then_and(b, c, d, e):
    if ((-1 <= e <= 0) if c else d) and d:
        return 3
    return 4


@cases(*VALUES)
def and_or_conditional_with_chained_comparisons(a, b, c, d, e):
    # (3.10+: the chained comparison's cleanup in the last arm falls into the block that the
    # first `and` jumps to; an if read inside the first test's branch would lose that jump)
    if (a and c) or ((d or c) if (c < a == d) else (not (b == a < e))):
        return 1
    return 2
