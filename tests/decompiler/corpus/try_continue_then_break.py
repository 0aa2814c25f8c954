"""A `while True:` whose body is a try with a `continue` in its body, then `break`: the retry
loop (`multiprocessing.shared_memory` creates its segment this way). The try's `continue` is
the loop's only jump back, so the rest of the try body, its handler code and the `break` all
lie past it; 3.10 inlines the finally body before both ways on, the `break` landing on the
code after the loop. The `redo_*` loops vary the shape (an else part, an earlier `break`, a
nested loop, an except clause's `continue`, a return in place of the `break`, nested trys, a
with) and go round a few times before they are done (`_busy`).
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
