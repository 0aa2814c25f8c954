"""Shapes that `tools/fuzz_control_flow.py` found read wrongly, reduced to their core."""
from _cases import cases


@cases((0,), (1,))
def finally_try_never_falls_out_then_more(n):
    # The try inside the finally body never falls out (its body raises): the rest of the
    # finally body, and the code after the statement, are reached only through its clause.
    log = []
    try:
        log.append(n)
    finally:
        try:
            raise ValueError(5)
        except ValueError:
            log.append(6)
        log.append(9)
    return log


@cases((0,), (1,), (3,))
def finally_try_raising_either_way_then_more(n):
    log = []
    try:
        log.append(n)
    finally:
        try:
            if n > 1:
                raise ValueError(n)
            raise KeyError(n)
        except ValueError:
            log.append(6)
        except KeyError:
            log.append(7)
        log.append(9)
    log.append(10)
    return log


class _Scope:
    """A context manager that logs, and swallows a ValueError when asked to."""

    def __init__(self, log, swallow):
        self.log, self.swallow = log, swallow

    def __enter__(self):
        self.log.append("enter")

    def __exit__(self, kind, value, tb):
        self.log.append(("exit", kind.__name__ if kind else None))
        return self.swallow and kind is ValueError


@cases((0, False), (2, False), (0, True), (2, True), (5, True))
def for_else_with_breaking(n, swallow):
    # 3.12+: the with's swallowing exit jumps back to the loop's head from the handler code at
    # the end; the loop still ends at its exit (the code after the loop was read into it).
    # The `break` is the with body's (read after the with statement, a swallowed exception
    # would stop the loop instead of going on).
    log = []
    for i in range(3):
        with _Scope(log, swallow):
            log.append(i)
            if i < n:
                raise ValueError(i)
            break
    else:
        log.append("else")
    log.append("after")
    return log


@cases((0, False), (2, False), (2, True), (5, True))
def while_with_breaking_then_more(n, swallow):
    # (the swallowed exception goes on to more of the loop body)
    log = []
    i = 0
    while i < 3:
        i += 1
        with _Scope(log, swallow):
            log.append(i)
            if i < n:
                raise ValueError(i)
            break
        log.append("more")
    log.append("after")
    return log


@cases((0, False), (2, True), (5, True))
def for_with_break_in_if_then_break(n, swallow):
    log = []
    for i in range(4):
        with _Scope(log, swallow):
            if i == 3:
                break
            log.append(i)
            if i < n:
                raise ValueError(i)
            break
    log.append("after")
    return log


@cases((0, False), (2, False), (2, True), (5, True))
def while_try_with_breaking_finally(n, swallow):
    # The `break` ending the with body runs the exit call, then the finally body's copy, then
    # leaves the loop: that way out is the break's. Only a swallowed exception goes on after the
    # try (through the finally body's other copy), to the next turn.
    log = []
    i = 0
    while i < 3:
        i += 1
        try:
            log.append(i)
            with _Scope(log, swallow):
                log.append("body")
                if i < n:
                    raise ValueError(i)
                break
        finally:
            log.append("finally")
    for j in range(2):
        log.append(j)
        return log


@cases((0, False), (2, False), (2, True), (5, True))
def while_true_with_continuing(n, swallow):
    # A `while True:` whose with body ends in `continue`: that jumps back to the loop line's
    # NOP, while a swallowed exception reaches the body's end, whose jump goes past the NOP
    # (3.12+: from the handler code at the end). One loop, not two nested ones.
    log = []
    i = 0
    while True:
        i += 1
        if i > 3:
            break
        with _Scope(log, swallow):
            log.append(i)
            if i < n:
                raise ValueError(i)
            continue
    log.append("after")
    return log


@cases((0, False), (2, True), (5, True))
def while_true_nested_with_continuing(n, swallow):
    log = []
    i = 0
    while True:
        i += 1
        if i > 3:
            break
        with _Scope(log, False):
            with _Scope(log, swallow):
                if i < n:
                    raise ValueError(i)
                continue
    log.append("after")
    return log


