"""Ways out of loops and values counted across them: 3.15 keeps a for loop's iterator in two stack
slots (and an await's or an `async for` step's receiver beside a NULL), so a `break` pops two
slots, a `return` inside loops swaps its value under each pair, and comprehension appends, copies
and swaps count one slot more per loop they reach across."""
from _cases import cases


class Step:
    """An awaitable that suspends once, yielding its value to the driver."""

    def __init__(self, value):
        self.value = value

    def __await__(self):
        got = yield self.value
        return (self.value, got)


class Ticks:
    """An async iterator over 0..n-1 that suspends before each item."""

    def __init__(self, n):
        self.n = n
        self.i = 0

    def __aiter__(self):
        return self

    async def __anext__(self):
        if self.i >= self.n:
            raise StopAsyncIteration
        await Step(("tick", self.i))
        self.i += 1
        return self.i - 1


@cases(([[1, 2], [3, 4]], 3), ([[1], [2]], 5), ([], 0))
def return_from_inner_loop(rows, wanted):
    for row in rows:
        for x in row:
            if x == wanted:
                return (row, x)
    return None


@cases(([[1, 2], [3, -1, 4], [5]],), ([[]],))
def break_inner_then_continue_outer(rows):
    seen = []
    for row in rows:
        for x in row:
            if x < 0:
                break
            seen.append(x)
        else:
            seen.append("full")
            continue
        seen.append("cut")
    return seen


@cases(([[1, 2], [3, 4]], 4), ([[1], [2]], 9))
def return_through_three_loops(rows, wanted):
    for row in rows:
        for x in row:
            for k in range(x):
                if k + x == wanted:
                    return k, x
    return -1


@cases(([[1, 2], [3]],), ([],))
def return_through_loop_and_with(rows):
    import contextlib
    for row in rows:
        with contextlib.suppress(KeyError):
            for x in row:
                if x > 1:
                    return x
    return 0


@cases(([3, 1, 2],), ([],))
def return_in_handler_inside_loop(values):
    for v in values:
        try:
            if v == 1:
                raise ValueError(v)
        except ValueError:
            for w in values:
                if w > v:
                    return w
    return None


@cases(([1, 2, 3],), ([],))
def comprehensions_inside_loop(values):
    out = []
    for v in values:
        out.append([w * v for w in values if w != v])
        out.append({w: v for w in values})
        out.append({w + v for w in values})
        if v > 1:
            break
    return out


@cases(([[1, 2], [3]],), ([],))
def nested_comprehension_clauses(rows):
    return [x * y for row in rows for x in row for y in row if x != y]


@cases(([1, 2, 3],), ([],))
def builtin_calls_of_generators(values):
    return (list(v * 2 for v in values), set(v % 2 for v in values), tuple(v for v in values if v),
            all(v > 0 for v in values), any(v > 2 for v in values), sum(v for v in values))


@cases(([5, 1, 4], [0, 2]),)
def subscript_updates_in_loop(values, where):
    for i in where:
        values[i] += 10
        values[i - 1] -= 1
    return values


@cases(([1, 5, 9], 2, 8),)
def chained_comparisons_in_loop(values, low, high):
    inside = []
    for v in values:
        if low < v < high:
            inside.append(v)
        elif v < low:
            return inside
    return inside


@cases(([[1, 2], [3]],),)
def yield_from_inside_loop(rows):
    for row in rows:
        yield from row
        if len(row) == 1:
            return "short"


@cases((3,), (0,))
async def async_for_with_awaits(n):
    got = []
    async for i in Ticks(n):
        got.append(await Step(("item", i)))
        if i == 1:
            break
    return got


@cases((3,), (0,))
async def return_from_async_for_in_for(n):
    for k in range(2):
        async for i in Ticks(n):
            if i + k == 2:
                return (k, i, await Step("found"))
    return None


@cases((3,),)
async def await_in_comprehension_in_loop(n):
    out = []
    for k in range(n):
        out.append([await Step((k, j)) for j in range(k)])
    return out


@cases((3, False), (3, True))
async def async_for_break_inside_try(n, fail):
    got = []
    try:
        async for i in Ticks(n):
            if fail and i == 1:
                raise KeyError(i)
            got.append(await Step(i))
            if i == 2:
                break
    except KeyError as e:
        got.append(("caught", e.args))
    return got


@cases((2,), (0,))
async def for_inside_async_for_returns(n):
    async for i in Ticks(n):
        for j in range(3):
            if j == i:
                return [i, j, await Step(j)]
    return "none"


@cases(([[1, 2], [3]], 2),)
def yield_from_in_try_inside_loop(rows, stop):
    for row in rows:
        try:
            got = yield from iter(row)
        except ValueError:
            return "bad"
        if len(row) == stop:
            break
    return "end"


@cases(([0, 1, 2], 1),)
def generator_expression_with_inner_loop(values, skip):
    return sorted(x * y for x in values for y in values if x != skip if y != x)
