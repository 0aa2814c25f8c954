"""Running a decompilation that recurses deeper than the interpreter's default limit allows.

The reader follows the structure of the code: an `if` inside an `if`, the rest of an `and` chain
after its first test, the `else` part of an `elif`, a lambda inside a lambda. How deep it recurses
therefore follows how the source was written, and CPython compiles far deeper code (thousands of
`and` terms or `elif`s) than the default limit of 1000 Python frames lets the reader follow.

`call_deep` runs a function once more in a fresh thread with a large C stack and a raised
recursion limit, which is only done after the ordinary call ran out of stack, so ordinary code
pays nothing. Both figures are sized so that the raised limit is hit, as a `RecursionError`, well
before the thread's C stack is used up (3.8-3.10 spend C stack on every Python call; overflowing it
kills the interpreter). The recursion limit is process-wide: a lock keeps one deep call at a time,
and the old limit comes back when it ends.
"""
import sys
import threading
from typing import Callable, TypeVar

T = TypeVar("T")

# Python frames the deep call may use. The deepest readings CPython lets through (10,000-term
# `and` chains, 5,000 `elif`s) need about 4 frames per level.
DEEP_RECURSION_LIMIT = 120_000
# Bytes of C stack per Python frame on 3.8-3.10, the most hungry (measured: under 2 KiB for the
# reader's frames, comparisons and printing included), with a wide margin.
_STACK_PER_FRAME = 4096
DEEP_STACK_BYTES = DEEP_RECURSION_LIMIT * _STACK_PER_FRAME  # ~470 MiB of address space, touched as used

_ONE_AT_A_TIME = threading.Lock()


def call_deep(action: Callable[[], T]) -> T:
    """`action()` on a thread with a deep stack and recursion limit; its result or its exception.

    Raises RecursionError (the original one is the caller's) where no such thread can be made."""
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["value"] = action()
        except BaseException as exc:  # handed to the calling thread, which raises it
            outcome["error"] = exc

    with _ONE_AT_A_TIME:
        old_limit, old_stack = sys.getrecursionlimit(), threading.stack_size()
        worker = threading.Thread(target=run, name="depyf-deep-decompile", daemon=True)
        sys.setrecursionlimit(max(old_limit, DEEP_RECURSION_LIMIT))
        try:
            try:
                threading.stack_size(DEEP_STACK_BYTES)
                worker.start()  # (the size is read here: other threads keep the old one)
            except (ValueError, RuntimeError, MemoryError):  # the platform cannot make such a thread
                raise RecursionError("no thread with a deep enough stack") from None
            finally:
                threading.stack_size(old_stack)
            worker.join()
        finally:
            sys.setrecursionlimit(old_limit)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
