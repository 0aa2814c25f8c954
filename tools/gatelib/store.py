"""Recordings on disk: one folder per recording, one compressed JSON file per (corpus, version).

    $DEPYF_CACHE/gate/<name>/          (DEPYF_CACHE defaults to ~/.cache/depyf)
        meta.json                      what was recorded: commit, worktree, options, wall time
        <corpus>/<version>.json.gz     a slice: every definition's record, and the texts

A slice keeps each decompiled text once, under its digest, so that unchanged texts cost nothing
twice and a later check can tell "same text" without reading it.
"""
from __future__ import annotations

import gzip
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

FORMAT = 1


def gate_root() -> Path:
    return Path(os.environ.get("DEPYF_CACHE", "~/.cache/depyf")).expanduser() / "gate"


@dataclass
class Record:
    """One definition's outcome: outcome name, the reason or first difference, the text's digest."""

    outcome: str
    detail: str = ""
    sha: Optional[str] = None

    def as_json(self) -> List[Any]:
        return [self.outcome, self.detail, self.sha]

    @classmethod
    def from_json(cls, data: List[Any]) -> "Record":
        return cls(data[0], data[1], data[2])


@dataclass
class Slice:
    """Everything recorded for one corpus on one interpreter."""

    corpus: str
    version: str  # the minor, "3.11"
    python: str = ""  # the full version, "3.11.7"
    interpreter: str = ""
    fingerprint: str = ""  # digest of what decides verdicts (oracle, checks, interpreter)
    units: Dict[str, str] = field(default_factory=dict)  # unit label -> digest of its content
    records: Dict[str, Record] = field(default_factory=dict)  # "<unit>::<definition>" -> record
    texts: Dict[str, str] = field(default_factory=dict)  # digest -> decompiled text
    problems: List[str] = field(default_factory=list)  # files skipped, workers that failed
    seconds: float = 0.0

    def text(self, key: str) -> Optional[str]:
        record = self.records.get(key)
        return self.texts.get(record.sha) if record and record.sha else None

    def as_json(self) -> Dict[str, Any]:
        return {
            "format": FORMAT, "corpus": self.corpus, "version": self.version, "python": self.python,
            "interpreter": self.interpreter, "fingerprint": self.fingerprint, "units": self.units,
            "records": {k: r.as_json() for k, r in sorted(self.records.items())},
            "texts": self.texts, "problems": self.problems, "seconds": round(self.seconds, 1),
        }

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "Slice":
        if data.get("format") != FORMAT:
            raise ValueError(f"recording format {data.get('format')} (this gate reads {FORMAT})")
        return cls(
            data["corpus"], data["version"], data["python"], data["interpreter"], data["fingerprint"],
            dict(data["units"]), {k: Record.from_json(v) for k, v in data["records"].items()},
            dict(data["texts"]), list(data["problems"]), float(data.get("seconds", 0.0)),
        )


class Recording:
    """A named recording folder."""

    def __init__(self, name: str, root: Optional[Path] = None) -> None:
        if not name or "/" in name or name.startswith("."):
            raise ValueError(f"not a recording name: {name!r}")
        self.name = name
        self.path = (root or gate_root()) / name

    def exists(self) -> bool:
        return (self.path / "meta.json").exists()

    def clear(self) -> None:
        if self.path.exists():
            shutil.rmtree(str(self.path))

    def _slice_path(self, corpus: str, version: str) -> Path:
        return self.path / corpus / f"{version}.json.gz"

    def save_slice(self, piece: Slice) -> None:
        path = self._slice_path(piece.corpus, piece.version)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with gzip.open(str(tmp), "wt", encoding="utf-8", compresslevel=6) as handle:
            json.dump(piece.as_json(), handle, separators=(",", ":"))
        tmp.replace(path)

    def load_slice(self, corpus: str, version: str) -> Optional[Slice]:
        path = self._slice_path(corpus, version)
        if not path.exists():
            return None
        with gzip.open(str(path), "rt", encoding="utf-8") as handle:
            return Slice.from_json(json.load(handle))

    def slices(self) -> Iterator[Tuple[str, str]]:
        """(corpus, version) of every slice, in a stable order."""
        if not self.path.is_dir():
            return
        for corpus_dir in sorted(p for p in self.path.iterdir() if p.is_dir()):
            for file in sorted(corpus_dir.glob("*.json.gz"), key=lambda p: _version_key(p.name[:-8])):
                yield corpus_dir.name, file.name[: -len(".json.gz")]

    def write_meta(self, meta: Dict[str, Any]) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        (self.path / "meta.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")

    def meta(self) -> Dict[str, Any]:
        try:
            return json.loads((self.path / "meta.json").read_text())
        except (OSError, ValueError):
            return {}


def _version_key(version: str) -> Tuple[int, ...]:
    try:
        return tuple(int(p) for p in version.split("."))
    except ValueError:
        return (99,)


def list_recordings(root: Optional[Path] = None) -> List[Recording]:
    base = root or gate_root()
    if not base.is_dir():
        return []
    return [Recording(p.name, base) for p in sorted(base.iterdir()) if (p / "meta.json").exists()]
