"""A finally body holding a with statement inside an if or a loop. In the handler's copy of the
body (3.11+) the with's normal exit ends in a re-raise of its own, before the with's handler
code, where the copy on the normal way out falls into the code after the statement; and a
`continue` ending a for body in the normal copy is threaded to the loop's head, while the
handler's copy jumps to its closing jump. Unmatched, the normal copy was read as code after
the statement, and the finally body ran twice. And a finally body ending in a with whose body
never ends normally goes on only where the manager swallows the exception: the normal copy's
with handler, right after it, runs on into the code after the statement, which was lost. A
with in the try body that goes on only through an inner try's except clause has its exit call
laid with that clause: the try body ends there, not with the code after the statement."""
from _cases import cases


class Swallow:
    def __init__(self, log, tag):
        self.log, self.tag = log, tag

    def __enter__(self):
        self.log.append(("enter", self.tag))

    def __exit__(self, kind, value, tb):
        self.log.append(("exit", self.tag, kind.__name__ if kind else None))
        return self.tag % 3 == 0


@cases((0, 0), (1, 0), (1, 1))
def if_with_in_finally_then_return(n, k):
    log = []
    try:
        log.append(2)
    finally:
        if n:
            with Swallow(log, 4):
                log.append(5)
    if k:
        return log
    return log + [6]


@cases((0,), (1,), (7,))
def if_with_in_finally_then_loop(n):
    log = []
    try:
        log.append(n)
    finally:
        log.append(3)
        if n > 6:
            with Swallow(log, 4):
                log.append(5)
    turns = 0
    while True:
        turns += 1
        if turns > 2:
            break
        return log
    return log


@cases((0,), (1,), (2,))
def swallowing_with_in_finally_if(n):
    log = []
    try:
        log.append(1)
    finally:
        if n:
            with Swallow(log, 3):
                log.append(4)
                if n > 1:
                    raise ValueError(n)
    log.append(5)
    return log


@cases((0,), (2,))
def for_with_continue_in_finally(n):
    log = []
    try:
        log.append(1)
    finally:
        for i in range(n):
            with Swallow(log, i):
                log.append(3)
            continue
    log.append(4)
    return log


@cases((0,), (2,))
def while_with_in_finally(n):
    log = []
    try:
        log.append(1)
    finally:
        turns = 0
        while turns < n:
            turns += 1
            with Swallow(log, turns):
                log.append(turns)
    log.append(4)
    return log


@cases((0,), (1,))
def try_return_finally_if_with(n):
    log = []
    try:
        log.append(1)
        return log
    finally:
        if n:
            with Swallow(log, 6):
                log.append(7)


@cases((1,), (3,))
def with_raising_ends_finally(tag):
    log = []
    try:
        log.append(1)
    finally:
        with Swallow(log, tag):  # (tag 3 swallows: only then does the code after run)
            raise ValueError(2)
    log.append(3)
    return log


@cases((1,), (3,))
def try_return_through_raising_with_finally(tag):
    log = []
    try:
        log.append(1)
        return 2
    finally:
        with Swallow(log, tag):
            raise ValueError(3)
    return log


@cases((1, 0), (3, 0), (3, 5))
def with_raising_in_finally_then_if(tag, n):
    log = []
    try:
        log.append(n)
    finally:
        with Swallow(log, tag):
            log.append(4)
            raise KeyError(tag)
    if n > 2:
        return n
    return log


@cases((1,), (3,))
def with_clause_way_on_in_try_finally_then_try(tag):
    # The try body's with goes on only through the except clause of the try inside it (3.12+
    # lays its exit call with that clause): the try body ends after the exit call, before the
    # finally body's copy; the code after the statement is no part of the body.
    log = []
    try:
        with Swallow(log, tag):
            try:
                raise ValueError(3)
            except ValueError as e:
                log.append(type(e).__name__)
    finally:
        log.append(6)
    try:
        return log
    except ValueError:
        raise KeyError(8)


@cases((1,), (3,))
def with_clause_way_on_in_try_finally(tag):
    log = []
    try:
        with Swallow(log, tag):
            try:
                raise ValueError(3)
            except ValueError:
                log.append(4)
    finally:
        log.append(6)
    return log
