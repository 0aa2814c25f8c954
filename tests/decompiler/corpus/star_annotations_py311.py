"""PEP 646 starred annotations of `*args` (needs Python 3.11): compiled as a one-item unpacking."""
from _cases import cases


@cases((1, 2), ())
def star_annotated_args(*args: *tuple[int, ...]):
    return len(args)


@cases((1, "a"),)
def star_annotated_names(*args: *tuple[int, str], **kwargs: int) -> int:
    return len(args) + len(kwargs)


@cases(())
def annotations_of_a_nested_def():
    def inner(*values: *tuple[float, ...]) -> None:
        pass
    return sorted(inner.__annotations__)
