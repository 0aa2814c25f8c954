"""An if body that holds a try whose except clause returns, then `if test: return`, with an else
part: 3.12+ thread the inner test's jump past the else part, and the clause's `return None` reads
the same as the inner if's body (pdb's `Pdb.do_until`)."""
from _cases import cases


@cases(("3",), ("x",), ("",), ("-1",))
def parse_then_check(arg):
    if arg:
        try:
            number = int(arg)
        except ValueError:
            return
        if number <= 0:
            return
    else:
        number = None
    return [number]


@cases(("3", 2), ("x", 2), ("", 2), ("1", 2))
def parse_then_check_logged(arg, current):
    log = []
    if arg:
        try:
            number = int(arg)
        except ValueError:
            log.append("bad")
            return
        if number <= current:
            log.append("small")
            return
    else:
        number = None
    log.append(number)
    return log


@cases(([1],), (["a"],), ([1, 2],), (None,))
def else_part_if_returns_before_implicit_return(items):
    # wsgiref's BaseHandler.set_content_length: the else part's `return` reads the same as the
    # implicit `return None` after the try, which the if's test jumps to (3.8/3.9).
    try:
        size = len(items)
    except TypeError:
        pass
    else:
        if size == 1:
            size = items[0] + size
            return
