"""Handlers that never finish (they raise or return): the code after the statement and an
`else` part mean the same; the layout of 3.12+ tells which one the source had."""
from _cases import cases


@cases(({"k": 1},), ({},), (None,))
def handler_raises_then_code(mapping):
    try:
        value = mapping["k"]
    except TypeError:
        raise ValueError("not a mapping") from None
    except KeyError:
        return "missing"
    try:
        result = value + 1
    except TypeError:
        raise ValueError("not a number") from None
    return result


@cases(({"k": 1},), ({},))
def handler_raises_with_else(mapping):
    try:
        value = mapping["k"]
    except KeyError:
        return "missing"
    else:
        value += 1
    return value
