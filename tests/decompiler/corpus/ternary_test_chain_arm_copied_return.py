"""An if whose test is a conditional expression with a chained comparison as its first arm, and
whose body is a small exit block (`if (lo <= e <= hi) if b else a: return 3`), inside an if
with an else part, with code after both.

3.10 and 3.12+ copy `return 3` into the true way out of each arm. While the enclosing if's
test was tried as a value (`x if b else y`), the chained comparison's reading marked the first
copy as read (a JUMP to the other); that trial failed, and the mark stayed: the copy was then
lost from the if statement read next (`if 1 <= e <= 1: pass`), so the function fell through
where it returned (expression fuzzer seed 980, 3.10, 3.12-3.15). A reading given up leaves
nothing marked now.
"""
from itertools import product

from _cases import cases

VALUES = list(product((0, 1, None), (0, 1), (-1, 0, 1, 2)))


@cases(*VALUES)
def chain_arm_in_if_with_else(a, b, e):
    log = []
    if b:
        if (1 <= e <= 1) if b else a:
            return 3
        log.append(4)
    else:
        log.append(5)
    log.append(6)
    return log


@cases(*VALUES)
def strict_chain_arm_in_if_with_else(a, b, e):
    log = []
    if b:
        if (a < e < 1) if b else a:
            return 3
        log.append(4)
    else:
        log.append(5)
    log.append(6)
    return log


@cases(*VALUES)
def chain_arm_under_chain_in_elif(a, b, e):
    log = []
    if a == 2:
        log.append(1)
    elif b:
        if -1 <= e <= 1:
            if (1 <= e <= 1) if (b or a) else (a and e):
                return 3
            else:
                log.append(4)
        else:
            log.append(5)
    log.append(6)
    return log


@cases(*VALUES)
def chain_arm_then_value(a, b, e):
    log = []
    if b:
        if (0 <= e < 2) if a else b:
            return e
        log.append(a)
    else:
        log.append(b)
    return log
