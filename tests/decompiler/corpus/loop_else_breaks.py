"""A loop with an else part whose `break` goes straight on to the enclosing loop's next iteration.

When nothing follows the inner loop statement up to the end of the enclosing loop's body (it is
the last statement of an if branch there), the compiler threads its `break` to the enclosing
loop's head or test. The code between the inner loop's exit and that way on is its else part,
which a `break` skips; the enclosing if keeps its else part too, since the break does not reach
the if's false branch.
"""
from _cases import cases


@cases(([1, 2, 1], [0, 1]), ([1, 2], []), ([2, 3], []))
def for_else_return_in_if_body(xs, d):
    out = []
    for x in xs:
        if x == 1:
            for k in d:
                if k:
                    break
            else:
                return out, 'no break'
        else:
            out.append(x)
    return out


@cases(([1, 2, 1], [0, 1]), ([1, 2], [0]), ([2, 3], []))
def for_else_in_if_body(xs, d):
    out = []
    for x in xs:
        if x == 1:
            for k in d:
                if k:
                    break
            else:
                out.append('else')
        else:
            out.append(x)
    return out


@cases(([1, 2, 1], [0, 1]), ([1, 2], []), ([2, 3], []))
def for_else_return_then_statement(xs, d):
    out = []
    for x in xs:
        if x == 1:
            for k in d:
                if k:
                    break
            else:
                return out
        out.append(x)
    return out


@cases(([1, 2, 1], [0, 1]), ([1, 2], []), ([2, 3], []))
def for_else_in_while_body(xs, d):
    xs = list(xs)
    out = []
    while xs:
        x = xs.pop()
        if x == 1:
            for k in d:
                if k:
                    break
            else:
                return out, x
        else:
            out.append(x)
    return out


@cases(([1, 2, 1], [0, 1]), ([1, 2], []), ([2, 3], []))
def while_else_in_if_body(xs, d):
    out = []
    for x in xs:
        if x == 1:
            n = len(d)
            while n:
                n -= 1
                if d[n]:
                    break
            else:
                return out, x
        else:
            out.append(x)
    return out


@cases(([1, 2, 3, 2], [0, 1]), ([2, 3], []), ([1, 3], []))
def for_else_in_elif(xs, d):
    out = []
    for x in xs:
        if x == 1:
            out.append(0)
        elif x == 2:
            for k in d:
                if k:
                    break
            else:
                return out, x
        else:
            out.append(x)
    return out


@cases((1, [0, 1]), (2, [0, 1]), (2, []), (3, []))
def for_else_in_elif_before_code(ns, d):
    # The break jumps past the elif branch to the code after the if statement.
    out = []
    if ns == 1:
        out.append(1)
    elif ns == 2:
        for k in d:
            if k:
                break
        else:
            return out, 'no break'
    else:
        out.append(3)
    out.append(9)
    return out


@cases((2, [0, 1]), (2, []), (3, []))
def for_else_in_if_body_before_code(ns, d):
    out = []
    if ns == 2:
        for k in d:
            if k:
                break
        else:
            out.append('else')
    else:
        out.append(3)
    out.append(9)
    return out


@cases((2, [0, 1]), (2, [0]), (3, []))
def while_else_in_if_body_before_code(ns, d):
    out = []
    if ns == 2:
        while d:
            if d[0]:
                break
            d = d[1:]
        else:
            return out, 'no break'
    else:
        out.append(3)
    out.append(9)
    return out


@cases(([0, 1, 5, 2],), ([],), ([3, 0],))
def while_true_ends_if_body_before_else(xs):
    # The `while True:` ends the if body, the enclosing loop's last statement: its `break` goes
    # straight back to the for loop's head, and nothing jumps over the else part (3.11+ ran the
    # else part after the loop).
    out = []
    for c in xs:
        if c:
            while True:
                if c > 3:
                    out.append(-c)
                    break
                c += 1
        else:
            out.append(c)
    return out


@cases(([0, 1, 5, 2],), ([],), ([3, 0, 9],))
def while_true_ends_if_body_in_while_true(xs):
    # The same in a `while True:` loop: the inner loop's `break` jumps to the outer loop's
    # closing jump back, after the else part.
    out = []
    it = iter(xs)
    while True:
        c = next(it, None)
        if c is None:
            return out
        if c:
            while True:
                if c > 3:
                    out.append(-c)
                    break
                c += 1
        else:
            out.append(c)


@cases(([1, 2, 3], 2), ([1, 5], 2), ([1], 2), ([], 0))
def for_else_returns_and_body_returns_the_same(xs, n):
    # A `return` in the body reads like a `break` whose copy of the code after the loop is the
    # block at the loop's exit, but that block is the else part: the breaks jump past it.
    out = []
    for x in xs:
        if x > n:
            return "big"
        if x == n:
            break
        out.append(x)
    else:
        return "big"
    out.append("hit")
    return out


def _parse_positive(t):
    if t < 0:
        raise IndexError(t)
    return t


@cases((-3, 2, 5), (-3, -2, 5), (-1, 4, 9), (1, 0, 0))
def while_else_after_try_else_break(t, n, stop):
    # 3.11: the except clause goes on to the loop's test at the bottom, which falls into the
    # loop's else part: that else part was taken for handler code and dropped (the raise lost).
    while t <= n:
        if t == stop:
            break
        try:
            _parse_positive(t)
        except IndexError:
            t += 1
        else:
            break
    else:
        return "exhausted", t
    return "found", t
