"""A `return CONST`, `break` or `continue` that ends an `if` at the end of a try body: the exit
leaves the try's block before it runs, so 3.11+ lays the if's body outside the protected range,
right after the conditional jump that ends it. It belongs to the try body, not to an else part."""
from _cases import cases


def _check(value):
    if value == "bad":
        raise OSError(value)
    return value


@cases(("yes",), ("",), ("bad",))
def if_return_const_last(value):
    try:
        if _check(value):
            return True
    except OSError:
        pass
    return False


@cases(("x",), ("",), ("bad",))
def if_return_none_last_then_handler_value(value):
    try:
        found = _check(value)
        if found:
            return
    except OSError:
        found = None
    return found


@cases((["", "bad", "y", "z"],), (["", ""],))
def loop_if_return_const_last(values):
    for value in values:
        try:
            if _check(value):
                return True
        except OSError:
            pass
    return False


@cases((["", "bad", "y", "z"],), (["", ""],))
def loop_if_break_last(values):
    count = 0
    for value in values:
        count += 1
        try:
            if _check(value):
                break
        except OSError:
            pass
    return count


@cases((["", "bad", "y", "z"],), (["y", ""],))
def loop_if_continue_last(values):
    seen = []
    for value in values:
        try:
            if _check(value):
                continue
        except OSError:
            pass
        seen.append(value)
    return seen


@cases(("y", "z"), ("y", ""), ("", "z"), ("bad", "z"))
def nested_if_return_last(first, second):
    try:
        if _check(first):
            if second:
                return "both"
    except OSError:
        return "raised"
    return "not both"


@cases(("y",), ("",), ("bad",))
def if_return_const_last_with_else(value):
    try:
        if _check(value):
            return "early"
    except OSError:
        pass
    else:
        value = "else"
    return value


@cases(("y",), ("",), ("bad",))
def if_return_const_last_with_finally(value):
    log = []
    try:
        if _check(value):
            return "early"
    except OSError:
        log.append("raised")
    finally:
        log.append("finally")
    return log


@cases(("y",), ("",), ("bad",))
def if_call_then_return_last(value):
    log = []
    try:
        if _check(value):
            log.append(value)
            return log
    except OSError:
        log.append("raised")
    log.append("after")
    return log


@cases(("y",), ("",), ("bad",))
def if_call_then_return_none_last(value):
    log = []
    try:
        found = _check(value)
        if found:
            log.append(found)
            return
    except OSError:
        found = None
    log.append(found)
    return log
