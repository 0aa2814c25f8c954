"""Loops whose body almost never goes back to the head: a `while True:` closed only by a
`continue` inside a try (3.11 lays the try's handler code inline, so the rest of the body, or
the try body's own way out, lies past the last jump back), and a `while test:` that never jumps
back at all (read as an if: its `break` jumps past the else part).
"""
from _cases import cases


@cases((0, 0), (1, 0), (0, 1), (3, 1))
def retry_until_ready_or_fail(n, k):
    log = []
    tries = 0
    while True:
        tries += 1
        if tries > 2:
            break
        try:
            if n + k > 0:
                log.append("ready")
            else:
                log.append("wait")
                continue
            break
        except ValueError:
            return log
    log.append("done")
    return log


@cases((1, 0), (2, 0), (1, 1), (4, 2))
def handler_continue_then_returning_branch(n, k):
    log = []
    tries = 0
    while True:
        tries += 1
        if tries > 3:
            break
        if (n + tries) % 3 == 2:
            try:
                log.append(n)
                break
            except ValueError:
                continue
        else:
            log.append(k)
        return log
    return log


@cases((0,), (1,), ("x",))
def handler_continue_then_rest_and_break(n):
    log = []
    try:
        log.append(int(n))
    except ValueError:
        log.append("bad")
    tries = 0
    while True:
        tries += 1
        if tries > 2:
            break
        try:
            log.append(tries + 1)
        except ValueError:
            continue
        else:
            log.append("else")
        log.append("rest")
        break
    return log


@cases((0, 0), (1, 0), (0, 3))
def while_test_try_break_or_raise(n, k):
    log = []
    count = k
    while count < 2:
        count += 1
        try:
            if n > 0:
                break
            raise ValueError(n)
        except ValueError:
            return "failed"
    else:
        log.append("exhausted")
    return log


@cases((0,), (3,))
def while_test_handler_break_through_finally(k):
    log = []
    count = k
    while count < 2:
        count += 1
        try:
            raise ValueError(count)
        except ValueError:
            log.append("caught")
            break
        finally:
            log.append("cleanup")
    else:
        log.append("exhausted")
    log.append("after")
    return log


@cases((0,), (1,), (2,), (5,))
def while_true_first_pass_decides(n):
    log = []
    tries = 0
    while True:
        tries += 1
        if tries > 2:
            break
        if n > 1:
            log.append(n)
        elif n:
            break
        else:
            return log
        raise ValueError(n)
    raise KeyError(tries)


@cases(([1, "x", 2],), ([],), (["x"],), ([3, 4, 5, 6],))
def parse_until_bad_item(items):
    pending = list(items)
    log = []
    tries = 0
    while True:
        tries += 1
        if tries > 3:
            break
        try:
            log.append(int(pending.pop()))
            continue
        except (ValueError, IndexError):
            log.append("bad")
        log.append("stop")
        break
    return log



@cases(([0, 3, 1, 2, 2, 0],), ([3, 3],), ([],), ([1, 2, 4],), ([1, 5],), ([0, 0, 3, 1, 2],))
def scan_until_stop_or_other(items):
    # A while True in a try, an elif arm ending with a while loop, an else part that is a
    # `break`: 3.10 copies the loop's exit block (POP_BLOCK, then the return) to that break.
    it = iter(items)
    seen = set()
    header = False
    try:
        while True:
            x = next(it)
            if x == 0:
                continue
            elif x == 3:
                if header:
                    break
                header = True
            elif x == 1:
                x = next(it)
                while x == 2:
                    seen.add(x)
                    x = next(it)
                    if x != 2:
                        break
                    x = next(it)
            else:
                break
    except StopIteration:
        pass
    return frozenset(seen)


class _Swallow:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.log.append(exc[0].__name__ if exc[0] else None)
        return exc[0] is KeyError


@cases((0, 0), (1, 0), (4, 0), (4, 1), (2, 1))
def while_test_with_swallowing_after_continue(n, k):
    # The body never falls through (every branch leaves), so past its `continue` comes the rest
    # of the body up to the loop's exit; 3.12+ lay the with's handler code at the end, and its
    # way on (the manager swallowed the exception) jumps back into that rest of the body.
    log = []
    tries = 0
    while tries < 3:
        tries += 1
        if n > 3:
            if k:
                continue
            log.append("big")
            break
        elif n > 0:
            with _Swallow(log):
                log.append(n)
                if n == 2:
                    raise KeyError(n)
            log.append("after with")
            break
        return log
    return log


