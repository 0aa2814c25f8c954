"""The reading's mixins share one namespace (`CodeBuilder`'s MRO): a method defined in two of
them silently replaces one with the other, and a new helper named like an existing one in
another mixin changes the reading of every version that calls it. Only the overrides below are
meant; any other name defined twice fails here."""
from typing import Dict, List

from depyf.decompiler.builder import CodeBuilder

# name -> the classes that define it, first in MRO order: each earlier one extends the later
# (it calls `super()`), or the later one is a typed stub of what the builder provides.
INTENDED_OVERRIDES: Dict[str, List[str]] = {
    "comprehension_item": ["DefinitionRules", "ExpressionRules"],  # stub in ExpressionRules
    "emit": ["CodeBuilder", "ExpressionRules"],  # stub
    "fail": ["CodeBuilder", "ExpressionRules"],  # stub
    "pop": ["CodeBuilder", "ExpressionRules"],  # stub
    "popn": ["CodeBuilder", "ExpressionRules"],  # stub
    "op_BEFORE_ASYNC_WITH": ["TableWith", "BlockWith"],  # 3.11+ first, super() for 3.8-3.10
    "op_POP_EXCEPT": ["TableClauses", "BlockUnwind"],  # 3.11+ first, super() for 3.8-3.10
    "op_COPY": ["ControlValues", "ExpressionRules"],  # a COPY that starts an and/or value first
    "op_DUP_TOP": ["ControlCompare", "ExpressionRules"],  # a chained comparison's DUP_TOP first
    "op_SWAP": ["ControlCompare", "ExpressionRules"],  # a chained comparison's SWAP first
}


def _definers() -> Dict[str, List[str]]:
    found: Dict[str, List[str]] = {}
    for cls in CodeBuilder.__mro__:
        for name, value in vars(cls).items():
            if callable(value) and not (name.startswith("__") and name.endswith("__")):
                found.setdefault(name, []).append(cls.__name__)
    return found


def test_no_method_is_defined_in_two_mixins_unless_meant() -> None:
    clashes = {name: classes for name, classes in _definers().items()
               if len(classes) > 1 and INTENDED_OVERRIDES.get(name) != classes}
    assert not clashes, f"methods defined in more than one of CodeBuilder's classes: {clashes}"


def test_every_intended_override_still_exists() -> None:
    definers = _definers()
    stale = {name: definers.get(name) for name, classes in INTENDED_OVERRIDES.items() if definers.get(name) != classes}
    assert not stale, f"INTENDED_OVERRIDES lists overrides that are gone or changed: {stale}"
