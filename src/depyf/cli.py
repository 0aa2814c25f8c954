"""The `depyf` command line.

    depyf decompile TARGET [--function NAME] [-o FILE]
        TARGET is a .py file, a .pyc file of the running Python, or module:qualname.
    depyf run [--dump-dir DIR] script.py [args...]
        Runs a script as __main__ under depyf.prepare_debug(DIR), then writes DIR/report.html.
    depyf report DUMP_DIR [-o OUT.html]
        Writes the HTML report of a dump folder (default DUMP_DIR/report.html).

Exit codes: 0 success, 1 the code could not be decompiled (or the script failed),
2 bad input or usage (missing file, corrupt or foreign .pyc, unknown name), 3 an internal error.
Every error is one line on stderr; `--traceback` shows the full traceback of internal errors.
"""
import argparse
import importlib
import importlib.util
import os
import runpy
import subprocess
import sys
import traceback
import types
from typing import Callable, Iterator, Optional, Sequence, Tuple

from depyf.decompiler.errors import DecompilationError

EXIT_OK = 0
EXIT_DECOMPILE = 1
EXIT_SCRIPT_FAILED = 1  # what Python itself returns for an uncaught exception
EXIT_INPUT = 2
EXIT_INTERNAL = 3

# How many names an unknown --function lists (a big module defines hundreds).
MAX_NAMES_LISTED = 20

PYC_HEADER_SIZE = 16  # magic, flags, then mtime+size or a source hash (PEP 552, Python 3.7+)

# Ranges of .pyc magic numbers per release, from the values CPython documents in
# importlib/_bootstrap_external.py; used only to name the Python a foreign file belongs to.
_MAGIC_RANGES: Tuple[Tuple[int, int, str], ...] = (
    (20121, 62212, "2.x"),
    (3000, 3160, "3.0-3.1"),
    (3160, 3190, "3.2"),
    (3190, 3250, "3.3"),
    (3250, 3320, "3.4"),
    (3320, 3360, "3.5"),
    (3360, 3390, "3.6"),
    (3390, 3400, "3.7"),
    (3400, 3420, "3.8"),
    (3420, 3430, "3.9"),
    (3430, 3450, "3.10"),
    (3450, 3500, "3.11"),
    (3500, 3550, "3.12"),
    (3550, 3600, "3.13"),
    (3600, 3650, "3.14"),
    (3650, 3700, "3.15"),
)
# Magic numbers past the table, up to this, are taken as a newer 3.x release's (each release
# takes about 50; Python 2's start at 20121).
_NEWER_MAGIC_BOUND = 10000


class CliError(Exception):
    """A problem with the user's input: reported as one line, exit code 2."""


def _running_python() -> str:
    return "%d.%d" % sys.version_info[:2]


def python_for_magic(magic: bytes) -> Optional[str]:
    """The Python release a .pyc magic number belongs to, or None when it is not a .pyc magic."""
    if len(magic) != 4 or magic[2:] != b"\r\n":
        return None
    number = int.from_bytes(magic[:2], "little")
    for low, high, version in _MAGIC_RANGES:
        if low <= number < high:
            return version
    return None


def _unknown_magic(path: str, magic: bytes) -> str:
    """The error for a magic number of no release in the table: a newer Python's, or not a .pyc."""
    number = int.from_bytes(magic[:2], "little")
    last_known = _MAGIC_RANGES[-1]
    if magic[2:] == b"\r\n" and last_known[1] <= number < _NEWER_MAGIC_BOUND:
        from depyf.decompiler.versions import supported_text

        return "%s: compiled by a Python newer than %s (magic number %d), whose bytecode is not supported; %s" % (
            path, last_known[2], number, supported_text())
    return "%s: not a .pyc file (unknown magic number %s)" % (path, magic.hex())


def _reads(version: str) -> bool:
    """Whether depyf reads the bytecode of a release named as in `_MAGIC_RANGES` ("3.12", "2.x")."""
    from depyf.decompiler.versions import reads

    major, _, minor = version.partition(".")
    return major.isdigit() and minor.isdigit() and reads((int(major), int(minor)))


