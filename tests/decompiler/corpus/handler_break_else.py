"""A while loop with an else part that returns, whose try's except clause `break`s it: from
3.12 the code after the loop, which only that `break` reaches, follows the handler code, and the
block at the loop's exit is the else part. (3.8/3.9 read this shape with a `while True:` and a
dead `continue`, which does not compile back the same: a gap of their own, hence 3.10+ here.)"""
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
