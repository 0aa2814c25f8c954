"""A dump folder written by hand, shaped like what prepare_debug writes, so the report is tested
without torch: a function with a graph break (one resume function), a recompile, a skipped
function, and code that needs escaping."""
import json
import os
from typing import Any, Dict, List, Optional

from depyf.report.format import MANIFEST_FORMAT, MANIFEST_NAME, MANIFEST_VERSION

# Text that would break the page if it were not escaped.
HOSTILE = "</pre><script>window.hacked = 1</script><b>&amp;"


def _guard(function: str, checks: int, file: str = "full_code_for_toy.py") -> Dict[str, Any]:
    lines = [{"expr": f"L['a'].size(0) == {i}", "comment": "a < b  # user line", "stand_in": False} for i in range(checks)]
    return {"function": function, "file": file, "lines": lines}


def _stack(*calls: str) -> List[Dict[str, Any]]:
    """User frames as the dump records them: ``"file:line:function:code"`` each."""
    out = []
    for call in calls:
        file, line, function, code = call.split(":", 3)
        out.append({"file": file, "line": int(line), "function": function, "code": code})
    return out


# Times as torch records them (cumulative): Inductor inside AOTAutograd inside the backend call
# inside the whole frame; the second entry is a backend without Inductor, the resume's has a
# backward graph compiled later.
INDUCTOR_TIMES = {"forward": {"total_s": 2.5, "backend_s": 2.0, "aot_autograd_s": 2.0, "inductor_s": 1.5, "code_gen_s": 1.2}}
EAGER_TIMES = {"forward": {"total_s": 0.25, "backend_s": 0.001}}
TRAINING_TIMES = {
    "forward": {"total_s": 1.0, "backend_s": 0.75, "aot_autograd_s": 0.75, "inductor_s": 0.5},
    "backward": {"total_s": 0.625, "inductor_s": 0.6},
}


def manifest(graph_source: str = "a = 1") -> Dict[str, Any]:
    resume = {
        "name": "__resume_at_30_0",
        "code_name": "torch_dynamo_resume_in_toy_at_5",
        "kind": "resume",
        "source": "/work/prog.py:3",
        "full_code_file": None,
        "code_file": "__resume_at_30_0.py",
        "entries": [
            {
                "compile_id": "1/0",
                "transformed_code_file": "__transformed_code_0_for___resume_at_30_0.py",
                "debuggable": True,
                "recompile_reasons": [],
                "compile_time": TRAINING_TIMES,
                "user_stack": _stack("/work/prog.py:12:<module>:toy(a, b)", "/work/prog.py:5:toy:print(a)"),
                "guard": _guard("guard_2", 2),
                "graphs": [
                    {
                        "name": "__compiled_fn_1",
                        "reason": "graph ends: return_value at /work/prog.py:6 in toy",
                        "artifacts": [{"kind": "captured_graph", "file": "__compiled_fn_1.captured_graph.py"}],
                    }
                ],
                "resume_functions": [],
            }
        ],
    }
    toy = {
        "name": "toy",
        "code_name": "toy",
        "kind": "function",
        "source": "/work/prog.py:3",
        "full_code_file": "full_code_for_toy.py",
        "code_file": None,
        "entries": [
            {
                "compile_id": "0/0",
                "transformed_code_file": "__transformed_code_0_for_toy.py",
                "debuggable": True,
                "recompile_reasons": [],
                "compile_time": INDUCTOR_TIMES,
                "user_stack": _stack("/work/prog.py:12:<module>:toy(a, b)  # </code><b>"),
                "guard": _guard("guard_0", 3),
                "graphs": [
                    {
                        "name": "__compiled_fn_0",
                        "reason": "graph break: Call to `print` <unsupported> at /work/prog.py:5 in toy",
                        "artifacts": [
                            {"kind": "captured_graph", "file": "__compiled_fn_0.captured_graph.py"},
                            {"kind": "aot_forward_graph", "file": "__compiled_fn_0.aot_forward_graph.py"},
                        ],
                    }
                ],
                "resume_functions": [resume],
            },
            {
                "compile_id": "0/1",
                "transformed_code_file": "__transformed_code_1_for_toy.py",
                "debuggable": False,
                "recompile_reasons": ["0/0: tensor 'a' size mismatch at index 0. expected 10, actual 12"],
                "compile_time": EAGER_TIMES,
                "guard": _guard("guard_1", 1),
                "graphs": [
                    {
                        "name": "__compiled_fn_2",
                        "reason": "graph break: Call to `print` <unsupported> at /work/prog.py:5 in toy",
                        "artifacts": [{"kind": "captured_graph", "file": "__compiled_fn_2.captured_graph.py"}],
                    }
                ],
                "resume_functions": [{"name": "__resume_at_30_0", "shown_above": True}],
            },
        ],
    }
    files = {
        "full_code_for_toy.py": "def guard_0(L, G):\n    return True\n",
        "__transformed_code_0_for_toy.py": "def __transformed_code_0_for_toy(a, b):\n    return __compiled_fn_0(a, b)\n",
        "__transformed_code_1_for_toy.py": f"x = {HOSTILE!r}\n",
        "__transformed_code_0_for___resume_at_30_0.py": "def t(b):\n    return b\n",
        "__resume_at_30_0.py": "def __resume_at_30_0(b):\n    return b < 0\n",
        "__compiled_fn_0.captured_graph.py": graph_source + "\n",
        "__compiled_fn_0.aot_forward_graph.py": "b = 2\n",
        "__compiled_fn_1.captured_graph.py": "c = 3  # ___check_obj_id(G['torch'], 140589902728784)\n",
        "__compiled_fn_2.captured_graph.py": "d = 4\n",
        "skipped_helper.py": "# helper runs as plain Python\n",
    }
    data = {
        "format": MANIFEST_FORMAT,
        "version": MANIFEST_VERSION,
        "torch_version": "2.13.0",
        "python_version": "3.11.7",
        "rank": None,
        "functions": [toy],
        "skipped": [
            {"name": "helper", "source": "/work/prog.py:9", "reason": "skipfiles: <not compiled>", "file": "skipped_helper.py"}
        ],
        "problems": ["toy: a problem <noted>"],
        "files": sorted(files),
    }
    return {"manifest": data, "files": files}


def write_dump(folder: str, rank: Optional[int] = None, graph_source: str = "a = 1", extra_function: bool = False) -> str:
    """Write a dump into ``folder`` (or ``folder/rank_<rank>``); return the dump's folder."""
    target = os.path.join(folder, f"rank_{rank}") if rank is not None else folder
    os.makedirs(target, exist_ok=True)
    made = manifest(graph_source)
    data = made["manifest"]
    data["rank"] = rank
    if extra_function:
        data["functions"].append(
            {"name": "only_here", "code_name": "only_here", "kind": "function", "source": "/work/prog.py:20",
             "full_code_file": None, "code_file": None, "entries": []}
        )
    for name, text in made["files"].items():
        with open(os.path.join(target, name), "w", encoding="utf-8") as f:
            f.write(text)
    with open(os.path.join(target, MANIFEST_NAME), "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
    return target
