"""`return None` inside an inner if of a try body, then more code that returns.

3.12+ compile `return None` in a try body as a copy of the try's way out (the implicit return
after it, the try ending the function), laid outside the protected range. Read as falling out
of the body, the inner if would go on to the code after the enclosing if (`return doc`): a wrong
result for the inputs that take it (pydoc's `_getowndoc`)."""
from _cases import cases


def _lookup(obj):
    if obj == "raise":
        raise AttributeError(obj)
    return None if obj == "none" else str(obj)


@cases(("none",), ("raise",), (1,), (type,), ("1",))
def returns_none_from_an_inner_if(obj):
    try:
        doc = _lookup(obj)
        if doc is None:
            return None
        if obj is not type:
            typedoc = str(type(obj))
            if isinstance(obj, str) and typedoc != doc:
                return None
        return doc
    except AttributeError:
        return None


@cases(("none",), ("raise",), (1,), ("1",))
def returns_none_after_a_statement(obj):
    try:
        doc = _lookup(obj)
        if obj != 1:
            tag = doc
            if tag == "1":
                return None
        return doc
    except AttributeError:
        return None