@cases((0, False), (2, True), (5, True))
def while_true_with_continuing_then_more(n, swallow):
    # (the swallowed exception goes on to more of the loop body)
    log = []
    i = 0
    while True:
        i += 1
        if i > 3:
            break
        with _Scope(log, swallow):
            log.append(i)
            if i < n:
                raise ValueError(i)
            continue
        log.append("more")
    log.append("after")
    return log


@cases((0,), (1,), (2,))
def while_true_try_continuing_or_raising(n):
    # The try body either continues or raises; only the except clause reaches the body's end.
    log = []
    i = 0
    while True:
        i += 1
        if i > 2:
            break
        try:
            if (n + i) % 3 == 0:
                log.append(i)
                continue
            else:
                raise ValueError(i)
        except ValueError:
            log.append("caught")
    log.append("after")
    return log


@cases((0,), (2,))
def if_body_ending_in_while_true_else_return(n):
    # The loop never falls out, so no jump over the else part follows it: its `break` goes
    # past the else part, to the code after the if statement (3.12+ lay it that way).
    log = []
    if n > 1:
        i = 0
        while True:
            i += 1
            if i > 3:
                break
            log.append(i)
    else:
        return "else"
    log.append("after")
    return log


@cases((0,), (2,), (5,))
def if_body_ending_in_while_true_then_elif(n):
    log = []
    if n > 3:
        i = 0
        while True:
            i += 1
            if i > 2:
                break
            log.append(i)
    elif n > 1:
        log.append("elif")
    log.append("after")
    return log


@cases((0,), (1,))
def for_with_returning_constant(n):
    # `return <constant>` ends the with body: after the exit call the iterator is popped, then
    # the constant returned. Not the code after the with (which a swallowed exception reaches).
    log = []
    for i in range(2):
        with _Scope(log, n == 1):
            log.append(i)
            if i < n:
                raise ValueError(i)
            return "done"
        log.append("more")
    log.append("after")
    return log


@cases((0,), (1,))
def for_nested_with_returning_constant(n):
    log = []
    for i in range(2):
        with _Scope(log, False):
            with _Scope(log, n == 1):
                if i < n:
                    raise ValueError(i)
                return "done"
        log.append("more")
    log.append("after")
    return log


@cases((0, 0), (0, 2), (0, 3), (2, 0))
def with_if_try_raising_else_arms_leave(n, k):
    # The if body's try never falls out (its body raises): only the except clause goes on, to
    # the with's normal exit, which 3.12+ lay after the handler code. The elif arms, which
    # all leave, are the else part (read after the if, the clause would run into them).
    log = []
    with _Scope(log, False):
        if n > 1:
            try:
                raise ValueError(4)
            except ValueError:
                log.append(5)
        elif k == 2:
            raise KeyError(11)
        elif k == 3:
            return 12
        else:
            raise KeyError(13)
    return log


@cases((0,), (2,), (5,))
def while_test_continue_then_return(n):
    # The loop's body ends in a return, past its only jump back (the `continue`).
    i = 0
    while i < 4:
        i += 1
        if i < n:
            continue
        return i
    return None


@cases((0, 0), (3, 0), (0, 9), (3, 9))
def while_test_continue_then_return_in_try(n, limit):
    log = []
    try:
        i = 0
        while i < 3:
            i += 1
            if i <= n:
                continue
            return i
        raise ValueError(limit)
    except ValueError:
        log.append("caught")
        return log


@cases(([],), ([1],), ([1, 2, 3, 4, 5, 6, 7],), ([9, 9, 9, 9, 9, 9, 9, 9],))
def while_continue_elif_break_then_return(items):
    # An elif chain: `continue`, `raise`, `break`, then the rest of the body returns; the
    # `break` jumps to the loop's exit from past the last jump back.
    log = []
    i = 0
    while i < 3:
        i += 1
        if len(items) > 7:
            continue
        elif len(items) == 7:
            raise ValueError(i)
        elif not items:
            break
        log.append(i)
        return log
    log.append("after")
    return log


