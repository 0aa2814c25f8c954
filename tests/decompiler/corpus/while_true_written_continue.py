"""A `continue` written as the last statement of a `while True:` body (3.14), or of a for body
without inner loops (3.12+), after an if statement that
breaks or returns. 3.14 copies the body's closing jump (no line of its own) to each place the
body ends, so without the `continue` the test jumps over a copy; a written `continue` is one jump
back with its own line that the test jumps to (fuzz seed 107; shlex's `read_token`: `if ...:
break` / `else: continue`). Up to 3.13 both compile alike."""
from _cases import cases


@cases((0,), (4,))
def break_then_continue(n):
    log = []
    w = 0
    while True:
        w += 1
        if w > n:
            break
        log.append(w)
        continue
    return log


@cases(([1, 0, 2],), ([0],))
def continue_after_or_test(items):
    # shlex's read_token: `if self.token or (self.posix and quoted): break / else: continue` (with
    # the `else:`, 3.8/3.9 keep a jump that nothing reaches, read as a plain `continue`)
    items = list(items)
    out = []
    while True:
        x = items.pop() if items else None
        out.append(x)
        if x is None or (x > 1 and out):
            break
        continue
    return out


@cases((0,), (3,))
def return_then_continue(n):
    log = []
    while True:
        n -= 1
        log.append(n)
        if n < 0:
            return log
        continue


@cases((0,), (5,))
def without_continue(n):
    log = []
    w = 0
    while True:
        w += 1
        if w > n:
            break
        log.append(w)
    return log


class _Manager:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")

    def __exit__(self, *exc):
        self.log.append("exit")


@cases((0,), (2,))
def continue_then_with(n):
    # fuzz seed 107: a with statement after the loop (its handler code lies past the dead jump)
    log = []
    w = 0
    while True:
        w += 1
        if w > n:
            break
        continue
    with _Manager(log):
        return log


@cases((0,), (2,))
def continue_then_try_finally(n):
    log = []
    w = 0
    while True:
        w += 1
        if w > n:
            break
        continue
    try:
        return log
    finally:
        log.append("finally")


@cases(([1, 2, 3], 2), ([], 0))
def for_if_return_else_continue(xs, stop):
    # fuzz seed 163: a for body (no inner loop) whose if returns and whose `else: continue` is the
    # one jump back the test jumps to (3.12+; 3.8-3.11 compile it like no else)
    log = []
    for x in xs:
        if x == stop:
            log.append(x)
            return log
        else:
            continue
    return log

