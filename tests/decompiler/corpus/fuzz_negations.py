"""Negations in tests that hold `is`/`in` comparisons and conditional expressions (shapes found
by the expression fuzzer, `tools/fuzz_control_flow.py --expressions`): the compiler sends a `not`
into each operand of an and/or and into each arm of a conditional expression, while `not (a in
b)` written out is `a not in b`, another instruction; and a chained comparison after the tests
makes 3.10+ copy the body's `return` to where the tests before it jump."""
from itertools import product

from _cases import cases

VALUES = list(product((0, 1, None), repeat=4))


@cases(*VALUES)
def negated_arm_beside_in_arm(a, b, c, d):
    if (not d if (c and b) else ((c in (0, None)) if (a != b) else d)) or b:
        return 1
    return 2


@cases(*VALUES)
def not_or_holding_in_then_and(a, b, c, d):
    if not ((c in (0, None)) or d) and (b in (0, None)):
        return 1
    return 2


@cases(*VALUES)
def not_or_holding_in_between_tests(a, b, c, d):
    if a != b and not ((c in (0, None)) or not d) and (b in (0, None)):
        return 1
    return 2


@cases(*VALUES)
def and_holding_in_and_is_not_as_arm_in_or(a, b, c, d):
    if (((c in (0, None)) and (b is not None) and b) if d else c) or a:
        return 1
    return 2


@cases(*VALUES)
def or_then_chained_comparison_at_end(a, b, c, d):
    if c or d or (b == d == a):
        return 1


@cases(*VALUES)
def conditional_then_chained_comparison_at_end(a, b, c, d):
    if ((not a) if c else d) or (b == d == a):
        return 1


@cases(*VALUES)
def nested_conditional_then_chained_comparison_at_end(a, b, c, d):
    if ((not a) if (c and d) else ((c in (0, None)) if (a != b) else d)) or (b == d == a):
        return 1


@cases(*VALUES)
def or_group_then_chained_comparison_at_end(a, b, c, d):
    if (a and b or c) and (b == d == a):
        return 1


@cases(*VALUES)
def conditional_of_chained_arm_under_not_returns(a, b, c, d):
    # (3.10+ copy the `return 1` to each arm's way in and after the comparison's cleanup)
    if not ((d if a else (a == d == d)) if c else b):
        return 1
    return 2



@cases(*VALUES)
def returned_conditional_arm_ending_like_the_other(a, b, c, d):
    # (3.13: the tail `log` is copied into the first arm; where the else arm `c` falls into
    # it, the loads of `c` and `log` stay apart, which `return c, log` would fuse)
    log = [b]
    return ((d and c) if a else c), log


@cases(*VALUES)
def filter_not_conditional_with_chained_first_arm(a, b, c, d):
    # (3.12+: the comparison's true way jumps back to the loop's head, a jump-if-false over
    # a JUMP back; false, it falls into the arm's JUMP to the append)
    return [v for v in range(3) if not ((c < d == b) if v else a)]


@cases(*VALUES)
def and_of_conditional_with_or_chained_test_returned(a, b, c, d):
    # (3.10+: `c` jumps to a copy of the first arm and the rest of the return laid after the
    # comparison's cleanup; the arm the comparison falls into ends at its own return)
    return a and (d if (c or (a < c != b)) else b), c


@cases(*VALUES)
def returned_conditional_with_chained_test(a, b, c, d):
    # (3.10, 3.12+: the comparison's cleanup falls into the second arm, which its last test
    # jumps to too; an if statement's cleanup falls into a copy of its else part's return)
    return a if (b == c != d) else d


@cases(*VALUES)
def returned_conditional_with_chained_test_in_tuple(a, b, c, d):
    return a if (b == c != d) else d, c


@cases(*VALUES)
def if_chained_test_then_long_return(a, b, c, d):
    # (the same layout where the else part is too long to copy: an if statement)
    log = [d]
    if a and (a < c == b):
        return 3
    return c is None, log


@cases(*VALUES)
def double_not_of_comparison_as_value(a, b, c, d):
    # (3.13+ fold the TO_BOOL of `not not` into the comparison: a flag of COMPARE_OP)
    x = a and (not (not (c == d)))
    return x, not (not (b != a))


@cases(*VALUES)
def if_part_ending_in_copied_return_then_elif(a, b, c, d):
    # (3.12: the if part's jump over the elif became a copy of `return log`, with its line)
    log = []
    if a <= c:
        if b:
            if d == c:
                return 2
        else:
            log.append(3)
    elif d:
        log.append(4)
    return log


@cases(*VALUES)
def not_over_conditional_with_is_not_arm_returned(a, b, c, d):
    # (3.10+: the `not` and the rest of the return copied into each arm; `not (c is not
    # None)` written alone would compile to `is`)
    return (not (a if b else (c is not None))) if d else a, c


@cases(*VALUES)
def returned_conditional_with_not_chained_arm(a, b, c, d):
    # (3.12/3.13: the comparison's jump over its cleanup to the `not` and the copied rest of
    # the return stays a jump, which a return statement's branch would have copied)
    return (c if d else (not (a == c == b))), d