@cases((0,), (1,), (2,), (5,))
def while_returning_tail_with_breaks(n):
    # Past the last jump back: a try whose body breaks, a loop then a `break`, a return.
    log = []
    i = 0
    while i < 3:
        i += 1
        if n > 3:
            if len(log) > 4:
                continue
            try:
                log.append(n)
                break
            except ValueError:
                return log
        elif n > 0:
            j = 0
            while j < n:
                j += 1
            log.append(j)
            break
        log.append("end")
        return log
    log.append("after")
    return log


@cases((0,), (1,))
def statements_after_raise_in_if(n):
    # 3.8/3.9 keep the code after a raise: it reads as written.
    log = [n]
    if n:
        raise ValueError(n)
        log.append("never")
    for i in range(2):
        log.append(i)
    return log


@cases((0,), (3,))
def old_code_after_raise(n):
    raise NotImplementedError(n)
    total = 0
    for i in range(n):
        if i % 2:
            continue
        total += i
    return total


@cases((0,), (3,))
def raise_in_try_then_dead_loop(n):
    log = []
    try:
        raise KeyError(n)
        while n > 0:
            n -= 1
            log.append(n)
    except KeyError:
        log.append("caught")
    return log


@cases((0,), (2,))
def dead_loop_after_return(n):
    # 3.8/3.9 keep the part of the code after a return that follows the next jump target: a
    # loop's head and its body, reached only from itself. Nothing runs it.
    log = [n]
    return log
    for i in range(3):
        try:
            continue
        except ValueError:
            log.append(i)
    return log


@cases((0,), (3,), (5,))
def while_never_jumping_back_break_in_elif(n):
    # No jump back (the body always leaves): 3.8/3.9 read the loop as an if; its `break`
    # jumps where the if ends, from the middle of its body: read again as the loop.
    log = []
    i = 0
    while i < 1:
        i += 1
        if n > 4:
            break
        elif n > 2 and len(log) < 4:
            break
        return log
    log.append("after")
    return log


@cases((0,), (1,))
def while_never_jumping_back_break_in_finally_try(n):
    log = []
    i = 0
    while i < 3:
        i += 1
        if n != 1:
            try:
                break
            finally:
                log.append("finally")
        return log
    log.append("after")
    return log


@cases((0,), (1,))
def finally_try_except_with_loop_then_end(n):
    # The finally body's try never falls out; its except clause runs a loop and ends the body.
    log = []
    try:
        log.append(n)
    finally:
        try:
            raise ValueError(n)
        except ValueError:
            i = 0
            while i < 2:
                i += 1
                log.append(i)
    return log


@cases((0,), (1,))
def finally_try_except_if_then_end(n):
    # The same with an if ending the except clause: 3.10/3.11 copy the finally body's closing
    # re-raise into the clause's way out; there is no original after it.
    log = []
    try:
        log.append(n)
    finally:
        try:
            raise ValueError(n)
        except ValueError:
            if n:
                log.append(2)
    return log


@cases((0,), (1,))
def finally_try_except_if_then_end_return_in_body(n):
    # The same, the try body a return: 3.11 computes the value before the finally body's copy,
    # whose except clause's ways out are the RETURN_VALUE.
    log = []
    try:
        return log
    finally:
        try:
            raise ValueError(n)
        except ValueError:
            if n:
                log.append(2)


@cases((0,), (2,))
def try_break_in_while_in_try(n):
    # 3.10 copies the code after the loop (the outer try's unwinding and the return) into the
    # `break`, right after the inner try's own unwinding.
    log = []
    try:
        i = 0
        while i < 3:
            i += 1
            try:
                log.append(i)
                if i > n:
                    raise ValueError(i)
                break
            except ValueError:
                continue
    except KeyError:
        return None
    return log
