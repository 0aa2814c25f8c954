"""A while loop with an else part that returns, whose try's except clause `break`s it: from
3.12 the code after the loop, which only that `break` reaches, follows the handler code, and the
block at the loop's exit is the else part. On 3.8/3.9 the loop's test jumps to that else part,
which returns and is followed by the code after the loop: `while test:` with an else part, not
`while True:` with an if/else (whose dead jump back would follow the return)."""
from _cases import cases


@cases(([1, 2], {1: 10, 2: 20}), ([1, 3, 2], {1: 10, 2: 20}), ([], {}))
def while_else_returns_handler_breaks_past_it(xs, d):
    # 3.12+: the except clause's `break` jumps past the handler code, to the code after the
    # loop moved there; the loop's exit holds the else part, which returns (it was read as code
    # after the loop, run after the `break` too).
    xs = list(xs)
    m = 0
    while xs:
        c = xs.pop()
        try:
            m = d[c]
        except KeyError:
            xs.append(c)
            break
        else:
            m += 1
    else:
        return m
    out = []
    for x in xs:
        out.append(x + m)
    return out


@cases(([1, 2], {1: 10, 2: 20}), ([1, 3, 2], {1: 10, 2: 20}), ([], {}))
def while_else_returns_try_else_handler_breaks(xs, d):
    # 3.8/3.9: the loop's test jumps to its else part, which returns, and the break goes past
    # it: `while test:` with an else part, not `while True:` with an if/else (that one keeps a
    # dead jump back after the else part's return).
    xs = list(xs)
    m = 0
    while xs:
        c = xs.pop()
        try:
            m = d[c]
        except KeyError:
            xs.append(c)
            break
        else:
            m += 1
    else:
        return m
    return -len(xs)


@cases(([1, 2], {1: 10, 2: 20}), ([1, 3, 2], {1: 10, 2: 20}), ([], {}))
def while_else_returns_handler_breaks_then_more(xs, d):
    xs = list(xs)
    m = 0
    while xs:
        c = xs.pop()
        try:
            m = d[c]
        except KeyError:
            xs.append(c)
            break
        m += 1
    else:
        return m
    return -len(xs)


@cases(([1, 2],), ([1, 3, 2],), ([],))
def while_else_returns_if_breaks(xs):
    xs = list(xs)
    m = 0
    while xs:
        c = xs.pop()
        if c == 3:
            break
        m += c
    else:
        return m
    return -len(xs)
