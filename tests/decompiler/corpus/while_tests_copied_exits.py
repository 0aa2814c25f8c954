"""While loops whose and/or test leaves to a small block that ends the function (an implicit
`return None`), with the body's last statement an `if t: break` (shapes found by the expression
fuzzer). 3.10-3.13 repeat the test at the bottom and copy the block after each of its jumps out,
the top test's and the bottom test's apart; 3.14 tests only at the top, and the copy of its test
that pass `while_bottom_tests` writes at the bottom needs exits of its own as 3.13 has, or the
first tests read as an `if` around the loop. 3.14 jumps over the jump back to a last `break`,
3.13 tests the opposite to the bottom test over the `break`'s jump. A chained comparison that ends
the test leaves from its cleanup by a copy of the block too (3.12+), which the bottom copy gets
its own of as well."""
from _cases import cases

VALUES = [(a, d, w) for a in (0, 1, 2) for d in (0, 1) for w in (0, 1, 3)]


@cases(*VALUES)
def and_test_then_break(a, d, w):
    log = [w]
    while a and d:
        w += 1
        log.append(w)
        if w > 2:
            break


@cases(*VALUES)
def and_or_test_then_break(a, d, w):
    log = [w]
    while a and d or w < 2:
        w += 1
        log.append(w)
        if w > 2:
            break


@cases(*VALUES)
def and_test_else_returns(a, d, w):
    while a and d:
        w += 1
        if w > 2:
            break
    else:
        return w


@cases(*VALUES)
def conditional_test_then_break_before_more(a, d, w):
    while a if d else w < 2:
        w += 1
        if w > 2:
            break
    return (w, len(str(a)))


@cases(*VALUES)
def and_chained_comparison_test_then_break(a, d, w):
    log = [w]
    while a and 0 <= w < 3:
        w += 1
        log.append(w)
        if w > d + 1:
            break
