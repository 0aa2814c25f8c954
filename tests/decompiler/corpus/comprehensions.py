"""Comprehensions of all four kinds, generator expressions, and the generator protocol."""
from _cases import cases


@cases((4,),)
def list_comprehensions(n):
    a = [i for i in range(n)]
    b = [i * j for i in range(n) if i for j in range(i) if j % 2 == 0]
    c = [(i, j) for i in range(n) for j in range(n) if i < j if j != 2]
    d = [[j for j in range(i)] for i in range(n)]
    e = [x for x, _ in zip(range(n), range(n))]
    return a, b, c, d, e


@cases((4,),)
def set_and_dict_comprehensions(n):
    s = {i % 3 for i in range(n)}
    d = {i: i * i for i in range(n) if i}
    e = {k: v for k, v in d.items() for _ in range(1) if v > 1}
    f = {str(k): {v for v in range(k)} for k in range(n)}
    return s, d, e, f


@cases((4,),)
def generator_expressions(n):
    a = sum(i for i in range(n))
    b = list(i * j for i in range(n) for j in range(2) if i)
    c = tuple((x for x in "abc"))
    g = (i for i in range(n))
    first = next(g)
    rest = list(g)
    return a, b, c, first, rest


@cases((3,),)
def comprehension_closures(n):
    offset = 10
    a = [i + offset for i in range(n)]
    b = [lambda: i for i in range(n)]
    c = [f() for f in b]
    d = [(lambda k=i: k)() for i in range(n)]
    return a, c, d


@cases((3,),)
def comprehension_shadowing(n):
    i = "outer"
    a = [i for i in range(n)]
    x = [i for i in range(n) for i in range(i)]
    return i, a, x


@cases((3,),)
def comprehension_in_class_body(n):
    class K:
        base = n
        items = [v * 2 for v in range(3)]
        pairs = {v: v for v in items}

    return K.items, K.pairs


@cases((5,),)
def generator_function(n):
    for i in range(n):
        if i == 3:
            return "stopped"
        yield i


@cases((3,),)
def generator_send(n):
    total = 0
    for _ in range(n):
        got = yield total
        total += got or 0
    x = yield
    yield x


@cases((3,),)
def yield_from(n):
    r = yield from generator_function(n)
    yield ("returned", r)
    yield from [1, 2]
    yield from (i for i in range(n))


@cases(())
def yield_expressions():
    a = yield 1
    b = (yield a), (yield)
    c = (yield) or (yield 2)
    yield a, b, c


@cases(([1, 2, 3],),)
def nested_comprehension_with_condition_expr(items):
    return [x if x % 2 else -x for x in items if x], [y for y in (x * 2 for x in items)]


@cases(([1, 2, 3],),)
def comprehension_over_its_own_name(x):
    y = [x for x in x]
    z = {x: x for x in y if x}
    return y, z, x


@cases((3,),)
def comprehension_with_cell_and_walrus(n):
    total = 0
    cells = [lambda i=i: i * n for i in range(n)]
    squares = [(last := i * i) for i in range(n)]
    nested = [[total + j for j in range(i)] for i in range(n)]
    return [c() for c in cells], squares, last, nested


@cases((2,),)
def generator_expression_consumed_later(n):
    gen = (i * n for i in range(3) if i != 1)
    n = 100  # the generator already holds the first iterable, but reads n late
    return list(gen)


@cases(([1, 0, 3],),)
def filter_always_true_after_call(items):
    # `(c or True)`: the compiler drops the `True`; `c` jumps to the next test either way.
    seen = []
    kept = [x for x in items if (seen.append(x) or True) and x]
    return kept, seen


@cases(([2, 5],),)
def generator_filter_always_true(items):
    seen = []
    total = sum(x for x in items if seen.append(x) or True)
    return total, seen


# 3.9+ compiles a later clause `for y in [E]` (or `(E,)`) as the assignment `y = E`, with no
# loop: the comprehension's body then holds a plain store before its filters and appends.

@cases((4,), (0,))
def comprehension_assignment_clause(n):
    a = [y for x in range(n) for y in [x * 2]]
    b = [z for x in range(n) for y in (x + 1,) for z in (y * 3,) if z % 2]
    c = {y: x for x in range(n) for y in [str(x)] if x}
    d = {w for x in range(n) for w in [x % 2]}
    e = list(t + u for x in range(n) for t, u in [(x, -x)])
    return a, b, c, d, e


@cases((4, None), (3, 1))
def comprehension_assignment_clause_in_finally(n, skip):
    out = []
    try:
        out.append(n)
    finally:
        out.extend([y for x in range(n) for y in [x + 1] if y != skip])
    return out


@cases((["1", "ab", "2", "aab"],), ([],))
def comprehension_in_except_clause_in_loop(names):
    # 3.12+: the inlined comprehension's jump over its cleanup lies in handler code past the
    # loop's exit; it is no `break` (which ended the clause before the comprehension).
    out = []
    for name in names:
        try:
            int(name)
        except ValueError:
            letters = {c for c in name}
            out.append(len(letters))
    return out
