"""and/or values whose short-circuit jump lands on a later test of the same value (shapes found by
the expression fuzzer, `tools/fuzz_control_flow.py --expressions`): 3.13 jumps to that test, 3.14
straight on to where the test sends the value. Of the other sense (`a and b or c`: a false `a`)
it goes to the test's fall-through; of the same sense (`a and (b or c) or d`: a true `b`, or an
arm of a conditional expression that is an `or`) to where the test jumps. Several later tests of
the same sense may go to the same place: the jump belongs to the first that ends the expression
holding it, not to one that ends an operand after it (an and/or group, a chained comparison)."""
from itertools import product

from _cases import cases

VALUES = list(product((0, 1), repeat=4)) + [(None, 2, 0, 1), (2, None, 1, 0)]


@cases(*VALUES)
def or_inside_and_then_or(a, b, c, d):
    x = a and (b or c) or d
    return x


@cases(*VALUES)
def and_inside_or_then_and(a, b, c, d):
    x = (a or (b and c)) and d
    return x


@cases(*VALUES)
def returned_or_inside_and_then_or(a, b, c, d):
    return a and (b or a) or c, d


@cases(*VALUES)
def argument_or_inside_and_then_or(a, b, c, d):
    return pair(b and (c or b) or d, key=a)


@cases(*VALUES)
def conditional_or_arm_then_or(a, b, c, d):
    x = (d if a else b or c) or d
    return x


@cases(*VALUES)
def conditional_and_arm_then_and(a, b, c, d):
    x = (a if b else c and d) and a
    return x


@cases(*VALUES)
def argument_conditional_or_arm_then_or(a, b, c, d):
    return pair(1, key=(a if c else b or 1) or d)


@cases(*VALUES)
def group_after_the_jump_in_its_or(a, b, c, d):
    return a and (b or (c and d) or a) or c


@cases(*VALUES)
def group_after_the_jump_in_a_conditional_arm(a, b, c, d):
    return ((b or (c and d) or a) if a else d) or c


@cases(*VALUES)
def two_groups_ending_at_two_tests(a, b, c, d):
    return (a and (b or c)) or (c and (d or a)) or b


@cases(*VALUES)
def threaded_on_past_the_next_test(a, b, c, d):
    return (a and (b or c) or d) and b


@cases(*VALUES)
def conditional_operand_after_the_jump(a, b, c, d):
    x = a and (b or ((c if c else d) and b))
    return x


@cases(*VALUES)
def chained_comparison_after_the_jump(a, b, c, d):
    return a and (a or (0 <= c < 2 and d))


@cases(*VALUES)
def chained_comparison_in_a_later_arm(a, b, c, d):
    return pair(a, key=c or (c if b else d == d != a or c))


# Before 3.12 an operand's JUMP_IF_X_OR_POP that lands on the test of the whole value is
# threaded through it: the `a and c` arm of the conditional jumps to the enclosing test's target
# (same sense) or just past it (opposite sense).
@cases(*VALUES)
def and_arm_threaded_past_or_into_and(a, b, c, d):
    x = ((d if b else (a and c)) or b) and d
    return x


@cases(*VALUES)
def or_arm_threaded_through_or_into_and(a, b, c, d):
    x = ((a if d else (d or c)) or b) and c
    return x


@cases(*VALUES)
def and_arm_threaded_through_and_into_or(a, b, c, d):
    x = ((d if b else (a and c)) and b) or d
    return x


@cases(*VALUES)
def or_arm_threaded_past_and_into_or(a, b, c, d):
    x = ((a if d else (d or c)) and b) or c
    return x


def pair(value, key):
    return (value, key)
