"""A try whose handlers never fall out, its else part a try statement: 3.12+ move handler code
to the end, in the order the compiler emitted it, so the else part's own handler comes before
the outer try's, where a try after the statement would have its handler after them."""
from _cases import cases


class _Gen:
    def __init__(self, items):
        self.items = iter(items)
        self.closed = 0

    def advance(self):
        return next(self.items)

    def close(self):
        self.closed += 1


def stop_or_complain(gen, kind):
    if kind is None:
        try:
            gen.advance()
        except StopIteration:
            return False
        else:
            try:
                raise RuntimeError("did not stop")
            finally:
                gen.close()
    else:
        gen.closed -= 1
        return kind


@cases(((), None), ((1,), None), ((), "k"))
def calls_stop_or_complain(items, kind):
    gen = _Gen(items)
    try:
        out = stop_or_complain(gen, kind)
    except RuntimeError as exc:
        out = str(exc)
    return out, gen.closed


def first_or_closed(gen, log):
    try:
        value = gen.advance()
    except StopIteration:
        return []
    else:
        try:
            log.append(value)
        finally:
            gen.close()
    log.append(gen.closed)
    return log


@cases(((),), ((4,),))
def calls_first_or_closed(items):
    gen = _Gen(items)
    return first_or_closed(gen, []), gen.closed