def _read_bytes(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        raise CliError("cannot read %s: %s" % (path, exc.strerror or exc)) from None


def load_pyc(path: str) -> types.CodeType:
    """Read a .pyc file of the running interpreter without executing any of it."""
    data = _read_bytes(path)
    magic = data[:4]
    if len(data) < 4:
        raise CliError("%s: not a .pyc file (truncated: %d bytes)" % (path, len(data)))
    if magic != importlib.util.MAGIC_NUMBER:
        version = python_for_magic(magic)
        if version is None:
            raise CliError(_unknown_magic(path, magic))
        if not _reads(version):
            from depyf.decompiler.versions import supported_text

            raise CliError("%s: compiled by Python %s, whose bytecode is not supported; %s"
                           % (path, version, supported_text()))
        raise CliError(
            "%s: compiled by Python %s, but this is Python %s; run depyf with Python %s"
            % (path, version, _running_python(), version)
        )
    if len(data) <= PYC_HEADER_SIZE:
        raise CliError("%s: truncated .pyc file (%d bytes, no code after the header)" % (path, len(data)))
    # Our own reader, not marshal.loads: the file may be built to exhaust memory or time, or to
    # hold code objects that crash CPython when read (see depyf/decompiler/marshal_reader.py).
    from depyf.decompiler.errors import DecompilationError
    from depyf.decompiler.marshal_reader import MarshalError, read_code

    try:
        return read_code(data[PYC_HEADER_SIZE:])
    except MarshalError as exc:
        raise CliError("%s: corrupt .pyc file (%s)" % (path, exc)) from None
    except DecompilationError as exc:  # (the running Python's bytecode is not one depyf reads)
        raise CliError("%s: %s" % (path, exc.reason)) from None


def load_source(path: str) -> types.CodeType:
    """Compile a .py file (never run it) into its module code object."""
    source = _read_bytes(path)
    _compiles_without_crashing(path)
    try:
        return compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        raise CliError("%s: syntax error: %s" % (_where(path, exc.lineno, exc.offset, source), exc.msg)) from None
    except ValueError as exc:  # null bytes, before Python 3.11 (a SyntaxError without a line since)
        raise CliError("%s: syntax error: %s" % (_where(path, None, None, source), exc)) from None
    except (UnicodeDecodeError, OverflowError) as exc:
        raise CliError("%s: cannot compile: %s" % (path, exc)) from None
    except (RecursionError, MemoryError) as exc:  # nested or long past what CPython compiles
        raise CliError("%s: cannot compile: too deeply nested or too large for Python %s (%s)"
                       % (path, _running_python(), type(exc).__name__)) from None


def _compiles_without_crashing(path: str) -> None:
    """Where this CPython's compiler can overflow the C stack (3.8/3.9), compile the file in a
    child process first: a crash there is reported as bad input instead of ending depyf."""
    from depyf.decompiler.versions import host

    if host().compiler_guards_its_stack:
        return
    probe = "import sys; compile(open(sys.argv[1], 'rb').read(), sys.argv[1], 'exec', dont_inherit=True)"
    try:
        child = subprocess.run([sys.executable, "-I", "-c", probe, path], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=600)
    except (OSError, subprocess.SubprocessError):
        return  # (no child to ask: compile here, as always)
    if child.returncode < 0:
        raise CliError("%s: cannot compile: Python %s crashes compiling it (too deeply nested or too long)"
                       % (path, _running_python()))


def _where(path: str, line: Optional[int], column: Optional[int], source: bytes) -> str:
    """``path:line:column`` of a syntax error, as far as it is known. Python gives no line for a
    null byte in the source (None from 3.11 on, a ValueError before): it is found here."""
    if not line and b"\0" in source:
        line, column = source.count(b"\n", 0, source.index(b"\0")) + 1, None
    if not line:
        return path
    return "%s:%d:%d" % (path, line, column) if column and column > 0 else "%s:%d" % (path, line)


def _nested_code(code: types.CodeType, prefix: str = "") -> Iterator[Tuple[str, types.CodeType]]:
    """(qualified name, code) of every code object defined inside `code`, depth first.

    Qualified names follow `__qualname__` (`Class.method`, `outer.<locals>.inner`) but are
    computed from the nesting, because `co_qualname` only exists from Python 3.11 on.
    """
    for const in code.co_consts:
        if not isinstance(const, types.CodeType):
            continue
        qualname = prefix + const.co_name
        yield qualname, const
        # Functions nest their children under `<locals>`; class bodies do not.
        is_function = bool(const.co_flags & 0x0002)  # CO_NEWLOCALS: set for functions, not classes
        child_prefix = qualname + (".<locals>." if is_function else ".")
        yield from _nested_code(const, child_prefix)


def find_function(module_code: types.CodeType, name: str, origin: str) -> types.CodeType:
    """The code object named `name` (a qualname like `C.f`, or a plain name if unambiguous)."""
    everything = list(_nested_code(module_code))
    exact = [code for qualname, code in everything if qualname == name]
    if exact:
        return exact[0]
    by_name = [(qualname, code) for qualname, code in everything if code.co_name == name]
    if len(by_name) == 1:
        return by_name[0][1]
    if by_name:
        choices = ", ".join(q for q, _ in by_name)
        raise CliError("%s: %r is ambiguous; use one of: %s" % (origin, name, choices))
    known = [q for q, code in everything if "<" not in code.co_name]  # no <lambda>, <listcomp>...
    if not known:
        raise CliError("%s: no function named %r (it defines no function or class)" % (origin, name))
    shown = ", ".join(known[:MAX_NAMES_LISTED])
    more = " and %d more" % (len(known) - MAX_NAMES_LISTED) if len(known) > MAX_NAMES_LISTED else ""
    raise CliError("%s: no function named %r; it defines: %s%s" % (origin, name, shown, more))


def resolve_object(target: str) -> object:
    """Import `module` from `module:qualname` and follow the dotted qualname."""
    module_name, _, qualname = target.partition(":")
    if not module_name or not qualname:
        raise CliError("%r: expected module:qualname" % target)
    # Like `python -m`, let modules next to the user be found.
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        obj: object = importlib.import_module(module_name)
    except ImportError as exc:
        raise CliError("cannot import %s: %s" % (module_name, exc)) from None
    except BaseException as exc:  # the module's own top-level code failed
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise CliError("importing %s failed: %s: %s" % (module_name, type(exc).__name__, exc)) from None
    walked = module_name
    for part in qualname.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise CliError("%s has no attribute %r" % (walked, part)) from None
        except Exception as exc:
            raise CliError("getting %s.%s failed: %s" % (walked, part, exc)) from None
        walked += "." + part
    return obj


def _target_object(args: argparse.Namespace) -> object:
    target: str = args.target
    if target.endswith((".py", ".pyw")) or target.endswith((".pyc", ".pyo")):
        if not os.path.isfile(target):
            raise CliError("%s: no such file" % target)
        code = load_pyc(target) if target.endswith((".pyc", ".pyo")) else load_source(target)
        return find_function(code, args.function, target) if args.function else code
    if ":" in target:
        if args.function:
            raise CliError("--function applies to files; write module:qualname instead")
        return resolve_object(target)
    if os.path.isfile(target):
        raise CliError("%s: expected a .py or .pyc file" % target)
    raise CliError("%s: not a file, and not module:qualname" % target)


def cmd_decompile(args: argparse.Namespace) -> int:
    from depyf import DecompilationError, decompile

    obj = _target_object(args)
    try:
        source = decompile(obj, on_error=args.on_error, indent=args.indent)
    except DecompilationError as exc:
        _error(str(exc))
        return EXIT_DECOMPILE
    if not source.endswith("\n"):
        source += "\n"
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(source)
        except OSError as exc:
            raise CliError("cannot write %s: %s" % (args.output, exc.strerror or exc)) from None
    else:
        sys.stdout.write(source)
    return EXIT_OK


def _torch_installed() -> bool:
    # find_spec does not import torch: the import itself happens inside prepare_debug.
    return importlib.util.find_spec("torch") is not None


def cmd_run(args: argparse.Namespace) -> int:
    script: str = args.script
    if not os.path.isfile(script):
        raise CliError("%s: no such file" % script)
    # No TORCHINDUCTOR_FORCE_DISABLE_CACHES here: prepare_debug turns the compilation caches off
    # itself, and that variable also disables Dynamo's PGO, for which torch warns on every run.
    if not _torch_installed():
        raise CliError("depyf run needs torch, which is not installed (pip install torch)")
    try:
        from depyf import prepare_debug
    except ImportError as exc:
        raise CliError("depyf run is unavailable: %s" % exc) from None

    saved_argv, saved_path0 = sys.argv[:], sys.path[0] if sys.path else None
    sys.argv = [script] + list(args.script_args)
    script_dir = os.path.dirname(os.path.abspath(script))
    if sys.path:
        sys.path[0] = script_dir  # what `python script.py` puts first
    else:
        sys.path.insert(0, script_dir)
    try:
        with prepare_debug(args.dump_dir):
            status = _run_script(script)
    finally:
        sys.argv = saved_argv
        if saved_path0 is not None and sys.path:
            sys.path[0] = saved_path0
    print("depyf: dumped into %s" % os.path.abspath(args.dump_dir), file=sys.stderr)
    _report_after_run(args.dump_dir)
    return status


def _report_after_run(dump_dir: str) -> None:
    """Write the dump's report; a dump that cannot be reported is noted, not an error of the run."""
    from depyf.report import ReportError, write_report

    try:
        print("depyf: report in %s" % write_report(dump_dir), file=sys.stderr)
    except ReportError as exc:
        print("depyf: no report: %s" % " ".join(str(exc).split()), file=sys.stderr)


def cmd_report(args: argparse.Namespace) -> int:
    from depyf.report import ReportError, write_report

    try:
        path = write_report(args.dump_dir, args.output)
    except ReportError as exc:
        raise CliError(str(exc)) from None
    print(path)
    return EXIT_OK


def _run_script(script: str) -> int:
    """Run `script` as __main__; its exit status, like `python script.py` would give."""
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        return _exit_status(exc.code)
    except KeyboardInterrupt:
        raise
    except BaseException:
        # The user's script failed: show its traceback as Python would, without depyf's frames.
        etype, value, tb = sys.exc_info()
        traceback.print_exception(etype, value, tb.tb_next if tb else None)
        return EXIT_SCRIPT_FAILED
    return EXIT_OK


def _exit_status(code: object) -> int:
    if code is None:
        return EXIT_OK
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _error(message: str) -> None:
    # One line, whatever the message contains.
    print("depyf: error: " + " ".join(str(message).split()), file=sys.stderr)


def _version_line() -> str:
    from depyf import __version__

    return "depyf %s (Python %s)" % (__version__, sys.version.split()[0])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="depyf", description="Decompile Python bytecode; explain torch.compile.")
    parser.add_argument("--traceback", action="store_true", help="show full tracebacks of internal errors")
    parser.add_argument("--version", action="version", version=_version_line())
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    dec = commands.add_parser("decompile", help="print the source of a .py, .pyc or module:qualname")
    dec.add_argument("target", help="a .py file, a .pyc file of this Python, or module:qualname")
    dec.add_argument("-f", "--function", metavar="NAME", help="only this function of a file (qualname, e.g. C.method)")
    dec.add_argument("-o", "--output", metavar="FILE", help="write the source here instead of stdout")
    dec.add_argument("--on-error", choices=("raise", "comment"), default="raise",
                     help="comment: show undecompilable parts as disassembly comments instead of failing")
    dec.add_argument("--indent", type=int, default=4, help="spaces per indentation level (default 4)")
    dec.set_defaults(handler=cmd_decompile)

    run = commands.add_parser("run", help="run a script under depyf.prepare_debug (needs torch)")
    run.add_argument("--dump-dir", default="./depyf_dump", help="where to dump (default ./depyf_dump)")
    run.add_argument("script", help="the Python script to run as __main__")
    run.add_argument("script_args", nargs=argparse.REMAINDER, help="arguments for the script")
    run.set_defaults(handler=cmd_run)

    rep = commands.add_parser("report", help="write the HTML report of a dump folder (no torch needed)")
    rep.add_argument("dump_dir", help="the folder prepare_debug or `depyf run` dumped into")
    rep.add_argument("-o", "--output", metavar="OUT.html", help="where to write the page (default DUMP_DIR/report.html)")
    rep.set_defaults(handler=cmd_report)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the `depyf` command; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(list(argv) if argv is not None else None)
    except SystemExit as exc:  # usage errors and --help
        return _exit_status(exc.code)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except CliError as exc:
        _error(str(exc))
        return EXIT_INPUT
    except DecompilationError as exc:  # e.g. an interpreter whose bytecode depyf has no tables for
        _error(str(exc))
        return EXIT_DECOMPILE
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
    except RecursionError:
        _error("internal error: input nested too deeply (RecursionError)")
        return EXIT_INTERNAL
    except Exception as exc:
        if args.traceback:
            traceback.print_exc()
        else:
            _error("internal error: %s: %s (run with --traceback for details)" % (type(exc).__name__, exc))
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
