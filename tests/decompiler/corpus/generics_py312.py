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
