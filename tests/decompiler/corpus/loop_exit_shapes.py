"""Loop shapes around try and with statements whose ways out run apart from the usual layout
(3.11 lays handler code inline, right after the code it protects).

* A with in one arm of an if inside a loop, whose body never ends normally: only a swallowing
  manager goes on, over the other arm, to the loop's closing jump. That other arm is no
  handler code of the with.
* A try body whose last if has an else part that leaves the loop by `break`: the break's way
  out (the iterator popped, a jump) lies after the protected range, and the if body's jump over
  it lands on the try's else part.
* A for loop left by a `break` that falls straight into the code after the loop: no copy of
  that code, even when it is a try statement that never ends normally.
"""
from _cases import cases


class _Swallow:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.log.append(exc[0].__name__ if exc[0] else None)
        return exc[0] is KeyError


@cases((0, KeyError), (1, KeyError), (1, ValueError))
def while_if_with_raising_else_raise(n, kind):
    log = []
    w = 0
    while True:
        w += 1
        if w > 2:
            break
        if n:
            with _Swallow(log):
                raise kind(w)
        else:
            log.append(7)
            raise TypeError(8)
    log.append('after')
    return log


@cases((0,), (1,), (4,))
def for_try_if_else_break_then_else(n):
    log = []
    for i in range(3):
        try:
            if n % 2:
                log.append(i)
            else:
                log.append(-i)
                break
        except ValueError:
            return None
        else:
            log.append('else')
            if n > 3:
                raise TypeError(8)
    log.append('after')
    return log


@cases(([],), ([1],))
def for_break_into_try_finally_raising(items):
    log = []
    for item in items:
        log.append(item)
        break
    try:
        raise ValueError(3)
    finally:
        raise TypeError(7)



@cases((0, KeyError), (1, KeyError), (1, ValueError), (2, KeyError), (2, OSError))
def while_if_elif_with_raising_else_raise(n, kind):
    # The same with the with in an elif arm, after an if arm that leaves the loop too.
    log = []
    w = 0
    while True:
        w += 1
        if w > 2:
            break
        if n == 2:
            log.append(w)
            raise kind(w)
        elif n:
            with _Swallow(log):
                log.append(-w)
                raise kind(w)
        else:
            raise TypeError(8)
    log.append('after')
    return log


@cases((0,), (1,), (2,))
def while_if_while_continue_else_raise(n):
    # The inner loop, ending the if body, has no copy of its test at the bottom (its body
    # ends in `continue`): its test's exit goes straight to the outer loop's next iteration,
    # past the else part (3.10+).
    log = []
    w1 = 0
    while True:
        w1 += 1
        if w1 > 2:
            break
        if n % 2:
            w2 = 0
            while w2 < 2:
                w2 += 1
                log.append(w2)
                continue
        else:
            log.append(-w1)
            if n:
                raise ValueError(n)
    return log


@cases((0,), (1,), (3,))
def for_if_while_continue_else(n):
    # The same in a for loop, the else part falling out.
    log = []
    for i in range(3):
        if n > i:
            w = 0
            while w < n:
                w += 1
                log.append(w)
                continue
        else:
            log.append(-i)
    return log
