"""Dumps that never lose or misplace a file, and never change the program: hostile function names,
folders that cannot be made, are deleted or fill up, and several processes on one folder."""
from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import textwrap
from typing import Any, Callable, List

import pytest
import torch

import depyf
from depyf.dump import writer as writer_module
from depyf.report.format import MANIFEST_NAME
from depyf.report.load import find_dumps
from torch_programs import same


def _named(name: str) -> Callable[..., Any]:
    def fn(x):
        y = x.sin() * 2
        torch._dynamo.graph_break()
        return y.cos() + 1

    fn.__code__ = fn.__code__.replace(co_name=name, **({"co_qualname": name} if hasattr(fn.__code__, "co_qualname") else {}))
    fn.__name__ = fn.__qualname__ = name
    return fn


def _calls() -> List[torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    return [torch.randn(5, generator=g), torch.randn(5, generator=g)]


def _run(fn: Callable[..., Any]) -> List[torch.Tensor]:
    torch._dynamo.reset()
    compiled = torch.compile(fn, backend="eager")
    return [compiled(x) for x in _calls()]


def _depyf_lines(err: str) -> List[str]:
    return [line for line in err.splitlines() if line.startswith("depyf")]


def _check_py_files(folder: str) -> List[str]:
    """Every file of the dump compiles, has a plain, bounded name, and no line of code comes from a name."""
    names = sorted(os.listdir(folder))
    for name in names:
        assert len(name.encode()) <= 255 and "/" not in name and not name.startswith("."), name
        if name == MANIFEST_NAME or os.path.isdir(os.path.join(folder, name)):
            continue
        assert name.endswith(".py"), name
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            text = f.read()
        compile(text, name, "exec")
        assert "import os" not in [line.strip() for line in text.splitlines()], name
    return names


HOSTILE_NAMES = ["f" * 300, "a\0b", "x\rimport os", "line\nimport os", "../../escape", "/abs", "CON", "名前"]


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=range(len(HOSTILE_NAMES)))
def test_hostile_function_names_give_valid_files_inside_the_folder(tmp_path, capfd, name: str) -> None:
    expected = _run(_named(name))
    listings = []
    for run in ("first", "second"):
        capfd.readouterr()
        torch._dynamo.reset()
        compiled = torch.compile(_named(name), backend="eager")
        with depyf.prepare_debug(str(tmp_path / run)) as folder:
            got = [compiled(x) for x in _calls()]
        assert same(expected, got)
        said = _depyf_lines(capfd.readouterr().err)
        if name.isidentifier():
            assert said == []
        else:
            # A name no source can spell is refused by the decompiler (the code is shown as
            # bytecode): one line says so, and the program runs unchanged.
            assert len(said) == 1 and "cannot be written in source" in said[0], said
        listings.append(_check_py_files(folder))
    assert listings[0] == listings[1]  # stable names
    assert sorted(os.listdir(tmp_path)) == ["first", "second"]
    assert any(f.startswith("full_code_for_") for f in listings[0])
    user = [f for f in listings[0] if f.startswith("__transformed_code_0_for_") and "__resume_at_" not in f]
    assert len(user) == 1, listings[0]
    assert any(f.startswith("__resume_at_") for f in listings[0])
    if len(name) == 300:
        full = next(f for f in listings[0] if f.startswith("full_code_for_"))
        assert len(full) < 140  # cut, with a hash


def _block(folder: str, fn: Callable[..., Any], inside: Callable[[str], None] = lambda f: None) -> List[torch.Tensor]:
    torch._dynamo.reset()
    compiled = torch.compile(fn, backend="eager")
    with depyf.prepare_debug(folder) as used:
        inside(used)
        return [compiled(x) for x in _calls()]


def test_folder_under_a_regular_file(tmp_path, capfd) -> None:
    fn = _named("under_a_file")
    expected = _run(fn)
    (tmp_path / "file").write_text("not a folder")
    for folder in (tmp_path / "file", tmp_path / "file" / "dump", tmp_path / "file" / "a" / "b"):
        capfd.readouterr()
        ran = []
        got = _block(str(folder), fn, lambda f: ran.append(f))
        err = capfd.readouterr().err
        assert ran, "the block did not run"
        assert same(expected, got)
        assert len(_depyf_lines(err)) == 1 and "cannot dump into" in err, err
        assert sorted(os.listdir(tmp_path)) == ["file"] and (tmp_path / "file").read_text() == "not a folder"
        # debug() after a prepare_debug that wrote nothing runs the block unchanged.
        with depyf.debug():
            again = [torch.compile(fn, backend="eager")(x) for x in _calls()]
        assert same(expected, again)


