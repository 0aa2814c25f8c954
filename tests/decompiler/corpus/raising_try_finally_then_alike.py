"""A try/finally whose body always raises, followed by code that starts like the finally body:
3.12+ drop the dead copy of the finally body on the normal way out, so the code after the
statement is no such copy (read as one, it was lost: a silent wrong result)."""
from _cases import cases


class _Gen:
    def __init__(self):
        self.closed = 0

    def close(self):
        self.closed += 1


def close_or_complain(gen, kind):
    if kind is None:
        try:
            raise RuntimeError("did not stop")
        finally:
            gen.close()
    gen.close()
    return kind


def complain_or_close(gen, kind):
    if kind is None:
        try:
            gen.close()
        except StopIteration:
            return False
        else:
            try:
                raise RuntimeError("did not stop")
            finally:
                gen.close()
    else:
        gen.close()
        return kind


@cases((None,), ("k",))
def calls_close_or_complain(kind):
    gen = _Gen()
    try:
        out = close_or_complain(gen, kind)
    except RuntimeError as exc:
        out = str(exc)
    return out, gen.closed


@cases((None,), ("k",))
def calls_complain_or_close(kind):
    gen = _Gen()
    try:
        out = complain_or_close(gen, kind)
    except RuntimeError as exc:
        out = str(exc)
    return out, gen.closed
