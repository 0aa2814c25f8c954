"""Decompile a few real functions of the standard library and of this file, and print them.

    python examples/decompile_demo.py

Each function's bytecode (what the interpreter actually runs) is turned back into source.
"""
import json
import textwrap

import depyf


class Counter:
    """A class whose method uses augmented assignment on an attribute."""

    def __init__(self) -> None:
        self.n = 0

    def bump(self, by: int = 1) -> int:
        self.n += by
        return self.n


def first_words(lines, *, limit=3):
    """A generator with a comprehension, a keyword-only default and a conditional."""
    for line in lines:
        words = [w.lower() for w in line.split() if w.isalpha()]
        if words:
            yield words[:limit]


EXAMPLES = [
    ("a lambda", lambda x, y=2: x * y + 1),
    ("a method", Counter.bump),
    ("a generator", first_words),
    ("textwrap.dedent (standard library)", textwrap.dedent),
    ("json.dumps (standard library)", json.dumps),
]


def main() -> None:
    for title, obj in EXAMPLES:
        print("# ---- %s " % title + "-" * max(0, 60 - len(title)))
        # on_error="comment": show what could not be decompiled as commented disassembly
        # instead of stopping the demo.
        print(depyf.decompile(obj, on_error="comment"))
        print()


if __name__ == "__main__":
    main()
