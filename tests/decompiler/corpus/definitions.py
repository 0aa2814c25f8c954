"""Definitions: signatures of every kind, annotations, decorators, nested functions, docstrings."""
import functools

from _cases import call, cases


@cases((1,), (1, 2, 3))
def defaults(a, b=2, c=None):
    """Has defaults."""
    return a, b, c


@cases(call(1, d=4), call(1, 2, c=3, d=4, e=5))
def keyword_only(a, b=0, *, c=1, d, e=None):
    return a, b, c, d, e


@cases((1, 2), call(1, 2, c=3))
def positional_only(a, b, /, c=0):
    return a, b, c


@cases(call(1, d=4), call(1, 2, 3, 4, d=0, k=5, z=6))
def everything(a, b=2, /, c=3, *args, d, e=5, **kwargs) -> tuple:
    return a, b, c, args, d, e, kwargs



@cases(call(1, "x"),)
def annotated(a: int, b: "str" = "s", *args: float, c: "list[int]" = None, **kw: dict) -> "Result":
    """Annotations, some as strings."""
    return a, b, c


@cases((1, 2),)
def star_args_only(*args, **kwargs):
    return args, kwargs


@cases(())
def docstring_only():
    """Only a docstring."""


@cases(())
def docstring_then_code():
    """First line.

    More lines, with 'quotes' and "double quotes" and a backslash \\ too.
    """
    x = 1
    return x


@cases(())
def string_statement_not_first():
    x = 1
    "this string is not a docstring"
    return x


@cases((3,),)
def nested_functions(n):
    def inner(x, y=n):
        return x + y

    def counter():
        count = 0

        def bump():
            nonlocal count
            count += 1
            return count

        return bump

    bump = counter()
    bump()
    return inner(1), inner(1, 1), bump()


@cases((2,),)
def closure_over_loop_variable(n):
    fns = []
    for i in range(n):
        def f(i=i):
            return i * 10
        fns.append(f)
    g = [lambda: i for _ in range(1)]
    return [f() for f in fns], g[0]()


def trace(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return ("traced", fn(*args, **kwargs))

    return wrapper


def tag(label):
    def apply(fn):
        fn.label = label
        return fn

    return apply


@trace
@tag("x")
@cases((1,),)
def decorated(x):
    return x + 1


@cases((1,),)
def nested_decorated(v):
    @trace
    @tag("inner")
    def inner(x):
        return x * 2

    @functools.lru_cache(maxsize=None)
    def cached(y):
        return y + v

    return inner(v), inner.label, cached(1), cached(1)


@cases((2,),)
def defaults_evaluated_at_definition(v):
    def f(a=v * 2, *, b=[v]):
        return a, b

    def g(x: "int" = v) -> "int":
        return x

    return f(), g(), g.__annotations__


@cases((1,),)
def nested_class_in_function(v):
    class Local:
        """Local class docstring."""
        attr = v

        def method(self, x=1):
            return self.attr + x

        @staticmethod
        def static(y):
            return y * 2

        @classmethod
        def klass(cls):
            return cls.__name__

    obj = Local()
    return obj.method(), Local.static(3), Local.klass(), Local.__doc__


@cases((2,),)
def recursive(n):
    if n <= 0:
        return 0
    return n + recursive(n - 1)


@cases((3,),)
def lambda_defaults_and_kwonly(n):
    f = lambda a, b=n, *c, d=1, **e: (a, b, c, d, e)
    g = lambda *, k: k
    h = lambda a, /, b: a + b
    return f(0), f(0, 1, 2, d=3, z=4), g(k=5), h(1, 2)


@cases(())
def free_variable_in_nested_class():
    secret = 7

    class Uses:
        def get(self):
            return secret

    return Uses().get()


# Lambdas outside functions: the round trip checks each one in its place.
square = lambda x: x * x  # noqa: E731
pick = lambda *items, key=None, **options: sorted(items, key=key)[0] if items else options  # noqa: E731


class WithLambdas:
    negate = staticmethod(lambda v: -v)
    pairs = [(lambda k: (k, k))(i) for i in range(2)]

    def apply(self, f=lambda y: y + 1):
        return f(1), self.negate(2), self.pairs


@cases(())
def use_module_level_lambdas():
    return square(3), pick(3, 1, 2), pick(), WithLambdas().apply()


@cases((1,), (2,))
def chained_assignment_of_one_lambda(k):
    # One function object stored twice (read as two lambdas, two different objects).
    table = {}
    table["a"] = table["b"] = lambda v: v + k
    first = second = lambda: k
    return table["a"] is table["b"], first is second, table["a"](1)


@cases((1,), (2,))
def walrus_of_lambda_as_argument(k):
    # The lambda stored by the walrus is the one passed (read as an assignment before the call
    # and a second lambda in the call).
    pair = (kept := lambda: k, 0)
    return pair[0] is kept, kept()
