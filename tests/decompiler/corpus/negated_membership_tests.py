"""Tests of `not (a in b)` and `not (a is b)` beside `a not in b` and `a is not b`. Up to 3.13
the compiler folds the `not` into the comparison, so both spellings compile alike; 3.14 tests
`a in b` and jumps the opposite way for the first, `not in` for the second, so the decompiler
reads which from the bytecode (`not a in b` where the jump says so). As values (`return not
(a in b)`) every version folds."""
from _cases import cases


@cases((1, [2]), (2, [2]))
def if_not_parenthesized_in(a, b):
    out = []
    if not (a in b):
        out.append(a)
    return out


@cases((1, [2]), (2, [2]))
def if_not_in(a, b):
    out = []
    if a not in b:
        out.append(a)
    return out


@cases((None, None), (1, None))
def if_not_is(a, b):
    if not a is b:
        return "apart"
    return "same"


@cases((None, None), (1, None))
def if_is_not(a, b):
    if a is not b:
        return "apart"
    return "same"


@cases((1, [1]), (3, [1]))
def if_not_of_not_in(a, b):
    if not (a not in b):
        return "in"
    return "out"


@cases((1, [2], True), (2, [2], True), (1, [2], False))
def not_in_and_more(a, b, c):
    if not (a in b) and c:
        return 1
    return 0


@cases((1, [2], 0), (2, [2], 1))
def not_is_or_more(a, b, c):
    if not (a is b) or c:
        return 1
    return 0


@cases(([1, 2, 3], {2}),)
def comprehension_not_in(xs, s):
    return [x for x in xs if not x in s]


@cases((3, {5}),)
def while_not_in(n, stop):
    out = []
    while not (n in stop):
        out.append(n)
        n += 1
    return out


@cases((1, [2]),)
def assert_not_in(a, b):
    assert not (a in b), "in"
    return a


@cases((1, [2]), (2, [2]))
def value_not_in(a, b):
    return not (a in b)

