"""``depyf.prepare_debug`` and ``depyf.debug``: dump what torch.compile does, then step through it.

    with depyf.prepare_debug("dump_dir"):
        compiled_fn(inputs)          # every frame compiled here is written to dump_dir
    with depyf.debug():
        compiled_fn(inputs)          # runs the cached code from the dumped files: set breakpoints there

depyf never changes what the program computes: code is swapped for code compiled from a dumped
file only when both are bytecode-equal, and any failure in depyf is noted once on stderr while
torch's own code keeps running.
"""
from __future__ import annotations

import contextlib
import os
import sys
from typing import Iterator, List, Optional

from depyf.dump.code_objects import with_code_objects_saved
from depyf.dump.layout import DumpLayout
from depyf.dump.writer import DumpWriter, rank_folder
from depyf.dynamo import adapter
from depyf.dynamo.capture import CaptureSession

__all__ = ["prepare_debug", "debug"]


class _State:
    """The last ``prepare_debug`` run of this process, which ``debug`` replays from."""

    active: Optional["DumpLayout"] = None
    last: Optional["tuple[DumpLayout, CaptureSession]"] = None


@contextlib.contextmanager
def prepare_debug(dump_src_dir: str, clean_wild_fx_code: bool = True, log_bytecode: bool = False) -> Iterator[str]:
    """Dump every frame compiled inside the block into ``dump_src_dir`` (yields the folder used).

    Compile inside the block: functions compiled (run) before it are not seen. Inductor's and
    AOTAutograd's caches are turned off inside the block so every graph is really made.

    The signature is depyf 0.20's. ``log_bytecode=True`` also saves, next to each transformed-code
    file, its original, transformed and recompiled code objects (see
    :mod:`depyf.dump.code_objects`). ``clean_wild_fx_code`` is accepted and has no effect: 0.20
    wrote a raw ``fx_graph_code_*`` file for every FX module created and removed them on exit; this
    depyf writes each graph once, readable, and never those files.
    """
    dump_dir = dump_src_dir
    if not isinstance(dump_dir, (str, os.PathLike)):
        raise TypeError("prepare_debug(dump_src_dir) takes the folder to write to")
    adapter.require_torch("depyf.prepare_debug")  # before the folder is made
    if _State.active is not None:
        raise RuntimeError("depyf.prepare_debug blocks cannot be nested")
    del clean_wild_fx_code  # (see the docstring)
    writer = DumpWriter(rank_folder(os.fspath(dump_dir), adapter.distributed_rank()))
    layout = DumpLayout(writer)
    on_frame = with_code_objects_saved(layout) if log_bytecode else layout.on_frame
    session = CaptureSession(on_frame, layout.on_graph, layout.on_module)
    layout.session = session
    _State.active = layout
    try:
        with adapter.caches_disabled():
            session.install()
            try:
                yield writer.folder
            finally:
                session.uninstall()
                try:
                    layout.finish(session)
                except Exception as e:  # writing the explanation must not break the program
                    print(f"depyf: could not finish the dump in {writer.folder}: {e!r}", file=sys.stderr)
                for err in session.errors[:1]:
                    print(f"depyf: {err} (and {len(session.errors) - 1} more)" if len(session.errors) > 1 else f"depyf: {err}", file=sys.stderr)
    finally:
        _State.active = None
        _State.last = (layout, session)


@contextlib.contextmanager
def debug(breakpoint_on_entry: Optional[bool] = None) -> Iterator[str]:
    """Run what ``prepare_debug`` compiled from the dumped files, compiling nothing new.

    Inside the block, a breakpoint set (pdb, an IDE) in a dumped transformed-code, resume, graph or
    Inductor file is hit, with the real local variables. Yields the dump folder.

    ``breakpoint_on_entry=True`` (or the environment variable ``DEPYF_DEBUG_BREAKPOINT=1`` when
    the keyword is not given) stops in ``breakpoint()`` on entering the block, as depyf 0.20's
    ``debug()`` always did, so breakpoints can be set before the code runs.
    """
    adapter.require_torch("depyf.debug")
    if breakpoint_on_entry is None:
        breakpoint_on_entry = os.environ.get("DEPYF_DEBUG_BREAKPOINT", "0").strip() not in ("", "0")
    if _State.active is not None:
        raise RuntimeError("depyf.debug cannot be used inside depyf.prepare_debug; enter it afterwards")
    if _State.last is None:
        raise RuntimeError("depyf.debug needs a depyf.prepare_debug run first, in this process")
    layout, session = _State.last
    swaps: List = []
    try:
        swaps = layout.run_from_files(session)
    except Exception as e:
        print(f"depyf: some graphs will not run from their dumped files: {e!r}", file=sys.stderr)
    not_debuggable = [r.code.co_name for r in session.frames if not r.debuggable]
    note = (
        f"; {len(not_debuggable)} transformed code object(s) run as Dynamo made them (their files are for reading only)"
        if not_debuggable
        else ""
    )
    print(f"depyf.debug: compiled code runs from the files in {layout.writer.folder}; set breakpoints there{note}", file=sys.stderr)
    try:
        with adapter.run_cached_code_only():
            if breakpoint_on_entry:
                print(f"depyf.debug: set breakpoints in the files of {layout.writer.folder}, then continue", file=sys.stderr)
                breakpoint()  # (honours PYTHONBREAKPOINT and sys.breakpointhook)
            yield layout.writer.folder
    finally:
        for fn, code in reversed(swaps):
            fn.__code__ = code
