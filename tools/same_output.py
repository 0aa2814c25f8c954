"""Is the decompiler's output byte-identical to an earlier version's? (a check for refactors)

    PYTHONHASHSEED=0 PYTHONPATH=<src> python tools/same_output.py record OUT.txt [--limit N] [--max-locals N]
    python tools/same_output.py compare BEFORE.txt AFTER.txt

`record` compiles every module of the running interpreter's standard library (those it can
compile; site-packages left out) and decompiles each of their code objects, nested ones
included, on its own (`on_error="comment"`, so failures are recorded as their text too). It
writes one line per code object: where it is, and a hash of the text. Run it with the source
tree before a change and after it (PYTHONPATH says which), then `compare` the two files: any
line that differs is a code object whose output changed.

`--max-locals N` leaves out code objects that have, or nest one that has, more than N local
variables (3.10+ stdlib's test_exceptions has a function of 800 locals that takes over ten
minutes); they are written as `skipped`, so two records made with the same N still line up.
"""
import argparse
import hashlib
import os
import re
import sys
import sysconfig
import types
from pathlib import Path
from typing import Iterator, List, Tuple


_ADDRESS = re.compile(r"0x[0-9a-f]+")


def stdlib_files() -> List[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    files = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts
        if "site-packages" in parts or "dist-packages" in parts:
            continue
        files.append(path)
    return files


def code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    work = [code]
    while work:
        code = work.pop()
        yield code
        work.extend(reversed([c for c in code.co_consts if isinstance(c, types.CodeType)]))


def _most_locals(code: types.CodeType) -> int:
    return max(c.co_nlocals for c in code_objects(code))


def record(out: Path, limit: int, max_locals: int = 0) -> None:
    from depyf.decompiler import decompile  # (from PYTHONPATH: the tree being recorded)

    root = Path(sysconfig.get_paths()["stdlib"])
    count = skipped = 0
    with out.open("w", encoding="utf-8") as sink:
        for path in stdlib_files()[:limit or None]:
            try:
                module = compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
            except (SyntaxError, ValueError, OSError):  # (OSError: Debian's dangling sitecustomize.py)
                continue
            rel = path.relative_to(root)
            for code in code_objects(module):
                name = getattr(code, "co_qualname", code.co_name)
                key = f"{rel}:{code.co_firstlineno}:{name}"
                if max_locals and _most_locals(code) > max_locals:
                    sink.write(f"{key}\tskipped\n")
                    print(f"skipped (over {max_locals} locals): {key}")
                    skipped += 1
                    continue
                try:
                    text = decompile(code, on_error="comment")
                except Exception as error:  # (a crash is an output too)
                    text = f"<crash {type(error).__name__}: {error}>"
                # (a failure's comment shows code objects' addresses, which differ between runs)
                text = _ADDRESS.sub("0x?", text)
                digest = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
                sink.write(f"{key}\t{digest}\n")
                count += 1
    print(f"{count} code objects recorded in {out}" + (f", {skipped} skipped" if skipped else ""))


def _read(path: Path) -> List[Tuple[str, str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        key, _, digest = line.partition("\t")
        rows.append((key, digest))
    return rows


def compare(before: Path, after: Path) -> int:
    a, b = _read(before), _read(after)
    common = min(len(a), len(b))
    if [k for k, _ in a[:common]] != [k for k, _ in b[:common]]:
        print(f"the two records list different code objects ({len(a)} / {len(b)})")
        return 2
    if len(a) != len(b):
        # (one was recorded with --limit: the other's first files are compared with it)
        print(f"comparing the first {common} code objects ({len(a)} / {len(b)} recorded)")
        a, b = a[:common], b[:common]
    changed = [key for (key, x), (_, y) in zip(a, b) if x != y]
    for key in changed[:50]:
        print(f"changed: {key}")
    print(f"{len(a)} code objects, {len(changed)} with different output")
    return 1 if changed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("out", type=Path)
    rec.add_argument("--limit", type=int, default=0, help="only the first N files")
    rec.add_argument("--max-locals", type=int, default=0,
                     help="skip code objects nesting one of more than N locals (0: no cap)")
    cmp = sub.add_parser("compare")
    cmp.add_argument("before", type=Path)
    cmp.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.command == "record":
        if os.environ.get("PYTHONHASHSEED") != "0":
            print("set PYTHONHASHSEED=0: set and dict orders must be the same in both runs", file=sys.stderr)
            return 2
        record(args.out, args.limit, args.max_locals)
        return 0
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
