"""Type parameter syntax (needs Python 3.12)."""
from _cases import cases


@cases((1,),)
def first[T](x: T) -> T:
    return x


@cases(([1, 2],),)
def uses_generic_class(items):
    class Stack[T]:
        def __init__(self, items: list[T]) -> None:
            self.items = list(items)

        def pop(self) -> T:
            return self.items.pop()

    type Pair[K] = tuple[K, K]
    return Stack(items).pop(), Pair.__name__


class Box[T]:
    def __init__(self, item: T) -> None:
        self.item = item

    def get(self) -> T:
        return self.item


@cases((1, 2), ("a",))
def bounded[T: (int, str), *Ts, **P](first: T, *rest: *Ts) -> T:
    return first


@cases((3,), ())
def uses_generic_with_defaults(*args):
    # (nested: the defaults are computed by the code that calls the type-parameter scope)
    def pick[T](x: T = 5, *, y: int = 1) -> T:
        return x
    return pick(*args)


@cases(([1, 2],),)
def uses_generic_with_star_params(items):
    def count[*Ts](*values: *Ts) -> int:
        return len(values)
    return count(*items)
