"""Expressions: operators and their parentheses, comparisons, boolean shapes, literals, slices."""
from _cases import call, cases


@cases((7, 3), (-7, 2), (2, 5))
def arithmetic(a, b):
    return a + b, a - b, a * b, a / b, a // b, a % b, a ** b, -a, +a, ~a


@cases((6, 3), (12, 10))
def bitwise(a, b):
    return a & b, a | b, a ^ b, a << b, a >> b, ~(a & b)


@cases((1, 2, 3), (5, -1, 2))
def precedence_minimal_parens(a, b, c):
    x = (a + b) * c
    y = a + b * c
    z = a - (b - c)
    w = (a - b) - c
    p = a ** b ** c if c < 3 else 0
    q = (a ** b) ** 2
    r = -a ** 2
    s = (-a) ** 2
    t = a * (b // c) % 7
    u = (a | b) & c ^ a
    v = not (a and b)
    return x, y, z, w, p, q, r, s, t, u, v


@cases((2, 3), (-1, 1))
def unary_and_power(a, b):
    return -(-a), not not a, ~~b, (-a) ** b, -(a ** b), 2 ** -b


@cases((1, 2, 3), (3, 2, 1), (1, 1, 1))
def chained_comparisons(a, b, c):
    return a < b < c, a <= b >= c, a == b != c, a < b == c < 4, 0 < a < b < c < 10


@cases((1, [1, 2]), (3, [1, 2]), (None, [None]))
def membership_identity(x, seq):
    return x in seq, x not in seq, x is None, x is not None, not x in seq


@cases((0, 1, 2), (1, 0, 2), (0, 0, 0), (3, 4, 5))
def boolean_shapes(a, b, c):
    r1 = a and b
    r2 = a or b
    r3 = a and b or c
    r4 = a or b and c
    r5 = (a or b) and c
    r6 = not a and (b or c)
    r7 = a and (b and c)
    r8 = (a and b) and c
    r9 = not (a or b or c)
    return r1, r2, r3, r4, r5, r6, r7, r8, r9


@cases((0, 1, 2), (1, 0, 2), (0, 0, 0), (3, 4, 5))
def boolean_in_conditions(a, b, c):
    out = []
    if a and b:
        out.append(1)
    if a or b:
        out.append(2)
    if a and (b or c):
        out.append(3)
    if (a or b) and not c:
        out.append(4)
    if not (a and b) or c:
        out.append(5)
    while a and b:
        a -= 1
        out.append(6)
    return out


@cases((1,), (0,), (-5,))
def conditional_expressions(x):
    a = "pos" if x > 0 else "zero" if x == 0 else "neg"
    b = (1 if x else 2) + 3
    c = [y if y else -1 for y in (x, 0)]
    d = x and (1 if x > 0 else 2)
    return a, b, c, d


@cases(([1, 2, 3, 4],), ([],))
def walrus(items):
    if (n := len(items)) > 2:
        first = n
    else:
        first = -n
    total = 0
    it = iter(items)
    while (item := next(it, None)) is not None:
        total += item
    squares = [y for x in items if (y := x * x) > 3]
    return first, total, squares, y if items else None


@cases(([1, 2], {"sep": "-"}), ([], {}))
def starred_calls(args, kwargs):
    parts = []
    parts.append(str(*args[:1]) if args else "")
    r1 = max(*args, 0)
    r2 = "{}|{}".format(*args, *args) if len(args) >= 1 else ""
    r3 = dict(**kwargs)
    r4 = dict(a=1, **kwargs, b=2)
    r5 = print_like(*args, end="!", **kwargs)
    r6 = [*args, *args]
    r7 = (*args,)
    r8 = {*args}
    r9 = {**kwargs, "z": 0}
    return parts, r1, r2, r3, r4, r5, r6, r7, r8, r9


@cases((1,), (-1,))
def signed_zero_imaginary(x):
    # `-1j` folds to complex(-0.0, -1.0), which `repr` writes `(-0-1j)`: that text compiles to
    # complex(0.0, -1.0) (the int 0 minus 1j). The string shows the sign of the real part.
    if x > 0:
        return -1j, str(-1j), str(-2.5j * 1)
    return str(-(0 - 1j)), -(0 - 1j), str(0 - 3j)


@cases((1,), (-1,))
def signed_zero_complex_parts(x):
    # Zeros of either sign in either part: each constant needs its own folding form
    # (`-(-0.0-0j)` is complex(0.0, -0.0); `-(-1.5+0j)` is complex(1.5, -0.0)).
    if x > 0:
        return str(-0j), str(-(-0.0 - 0j)), str(-0.0 - 0j), str(-(-1.5 + 0j)), str(x * -(0 - 2j))
    return str(1e309j), str(-1e309j), str(1.5 - 0j), str(-(3 + 4j)), str(-2.5e-7j)


def print_like(*values, sep=" ", end="\n"):
    return sep.join(map(str, values)) + end


@cases(())
def literals():
    a = (1, 2.5, -3, 1e100, 1j, "s", b"b", None, True, False, ...)
    b = [1, [2, [3]]]
    c = {"k": (1,), "j": {}}
    d = {1, 2, 3}
    e = ()
    f = (1,)
    g = "multi\nline\t\"quoted\""
    h = "unicode \u00e9 \U0001f600"
    i = b"\x00\xff"
    j = 0xFF, 0o17, 0b101, 1_000_000
    k = -0.0, float("inf")
    return a, b, c, d, e, f, g, h, i, j, k


@cases(([0, 1, 2, 3, 4, 5, 6],), ("abcdefg",))
def slices(x):
    return (x[:], x[1:], x[:2], x[1:3], x[::2], x[1::2], x[:5:2], x[1:5:2], x[::-1],
            x[-1], x[-2:], x[len(x) // 2:])


@cases(())
def slice_targets():
    data = list(range(10))
    data[2:4] = ["a", "b", "c"]
    del data[:1]
    data[::3] = [None] * len(data[::3])
    m = {}
    m[1, 2] = "tuple-key"
    m["k"] = data[1:3]
    return data, m


@cases((2, 3),)
def lambdas(a, b):
    f = lambda: a
    g = lambda x, y=2, *rest, z=3, **kw: (x, y, rest, z, kw)
    h = lambda x: lambda y: x + y
    k = sorted([3, 1, 2], key=lambda v: -v)
    return f(), g(a, b, 9, z=4, w=5), h(a)(b), k


@cases((1,),)
def lambdas_returning_none(a):
    # `None` is the lambda's value: no procedure's bare `return`.
    nothing = lambda: None
    swallow = lambda *args: None
    return nothing(), swallow(a), a


@cases(([3, 1, 2],),)
def calls_and_attributes(xs):
    s = "-".join(map(str, sorted(xs, reverse=True)))
    t = xs.copy()
    t.append(len(t))
    u = str(xs).upper().lower()
    v = (lambda: 1)()
    w = getattr(t, "count")(1)
    return s, t, u, v, w


@cases((1, 2), (2, 1))
def comparison_results_in_expressions(a, b):
    flags = [a < b, a > b]
    n = (a < b) + (a > b)
    m = (a if a < b else b) * 2
    return flags, n, m


@cases((["a", "b"], 1),)
def subscripts(seq, i):
    d = {"x": [1, 2, 3]}
    return seq[i], seq[i - 1], d["x"][i], d["x"][-i:], (seq + ["c"])[i], seq[i:][0]


@cases((5,),)
def augmented_precedence(n):
    x = n
    x += 2 * 3
    x -= (1 + 1)
    x *= n - 1
    x //= 2
    x **= 2
    x %= 1000
    x <<= 1
    x >>= 1
    x |= 8
    x &= 0xFFF
    x ^= 3
    x /= 2
    return x


@cases(call(1, 2, c=3), call(4, 5))
def kwargs_call_shapes(a, b, c=0):
    r1 = dict(a=a, b=b)
    r2 = sorted([b, a], key=abs, reverse=bool(c))
    r3 = "{a}-{b}".format(a=a, b=b)
    return r1, r2, r3


@cases((3,),)
def tuple_and_parenthesized(n):
    t = 1, 2, n
    u = (1, 2) + (n,)
    v = ((n,),)
    w = [(i, -i) for i in range(n)]
    return t, u, v, w, (yield_free_tuple(n))


def yield_free_tuple(n):
    return n, n


class Vec:
    """Supports the matrix-multiplication operators, which no builtin type has."""

    def __init__(self, *xs):
        self.xs = xs

    def __matmul__(self, other):
        return sum(a * b for a, b in zip(self.xs, other.xs))

    def __rmatmul__(self, other):
        return ("r", other)


@cases((1, 2),)
def matmul_operators(a, b):
    u = Vec(a, b)
    v = Vec(b, a)
    dot = u @ v
    rdot = 3 @ v
    acc = Vec(1, 1)
    acc @= v
    return dot, rdot, acc, (u @ v) * 2, u @ v + 1


@cases((3,), (0,))
def deep_parentheses_and_calls(n):
    return ((((n + 1) * 2) - 3) // 4), str(len(str(abs(-n)))), [[[n]]][0][0][0], -(-(-n))


@cases((None, "ab"), (str.upper, "ab"))
def method_call_with_call_in_conditional_argument(key, text):
    # 3.8-3.10: the plain call inside takes no NULL; the one below it is the method call's.
    return "-".join(text if key is None else key(text))


class _Holder:
    """Takes attributes: the statements below store into one."""


@cases((None, 2), (1, 2), (0, 5))
def attribute_gets_conditional_value_last(a, b):
    # 3.13 copies the store and `return None` into the first arm; the second arm's value and the
    # load of the target stay two LOAD_FASTs (a written if statement fuses them): one value.
    holder = _Holder()
    _attribute_gets_conditional_value_last(holder, a, b)
    return holder.x


def _attribute_gets_conditional_value_last(holder, a, b):
    holder.x = a if a is not None else b


@cases((None, 2), (1, 2), (0, 5))
def attribute_gets_value_in_each_branch_last(a, b):
    holder = _Holder()
    _attribute_gets_value_in_each_branch_last(holder, a, b)
    return holder.x


def _attribute_gets_value_in_each_branch_last(holder, a, b):
    if a is not None:
        holder.x = a
    else:
        holder.x = b
