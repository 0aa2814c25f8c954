"""Where the reading's rules end each if statement, against the graph's `if_regions`, side by side.

    PYTHONPATH=<tree>/src python3.X tools/if_joins.py [--show CLASS] [--limit N]

Decompiles every code object of the construct corpus (tests/decompiler/corpus), the stdlib
sample and the ten modules of benchmarks/run_all.py on the running interpreter, with the if
rules of `control_ifs.ControlIfs` wrapped (here, not in the decompiler) to record each if
statement the reading emits: its test, whether it has an else part and where the statement
ends (the join, or the else part's end). For each, `structure.if_regions.if_region` is asked
the same of the graph of the bytecode the reading read (its chain's last jump), and the two are
compared: agreement per version, and the disagreements sorted into classes (`_classify`).
"""
import argparse
import sys
import types
from collections import Counter
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

from depyf.decompiler import decompile  # noqa: E402
from depyf.decompiler import nodes as n  # noqa: E402
from depyf.decompiler.control_ifs import ControlIfs  # noqa: E402
from depyf.decompiler.control_model import COND_JUMPS  # noqa: E402
from depyf.decompiler.graph import FlowGraph  # noqa: E402
from depyf.decompiler.structure.if_regions import IfRegion, Way, if_region  # noqa: E402

# (code key, test index) -> (bytecode, test, has_else, end, path): the last reading of each wins
RECORDS: Dict[Tuple[str, int], tuple] = {}
_CURRENT = {"key": ""}


def _wrap(name: str) -> None:
    original = getattr(ControlIfs, name)

    def wrapped(self, test, *rest):
        before = len(self.out)
        end = original(self, test, *rest)
        if end is None or self.pure_mode or len(self.out) <= before or not isinstance(self.out[-1], n.If):
            return end
        stmt = self.out[-1]
        has_else = bool(stmt.orelse) and end > test.false_target
        RECORDS[(_CURRENT["key"], test.i)] = (self.bc, test, has_else, end, name)
        return end

    setattr(ControlIfs, name, wrapped)


for _name in ("_if_else", "_if_without_else_jump", "_if_threaded_else", "_if_past_range", "_if_with_copied_way_out"):
    _wrap(_name)


def sources() -> List[Tuple[str, Path]]:
    from _roundtrip_worker import DEFAULT_MODULES, corpus
    from tests.decompiler.stdlib_sample import MODULES, module_path
    out = [("corpus", p) for p in sorted((ROOT / "tests/decompiler/corpus").glob("*.py"))]
    out += [("stdlib", module_path(m)) for m in MODULES]
    out += [("ten", Path(p)) for p in corpus("ten", DEFAULT_MODULES)]
    return out


def code_objects(code: types.CodeType):
    work = [code]
    while work:
        code = work.pop()
        yield code
        work.extend(c for c in code.co_consts if isinstance(c, types.CodeType))


def graph_answer(bc, test) -> Tuple[IfRegion, int]:
    jump = test.fall - 1 if test.fall > 0 and bc.instrs[test.fall - 1].opname in COND_JUMPS else test.i
    return if_region(FlowGraph.of(bc), jump), jump


def _follow(bc, k: int) -> int:
    """Where a jump to `k` ends up, past unconditional jumps."""
    seen = set()
    instrs = bc.instrs
    while 0 <= k < len(instrs) and k not in seen and instrs[k].opname == "JUMP":
        seen.add(k)
        k = instrs[k].target
    return k


def _classify(bc, test, has_else: bool, end: int, region: IfRegion, path: str) -> str:
    """The disagreement's class, by the first of these that fits."""
    g = FlowGraph.of(bc)
    arms = [region.body] + ([region.orelse] if region.orelse else [])
    ways = set().union(*(a.ways for a in arms))
    g_else = region.orelse is not None
    g_end = region.else_end if g_else else region.body_end
    if g_else == has_else and _follow(bc, end) == _follow(bc, g_end if g_end is not None else -1):
        return "same place: the reading's end jumps on to the graph's join (threaded jumps)"
    if g_else == has_else and region.join is None and test.loop is not None and end == test.end \
            and ways <= {Way.CONTINUE, Way.BREAK, Way.RETURN, Way.RAISE}:
        return "same place: no join, the reading's end is the loop body's"
    if path == "_if_past_range":
        return "test jumps past the range read (assert, an enclosing block's way on)"
    if test.loop is not None and region.loop is not None and region.loop not in test.loop.continue_targets:
        return "loop the reading sees otherwise (while-bottom test, continue to the top test)"
    if test.loop is not None and region.loop is None:
        return "loop the graph does not see (never jumps back, or the test outside its blocks)"
    if bc.version.has_exception_table and any(b >= test.end for a in arms for b in a.blocks) \
            and g.handler_only_instructions() & {b for a in arms for b in a.blocks}:
        return "handler code laid at the end (3.11+)"
    if end == test.end:
        if g.region_at(test.i) is not None or any(r.covers(end - 1) for r in g.regions):
            return "ends with the enclosing try/with/handler range"
        return "ends with the enclosing range (loop body, if part)"
    if has_else != g_else and ways & {Way.CONTINUE, Way.BREAK, Way.RETURN, Way.RAISE}:
        return "an arm leaves: else part or code after (compile alike)"
    if Way.RETURN in ways and bc.version.copies_exit_blocks:
        return "copied exit blocks (an arm returns)"
    if g.regions and any(g.region_at(b) is not None or b in g.handlers() for a in arms for b in a.blocks):
        return "an arm holds a try/with (finally copies, handlers' ways out)"
    return "other (join " + ("earlier" if region.join is not None and region.join < end else "later") + ")"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", default="", help="print the disagreements of classes holding this text")
    parser.add_argument("--limit", type=int, default=5)
    args = parser.parse_args()
    for kind, path in sources():
        try:
            module = compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
        except (SyntaxError, ValueError, OSError):
            continue
        for code in code_objects(module):
            if code is module:
                continue
            _CURRENT["key"] = f"{kind}:{path.name}:{code.co_firstlineno}:{code.co_name}"
            try:
                decompile(code, on_error="comment")
            except Exception:  # (a crash is the gate's business, not this measurement's)
                pass
    total = agree = 0
    classes: Counter = Counter()
    shown: Counter = Counter()
    for (key, i), (bc, test, has_else, end, path) in sorted(RECORDS.items(), key=lambda kv: kv[0]):
        total += 1
        try:
            region, jump = graph_answer(bc, test)
        except (ValueError, KeyError) as error:
            classes[f"graph error {type(error).__name__}"] += 1
            continue
        g_else = region.orelse is not None
        g_end = region.else_end if g_else else region.body_end
        if g_else == has_else and g_end == end:
            agree += 1
            continue
        cls = _classify(bc, test, has_else, end, region, path)
        classes[cls] += 1
        if args.show and args.show in cls and shown[cls] < args.limit:
            shown[cls] += 1
            print(f"--- {cls}: {key} test {i} (jump {jump}) fall {test.fall} false {test.false_target} "
                  f"range end {test.end}; reading else={has_else} end={end} ({path}); graph {region}")
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    print(f"{version}: {agree} of {total} if statements agree ({100.0 * agree / max(total, 1):.1f}%)")
    for cls, count in classes.most_common():
        print(f"  {count:5d}  {cls}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