def test_folder_deleted_while_dumping(tmp_path, capfd) -> None:
    fn = _named("deleted_folder")
    expected = _run(fn)
    capfd.readouterr()
    got = _block(str(tmp_path / "dump"), fn, shutil.rmtree)
    err = capfd.readouterr().err
    assert same(expected, got)
    assert len(_depyf_lines(err)) == 1 and "could not write" in err, err
    assert os.listdir(tmp_path) == []  # not made again, nothing written elsewhere


def test_folder_whose_parent_is_not_writable(tmp_path, capfd, monkeypatch) -> None:
    """mkdir refused (EACCES). Simulated: these tests may run as root, whom mode bits do not stop.
    Only paths under tmp_path are refused, so torch's own folders are left alone."""
    from depyf.dump import claim

    fn = _named("parent_not_writable")
    expected = _run(fn)
    real = claim.os.makedirs

    def refusing(path: Any, *args: Any, **kwargs: Any) -> None:
        if str(path).startswith(str(tmp_path)):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        real(path, *args, **kwargs)

    monkeypatch.setattr(claim.os, "makedirs", refusing)
    capfd.readouterr()
    ran: List[str] = []
    got = _block(str(tmp_path / "dump"), fn, ran.append)
    err = capfd.readouterr().err
    assert ran, "the block did not run"
    assert same(expected, got)
    assert len(_depyf_lines(err)) == 1 and "cannot dump into" in err and "Permission denied" in err, err
    assert os.listdir(tmp_path) == []


def test_folder_made_read_only_while_dumping(tmp_path, capfd, monkeypatch) -> None:
    """Every write refused (EACCES) after the folder was made: one warning, nothing partial left.
    The folder's mode is made read-only too, where that stops this process (not root)."""
    fn = _named("read_only_folder")
    expected = _run(fn)

    def refusing(path: str, text: str) -> None:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)

    def read_only(folder: str) -> None:
        os.chmod(folder, 0o500)
        monkeypatch.setattr(writer_module, "_write_file", refusing)

    capfd.readouterr()
    try:
        got = _block(str(tmp_path / "dump"), fn, read_only)
    finally:
        os.chmod(tmp_path / "dump", 0o700)
    err = capfd.readouterr().err
    assert same(expected, got)
    assert len(_depyf_lines(err)) == 1 and "Permission denied" in err, err
    assert sorted(os.listdir(tmp_path)) == ["dump"]
    assert [n for n in os.listdir(tmp_path / "dump") if not n.startswith(".depyf-lock")] == []


