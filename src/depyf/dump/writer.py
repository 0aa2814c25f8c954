"""Lay out dumped files: one folder per process (per rank when several ranks dump), atomic writes.

Every ``.py`` file written here must compile: :meth:`DumpWriter.write_py` checks that and, should
a piece of text not compile, writes it as comments instead (with a note), never broken Python.

A dump must never be what breaks the program: a write that fails (the folder was deleted, the
disk is full, the folder is not writable) is recorded, never raised; the caller goes on with
torch's own code, and ``prepare_debug`` says once, at the end, what was not written.
"""
from __future__ import annotations

import os
import threading
from typing import Dict, List, Optional

from depyf.dump.claim import FolderLock, claim_folder
from depyf.dump.filenames import file_stem, is_plain_file_name


def _write_file(path: str, text: str) -> None:
    """The one place dump bytes reach the disk (tests replace it to simulate a full disk)."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def atomic_write(path: str, text: str) -> None:
    """Write ``text`` to ``path`` so readers never see a half-written file."""
    directory, base = os.path.split(path)
    # A name of this process and thread is unique enough, and cheaper than tempfile's search
    # (the dump writes dozens of files while torch compiles).
    tmp = os.path.join(directory, f".depyf-{base}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        _write_file(tmp, text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def rank_folder(dump_dir: str, rank: Optional[int]) -> str:
    """``dump_dir/rank_<r>`` when this process is one rank of several, else ``dump_dir``."""
    if rank is None:
        env = os.environ.get("RANK")
        if env is not None and env.strip().isdigit():
            rank = int(env)
    return os.path.join(dump_dir, f"rank_{rank}") if rank is not None else dump_dir


def as_comments(text: str, why: str) -> str:
    lines = [f"# depyf: {why}; the text is kept below as comments."]
    lines.extend("# " + line for line in text.splitlines())
    return "\n".join(lines) + "\n"


class DumpWriter:
    """Writes the files of one dump and remembers which names it has handed out.

    ``failure`` is the first write error (None while every write succeeded) and ``lost`` the
    names that could not be written.
    """

    def __init__(self, folder: str, lock: Optional[FolderLock] = None) -> None:
        self.folder = os.path.abspath(folder)
        self.lock = lock
        self.written: Dict[str, str] = {}
        self.failure: Optional[str] = None
        self.lost: List[str] = []

    @classmethod
    def claim(cls, base: str) -> "DumpWriter":
        """A writer for the folder this process may dump into (see :mod:`depyf.dump.claim`).

        Raises OSError when no folder can be created there.
        """
        folder, lock = claim_folder(base)
        return cls(folder, lock)

    def close(self) -> None:
        """Give the folder back to other processes."""
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    def path(self, name: str) -> str:
        if not is_plain_file_name(name):  # every name comes from file_stem: this is a bug
            raise ValueError(f"not a plain file name: {name!r}")
        return os.path.join(self.folder, name)

    @staticmethod
    def file_stem(stem: str) -> str:
        """The file name (without extension) that ``unique_name(stem)`` starts from."""
        return file_stem(stem)

    def unique_name(self, stem: str, ext: str = ".py") -> str:
        """``stem.py``, or ``stem_1.py``... if this dump already used the name (``stem`` made
        safe and bounded first: :func:`depyf.dump.filenames.file_stem`)."""
        stem = file_stem(stem)
        name = stem + ext
        i = 1
        while name in self.written:
            name = f"{stem}_{i}{ext}"
            i += 1
        self.written[name] = ""
        return name

    def write_py(self, name: str, text: str, compiled: bool = False) -> Optional[str]:
        """Write a Python file (as comments if ``text`` does not compile); return its path, or
        None when it could not be written.

        ``compiled=True`` says the caller already compiled exactly this text (or torch did), so
        it is not compiled a second time.
        """
        path = self.path(name)
        if "\0" in text:
            # No Python source holds a NUL, so the caller's compile check cannot have passed.
            # `\x00` means the same inside a string literal and is harmless in a comment.
            text, compiled = text.replace("\0", "\\x00"), False
        if not compiled:
            try:
                compile(text, path, "exec")
            except (SyntaxError, ValueError) as e:
                text = as_comments(text, f"this text does not compile ({e.__class__.__name__}: {e})")
        return self.write_text(name, text)

    def write_text(self, name: str, text: str) -> Optional[str]:
        """Write any file of the dump atomically; return its path, or None when it failed."""
        path = self.path(name)
        try:
            atomic_write(path, text)
        except OSError as e:
            if self.failure is None:
                self.failure = f"{e.strerror or e.__class__.__name__} ({path})"
            self.written.pop(name, None)
            self.lost.append(name)
            return None
        self.written[name] = text
        return path
