"""A `return CONST` inside an `if` in a try body whose finally body holds a loop. The return
leaves the try's block before it runs, so the copy of the finally body (with the loop) lies
between the if's test and the return; 3.11 points the loop's exit straight at the return. The
loop's own jumps in that copy are no branching of the exit block: the return is the if's, not
one that runs after the try statement."""
from _cases import cases


@cases((1,), (0,))
def if_return_then_finally_loop(k):
    log = []
    try:
        if k == 1:
            return 3
    finally:
        for i in range(2):
            log.append(i)
    return 4


@cases((1,), (0,))
def if_returns_finally_loop(k):
    log = []
    try:
        if k == 1:
            return 3
        return 4
    finally:
        for i in range(1):
            log.append(5)
        log.append(6)


@cases((2, 1), (2, 0), (0, 1))
def nested_if_return_finally_loops(n, k):
    log = []
    if n > 1:
        try:
            log.append(1)
            if k == 1:
                return (3, log)
            return (4, log)
        finally:
            for i1 in range(1):
                log.append(5)
            for i2 in range(3):
                log.append(6)
            log.append(7)
    log.append(8)
    return (0, log)


@cases((1,), (0,))
def if_return_finally_while(k):
    log = []
    try:
        if k == 1:
            log.append("one")
            return "a"
    finally:
        w = 0
        while w < 2:
            w += 1
            log.append(w)
    return "b"
