"""An except clause of a try/finally that ends with `continue`, in a for loop whose body then
returns. 3.12+ lay the clause's unwinding (POP_EXCEPT, `e = None; del e`, the copy of the
finally body) and its jump back with the handler code after the loop's exit: the `continue`
is read from that jump, and the body, which ends by its return, does not run on into the
code at the loop's exit."""
from _cases import cases


@cases(([0, 0, 5],), ([0],), ([],), ([2, 0],))
def named_clause_continue_then_return(xs):
    # hypothesis' MappedStrategy.do_draw: `except E as err: ...; continue / finally: ...`.
    log = []
    for x in xs:
        try:
            r = 10 // x
        except ZeroDivisionError as e:
            log.append(type(e).__name__)
            continue
        finally:
            log.append(x)
        return r, log
    return log


@cases(([0, 0, 5],), ([0],), ([],))
def clause_continue_then_return(xs):
    log = []
    for x in xs:
        try:
            r = 10 // x
        except ZeroDivisionError:
            log.append("zero")
            continue
        finally:
            log.append(x)
        log.append(r)
        return log
    return None
