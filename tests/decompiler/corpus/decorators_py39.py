"""Relaxed decorator grammar (needs Python 3.9) and the dict merge operator."""
from _cases import cases

DECORATORS = {"double": lambda fn: (lambda *a: 2 * fn(*a))}


@cases((3,),)
def nested_with_expression_decorator(v):
    @DECORATORS["double"]
    def f(x):
        return x + 1

    @(lambda fn: fn)
    def g(x):
        return x

    return f(v), g(v), {"a": 1} | {"b": 2}
