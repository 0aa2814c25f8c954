"""Code after a try whose body never falls out, at the end of an if body: only the except
clauses reach it, and 3.12+ lay it after the handler code, past the code after the if. Its tests
that go on to the code after the if jump back there (3.12+: a jump-if-true over a JUMP back)."""
from _cases import cases


@cases((0, 0), (1, 0), (1, 2))
def if_try_raising_then_if_raise(n, k):
    log = []
    if n:
        try:
            raise ValueError(n)
        except ValueError:
            log.append('except')
        if len(log) > k:
            raise KeyError(k)
    log.append('after if')
    return log


@cases((0, 0), (1, 0), (1, 2))
def if_try_raising_then_if_append_more(n, k):
    log = []
    if n:
        try:
            raise ValueError(n)
        except ValueError:
            log.append('except')
        if len(log) > k:
            log.append('big')
            raise KeyError(k)
        log.append('small')
    log.append('after if')
    return log
