"""While loops whose test holds a chained comparison after an `or` or in a conditional
expression's arm: 3.10+ compile the test twice, at the top to jump out when false and at the
bottom to jump back when true, so the two copies lay the comparison's cleanup (and the copies of
the block after the loop that replace jumps to it) apart; 3.12+ spell each jump back as the
opposite jump over a JUMP back. Both copies are one test of one while loop. Also conditional
expressions and assert tests whose arms end in a chained comparison."""
from itertools import product

from _cases import cases

INPUTS = list(product((0, 1), (-1, 0, 1, 2), (0, 1)))


@cases(*INPUTS)
def while_or_chained_comparison(a, w, b):
    log = []
    while a or 0 <= w < 2:
        w += 1
        log.append(w)
        if len(log) > 3:
            break
    return log


@cases(*INPUTS)
def while_or_chained_comparison_then_more(a, w, b):
    log = []
    while a or 0 <= w < 2:
        w += 1
        log.append(w)
        if len(log) > 3:
            break
    w = 0
    if b:
        return 3
    return log


@cases(*INPUTS)
def while_or_conditional_with_chained_arm(a, w, b):
    log = []
    while a or (b if a else 0 <= w < 2):
        w += 1
        log.append(w)
        if len(log) > 3:
            break
    return log


@cases(*INPUTS)
def while_conditional_with_chained_arm(a, w, b):
    log = []
    while b if a else 0 <= w < 2:
        w += 1
        log.append(w)
        if len(log) > 3:
            break
    return log


@cases(*product((0, 1), repeat=4))
def if_or_not_chained_comparison(a, b, c, d):
    if c or not (a < b < d):
        return 1
    return 2


@cases(*product((0, 1), (0, 1), (0, 1), (0, 1), (-1, 1, 2)))
def assert_nested_conditional_chained_arm_in_try(a, b, c, d, e):
    try:
        assert (a < e <= d if b else c) if d else e, "bad"
    except AssertionError:
        return 1
    return 0


@cases(*INPUTS)
def while_or_chained_comparison_and_conditional_else(a, w, b):
    log = []
    while a or (0 <= w < 2 and (b if a else w)):
        w += 1
        log.append(w)
        if len(log) > 3:
            break
    else:
        log.append(-1)
    return log
