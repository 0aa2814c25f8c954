"""A `while True:` loop whose body ends with an inner `while True:` loop: the inner loop's `break`
ends the outer body. 3.13 jumps forward to the outer loop's jump back, laid after the inner loop;
3.14 threads the `break` straight to the NOP of the outer `while` line and drops that jump back,
so read as is the `break` looked like a `continue` of the outer loop and the inner loop was lost
(control-flow fuzzer seed 618: a silent wrong result). Shapes: alone, after a with, two breaks,
three loops deep, in a try, around a try, after a `continue`, in a generator, and an if/else
whose if part ends with the inner loop (its `break` goes to the else part's end)."""
from _cases import cases


class _Tracker:
    """A context manager that logs its enter and exit."""

    def __init__(self, log, tag):
        self.log = log
        self.tag = tag

    def __enter__(self):
        self.log.append(("enter", self.tag))
        return self

    def __exit__(self, *exc):
        self.log.append(("exit", self.tag))
        return False


@cases((0,), (1,), (3,))
def inner_break_ends_body(n):
    log = []
    i = 0
    while True:
        i += 1
        if i > n:
            return log
        log.append(i)
        j = 0
        while True:
            j += 1
            if j > 2:
                break
            log.append(j)


@cases((0,), (2,))
def inner_break_after_with(n):
    # the fuzzer's seed 618: a with statement, then the inner loop
    log = []
    i = 0
    while True:
        i += 1
        if i > n:
            return log
        with _Tracker(log, i):
            log.append(4)
        j = 0
        while True:
            j += 1
            if j > 2:
                break
            log.append(5)


@cases((1,), (3,))
def inner_two_breaks(n):
    log = []
    i = 0
    while True:
        i += 1
        if i > n:
            return log
        j = 0
        while True:
            j += 1
            if j > 3:
                break
            if i == j:
                break
            log.append(j)


@cases((1,), (3,))
def three_loops_deep(n):
    log = []
    i = 0
    while True:
        i += 1
        if i > n:
            return log
        j = 0
        while True:
            j += 1
            if j > 2:
                break
            k = 0
            while True:
                k += 1
                if k > j:
                    break
                log.append((i, j, k))


@cases((1,), (3,))
def inner_loop_in_try(n):
    log = []
    i = 0
    while True:
        i += 1
        if i > n:
            return log
        try:
            j = 0
            while True:
                j += 1
                if j > i:
                    break
                log.append(j)
        except ValueError:
            log.append("v")


@cases((1,), (3,))
def loops_in_try_finally(n):
    log = []
    i = 0
    try:
        while True:
            i += 1
            if i > n:
                return log
            j = 0
            while True:
                j += 1
                if j > i:
                    break
                log.append(j)
    finally:
        log.append("f")


@cases((1,), (3,))
def continue_then_inner_loop(n):
    log = []
    i = 0
    while True:
        i += 1
        if i > n:
            return log
        if i == 2:
            log.append("c")
            continue
        j = 0
        while True:
            j += 1
            if j > i:
                break
            log.append(j)


def _generated(n):
    i = 0
    while True:
        i += 1
        if i > n:
            return
        j = 0
        while True:
            j += 1
            if j > 2:
                break
            yield (i, j)


@cases((0,), (3,))
def generator_inner_break(n):
    return list(_generated(n))


@cases((1,), (4,))
def inner_loop_in_if_part(n):
    log = []
    i = 0
    while True:
        i += 1
        if i > n:
            return log
        if i % 2:
            j = 0
            while True:
                j += 1
                if j > 2:
                    break
                log.append(j)
        else:
            log.append(-i)
