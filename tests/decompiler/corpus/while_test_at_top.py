"""While loops whose body's end 3.14 closes with a jump back to the test at the top.

3.10-3.13 repeat a while loop's test at the bottom: where the body ends, the copy jumps back
into the body or falls out; a `continue` goes to the test at the top. 3.14 jumps back to the
top from the body's end too (pass `while_bottom_tests` writes the bottom copy back): from the
end of each branch of an if/else, from an except clause that falls out, after a with or a
finally body. A test whose way out is a jump back to an enclosing loop's head becomes, in
3.14, the opposite test over that jump (`while_leaves_for_outer_head`: read as an if, the
inner loop was lost and the outer one ran out of turns: a silent wrong result). A `continue`
that unwinds a with or a finally keeps its line on the exit call or on a NOP: it stays a
`continue`.
"""
from _cases import cases


def _step(log, n):
    log.append(n)
    if n == 7:
        raise KeyError(n)
    return n


@cases((0, 0), (3, 1), (5, 2))
def while_if_else_ends_body(n, k):
    out = []
    while n:
        if n % 2 == k:
            out.append(n)
        else:
            out.append(-n)
        n -= 1
        if n == 1:
            out.append("one")
    return out


@cases((0,), (4,), (9,))
def while_except_clause_ends_body(n):
    log = []
    while n > 0:
        n -= 1
        try:
            _step(log, n)
        except KeyError:
            log.append("caught")
    return log


@cases(([], 2), ([1, 0, 1], 3), ([0, 0], 0))
def while_or_test_ends_body(items, n):
    items = list(items)
    out = []
    while items or n:
        if items:
            out.append(items.pop())
        else:
            n -= 1
    return out


@cases(([b"ab", b"", b"c"],), ([],))
def while_walrus_test(chunks):
    out = []
    feed = iter(chunks + [b""])
    while (chunk := next(feed)):
        out.append(len(chunk))
    return out


@cases((0,), (1,), (3,))
def while_leaves_for_outer_head(n):
    log = []
    w1 = 0
    while True:
        w1 += 1
        if w1 > n:
            break
        w2 = 0
        while w2 < 3:
            w2 += 1
            log.append((w1, w2))
    return log


@cases(([0, 2, 5], 3), ([], 1), ([4], 0))
def while_and_test_leaves_for_for_head(items, n):
    log = []
    for x in items:
        i = 0
        while i < n and i != x:
            i += 1
            log.append(i)
    return log


@cases((0, 0), (2, 3), (3, 1))
def while_in_while_test_leaves_for_outer_head(n, m):
    log = []
    while n > 0:
        n -= 1
        j = 0
        while j < m:
            j += 1
            log.append((n, j))
    return log


@cases((0,), (3,), (8,))
def while_finally_ends_body_continue_before(n):
    log = []
    while n > 0:
        n -= 1
        try:
            if n % 3 == 0:
                continue
            log.append(n)
        finally:
            log.append("f")
    return log


@cases((0,), (4,), (9,))
def while_except_clause_ends_body_then_else(n):
    log = []
    while n > 0:
        n -= 1
        try:
            _step(log, n)
        except KeyError:
            log.append("caught")
        else:
            log.append("ok")
    else:
        log.append("done")
    return log