@pytest.mark.parametrize("good_writes", [0, 2, 5])
def test_disk_full_while_dumping(tmp_path, capfd, monkeypatch, good_writes: int) -> None:
    fn = _named("full_disk")
    expected = _run(fn)
    real = writer_module._write_file
    count = [0]

    def filling(path: str, text: str) -> None:
        count[0] += 1
        if count[0] > good_writes:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text[: len(text) // 3])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(path, text)

    monkeypatch.setattr(writer_module, "_write_file", filling)
    capfd.readouterr()
    got = _block(str(tmp_path / "dump"), fn)
    err = capfd.readouterr().err
    assert same(expected, got)
    assert len(_depyf_lines(err)) == 1 and "No space left" in err, err
    names = _check_py_files(str(tmp_path / "dump"))
    assert len(names) == good_writes  # only whole files, no temporaries
    assert sorted(os.listdir(tmp_path)) == ["dump"]


def test_exceptions_in_every_hook_leave_the_program_alone(tmp_path, capfd, monkeypatch) -> None:
    from depyf.dump.layout import DumpLayout

    fn = _named("hooks_raise")
    expected = _run(fn)

    def boom(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("simulated")

    for hooks in (("on_graph",), ("on_frame",), ("on_frame", "on_graph", "on_module", "finish")):
        with monkeypatch.context() as patch:
            for name in hooks:
                patch.setattr(DumpLayout, name, boom)
            capfd.readouterr()
            got = _block(str(tmp_path / "dump"), fn)
            assert same(expected, got)
            assert len(_depyf_lines(capfd.readouterr().err)) == 1, hooks


_PROCESS_SCRIPT = textwrap.dedent(
    """
    import os, sys, time
    import torch, depyf
    k, folder, ready = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    src = f"def program_{k}(x):\\n    y = x * {k + 2}\\n    torch._dynamo.graph_break()\\n    return y.sum()\\n"
    namespace = {"torch": torch}
    exec(compile(src, f"program_{k}.py", "exec"), namespace)
    fn = torch.compile(namespace[f"program_{k}"], backend="eager")
    with depyf.prepare_debug(folder):
        open(os.path.join(ready, str(k)), "w").close()
        deadline = time.time() + 120
        while len(os.listdir(ready)) < 2 and time.time() < deadline:  # both dump at once
            time.sleep(0.05)
        print(fn(torch.ones(3)).item())
    """
)


def test_two_processes_dumping_into_one_folder_keep_two_dumps(tmp_path) -> None:
    """End to end with torch (tests/dump checks four processes on the writer alone, faster)."""
    folder, ready = tmp_path / "dump", tmp_path / "ready"
    ready.mkdir()
    script = tmp_path / "program.py"
    script.write_text(_PROCESS_SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), TORCHINDUCTOR_FORCE_DISABLE_CACHES="1")
    procs = [
        subprocess.Popen([sys.executable, str(script), str(k), str(folder), str(ready)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for k in range(2)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
    assert sorted(float(out) for out, _ in outs) == [6.0, 9.0]
    dumps = find_dumps(str(folder))
    assert len(dumps) == 2
    assert len({d.anchor for d in dumps}) == 2
    programs = set()
    for dump in dumps:
        _check_py_files(dump.folder)
        (fn,) = [f["name"] for f in dump.manifest["functions"] if f["kind"] == "function"]
        programs.add(fn)
        assert not os.path.exists(os.path.join(dump.folder, ".depyf-lock"))
    assert programs == {f"program_{k}" for k in range(2)}
    assert sorted(os.listdir(folder)) == sorted(
        [MANIFEST_NAME, "process_1"] + [n for n in os.listdir(folder) if n.endswith(".py")]
    )


# -- debug(): exactly the results and errors of the same calls without depyf -----------------------


def _fullgraph_with_break(x):
    y = x.sin()
    print("depyf test: graph break under fullgraph=True")
    return y.cos()


def _errors(compiled: Callable[..., Any], x: torch.Tensor) -> str:
    try:
        compiled(x)
    except Exception as e:
        return type(e).__name__
    return "no error"


def test_debug_raises_what_torch_raises(tmp_path) -> None:
    x = torch.ones(3)
    torch._dynamo.reset()
    plain = torch.compile(_fullgraph_with_break, fullgraph=True, backend="eager")
    without = [_errors(plain, x), _errors(plain, x)]
    torch._dynamo.reset()
    compiled = torch.compile(_fullgraph_with_break, fullgraph=True, backend="eager")
    with depyf.prepare_debug(str(tmp_path)):
        first = _errors(compiled, x)
    with depyf.debug():
        second = _errors(compiled, x)
    assert without == ["Unsupported", "Unsupported"]
    assert [first, second] == without


def _reduces(x):
    return (x.sin() * x.exp()).sum(0) / 3.3


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_debug_recompiles_as_torch_does(tmp_path, backend: str) -> None:
    """A call under debug() that no dumped entry serves gives torch's compiled result bit for bit."""
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(8, 100, generator=g), torch.randn(8, 100, generator=g, dtype=torch.float64)
    torch._dynamo.reset()
    plain = torch.compile(_reduces, backend=backend)
    expected = [plain(a), plain(b), plain(a)]
    torch._dynamo.reset()
    compiled = torch.compile(_reduces, backend=backend)
    with depyf.prepare_debug(str(tmp_path)):
        got = [compiled(a)]
    with depyf.debug():
        got += [compiled(b), compiled(a)]  # b: another dtype, a new compilation
    assert all(torch.equal(x, y) and x.dtype == y.dtype for x, y in zip(expected, got))
