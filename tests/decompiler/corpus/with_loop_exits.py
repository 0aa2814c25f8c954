"""A with body in a loop that leaves by `continue` or `return`, with code after the with.

The body's way out runs the exit call and then jumps to the next iteration (or drops the loops'
iterators and returns); only a manager that swallows an exception goes on to the code after the
with. Read without the `continue` (or the return), the normal flow would run that code too.
"""
from _cases import cases


class _Swallow:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return exc[0] is KeyError


@cases(([{}, {1: 2}], 1), ([{1: 2}], 1), ([], 0))
def for_with_continue_then_code(items, k):
    out = []
    for d in items:
        with _Swallow():
            out.append(d[k])
            continue
        out.append(-1)
    return out


@cases(({2: 5}, 1, 3), ({}, 1, 3), ({}, 0, 0))
def while_with_continue_then_code(d, k, n):
    out = []
    i = 0
    while i < n:
        i += 1
        with _Swallow():
            out.append(d[k + i])
            continue
        out.append(-i)
    return out


@cases(([{}, {1: 2}], 1), ([{1: 2}], 1), ([], 0), ([{}, {}], 2))
def for_with_return_const_then_code(items, k):
    out = []
    for d in items:
        with _Swallow():
            out.append(d[k])
            return 7
        if k > 1:
            out.append(k)
    return out


@cases(([{}, {1: 2}], 1), ([{1: 2}], 1), ([], 0))
def nested_for_with_return_const_then_code(items, k):
    out = []
    for _ in range(2):
        for d in items:
            with _Swallow():
                out.append(d[k])
                return None
            out.append(-1)
    return out


@cases(({2: 5}, 1, 3, True), ({}, 1, 3, True), ({}, 1, 3, False), ({3: 1}, 0, 4, True))
def while_compound_test_with_continue_then_code(d, k, n, go):
    # The same with a test of two atoms: only the swallowing exit reaches the code after the
    # with, which falls into the copy of the whole test at the loop's bottom.
    out = []
    i = 0
    while i < n and go:
        i += 1
        with _Swallow():
            out.append(d[k + i])
            continue
        out.append(-i)
        if i == 2:
            break
    return out


def _fail_on(value, bad):
    if value == bad:
        raise ValueError(value)
    return value


@cases((0,), (1,), (2,), (5,))
def with_while_true_try_break_except_falls_out(bad):
    # Only the except clause's falling out closes the `while True:` (3.12+ lay its jump back
    # with the handler code, past the with's range); the try body's `break` falls into the
    # with's exit call.
    out = []
    with _Swallow():
        w = 0
        while True:
            w += 1
            if w > 4:
                break
            out.append(w)
            try:
                out.append(_fail_on(w, bad))
                break
            except ValueError:
                out.append(-w)
    return out


class _Log:
    """A context manager that logs and swallows KeyError."""

    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")

    def __exit__(self, *exc):
        self.log.append("exit")
        return exc[0] is KeyError


@cases((1, {}), (2, {}), (2, {4: 1}), (3, {}))
def for_elif_with_break_then_raise(n, d):
    # A with body ending in `break` in an elif arm, the code after the with (only a swallowed
    # exception reaches it) raising; the loop's exit, a small return, copied in place of the
    # break's jump (3.12+).
    log = []
    for i in range(2):
        if n == 1:
            log.append(i)
        elif n == 2:
            with _Log(log):
                log.append(d[4])
                break
            raise ValueError(5)
        else:
            break
    return log


@cases((1, {}), (2, {}), (2, {4: 1}), (3, {}))
def for_elif_with_break_then_raise_longer_exit(n, d):
    # The same with a longer exit, which the break jumps to.
    log = []
    for i in range(2):
        if n == 1:
            log.append(i)
        elif n == 2:
            with _Log(log):
                log.append(d[4])
                break
            raise ValueError(5)
        else:
            break
    log.append(1)
    log.append(2)
    log.append(3)
    return log



@cases((0,), (1,))
def with_inner_for_else_breaks_outer(n):
    # The with body's last protected code is the inner loop's else part, whose `break` of the
    # outer loop runs the with's exit call first; the with's own normal exit lies past it,
    # where the inner loop's `break` jumps (3.11).
    log = []
    for i in range(3):
        with _Log(log):
            for j in range(n):
                log.append(j)
                break
            else:
                log.append('else')
                break
        raise ValueError(i)
    return log


@cases((0,), (3,))
def while_true_with_break_code_after_only_copied(n):
    # Every `break` runs a copy of the code after the loop, which 3.12+ lay nowhere else: the
    # with body's `break`, after its exit call, is followed by that copy.
    log = []
    turns = n
    while True:
        turns += 1
        if turns > 3:
            break
        with _Log(log):
            log.append(turns)
            break
        log.append(10)
    return log


@cases((0,), (3,))
def while_true_nested_with_break_code_after_only_copied(n):
    log = []
    turns = n
    while True:
        turns += 1
        if turns > 3:
            break
        with _Log(log):
            with _Log(log):
                log.append(turns)
                break
        log.append(10)
    return log


@cases((0,), (1,), (2,))
def for_try_with_raises_clause_break_then_return(n):
    # The with body always raises, the clause breaks: the code after the loop is the loop's
    # exit and a copy at the `break` (3.12). Read as the with's way on, it was lost.
    log = []
    for i in range(3):
        try:
            with _Log(log):
                log.append(i)
                raise ValueError(n)
        except ValueError:
            break
    return len(log) + n


# A `break` ending a try body inside a with, whose except clause goes on with more of the with
# body: the break runs the exit call first (3.12+: then a copy of the code after the loop). Read
# as the with body's last statement, the clause's way on was lost or left the loop.

@cases((0,), (1,), (2,))
def while_true_with_try_break_clause_goes_on(n):
    log = []
    tries = 0
    while True:
        tries += 1
        with _Swallow():
            try:
                if tries <= n:
                    raise ValueError(tries)
                log.append("ok")
                break
            except ValueError:
                log.append("retry")
            log.append("more")
    return log


@cases((0,), (1,), (5,))
def while_test_with_try_break_clause_goes_on(n):
    log = []
    w = 0
    while True:
        w += 1
        if w > 3:
            break
        with _Swallow():
            try:
                if w <= n:
                    raise ValueError(w)
                log.append(w)
                break
            except ValueError:
                log.append(-w)
            log.append("more")
    return log


@cases((0,), (1,), (5,))
def for_with_try_break_clause_goes_on(n):
    log = []
    for w in range(3):
        with _Swallow():
            try:
                if w < n:
                    raise ValueError(w)
                log.append(w)
                break
            except ValueError:
                log.append(-w)
            log.append("more")
    return log