@cases((0,), (1,), (2,), (5,))
def inner_for_break_to_outer_head_rest_past_exit(n):
    # The inner loop ends the outer one's body, so its `break` (in an except clause, laid at the
    # end) jumps straight to the outer loop's head; the rest of its body (after the try, which
    # never falls out) lies past its exit too, after the code after both loops (3.12+). That
    # code is not the inner body's.
    log = []
    for j in range(2):
        for i in range(3):
            try:
                log.append(10 // (i >= n))
                return None
            except ZeroDivisionError:
                log.append(6)
            except KeyError:
                break
            log.append(i)
    return log


@cases((0,), (1,))
def while_test_handler_if_break_then_rest(k):
    # The loop never jumps back (its body returns), so it reads as an if; the except clause's
    # `break` jumps past the rest of the body, which the clause's other way reaches.
    log = []
    w = 0
    while w < 1:
        w += 1
        try:
            raise ValueError(w)
        except ValueError:
            if k:
                break
        log.append("rest")
        return log
    log.append("after")
    return log


@cases((0,), (1,))
def while_test_handler_if_break_through_finally_then_return(k):
    # The same, the try with a finally body and the rest of the body a return.
    log = []
    w = 0
    while w < 1:
        w += 1
        try:
            raise ValueError(w)
        except ValueError:
            if k:
                break
            log.append("x")
        finally:
            log.append("fin")
        return log
    log.append("after")
    return log


@cases((0,), (1,))
def while_test_handler_if_break_in_for(k):
    # The same loop inside a for loop's body: the `break` goes to the code after the inner
    # loop, inside the for body.
    log = []
    for i in range(2):
        w = 0
        while w < 1:
            w += 1
            try:
                raise ValueError(w)
            except ValueError:
                if k:
                    break
            log.append("rest")
            return log
        log.append(i)
    return log


@cases((0, 1), (1, 1), (0, 0))
def while_test_handler_if_break_in_if_branch(k, c):
    log = []
    if c:
        w = 0
        while w < 1:
            w += 1
            try:
                raise ValueError(w)
            except ValueError:
                if k:
                    break
            log.append("rest")
            return log
        log.append("after")
    else:
        log.append("else")
    return log


@cases((0,), (1,), (2,))
def while_test_two_clauses_one_breaks(k):
    log = []
    w = 0
    while w < 1:
        w += 1
        try:
            raise ValueError(w) if k < 2 else KeyError(w)
        except ValueError:
            if k:
                break
            log.append("v")
        except KeyError:
            log.append("k")
        log.append("rest")
        return log
    log.append("after")
    return log


@cases((0,), (1,))
def while_test_handler_if_break_with_else(k):
    # With an else part the loop's `break` jumps past it.
    log = []
    w = 0
    while w < 1:
        w += 1
        try:
            raise ValueError(w)
        except ValueError:
            if k:
                break
        log.append("rest")
        return log
    else:
        log.append("else")
    log.append("after")
    return log


@cases((0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (0, 1), (2, 1))
def while_else_inner_else_break_skips_rest(n, k):
    # An else part's `break` skips the rest of the if body (3.10+ read it as the inner if's way
    # on).
    log = []
    w = 0
    while w < 3:
        w += 1
        if n > 3:
            if n > 4:
                log.append(1)
            else:
                break
            log.append(2)
            log.append(3)
            break
        else:
            return log
    else:
        log.append(4)
        log.append(5)
    log.append(6)
    return log


@cases((0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (0, 1), (2, 1))
def while_else_break_skips_rest_then_return(n, k):
    # A `break` in an else part, then the rest of the if body and a return: the loop never jumps
    # back (3.11: the return is shared, not copied).
    log = []
    tries = 0
    while tries < 2:
        tries += 1
        if k:
            log.append(1)
        else:
            if n:
                log.append(2)
            else:
                break
            log.append(3)
        return log
    else:
        log.append(4)
    return log


@cases((0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (0, 1), (2, 1))
def while_true_elif_else_break(n, k):
    # A `while True:` that never jumps back, its `break`s in an if and an elif's else part.
    log = []
    tries = 0
    while True:
        tries += 1
        if tries > 1:
            break
        if n % 2 == 0:
            log.append(2)
            return log
        elif n > 1:
            log.append(3)
        else:
            break
        return log
    log.append(5)
    return log


@cases((0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (0, 1), (2, 1))
def while_true_in_clause_elif_else_break(n, k):
    # The same loop in an except clause (3.12+ read the last `break` as the if's way on).
    log = []
    try:
        raise ValueError(1)
    except ValueError:
        tries = 0
        while True:
            tries += 1
            if tries > 1:
                break
            if n % 2 == 0:
                log.append(2)
                return log
            elif n > 1:
                log.append(3)
            else:
                break
            return log
        log.append(5)
    return log


@cases((0, 0), (1, 0), (2, 0), (3, 0), (0, 1), (2, 1))
def while_for_else_break_skips_rest(n, k):
    # A `while` that never jumps back: the for loop's else part ends in its `break`, which
    # skips the code after the for loop (3.10+ read it as the way on of the else part).
    log = []
    w1 = 0
    while w1 < 3:
        w1 += 1
        for i2 in range(n):
            log.append(1)
            break
        else:
            if not ((n + w1) % 3 == 1):
                raise ValueError(2)
            else:
                log.append(3)
            log.append(4)
            break
        log.append(5)
        break
    log.append(6)
    return log
