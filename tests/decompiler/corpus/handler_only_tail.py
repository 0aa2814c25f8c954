"""Code after a try (or a with) that only its handlers reach, in an if branch (a match case:
match_py310.py).

The try body returns, so only an except clause that falls out (or a with's handler, after the
manager swallowed the exception) goes on to the code after the statement; 3.12+ moves that code
after the handler code, past the end of the if body and past the if's own way out. Read as code
after the if, it would never run.
"""
from _cases import cases


@cases((None,), ("1",), ("x",), ("y",))
def if_try_return_then_code(v):
    if v:
        try:
            return int(v)
        except ValueError:
            pass
        if v == 'x':
            return 7
        return 0


@cases((None,), ("1",), ("x",), ("y",))
def if_else_try_return_then_code(v):
    if v:
        try:
            return int(v)
        except ValueError:
            pass
        if v == 'x':
            return 7
        return 0
    else:
        return 9



class _Swallow:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return exc[0] is KeyError


@cases(({1: 2}, 1), ({}, 1), ({}, 0))
def if_with_return_then_return(d, k):
    # The with's handler, after the manager swallowed the exception, runs the code after it.
    if k:
        with _Swallow():
            return d[k]
        return -1
    return 0


@cases(({1: 2}, 1), ({}, 1), ({}, 0))
def if_with_return_then_code(d, k):
    if k:
        with _Swallow():
            return d[k]
        x = k * 2
        return x
    return 0
