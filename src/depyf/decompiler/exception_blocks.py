"""try/except/finally, `with`/`async with` and `async for` on the block-stack bytecode (3.8-3.10).

Before 3.11 a protected range is opened by SETUP_FINALLY / SETUP_WITH / SETUP_ASYNC_WITH (whose
argument is the handler) and closed by POP_BLOCK. A construct is recognised at its SETUP
instruction from the shape of its handler, and its parts are decompiled by running sub-ranges:

* try/except: the handler compares the exception (`DUP_TOP; E; exception match; jump to the next
  handler`) or is bare (`POP_TOP` x3); `except E as e` wraps its body in a hidden try/finally that
  runs `e = None; del e`;
* try/finally: 3.8 enters the finally block with BEGIN_FINALLY / CALL_FINALLY and leaves it with
  END_FINALLY / POP_FINALLY; 3.9 and 3.10 copy the finally body onto every way out of the try body
  and end the exceptional copy with RERAISE;
* with: SETUP_WITH pushes `__exit__`; the way out calls it (3.8: WITH_CLEANUP_START/FINISH, 3.9+:
  `__exit__(None, None, None)`), the handler is WITH_CLEANUP_* or WITH_EXCEPT_START.

Every `return`, `break` and `continue` inside such a range first *unwinds* the blocks it leaves
(POP_BLOCK, POP_EXCEPT, CALL_FINALLY, the copied finally body, the `__exit__` call). Each construct
pushes a `_Block` while its parts run; the unwinding instructions are matched against those blocks,
innermost first, and dropped, so the exit itself is left to the ordinary return/jump rules.

The normal way out of a part is either a jump to the end of the construct or, on 3.10, a copy of a
small block that ends the function (`return None`): such a tail is decompiled as the statements that
follow the construct, which the compiler copies back into every path.

The rules are mixins by responsibility, composed here: block_parts.py (where a part ends and how it
leaves), block_unwind.py (the cleanup code of ways out), block_try_except.py, block_finally.py and
block_with.py (one construct each); block_model.py holds what they share (`_Block`, `Exit`).
"""
from depyf.decompiler.instructions import Instr
from depyf.decompiler.block_parts import BlockParts
from depyf.decompiler.block_unwind import BlockUnwind
from depyf.decompiler.block_try_except import BlockTryExcept
from depyf.decompiler.block_finally import BlockFinally
from depyf.decompiler.block_with import BlockWith


class BlockExceptionRules(BlockTryExcept, BlockFinally, BlockWith, BlockUnwind, BlockParts):
    """Exception-handling constructs of 3.8-3.10; mixed into `builder.CodeBuilder`."""

    # --- try ----------------------------------------------------------------------------------

    def op_SETUP_FINALLY(self, ins: Instr, i: int) -> int:
        h = ins.target
        if self._op(i + 1) == "GET_ANEXT":
            if i in self.active_loops:
                raise self.fail(ins, "async for loop header reached twice")
            return self.async_for_loop(i)  # a loop whose body never goes back (no back edge)
        if self.handler_kind(h) == "except":
            return self._try_except(i, h)
        if self.version.uses_call_finally:
            return self._try_finally_calls(i, h)
        return self._try_finally_copies(i, h)
