"""Save Dynamo code objects the decompiler gets wrong, as reproducers that need no torch.

    python tests/torch/collect_dynamo_samples.py [out_dir]

Runs every program of ``torch_programs.py`` with the eager backend under ``prepare_debug``; for each
transformed code object and resume function, decompiles it and compiles the text back; when that
fails or is not bytecode-equal (``depyf.verify.compare_code``), writes the code object with
``marshal`` to ``<out_dir>/<program>_<kind>_<name>.<pyver>.marshal`` (default out_dir:
``tests/decompiler/dynamo_samples``). Code whose constants marshal cannot write is skipped.
"""
from __future__ import annotations

import marshal
import os
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("TORCHINDUCTOR_FORCE_DISABLE_CACHES", "1")

import torch  # noqa: E402

import depyf  # noqa: E402
from depyf import torch_debug  # noqa: E402
from depyf.dynamo.debuggable import compile_like, wrap_for_layout  # noqa: E402
from depyf.dynamo.names import identifier  # noqa: E402
from torch_programs import PROGRAMS, run  # noqa: E402


def verdict(code: types.CodeType) -> str:
    """'' when decompiling ``code`` round-trips to equal bytecode, else why not."""
    try:
        text = depyf.decompile(code, name="sample", on_error="raise")
    except Exception as e:
        return f"decompile: {type(e).__name__}: {e}"
    result, why = compile_like(wrap_for_layout(text, "sample", code), "sample", code, "<sample>")
    return "" if result is not None else why


def main() -> int:
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "decompiler", "dynamo_samples")
    os.makedirs(out_dir, exist_ok=True)
    pyver = f"py{sys.version_info[0]}{sys.version_info[1]}"
    saved = 0
    for name, program in PROGRAMS.items():
        torch._dynamo.reset()
        fn = program.make()
        compiled = torch.compile(fn, backend="eager")
        with depyf.prepare_debug(tempfile.mkdtemp(prefix="depyf_samples_")):
            run(fn, program, compiled)
        _, session = torch_debug._State.last
        seen = set()
        for i, rec in enumerate(session.frames):
            for kind, code in (("transformed", rec.new_code), ("original", rec.code)):
                if kind == "original" and not rec.code.co_name.startswith("torch_dynamo_resume_in_"):
                    continue
                if id(code) in seen:
                    continue
                seen.add(id(code))
                why = verdict(code)
                if not why:
                    continue
                try:
                    data = marshal.dumps(code)
                except ValueError:
                    print(f"skip (constants marshal cannot write): {name} {kind} {code.co_name}")
                    continue
                fname = f"{name}_{kind}_{i}_{identifier(code.co_name)}.{pyver}.marshal"
                with open(os.path.join(out_dir, fname), "wb") as f:
                    f.write(data)
                saved += 1
                print(f"{fname}: {' '.join(why.split())[:200]}")
    print(f"saved {saved} reproducers to {os.path.abspath(out_dir)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
