"""A handler that falls off the end of a try statement followed by `return x`: 3.12+ copy the
return into the handler (after POP_EXCEPT), with the line of the one after the try."""
from _cases import cases


@cases((0,), (1,), (2,))
def pass_handler_then_return(kind):
    try:
        if kind == 1:
            raise KeyError(kind)
        if kind == 2:
            raise OSError(kind)
        return [kind]
    except (KeyError, IndexError):
        pass
    except OSError as e:
        if e.args[0] != 2:
            raise
    return ()


@cases((0,), (1,))
def handler_with_statements_then_name_return(kind):
    result = "none"
    try:
        if kind:
            raise ValueError(kind)
        result = "body"
    except ValueError:
        result = "handler"
    return result


@cases((0,), (1,))
def handler_returning_on_its_own_line(kind):
    try:
        if kind:
            raise ValueError(kind)
    except ValueError:
        return ()
    return ()


@cases((0,), (1,), (2,))
def handler_ending_in_if(kind):
    try:
        if kind:
            raise LookupError(kind)
    except LookupError as e:
        if e.args[0] == 2:
            kind = -kind
    return kind
