"""Class bodies: methods, properties, super() and __class__, private names, nested classes."""
import dataclasses

from _cases import cases


class Base:
    """Base docstring."""

    kind = "base"

    def __init__(self, value=0):
        self.value = value

    def describe(self):
        return "%s:%s" % (self.kind, self.value)

    @classmethod
    def make(cls, value):
        return cls(value)

    @staticmethod
    def helper(x, y=1):
        return x * y


class Counter(Base):
    """Counts."""

    kind = "counter"
    __slots_like = ("hidden",)

    def __init__(self, value=0, *, step=1):
        super().__init__(value)
        self.n = 0
        self.step = step
        self.__private = "mangled"

    def bump(self):
        self.n += 1
        self.n += self.step
        return self.n

    def describe(self):
        base = super().describe()
        return base + "/" + str(self.n)

    def explicit_super(self):
        return super(Counter, self).describe()

    def which_class(self):
        return __class__.__name__

    def private(self):
        return self.__private, self.__slots_like

    @property
    def double(self):
        """Twice the count."""
        return self.n * 2

    @double.setter
    def double(self, v):
        self.n = v // 2

    def __repr__(self):
        return f"Counter({self.value!r}, n={self.n})"

    def __eq__(self, other):
        return isinstance(other, Counter) and other.n == self.n

    __hash__ = None


def _probe_counter(cls):
    c = cls(5, step=2)
    c.bump()
    c.double = 10
    return (c.n, c.double, c.describe(), c.explicit_super(), c.which_class(), c.private(),
            repr(c), cls.__doc__, cls.make(1).value, cls.helper(3, 2))


cases(probe=_probe_counter)(Counter)


class Outer:
    class Inner:
        def get(self):
            return "inner"

        class Deeper:
            def get(self):
                return "deeper"

    def make_inner(self):
        return self.Inner().get(), self.Inner.Deeper().get()


@cases(())
def use_outer():
    return Outer().make_inner()


class WithClassVars:
    a = 1
    b = a + 1
    c = [a, b]
    d = {k: v for k, v in zip("ab", c)}
    del a

    if b > 1:
        big = True
    else:
        big = False

    for _i in range(2):
        c.append(_i)

    def uses_vars(self):
        return self.b, self.c, self.d, self.big


def _probe_class_vars(cls):
    return cls().uses_vars(), hasattr(cls, "a")


cases(probe=_probe_class_vars)(WithClassVars)


class Meta(type):
    def __new__(mcs, name, bases, ns, **kwargs):
        ns["created_by"] = "meta"
        return super().__new__(mcs, name, bases, ns)


class WithMeta(Base, metaclass=Meta):
    def value_of_meta(self):
        return self.created_by


@cases(())
def use_meta():
    return WithMeta(3).value_of_meta(), WithMeta(3).describe()


class ZeroArgSuperInNestedFunction(Base):
    def method(self):
        def inner():
            return __class__.__name__

        return inner(), super().describe()


@cases(())
def use_zero_arg_super_nested():
    return ZeroArgSuperInNestedFunction(2).method()


class AsyncAndGenMethods:
    def gen(self, n):
        yield from range(n)

    async def coro(self):
        return 1

    async def agen(self):
        yield 1


class Annotated:
    x: int
    y: str = "y"

    def method(self, a: int) -> int:
        return a


@dataclasses.dataclass
class Point3:
    x: int
    y: int = 0
    tags: list = dataclasses.field(default_factory=list)

    def norm1(self):
        return abs(self.x) + abs(self.y)


@cases(())
def use_point3():
    p = Point3(3, -4)
    p.tags.append("t")
    return p.norm1(), p, Point3(1) == Point3(1)


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self, a, b=None):
        self.a = a
        self.b = b

    def total(self):
        return self.a + (self.b or 0)


@cases(())
def use_slotted():
    return Slotted(1, 2).total(), Slotted(5).total()


# A class body that ends in a compound statement: 3.10+ copy the body's implicit return (with a
# class cell, `return (__classcell__ := __class__)`; 3.13 also `__static_attributes__ = ...`
# before it) into each branch.

@cases((True,), (False,))
def class_body_ends_in_if_with_super(flag):
    class Local(Base):
        if flag:
            def describe(self):
                return "local/" + super().describe()
        else:
            def describe(self):
                self.seen = True
                return "plain"
    return Local(3).describe()


@cases((True,), (False,))
def class_body_ends_in_if_without_else(flag):
    class Local(Base):
        kind = "local"
        if flag:
            def describe(self):
                self.extra = 1
                return super().describe() + "!"
    return Local(2).describe()
