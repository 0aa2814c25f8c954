"""Write GAPS.md: which corpus constructs the decompiler gets wrong, on which Python versions.

    python3 tests/decompiler/gap_report.py            # every CPython 3.8-3.13 found; writes GAPS.md
    python3 tests/decompiler/gap_report.py --collect  # this interpreter only; JSON on stdout
    python3 tests/decompiler/gap_report.py --known-gaps  # GAPS entries for every failing test

`--known-gaps` runs pytest on tests/decompiler in each interpreter's test environment (the
DEPYF_TEST_PYTHONS variable, `3.8=/path/to/python,...`, else ~/.cache/depyf/dev-venvs/py3.X)
and prints `Gap(...)` lines for known_gaps.py, one per failing test, reasons from the failure.

Collecting runs the corpus through `depyf.verify` (round trip) and the execution check, and the
stdlib sample through `depyf.verify`, in the interpreter at hand (no pytest needed). Combining groups the failures by their cause, with the
failing versions, the smallest failing definition and its first difference: the work list.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple

HERE = Path(__file__).resolve().parent
MINORS = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13")  # (known_gaps.ALL)
# Every version --known-gaps may be given (DEPYF_TEST_PYTHONS): the newer ones set up by
# tools/debian_pythons.py, run with DEPYF_EXPERIMENTAL_VERSIONS=1 before they are supported.
ORDER = MINORS + ("3.14", "3.15")


# --------------------------------------------------------------------------------------------
# Collecting, in the interpreter under test


def _collect() -> Dict[str, Any]:
    sys.path.insert(0, str(HERE.parent))
    sys.path.insert(0, str(HERE.parent.parent / "src"))
    from decompiler import execution, support  # the test package, imported as the tests do

    verify = support.verify()
    records: List[Dict[str, Any]] = []
    for path in support.corpus_files():
        source = support.source_of(path)
        lines = {d.qualname: d.end_lineno - d.lineno + 1 for d in verify.definitions_in_source(source, str(path))}
        for result in verify.roundtrip_source_file(source, str(path), decompile=support.bounded_decompile):
            if result.status == "equal":
                continue
            diff = result.difference
            records.append({
                "check": "roundtrip",
                "case": f"{support.corpus_id(path)}::{result.qualname}",
                "status": result.status,
                "cause": _cause(result.status, result.detail, diff),
                "detail": result.detail,
                "lines": lines.get(result.qualname, 0),
            })
        for index, entry in enumerate(support.registered(path)):
            try:
                problems = execution.execution_mismatches(path, index, support.bounded_decompile)
            except Exception:  # decompile failed: the round trip already says why
                continue
            except BaseException as exc:  # a timeout of the decompiled code
                problems = [f"{type(exc).__name__}: {exc}"]
            if problems:
                records.append({
                    "check": "execution",
                    "case": f"{support.corpus_id(path)}::{entry.qualname}",
                    "status": "mismatch",
                    "cause": _execution_cause(problems[0]),
                    "detail": problems[0][:400],
                    "lines": _lines_of(support, path, entry.obj.__name__),
                })
    from decompiler.stdlib_sample import run_sample

    summary, results = run_sample()
    for result in results:
        if result.status != "equal":
            records.append({
                "check": "stdlib",
                "case": f"{result.module}::{result.qualname}",
                "status": result.status,
                "cause": _cause(result.status, result.detail, result.difference),
                "detail": result.detail,
                "lines": result.definition.end_lineno - result.definition.lineno + 1,
            })
    return {"version": support.VERSION_KEY, "records": records, "stdlib": summary}


def _lines_of(support: Any, path: Path, name: str) -> int:
    node = support._top_level_nodes(path).get(name)
    return node.end_lineno - node.lineno + 1 if node is not None else 0


def _normalize(text: str) -> str:
    """The part of a message that names the cause, without names, offsets and versions."""
    text = re.sub(r"cannot decompile in [^,:]+(, )?", "", text)
    text = re.sub(r"at offset \d+ ", "", text)
    text = re.sub(r",? ?Python 3\.\d+", "", text)
    text = re.sub(r"#\d+", "#", text)
    text = re.sub(r"\(line \d+\)", "", text)
    text = re.sub(r"call \S+\(.*", "call", text)
    return text.replace(": : ", ": ").strip()[:160]


def _execution_cause(problem: str) -> str:
    if problem.startswith(("call ", "probe ")):
        return "different outcome"
    return _normalize(problem)


def _cause(status: str, detail: str, diff: Any) -> str:
    if status == "differs" and diff is not None:
        return f"differs: {diff.what}: {diff.category[0]} vs {diff.category[1]}"
    if status == "no_compile":
        return "no_compile: " + re.sub(r" at line \d+.*", "", detail)
    return f"{status}: {_normalize(detail)}"


# --------------------------------------------------------------------------------------------
# Combining, in any interpreter


def _interpreters() -> Dict[str, str]:
    """One interpreter per supported minor version: pyenv's, else python3.X on PATH."""
    found: Dict[str, str] = {}
    root = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    for candidate in sorted(Path(root, "versions").glob("3.*/bin/python")):
        minor = ".".join(candidate.parent.parent.name.split(".")[:2])
        if minor in MINORS:
            found[minor] = str(candidate)
    return found


