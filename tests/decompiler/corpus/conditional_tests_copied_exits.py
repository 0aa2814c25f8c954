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


@cases(*[v[:4] for v in VALUES[::2]])
def conditional_arm_and_or_group_then_or(a, b, d, e):
    # (3.10+: `b` and `a` jump to one copy of `return 1` laid after the other arm, `e` falls
    # into another; the group `a and b` leaves by where the JUMP ending the arm goes)
    if ((a and b or (a or e)) if e else (1 <= d < 2)) if a else a:
        return 1
    return 2


@cases(*VALUES)
def conditional_arm_conditional_or_then_chained_comparison(a, b, c, d, e):
    # (3.12: the inner conditional expression's jumps to the copy of `return 1` are inside one
    # atom of the chain)
    if (((a if d else b) or e) if d else (1 <= d < 2)) if a else c:
        return 1
    return 2


@cases(*VALUES)
def conditional_arm_conditional_or_group_or(a, b, c, d, e):
    if ((((a if d else b) or (c and b) or (a or e)) if (d and b) else (c and (1 <= d < 2)))
            if (not (c and a and d) or c) else (b < d < b and c)):
        return 1
    return 2


@cases(*[v for v in VALUES[::2]])
def while_conditional_test_with_nested_conditional_arms_and_break(a, b, c, d, e):
    log = []
    w = 0
    while (e and (a or d)) if e else (((w if w else a) or (a if c else a)) if (w if b else w)
                                      else (c or d) and (e < a != w)):
        w += 1
        log.append(w)
        if w > 2:
            break
    log.append(b)
    return w, log
