"""Applies the known-gap list (known_gaps.py) to the collected decompiler tests."""
from pathlib import Path
from typing import Any, List

from .known_gaps import apply

HERE = str(Path(__file__).resolve().parent)


def pytest_collection_modifyitems(config: Any, items: List[Any]) -> None:
    # the hook sees the whole session's items: only ours are matched against the list
    for item in items:
        if str(item.fspath).startswith(HERE):
            apply(item)
