"""A while loop whose try body ends in `break` while its except clause goes on with the rest of
the loop body. 3.12+ lay the clause's way on after the handler code, inside the loop, where only
the handlers reach it, and the code after a `while True:` (which the breaks reach, the try body's
by falling into it) inside the loop's span; 3.11 jumps over the handlers to the loop's exit. Read
as the try's else part, the rest of the body was lost; read as the loop's body, the code after
the loop ran in it."""
from _cases import cases


@cases((["1"],), (["x", "2"],), (["x", "y", "z", "w"],))
def if_break_then_try_break(items):
    pending = list(items)
    log = []
    turns = 0
    while True:
        turns += 1
        if turns > 3:
            break
        try:
            log.append(int(pending.pop()))
            break
        except ValueError:
            log.append("bad")
        log.append(turns)
    log.append("done")
    return log


@cases((["1"],), (["x", "2"],), ([],))
def try_break_then_rest_of_body(items):
    pending = list(items)
    log = []
    while True:
        try:
            log.append(int(pending.pop()))
            break
        except ValueError:
            log.append("bad")
        except IndexError:
            return log
        log.append(len(pending))
    log.append("done")
    return log


@cases((["1"], 1), (["x", "2"], 1), (["x", "y", "z", "w"], 1), (["x"], 0))
def while_test_if_break_then_try_break(items, go):
    pending = list(items)
    log = []
    turns = 0
    while go:
        turns += 1
        if turns > 3:
            break
        try:
            log.append(int(pending.pop()))
            break
        except ValueError:
            log.append("bad")
        log.append(turns)
    log.append("done")
    return log


@cases((["1", "2"], True), (["x", "2"], False), (["x", "y", "z", "w"], False))
def try_if_break_then_rest_of_body(items, stop):
    pending = list(items)
    log = []
    turns = 0
    while True:
        turns += 1
        if turns > 3:
            break
        try:
            log.append(int(pending.pop()))
            if stop:
                break
        except ValueError:
            log.append("bad")
        log.append(turns)
    log.append("done")
    return log


@cases((["1"],), (["x", "2"],), (["x", "y", "z", "w"],))
def nested_try_break_then_rest(items):
    pending = list(items)
    log = []
    turns = 0
    while True:
        turns += 1
        if turns > 3:
            break
        try:
            try:
                log.append(int(pending.pop()))
                break
            except ValueError:
                log.append("bad")
            log.append(turns)
        except IndexError:
            log.append("empty")
            break
    log.append("done")
    return log


@cases((["1"],), (["x", "2"],), (["x", "y", "z", "w"],))
def try_break_clause_continue_then_rest(items):
    pending = list(items)
    log = []
    turns = 0
    while turns < 5:
        turns += 1
        if not pending:
            break
        try:
            log.append(int(pending.pop()))
            break
        except ValueError:
            if turns % 2:
                continue
            log.append("bad")
        log.append(turns)
    log.append("done")
    return log


@cases((0,), (1,), (2,))
def try_except_finally_body_breaks(n):
    # The try body's `break` runs the finally body's copy, then jumps past the handler code to
    # the loop's exit; the clause goes on in the loop (3.11+ read the jump as the statement's).
    log = []
    w = 0
    while w < 2:
        w += 1
        try:
            log.append(w)
            if w == n:
                raise ValueError(n)
            break
        except ValueError:
            log.append("v")
        finally:
            log.append("f")
    log.append("after")
    return log


@cases((0,), (1,), (2,))
def try_except_finally_body_breaks_in_try(n):
    # The same loop inside a try/finally: its copies on the way out come after the loop.
    log = []
    try:
        w = 0
        while w < 2:
            w += 1
            try:
                log.append(w)
                if w == n:
                    raise ValueError(n)
                break
            except ValueError:
                log.append("v")
            finally:
                log.append("f")
        log.append("after")
    finally:
        log.append("outer")
    return log
