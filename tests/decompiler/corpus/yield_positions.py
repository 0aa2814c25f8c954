"""Yield expressions where the grammar wants them in parentheses (after `return`, `for ... in`,
`match`) or not (after `=`), and yields inside other expressions."""
from _cases import cases


def _gen(n):
    for i in range(n):
        got = yield i
        if got:
            return got
    return "done"


@cases((3,),)
def return_yield_from(n):
    return (yield from _gen(n))


@cases((2,),)
def return_yield_value(n):
    x = yield n
    return (yield x)


@cases((2,),)
def for_over_yield(n):
    total = 0
    for item in (yield n):
        total += item
    yield total


@cases((2,),)
def yield_in_tuple_and_call(n):
    a = (yield n), n
    b = str((yield))
    return a, b


@cases((2,),)
def dead_yield_only(n):
    # A generator whose only yield is dead code: the compiler drops the loop, not the flag.
    def empty():
        while False:
            yield None

    def counted(k):
        total = k * 2
        if False:
            yield total

    return list(empty()), list(counted(n)), type(empty()).__name__
