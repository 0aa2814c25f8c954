"""The stdlib sample: a few modules of the running interpreter's own standard library through
`depyf.verify`, summarized as the percentages the floors in floors.json are about."""
from __future__ import annotations

import json
import sysconfig
from pathlib import Path
from typing import Any, Dict, List, Tuple

from . import support

# small, varied, and fast: a few seconds per interpreter
MODULES = ("textwrap", "heapq", "shlex", "json/decoder", "fractions", "string")
FLOORS = support.HERE / "floors.json"


def module_path(name: str) -> Path:
    """The module's source file; a package's `__init__.py` (3.14 made `string` a package)."""
    base = Path(sysconfig.get_paths()["stdlib"]) / name
    single = base.with_name(base.name + ".py")
    return single if single.exists() else base / "__init__.py"


def run_sample() -> Tuple[Dict[str, float], List[Any]]:
    """(summary, results): summary has total, equal_pct, compile_pct; results are verify's."""
    verify = support.verify()
    results: List[Any] = []
    for name in MODULES:
        path = module_path(name)
        source = path.read_text(encoding="utf-8")
        for result in verify.roundtrip_source_file(source, str(path), decompile=support.bounded_decompile):
            result.module = name
            results.append(result)
    total = len(results)
    equal = sum(r.status == "equal" for r in results)
    compiles = sum(r.status in ("equal", "differs") for r in results)
    summary = {
        "total": total,
        "equal_pct": round(100.0 * equal / total, 1) if total else 0.0,
        "compile_pct": round(100.0 * compiles / total, 1) if total else 0.0,
    }
    return summary, results


def read_floors() -> Dict[str, Any]:
    return json.loads(FLOORS.read_text(encoding="utf-8"))


def ratchet(measured: Dict[str, float]) -> None:
    """Raise this interpreter's floors to the measured numbers; floors never go down."""
    floors = read_floors()
    mine = floors.setdefault(support.VERSION_KEY, {"equal_pct": 0.0, "compile_pct": 0.0})
    for key in ("equal_pct", "compile_pct"):
        mine[key] = max(mine.get(key, 0.0), measured[key])
    FLOORS.write_text(json.dumps(floors, indent=2, sort_keys=True) + "\n", encoding="utf-8")
