"""Lay out dumped files: one folder (per rank when several processes dump), atomic writes.

Every ``.py`` file written here must compile: :meth:`DumpWriter.write_py` checks that and, should
a piece of text not compile, writes it as comments instead (with a note), never broken Python.
"""
from __future__ import annotations

import os
import threading
from typing import Dict, Optional


def atomic_write(path: str, text: str) -> None:
    """Write ``text`` to ``path`` so readers never see a half-written file."""
    directory, base = os.path.split(path)
    # A name of this process and thread is unique enough, and cheaper than tempfile's search
    # (the dump writes dozens of files while torch compiles).
    tmp = os.path.join(directory, f".depyf-{base}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
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
    """Writes the files of one dump and remembers which names it has handed out."""

    def __init__(self, folder: str) -> None:
        self.folder = os.path.abspath(folder)
        os.makedirs(self.folder, exist_ok=True)
        self.written: Dict[str, str] = {}

    def path(self, name: str) -> str:
        return os.path.join(self.folder, name)

    def unique_name(self, stem: str, ext: str = ".py") -> str:
        """``stem.py``, or ``stem_1.py``... if this dump already used the name."""
        name = stem + ext
        i = 1
        while name in self.written:
            name = f"{stem}_{i}{ext}"
            i += 1
        self.written[name] = ""
        return name

    def write_py(self, name: str, text: str, compiled: bool = False) -> str:
        """Write a Python file (as comments if ``text`` does not compile); return its path.

        ``compiled=True`` says the caller already compiled exactly this text (or torch did), so
        it is not compiled a second time.
        """
        path = self.path(name)
        if not compiled:
            try:
                compile(text, path, "exec")
            except (SyntaxError, ValueError) as e:
                text = as_comments(text, f"this text does not compile ({e.__class__.__name__}: {e})")
        self.written[name] = text
        atomic_write(path, text)
        return path
