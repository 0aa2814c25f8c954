"""Conditional expressions used as tests, combined with and/or/not (shapes found by the
expression fuzzer, `tools/fuzz_control_flow.py --expressions`): the compiler lays the branches of
`x if c else y` out as jumps into the enclosing test, threads or copies the JUMP that ends the
first branch, and a chained comparison there brings its own cleanup."""
from itertools import product

from _cases import cases

BITS = list(product((0, 1), repeat=4))


@cases(*BITS)
def chained_comparison_ends_first_branch(a, b, c, d):
    if (0 <= a <= 1 if c else b) or d:
        return 1
    return 2


@cases(*BITS, (2, 0, 1, 0), (-1, 1, 1, 0))
def chained_comparison_under_not(a, b, c, d):
    if not ((0 < a < 2 if c else b) or d):
        return "neither"
    return "some"


@cases(*BITS)
def and_with_conditional_in_or(a, b, c, d):
    if a and (d or (b if c else c)):
        return 1
    return 2


@cases(*BITS)
def conditional_with_or_test(a, b, c, d):
    if (a if (c or d) else b) or d:
        return 1
    return 2


@cases(*BITS)
def conditional_with_and_test(a, b, c, d):
    if (a if (c and not d) else b) and d:
        return 1
    return 2


@cases(*BITS)
def conditional_with_and_arms(a, b, c, d):
    if ((a and b) if (c or (d and a)) else (b or c)) or d:
        return 1
    return 2


@cases(*BITS)
def two_conditionals_in_or(a, b, c, d):
    if (b if c else d) or (a if (b and d) else c):
        return 1
    return 2


@cases(*BITS)
def conditional_as_test_of_conditional(a, b, c, d):
    if (a if c else d) if b else c:
        return 1
    return 2


@cases(*BITS)
def conditional_test_in_value(a, b, c, d):
    x = "yes" if ((a if c else d) if (a or b) else c) else "no"
    return x


@cases(*BITS)
def conditional_with_or_test_in_while(a, b, c, d):
    n = 0
    while (a if (c or d) else b) and n < 3:
        n += 1
    return n


@cases(*BITS)
def conditional_with_or_test_in_assert(a, b, c, d):
    assert (a if (c or d) else b) or d, "failed"
    return "passed"


@cases(*BITS)
def conditional_with_or_test_in_comprehension(a, b, c, d):
    return [v for v in range(3) if (a if (c or v) else b) or d]


RANGES = [(a, b, c, d) for a in (-1, 0, 1, 2, 3) for b in (0, 3) for c in (0, 1) for d in (0, 1)]


@cases(*RANGES)
def chained_comparison_branch_as_whole_test(a, b, c, d):
    if (0 < a < 2) if c else d:
        return 1
    return 2


@cases(*RANGES)
def chained_comparison_branch_then_assignment(a, b, c, d):
    if (0 < a < 2) if c else d:
        b = 5
    return b


@cases(*RANGES)
def chained_comparison_branch_in_while(a, b, c, d):
    n = 0
    while ((0 < a < 2) if c else d) and n < 5:
        a += 1
        n += 1
    return a, n


@cases(*RANGES)
def chained_comparison_branch_after_and(a, b, c, d):
    if b and ((0 < a < 2) if c else d):
        return 1
    return 2


@cases(*RANGES)
def longer_chained_comparison_branch(a, b, c, d):
    if (0 < a < 2 < b) if c else d:
        return 1
    return 2


@cases(*RANGES)
def chained_comparison_in_nested_conditional_then_or(a, b, c, d):
    if ((1 <= a <= 2 if b else c) if d else c) or b:
        return 1
    return 2


@cases(*RANGES)
def chained_comparison_in_nested_conditional_assert(a, b, c, d):
    assert (1 <= a <= 2 if b else c) if d else b, "failed"
    return "passed"


@cases(*product((0, 1), repeat=4))
def not_and_conditional_with_and_arm(a, b, c, d):
    if not (d and (a and b if a else c)):
        return 3
    return 4


