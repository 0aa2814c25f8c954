"""A `while True:` whose body is a try with a `continue` in its body, then `break`: the retry
loop (`multiprocessing.shared_memory` creates its segment this way). The try's `continue` is
the loop's only jump back, so the rest of the try body, its handler code and the `break` all
lie past it; 3.10 inlines the finally body before both ways on, the `break` landing on the
code after the loop. (3.12+ lays the handler code at the end: past the `continue` come the
rest of the try body, the finally body's copy, the `break` and the code after the loop.) The
same with a with (or async with) statement, an else part, an `as` name, more statements after
the try, a `break` or `return` in or after it, nested tries, a loop with a test. The `redo_*`
loops vary the shape too and go round a few times before they are done (`_busy`).
"""
from _cases import cases


def _attempt(log, n, tries):
    if tries > 9:
        raise RuntimeError("runaway loop")  # (a raise, not a break: the loops keep their shape)
    log.append(tries)
    if tries == n:
        raise ValueError(tries)
    return tries < n


def _busy(log, n, tries, bad):
    """Busy (go round again) for the first n - 1 tries; the try numbered `bad` fails."""
    if tries > 9:
        raise RuntimeError("runaway loop")
    log.append(tries)
    if tries == bad:
        raise ValueError(tries)
    return tries < n


class _Closing:
    def __init__(self, log, swallow):
        self.log = log
        self.swallow = swallow

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        self.log.append("closed")
        return self.swallow and kind is ValueError  # (never the runaway guard's error)


