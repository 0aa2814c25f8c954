"""Unpacking in comprehensions (PEP 798, needs Python 3.15): `[*x for x in y]`, `{**d for d in m}`."""
from _cases import cases


@cases(([[1, 2], [3], []],), ([(), "ab"],))
def list_unpacking(rows):
    return [*row for row in rows]


@cases(([[1, 2], [2, 3]],),)
def set_unpacking(rows):
    return {*row for row in rows}


@cases(([{"a": 1}, {"b": 2, "a": 3}],),)
def dict_unpacking(maps):
    return {**m for m in maps}


@cases(([[1, 2], [3]],),)
def generator_unpacking(rows):
    gen = (*row for row in rows)
    return list(gen)


@cases(([[1, -2], [], [3, 4]],),)
def unpacking_with_filters(rows):
    return ([*row for row in rows if row], {*(x for x in row if x > 0) for row in rows},
            {**{k: len(row)} for k, row in enumerate(rows) if len(row) != 1})


@cases(([[[1], [2, 3]], [[4]]],),)
def unpacking_nested_clauses(grid):
    return [*cell for row in grid for cell in row], [[*cell for cell in row] for row in grid]


@cases(([[1, 2], [3]],),)
def generator_unpacking_nested(rows):
    return sorted(*row for row in rows if len(row) > 1), sum(*r for r in rows)


@cases(([[1, 2], [3]],),)
def async_unpacking(rows):
    async def items():
        for row in rows:
            yield row

    async def collect():
        return [*row async for row in items()]

    coro = collect()
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