@cases(*product((0, 1), repeat=4))
def nested_conditional_copied_body_after_or(a, b, c, d):
    if d or ((b if c else a) if c else b):
        return 1


@cases(*product((0, 1), repeat=4))
def nested_conditional_then_or_as_other_branch(a, b, c, d):
    if (c if d else b) if a else d or b:
        return 2
    return 3


# A group followed by more than eight atoms that it combines with part by part: the whole test is
# one chain, not an if statement whose body tests the rest.
@cases(*product((0, 1), repeat=5))
def group_then_long_or_chain(a, b, c, d, e):
    if ((a or b) and c or (d and e) or (a and d) or (b and e) or (c and d)) and not e:
        return 2
    return 0


@cases(*product((0, 1), repeat=5))
def group_then_long_or_chain_of_pairs(a, b, c, d, e):
    log = []
    if ((a or b) and (c or d) or (e and c) or (a and d) or (b and e) or (c and d)) and e:
        log.append(1)
    return log



# An assert of a conditional expression read as if statements: the assert in the innermost first
# branch jumps past the other branches when it holds, so each other branch is an else part.
@cases(*product((0, 1), repeat=5), (1, 1, 1, 1, 3), (1, 1, 1, 1, -1))
def assert_nested_conditional_with_chained_comparison(a, b, c, d, e):
    try:
        assert (((0 <= e <= 2) if b else e) if c else a) if d else e, "bad"
    except AssertionError:
        return "failed"
    return 0


@cases(*product((0, 1), repeat=5), (1, 0, 1, 3, 1), (1, 2, 1, 3, 1))
def and_then_chained_comparison_branch_then_or(a, b, c, d, e):
    # (the first branch's test before the comparison jumps, when false, to the JUMP that ends
    # the comparison's cleanup, past the JUMP that ends the branch: both go to `e`)
    if (a and 0 < b < d if c else b) or e:
        return 1
    return 2


@cases(*product((0, 1), repeat=5), (1, 0, 1, 3, 0), (0, 2, 1, 3, 1))
def and_then_chained_comparison_branch_then_or_in_while(a, b, c, d, e):
    n = 0
    while ((a and 0 < b < d) if c else b) or e:
        n += 1
        if n > 2:
            break
    return n


@cases(*product((0, 1), repeat=5), (1, 0, 1, 3, 1), (1, 2, 0, 3, 1))
def and_then_chained_comparison_branch_nested_conditional_then_or(a, b, c, d, e):
    if ((a and 0 < b < d) if e else (b if c else d)) or a:
        return 1
    return 2


# A chained comparison ending a branch of a conditional expression that is a comprehension's
# filter: its jumps go back to the loop's head, which 3.12+ spell as a conditional jump over a
# JUMP back, then the branch's way on after that pair.
@cases(*product((0, 1, 2), (0, 1), (0, 1, 2)))
def comprehension_filter_chain_first_branch(a, b, c):
    return [v for v in range(3) if ((a < c != b) if v else c)]


@cases(*product((0, 1, 2), (0, 1), (0, 1)))
def comprehension_filter_not_chain_last_branch(a, c, d):
    return [v for v in range(3) if not (d if c else (0 <= a < 1))]


# An or ending in a negated chained comparison as the first branch of a conditional expression
# used as a test: the or's first operand jumps to the chain's cleanup's way out (3.10, 3.11,
# 3.13), a JUMP to where the branch's own JUMP goes, not threaded on as 3.12 does.
@cases(*product((0, 1), (0, 1), (0, 1), (0, 1), (0, 1, 2)))
def or_then_not_chain_in_first_branch(a, b, c, d, e):
    if (d or not (e == b == c)) if a else a:
        if c:
            return 2
    else:
        return 3
    return 1


# A conditional expression tested by a chained comparison as the right operand of `and` before
# the end of the function: 3.10 and 3.12 copy the assignment and return into the first arm, and
# the chain's cleanup lies between that copy and the else arm.
@cases(*product((0, 1), (0, 1, 2), (0, 1), (0, 1)))
def and_conditional_chain_test_copied_tail(a, b, c, e):
    x = a and (e if 1 <= b < 2 else c)
    return x
