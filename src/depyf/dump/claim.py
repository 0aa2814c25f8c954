"""One dump folder per process, even when several independent processes share a ``dump_dir``.

Ranks of a ``torchrun`` job are told apart by their rank (``rank_<r>/``). Independent processes
(four scripts started with the same ``dump_dir``, a test suite run in parallel) are not: each
would overwrite the others' files. So a process claims the folder it dumps into, with a lock file
held for the length of its ``prepare_debug`` block:

    dump_dir/                 the first process dumping there
    dump_dir/process_1/       a second one, while the first is still dumping
    dump_dir/process_2/       ...

The lock is an advisory ``flock`` on ``<folder>/.depyf-lock``: the kernel releases it when its
process dies, so a crashed run never blocks a folder. Names stay stable: a single process always
gets ``dump_dir`` itself, and ``process_<n>`` are handed out first free first.
"""
from __future__ import annotations

import contextlib
import os
from typing import Optional, Tuple

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows: exclusive creation instead (see FolderLock)
    fcntl = None  # type: ignore[assignment]

LOCK_NAME = ".depyf-lock"
PROCESS_FOLDER_PREFIX = "process_"
# More concurrent processes than this on one folder is a mistake, not a workload to serve.
MAX_PROCESSES = 256


class FolderLock:
    """The claim of one process on one dump folder; :meth:`release` gives it back."""

    def __init__(self, path: str, fd: int) -> None:
        self.path = path
        self.fd = fd

    @classmethod
    def try_acquire(cls, folder: str) -> Optional["FolderLock"]:
        """The lock of ``folder``, or None when another live process holds it.

        Raises OSError when the folder cannot hold a lock file (not writable, gone, not a folder).
        """
        path = os.path.join(folder, LOCK_NAME)
        if fcntl is None:  # pragma: no cover
            try:
                return cls(path, os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o644))
            except FileExistsError:
                return None
        while True:
            fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                return None
            except BaseException:
                os.close(fd)
                raise
            # The holder before us unlinks the file before it lets go: if the name no longer
            # points at the file we locked, someone else may lock the new one; start again.
            try:
                same = os.stat(path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                return cls(path, fd)
            os.close(fd)

    def release(self) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self.path)  # before letting go: see try_acquire
        with contextlib.suppress(OSError):
            os.close(self.fd)


def claim_folder(base: str) -> Tuple[str, FolderLock]:
    """Create and lock the folder this process dumps into: ``base``, else ``base/process_<n>``.

    Raises OSError when no folder can be created or locked there.
    """
    base = os.path.abspath(base)
    for n in range(MAX_PROCESSES):
        folder = base if n == 0 else os.path.join(base, f"{PROCESS_FOLDER_PREFIX}{n}")
        os.makedirs(folder, exist_ok=True)
        lock = FolderLock.try_acquire(folder)
        if lock is not None:
            return folder, lock
    raise OSError(f"{MAX_PROCESSES} processes are already dumping into {base}")