@cases((0,), (2,), (3,), (5,))
def retry_finally_then_break(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            log.append("made")
        finally:
            log.append("closed")
        break
    return log


@cases((0,), (2,), (3,), (5,))
def retry_finally_more_then_break(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            log.append("made")
        finally:
            log.append("closed")
        log.append(tries)
        break
    log.append("after")
    return log


@cases((0,), (2,), (3,), (5,))
def retry_except_then_break(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n + 1, tries):
                continue
            log.append("made")
        except ValueError:
            log.append("failed")
        break
    return log


@cases((0, None), (2, None), (3, "x"), (5, "y"))
def retry_raise_or_continue(n, name):
    log = []
    tries = 0
    while True:
        tries += 1
        if tries > 9:
            raise RuntimeError("runaway loop")
        temp = "t%d" % tries if name is None else name
        try:
            if tries < n:
                if name is not None:
                    raise FileExistsError(name)
                else:
                    continue
            log.append(temp)
        finally:
            log.append("closed")
        name = temp
        break
    return log, name


@cases((0, 1), (2, 0), (3, 1), (5, 0))
def retry_in_if_branch(n, create):
    log = []
    if create:
        tries = 0
        while True:
            tries += 1
            try:
                if _attempt(log, n, tries):
                    continue
                log.append("made")
            finally:
                log.append("closed")
            break
    else:
        log.append("opened")
    log.append("end")
    return log


@cases((0,), (2,), (4,))
def retry_in_for_body(n):
    log = []
    for k in range(3):
        tries = 0
        while True:
            tries += 1
            try:
                if _attempt(log, n + k, tries):
                    continue
                log.append(k)
            finally:
                log.append("closed")
            break
    return log


# The same loops busy for a few tries and then done (`_busy`), or failing on the try `bad`.

@cases((1, None), (3, None), (3, 2), (2, 1))
def redo_except_else_then_break(n, bad):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _busy(log, n, tries, bad):
                continue
        except ValueError:
            log.append("failed")
        else:
            log.append("made")
        log.append(tries)
        break
    log.append("after")
    return log


@cases((1, None, 0), (3, None, 0), (3, None, 2), (4, 3, 0), (2, 1, 5))
def redo_break_early_or_after_try(n, bad, stop):
    log = []
    tries = 0
    while True:
        tries += 1
        if tries == stop:
            log.append("stopped")
            break
        try:
            if _busy(log, n, tries, bad):
                continue
            log.append("made")
        finally:
            log.append("closed")
        log.append(tries)
        break
    log.append("after")
    return log


@cases((1, None), (3, None), (3, 2))
def redo_in_while_true(n, bad):
    log = []
    rounds = 0
    while True:
        rounds += 1
        if rounds > 2:
            break
        tries = 0
        while True:
            tries += 1
            try:
                if _busy(log, n, tries, bad):
                    continue
                log.append("made")
            finally:
                log.append("closed")
            break
        log.append(rounds)
    return log


@cases((1, None), (3, None), (3, 2), (5, 1))
def redo_except_continue_then_break(n, bad):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _busy(log, n, tries, bad):
                continue
            log.append("made")
        except ValueError:
            log.append("failed")
            if tries < 3:
                continue
        log.append(tries)
        break
    return log


@cases((1, None), (3, None), (3, 2))
def redo_finally_then_return(n, bad):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _busy(log, n, tries, bad):
                continue
            log.append("made")
        finally:
            log.append("closed")
        return log


@cases((1, None), (3, None), (3, 2), (2, 1))
def redo_nested_try_then_break(n, bad):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            try:
                if _busy(log, n, tries, bad):
                    continue
                log.append("made")
            except ValueError:
                log.append("failed")
        finally:
            log.append("closed")
        break
    return log


@cases((1, None, False), (3, None, False), (3, 2, True), (3, 2, False))
def redo_with_then_break(n, bad, swallow):
    log = []
    tries = 0
    while True:
        tries += 1
        with _Closing(log, swallow):
            if _busy(log, n, tries, bad):
                continue
            log.append("made")
        break
    return log


@cases((0, None), (2, None), (3, 2))
def redo_until_limit_or_failure(n, bad):
    # The try body's `continue` is its only way on and the handler raises: the handler code is
    # all that follows the loop's jump back (3.10: the `break` ran a copy of the return).
    log = []
    tries = 0
    while True:
        tries += 1
        if tries > n:
            break
        try:
            _busy(log, n, tries, bad)
            continue
        except ValueError:
            log.append("failed")
            raise
    return log


class _Managed:
    def __init__(self, log, swallow=False):
        self.log = log
        self.swallow = swallow

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, *exc):
        self.log.append("exit")
        return self.swallow


class _AsyncManaged:
    def __init__(self, log, swallow=False):
        self.log = log
        self.swallow = swallow

    async def __aenter__(self):
        self.log.append("enter")
        return self

    async def __aexit__(self, *exc):
        self.log.append("exit")
        return self.swallow


@cases((0,), (2,), (3,), (5,))
def retry_with_then_break(n):
    log = []
    tries = 0
    while True:
        tries += 1
        with _Managed(log):
            if _attempt(log, n, tries):
                continue
            log.append("made")
        break
    return log


@cases((0,), (2,), (3,), (5,))
def retry_with_then_more(n):
    log = []
    tries = 0
    while True:
        tries += 1
        with _Managed(log, True):
            if _attempt(log, n, tries):
                continue
            log.append("made")
        log.append(tries)
        break
    log.append("after")
    return log


@cases((0,), (2,), (3,), (5,))
def retry_except_else_then_break(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
        except ValueError:
            log.append("failed")
        else:
            log.append("made")
        break
    log.append("after")
    return log


@cases((0,), (2,), (3,), (5,))
def retry_except_then_more(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            log.append("made")
        except ValueError as e:
            log.append(str(e))
        log.append(tries)
        break
    log.append("after")
    return log


@cases((0,), (2,), (3,), (5,))
def retry_two_clauses_then_break(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            log.append("made")
        except KeyError:
            log.append("key")
        except ValueError:
            log.append("value")
        break
    log.append("after")
    return log


@cases((0,), (2,), (3,), (5,))
def retry_except_finally_then_break(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            log.append("made")
        except ValueError:
            log.append("failed")
        finally:
            log.append("closed")
        break
    log.append("after")
    return log


@cases((0,), (2,), (3,), (5,))
def retry_clause_continues_then_break(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n + 2, tries):
                continue
            log.append("made")
        except ValueError:
            log.append("again")
            if tries < 6:
                continue
        break
    log.append("after")
    return log


@cases((0,), (2,), (3,), (5,))
def retry_finally_with_if_then_break(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            log.append("made")
        finally:
            if tries % 2:
                log.append("odd")
        break
    log.append("after")
    return log


@cases((0,), (2,), (3,), (5,))
def retry_finally_then_more_statements(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            log.append("made")
        finally:
            log.append("closed")
        if tries > 3:
            log.append("late")
        log.append(tries)
        break
    log.append("after")
    return log


@cases((0,), (2,), (3,), (5,))
def retry_finally_break_in_body(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            if tries > 2:
                break
            log.append("made")
        finally:
            log.append("closed")
        log.append("early")
        break
    log.append("after")
    return log


@cases((0,), (2,), (3,), (5,))
def retry_except_break_in_body(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            if tries > 2:
                break
            log.append("made")
        except ValueError:
            log.append("failed")
        log.append("early")
        break
    log.append("after")
    return log


@cases((0, True), (2, True), (3, True), (5, False), (5, True))
def retry_finally_break_in_nested_if(n, flag):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            if flag:
                if tries > 2:
                    break
                log.append("flag")
            log.append("made")
        finally:
            log.append("closed")
        log.append("early")
        break
    log.append("after")
    return log


@cases((0,), (2,), (3,), (5,))
def retry_finally_in_for_then_more(n):
    log = []
    for k in range(2):
        tries = 0
        while True:
            tries += 1
            try:
                if _attempt(log, n + k, tries):
                    continue
                log.append(k)
            finally:
                log.append("closed")
            break
        log.append("next")
    return log


@cases((0,), (2,), (3,), (5,))
def retry_try_after_statement_in_body(n):
    log = []
    tries = 0
    while True:
        tries += 1
        log.append("top")
        try:
            log.append("try")
            if _attempt(log, n, tries):
                continue
            log.append("made")
        except ValueError:
            log.append("failed")
        break
    return log


@cases((0,), (2,), (3,), (5,))
def retry_nested_try_in_body(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            try:
                log.append(1 // (tries % 2))
            except ZeroDivisionError:
                log.append("zero")
        finally:
            log.append("closed")
        break
    return log


@cases((0,), (2,), (3,), (5,))
def retry_inside_outer_try(n):
    log = []
    try:
        tries = 0
        while True:
            tries += 1
            try:
                if _attempt(log, n, tries):
                    continue
                log.append("made")
            finally:
                log.append("closed")
            break
        log.append("done")
    except ValueError:
        log.append("outer")
    return log


@cases((0,), (2,), (3,), (5,))
def retry_with_in_try_then_break(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            with _Managed(log):
                if _attempt(log, n, tries):
                    continue
                log.append("made")
        except ValueError:
            log.append("failed")
        break
    log.append("after")
    return log


@cases((0,), (2,), (3,), (5,))
def retry_elif_continue(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if tries > 7:
                log.append("late")
            elif _attempt(log, n, tries):
                continue
            log.append("made")
        finally:
            log.append("closed")
        break
    return log


@cases((0,), (2,), (3,), (5,))
def retry_finally_return_in_body(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            if tries == 2:
                return log
            log.append("made")
        finally:
            log.append("closed")
        break
    log.append("after")
    return log


@cases((0,), (2,), (3,), (5,))
def retry_except_else_copied_exit(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            log.append("made")
        except ValueError:
            log.append("failed")
        else:
            log.append("else")
        break
    return log


@cases((0,), (2,), (3,), (5,))
def retry_named_except_else_copied_exit(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            log.append("made")
        except ValueError as e:
            log.append(str(e))
        else:
            log.append("else")
        break
    return log


@cases(([5, 0],), ([0, 5],), ([1, 5, 0],), ([],))
def while_test_named_except_else_continue(xs):
    log = []
    i = 0
    while i < len(xs):
        i += 1
        try:
            r = 10 // xs[i - 1]
        except ZeroDivisionError as e:
            log.append(type(e).__name__)
        else:
            log.append(r)
            if r > 3:
                continue
        break
    return log


@cases((0,), (2,), (3,), (5,))
def retry_two_clauses_else_copied_exit(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            log.append("made")
        except KeyError:
            log.append("key")
        except ValueError:
            log.append("failed")
        else:
            log.append("else")
        break
    return log


@cases((0,), (2,), (3,), (5,))
def while_test_retry_finally_then_break(n):
    log = []
    tries = 0
    while tries < 8:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            log.append("made")
        finally:
            log.append("closed")
        break
    return log


@cases((0,), (2,), (3,), (5,))
def for_retry_finally_then_break(n):
    log = []
    for tries in range(1, 9):
        try:
            if _attempt(log, n, tries):
                continue
            log.append("made")
        finally:
            log.append("closed")
        break
    return log


@cases((0,), (2,), (3,), (5,))
def retry_finally_return_after(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            log.append("made")
        finally:
            log.append("closed")
        return log


@cases((0,), (2,), (3,), (5,))
def retry_except_as_then_break(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            log.append("made")
        except ValueError as e:
            log.append(e.args)
        break
    return log


@cases((0,), (2,), (3,), (5,))
def retry_two_continues_then_break(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if tries == 1:
                continue
            if _attempt(log, n, tries):
                continue
            log.append("made")
        finally:
            log.append("closed")
        break
    return log


@cases((0,), (2,), (3,), (5,))
def retry_clause_breaks_or_continues(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            log.append("made")
        except ValueError:
            log.append("failed")
            if tries > 3:
                break
            continue
        break
    log.append("after")
    return log


@cases((0,), (2,), (3,), (5,))
def retry_nested_while(n):
    log = []
    for k in range(2):
        tries = 0
        while True:
            tries += 1
            try:
                if _attempt(log, n, tries):
                    continue
                log.append("made")
            except ValueError:
                log.append("failed")
            break
        if k:
            log.append("second")
    return log


@cases((0,), (2,), (3,), (5,))
async def retry_async_with_then_break(n):
    log = []
    tries = 0
    while True:
        tries += 1
        async with _AsyncManaged(log):
            if _attempt(log, n, tries):
                continue
            log.append("made")
        break
    log.append("after")
    return log


@cases((0, False), (2, True), (3, False), (3, True), (5, False))
async def retry_async_with_then_more(n, swallow):
    log = []
    tries = 0
    while True:
        tries += 1
        async with _AsyncManaged(log, swallow):
            if _attempt(log, n, tries):
                continue
            log.append("made")
        log.append("more")
        break
    log.append("after")
    return log


@cases((0,), (2,), (3,), (5,))
async def retry_async_with_break_in_body(n):
    log = []
    tries = 0
    while True:
        tries += 1
        async with _AsyncManaged(log):
            if _attempt(log, n, tries):
                continue
            if tries > 2:
                break
            log.append("made")
        log.append("more")
        break
    log.append("after")
    return log


@cases((0,), (2,), (3,), (5,))
def retry_with_break_in_body(n):
    log = []
    tries = 0
    while True:
        tries += 1
        with _Managed(log):
            if _attempt(log, n, tries):
                continue
            if tries > 2:
                break
            log.append("made")
        log.append("more")
        break
    log.append("after")
    return log


@cases((0,), (2,), (3,), (5,))
def retry_finally_loop_in_finally(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            log.append("made")
        finally:
            for k in range(2):
                log.append(k)
        break
    return log


@cases((0,), (2,), (3,), (5,))
def retry_finally_if_in_finally_more(n):
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            log.append("made")
        finally:
            if tries > 1:
                log.append("many")
            else:
                log.append("one")
        log.append("more")
        break
    log.append("after")
    return log


@cases(([5, 0],), ([0, 5],), ([1, 5, 0],), ([],))
def for_except_else_continue_then_break(xs):
    log = []
    for x in xs:
        try:
            r = 10 // x
        except ZeroDivisionError:
            log.append(0)
        else:
            log.append(r)
            if r > 3:
                continue
        break
    return log


@cases(([5, 0],), ([0, 5],), ([1, 5, 0],), ([],))
def while_test_except_else_continue_more(xs):
    log = []
    i = 0
    while i < len(xs):
        i += 1
        try:
            r = 10 // xs[i - 1]
        except ZeroDivisionError as e:
            log.append(type(e).__name__)
        else:
            if r > 3:
                continue
            log.append(r)
        break
    return log


@cases((0,), (2,), (3,), (5,))
def retry_except_then_more_break(n):
    # 3.12+: the except clause jumps back to the code after the try, where the try body falls
    # too: the rest of the loop body (then a `break` that falls into the exit), not the exit.
    log = []
    tries = 0
    while True:
        tries += 1
        try:
            if _attempt(log, n, tries):
                continue
            log.append("made")
        except ValueError:
            log.append("failed")
        log.append("early")
        break
    log.append("after")
    return log


@cases((0,), (1,), (5,))
def for_retry_except_finally_break(n):
    # The try body's `break` pops the iterator after the finally body's copy and jumps past
    # the code after the loop; the clause's copy goes back to the loop's head.
    log = []
    for i in range(3):
        try:
            log.append(i)
            if n == i:
                raise ValueError(n)
            break
        except ValueError:
            log.append("v")
        finally:
            log.append("f")
    log.append("after")
    return log


# The same `break` ending the else part: the body's way out is the else part, then the finally
# body's copy, then the `break` (3.12+: a copy of the code after the loop in place of the jump);
# the clause's copy goes back to the loop's head, or to the test at the bottom (3.11).

@cases((0,), (1,), (5,))
def for_retry_except_else_break_finally(n):
    log = []
    for i in range(3):
        try:
            log.append(i)
            if n == i:
                raise ValueError(i)
        except ValueError:
            log.append(-1)
        else:
            log.append(2)
            break
        finally:
            log.append(3)
    return log


@cases((0,), (1,), (5,))
def while_retry_except_else_break_finally(n):
    log = []
    w = 0
    while w < 3:
        w += 1
        try:
            log.append(w)
            if n == w:
                raise ValueError(w)
        except ValueError:
            log.append(-1)
        else:
            log.append(2)
            break
        finally:
            log.append(3)
    return log


@cases((0,), (1,), (2,))
def for_retry_except_else_break_finally_else(n):
    log = []
    for i in range(2):
        try:
            if n == i:
                raise KeyError(i)
        except KeyError:
            log.append("k")
        else:
            log.append("ok")
            break
        finally:
            log.append("f")
    else:
        log.append("all failed")
    log.append("after")
    return log


@cases((0,), (1,), (5,))
def while_true_retry_except_else_break_finally(n):
    log = []
    w = 0
    while True:
        w += 1
        try:
            if w <= n:
                raise ValueError(w)
        except ValueError:
            log.append(w)
        else:
            log.append("ok")
            break
        finally:
            log.append("f")
    return log
