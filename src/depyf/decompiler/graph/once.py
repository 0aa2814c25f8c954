"""`once`: a property computed on first use and then kept in the instance.

`functools.cached_property` takes a lock on every first use before 3.12; the graph's parts are
asked once per code object, where that lock cost more than the small ones.
"""
from typing import Any, Callable, Optional


class once:  # noqa: N801  (a decorator, like cached_property)
    def __init__(self, compute: Callable[[Any], Any]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Optional[Any], owner: Optional[type] = None) -> Any:
        if obj is None:
            return self
        # (no __set__: once the value is in the instance's __dict__, it is found first)
        value = obj.__dict__[self.name] = self.compute(obj)
        return value
