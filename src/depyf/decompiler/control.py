"""Conditions, `if`, loops, `break`/`continue`, and the value-level short circuits.

Structures are recognised from jump targets, which are instruction indices:

* a conditional jump starts a *condition chain*: consecutive pure expressions each ending in a
  conditional jump. Where each one jumps (the body, the else part, or a later member of the chain)
  decides how they combine with `and`/`or`/`not`;
* a loop is the range between a *header* (the target of a backward jump) and the last backward jump
  to it; 3.10+ repeats a while loop's test at the bottom, which is recognised and dropped;
* a forward jump out of a loop is a `break`; a jump to a loop's header or test is a `continue`.

The rules are mixins by section, composed here: control_prepare.py (the loop and range tables),
control_conditions.py and control_chain_build.py (condition chains), control_ifs.py,
control_if_loops.py and control_if_values.py (if statements, inside loops, conditional
expressions), control_jumps.py (unconditional jumps), control_values.py (value-level and/or),
control_loops.py, control_loop_tries.py, control_for_loops.py and control_loop_tests.py (loops,
loop bodies ending inside a try, for loops, the bottom copy of a while loop's test) and
control_compare.py (chained comparisons); control_model.py holds what they share (`LoopInfo`,
`COND_JUMPS`, the condition atoms and negation helpers).
"""
from depyf.decompiler.control_prepare import ControlPrepare
from depyf.decompiler.control_conditions import ControlConditions
from depyf.decompiler.control_chain_build import ControlChainBuild
from depyf.decompiler.control_ifs import ControlIfs
from depyf.decompiler.control_if_loops import ControlIfLoops
from depyf.decompiler.control_if_values import ControlIfValues
from depyf.decompiler.control_jumps import ControlJumps
from depyf.decompiler.control_values import ControlValues
from depyf.decompiler.control_loops import ControlLoops
from depyf.decompiler.control_loop_tries import ControlLoopTries
from depyf.decompiler.control_for_loops import ControlForLoops
from depyf.decompiler.control_loop_tests import ControlLoopTests
from depyf.decompiler.control_compare import ControlCompare

# imported from here by other modules (builder, api, definitions, exception_table, block_*)
from depyf.decompiler.control_model import (COND_JUMPS, LoopInfo, StatementsInValue, _drop_trailing_continue,
    _may_complete, demorgan_not)  # noqa: F401
from depyf.decompiler.control_ifs import fold_tail_into_else  # noqa: F401


class ControlRules(ControlPrepare, ControlConditions, ControlChainBuild, ControlIfs, ControlIfLoops,
    ControlIfValues, ControlJumps, ControlValues, ControlLoops, ControlLoopTries, ControlForLoops,
    ControlLoopTests, ControlCompare):
    """Control-flow recognition; mixed into `builder.CodeBuilder`."""
