"""Deferred annotations (PEP 649/749, needs Python 3.14): a generated `__annotate__` computes
them, so a name may be used before it exists; signatures and class bodies still show them."""
import annotationlib

from _cases import cases


def shown(obj):
    """Annotations as their source text (forward references need not exist)."""
    return annotationlib.get_annotations(obj, format=annotationlib.Format.STRING)


def computed(obj):
    """The annotations that ran, as data: a name not yet defined is its text."""
    found = annotationlib.get_annotations(obj, format=annotationlib.Format.FORWARDREF)
    return {k: v.__forward_arg__ if isinstance(v, annotationlib.ForwardRef) else repr(v)
            for k, v in found.items()}


@cases((1,), ("a",))
def signature_annotations(x):
    def inner(a: int, b: "str" = "b", *args: tuple[int, ...], c: bool = True, **kw: dict[str, int]) -> list[int]:
        return [a]
    return shown(inner), inner(1)


@cases(())
def forward_references():
    def uses_later(x: Later, y: list[Later] | None = None) -> Later:
        return x
    class Later:
        pass
    return shown(uses_later), uses_later.__annotations__["x"] is Later


@cases((3,),)
def annotations_of_lambda_free_defaults(n):
    def f(x: n.__class__ = n) -> n.__class__:
        return x
    return f.__annotations__, f()


class Annotated:
    """Annotations in a class body: bare ones, with values, under a condition."""
    a: int = 1
    b: list[int]
    c: "Annotated"
    if a:
        d: str = "d"
    else:
        e: bytes
    for _i in range(1):
        f: float = 0.5
    try:
        g: dict = {}
    except Exception:
        h: set
    later: Missing

    def method(self, other: Annotated) -> Annotated:
        return other


def _probe_annotated(cls):
    return computed(cls), shown(cls.method), cls.a, cls.d, cls.f, cls.g, hasattr(cls, "b")


cases(probe=_probe_annotated)(Annotated)


class OnlyBare:
    x: int
    y: "OnlyBare"


def _probe_only_bare(cls):
    return shown(cls), sorted(vars(cls).keys() - {"__annotate_func__", "__annotations_cache__"})


cases(probe=_probe_only_bare)(OnlyBare)


class Mixed:
    first = 0
    second: int = first + 1
    third: str
    fourth = "4"
    fifth: float = 5.0


def _probe_mixed(cls):
    return shown(cls), cls.second, cls.fifth


cases(probe=_probe_mixed)(Mixed)


FLAG = 0


class Conditional:
    """Only the annotations whose statements ran are in the computed annotations."""
    if FLAG:
        ran: int = 1
    else:
        other: str
    while FLAG:
        never: bytes
    always: float


def _probe_conditional(cls):
    return cls.__annotations__


cases(probe=_probe_conditional)(Conditional)