def _run(python: str) -> Dict[str, Any]:
    proc = subprocess.run([python, str(Path(__file__).resolve()), "--collect"], capture_output=True, text=True,
                          timeout=900, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    if proc.returncode != 0:
        raise RuntimeError(f"{python}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def _markdown(reports: List[Dict[str, Any]]) -> str:
    versions = [r["version"] for r in reports]
    # cause -> case -> {version: record}
    by_cause: Dict[Tuple[str, str], Dict[str, Dict[str, Any]]] = collections.defaultdict(dict)
    for report in reports:
        for record in report["records"]:
            by_cause[(record["check"], record["cause"])].setdefault(record["case"], {})[report["version"]] = record
    counts = {r["version"]: collections.Counter(x["check"] for x in r["records"]) for r in reports}
    out = [
        "# Decompiler gaps on the test corpus",
        "",
        "Generated by `python3 tests/decompiler/gap_report.py` (round trip through `depyf.verify` and",
        "the execution check, over `tests/decompiler/corpus/`). Grouped by cause, most cases first;",
        "each group names the versions where it occurs, the smallest failing definition and its",
        "first difference. `execution: different outcome` comes first whatever its size: there the",
        "decompiled text compiles and runs but computes something else (a silent miscompilation).",
        "Failing cases per version:",
        "",
        "| version | round trip | execution | stdlib sample: failing | equal % | compiles % |",
        "|---|---|---|---|---|---|",
    ]
    for r in reports:
        v, sample = r["version"], r.get("stdlib", {})
        out.append(f"| {v} | {counts[v]['roundtrip']} | {counts[v]['execution']} | {counts[v]['stdlib']}"
                   f" of {sample.get('total', '?')} | {sample.get('equal_pct', '?')} | {sample.get('compile_pct', '?')} |")
    out.append("")
    ordered = sorted(by_cause.items(),
                     key=lambda item: (item[0] != ("execution", "different outcome"), -len(item[1]), item[0]))
    for (check, cause), cases in ordered:
        seen_versions = sorted({v for per in cases.values() for v in per}, key=versions.index)
        smallest_case, per_version = min(cases.items(), key=lambda kv: (max(r["lines"] for r in kv[1].values()), kv[0]))
        newest = per_version[max(per_version, key=versions.index)]
        out.append(f"## {check}: {cause}")
        out.append("")
        out.append(f"- {len(cases)} case(s); versions: {', '.join(seen_versions)}")
        out.append(f"- smallest: `{smallest_case}` ({newest['lines']} lines)"
                   f" on {', '.join(sorted(per_version, key=versions.index))}")
        out.append(f"- first difference: `{newest['detail'].splitlines()[0][:300]}`")
        others = sorted(c for c in cases if c != smallest_case)
        limit = len(others) if (check, cause) == ("execution", "different outcome") else 12
        if others:
            shown = ", ".join(f"`{c}` ({', '.join(sorted(cases[c], key=versions.index))})" for c in others[:limit])
            more = f" and {len(others) - limit} more" if len(others) > limit else ""
            out.append(f"- also: {shown}{more}")
        out.append("")
    return "\n".join(out) + "\n"


def _pytest_pythons() -> Dict[str, str]:
    spec = os.environ.get("DEPYF_TEST_PYTHONS")
    if spec:
        return dict(part.split("=", 1) for part in spec.split(","))
    venvs = Path.home() / ".cache" / "depyf" / "dev-venvs"
    return {m: str(venvs / f"py{m}" / "bin" / "python") for m in MINORS if (venvs / f"py{m}" / "bin" / "python").exists()}


def _reason(text: str) -> str:
    """A failure's cause in one short line: the first difference, or the error raised."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    picked = lines[0] if lines else "failed"
    for line in lines:
        if line.startswith("first difference:"):
            picked = line[len("first difference:"):].strip()
            break
    picked = re.sub(r"^(Failed|AssertionError): ", "", picked)
    picked = picked.replace("depyf.decompiler.errors.", "")
    picked = re.sub(r"^decompiler\.execution\.DecompileFailed: decompile failed: (DecompilationError: )?",
                    "decompile error: ", picked)
    if picked.startswith(("call ", "probe ")):
        picked = "silent wrong result: " + picked  # (known_gaps.SILENT: an expected wrong result)
    picked = re.sub(r"cannot decompile in [^,:]+(, )?", "", picked)
    picked = re.sub(r",? ?Python 3\.\d+", "", picked)
    picked = picked.replace(": : ", ": ")
    return picked[:150]


def _failures(python: str) -> Dict[Tuple[str, str], str]:
    """(kind, case) -> reason for every test that failed or errored in one interpreter."""
    import tempfile
    import xml.etree.ElementTree as ET

    repo = HERE.parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "junit.xml"
        subprocess.run([python, "-m", "pytest", "tests/decompiler", "-p", "no:cacheprovider", "-q",
                        f"--junitxml={junit}", "-o", "junit_family=xunit1"], cwd=str(repo),
                       capture_output=True, text=True, timeout=1800,
                       env={**os.environ, "DEPYF_IGNORE_KNOWN_GAPS": "1"})
        tree = ET.parse(str(junit))
    found: Dict[Tuple[str, str], str] = {}
    for case in tree.iter("testcase"):
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        if bad is None:
            continue
        kind = case.get("classname", "").rsplit(".", 1)[-1]
        kind = kind[len("test_"):] if kind.startswith("test_") else kind
        name = case.get("name", "")
        ident = name[name.index("[") + 1 : -1] if "[" in name else name
        found[(kind, ident)] = _reason((bad.get("message") or "") + "\n" + (bad.text or ""))
    return found


def _failures_everywhere() -> Dict[Tuple[str, str], Dict[str, str]]:
    by_case: Dict[Tuple[str, str], Dict[str, str]] = collections.defaultdict(dict)
    for minor, python in sorted(_pytest_pythons().items(), key=lambda kv: ORDER.index(kv[0])):
        print(f"running the tests on {minor} ({python})", file=sys.stderr)
        for key, reason in _failures(python).items():
            by_case[key][minor] = reason
    return by_case


def _other_tests_markdown(by_case: Dict[Tuple[str, str], Dict[str, str]]) -> str:
    """The failing tests that are not corpus round trips or executions, for GAPS.md."""
    out = ["## Other failing tests (golden, idioms, API, bad input, stdlib sample)", "",
           "| test | case | versions | reason (newest version) |", "|---|---|---|---|"]
    for (kind, case), per_version in sorted(by_case.items()):
        if kind in ("roundtrip", "execution"):
            continue
        versions = [m for m in MINORS if m in per_version]
        reason = per_version[versions[-1]].replace("|", "\\|")
        out.append(f"| {kind} | `{case}` | {', '.join(versions)} | {reason} |")
    return "\n".join(out) + "\n"


def _known_gaps(by_case: Dict[Tuple[str, str], Dict[str, str]]) -> str:
    """`Gap(...)` lines, one per failing test. An execution that gives a wrong result (or never
    ends) is printed as a comment: a known gap must fail loudly, a silent wrong result is fixed,
    not listed."""
    lines = []
    for (kind, case), per_version in sorted(by_case.items()):
        versions = tuple(m for m in ORDER if m in per_version)
        spelled = "ALL" if versions == MINORS else repr(versions)
        reason = per_version[versions[-1]]
        line = f"    Gap({kind!r}, {case!r}, {spelled}, {reason!r}),"
        if kind == "execution" and not reason.startswith("decompile error"):
            line = "    # NOT LISTED (silent wrong result or no end): " + line.strip()
        lines.append(line)
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--collect", action="store_true", help="this interpreter only; print JSON")
    parser.add_argument("--known-gaps", action="store_true", help="print GAPS entries for failing tests")
    parser.add_argument("--with-tests", action="store_true",
                        help="also run pytest everywhere and list the other failing tests in GAPS.md")
    parser.add_argument("--failures", help="JSON file of pytest failures: reused if it exists, else written")
    parser.add_argument("--output", default=str(HERE / "GAPS.md"))
    args = parser.parse_args()

    def failures() -> Dict[Tuple[str, str], Dict[str, str]]:
        if args.failures and Path(args.failures).exists():
            saved = json.loads(Path(args.failures).read_text())
            return {(k, c): per for k, c, per in saved}
        found = _failures_everywhere()
        if args.failures:
            Path(args.failures).write_text(json.dumps([[k, c, per] for (k, c), per in found.items()]))
        return found

    if args.known_gaps:
        print(_known_gaps(failures()))
        return
    if args.collect:
        print(json.dumps(_collect()))
        return
    reports = []
    for minor, python in sorted(_interpreters().items(), key=lambda kv: MINORS.index(kv[0])):
        print(f"collecting on {minor} ({python})", file=sys.stderr)
        reports.append(_run(python))
    text = _markdown(reports)
    if args.with_tests:
        text += "\n" + _other_tests_markdown(failures())
    Path(args.output).write_text(text.replace(": : ", ": "), encoding="utf-8")
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
