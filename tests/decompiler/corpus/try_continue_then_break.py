"""A `while True:` whose body is a try with a `continue` in its body, then `break`: the retry
loop (`multiprocessing.shared_memory` creates its segment this way). The try's `continue` is
the loop's only jump back, so the rest of the try body, its handler code and the `break` all
lie past it; 3.10 inlines the finally body before both ways on, the `break` landing on the
code after the loop.
"""
from _cases import cases


def _attempt(log, n, tries):
    if tries > 9:
        raise RuntimeError("runaway loop")  # (a raise, not a break: the loops keep their shape)
    log.append(tries)
    if tries == n:
        raise ValueError(tries)
    return tries < n


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
