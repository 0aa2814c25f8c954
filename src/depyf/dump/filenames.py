"""File names for dumped files: safe on every file system, bounded, and stable from run to run.

The names come from the user's code (``full_code_for_<qualified name>``), and code objects can
carry any text as their name: 300 characters, ``../``, a NUL, a newline. :func:`file_stem` makes
every such text a single plain file name inside the dump folder:

* only ``[A-Za-z0-9_.-]`` survive, everything else becomes ``_`` (so no ``/``, ``\\``, NUL, newline
  or carriage return; no leading ``.``, so no hidden file and no ``..``);
* names Windows reserves (``CON``, ``NUL``, ``COM1``...) get a leading ``_``;
* a name longer than :data:`MAX_STEM` is cut, and the cut is marked with a short hash of the whole
  name, so two long names that share their beginning still get two files, and the same name gets
  the same file on every run (the hash is SHA-1 of the text, not Python's salted ``hash``).
"""
from __future__ import annotations

import hashlib
import re

# File systems allow 255 bytes; the writer adds ``_<n>`` for a second file of the same name, the
# extension, and ``.depyf-`` ... ``.<pid>.<thread>.tmp`` around the temporary file of an atomic write.
MAX_STEM = 120
_HASH_CHARS = 8
_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]")
_WINDOWS_RESERVED = re.compile(r"^(CON|PRN|AUX|NUL|COM[0-9]|LPT[0-9])$", re.IGNORECASE)


def file_stem(text: str) -> str:
    """A safe, bounded file name (without extension) for ``text``; the same text gives the same name."""
    stem = _UNSAFE.sub("_", str(text))
    if stem.startswith("."):
        stem = "_" + stem[1:]
    if stem.endswith("."):  # Windows drops trailing dots, so `a.` and `a` would collide there
        stem = stem[:-1] + "_"
    if not stem:
        stem = "_"
    if _WINDOWS_RESERVED.match(stem.split(".", 1)[0]):
        stem = "_" + stem
    if len(stem) > MAX_STEM:
        # The hash is of the whole text: two long names that share their first 111 characters
        # still get two files.
        digest = hashlib.sha1(str(text).encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_CHARS]
        stem = stem[: MAX_STEM - _HASH_CHARS - 1] + "_" + digest
    return stem


def is_plain_file_name(name: str) -> bool:
    """Whether ``name`` names a file directly inside a folder (what :func:`file_stem` makes)."""
    return bool(name) and not _UNSAFE.search(name) and not name.startswith(".") and len(name) < 250
