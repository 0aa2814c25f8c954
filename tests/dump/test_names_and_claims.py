"""Dump file names and folder claims, without torch: names that stay inside the folder, bounded and
stable; one folder per process; writes that fail without raising."""
from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap

import pytest

from depyf.dump import writer as writer_module
from depyf.dump.claim import LOCK_NAME, claim_folder
from depyf.dump.filenames import MAX_STEM, file_stem, is_plain_file_name
from depyf.dump.writer import DumpWriter

HOSTILE = [
    "x" * 300,
    "../../etc/passwd",
    "/abs/path",
    "a\0b",
    "line\nbreak",
    "x\rimport os",
    "..",
    ".",
    "",
    "CON",
    "nul.txt",
    "com1",
    "trailing.",
    "sp ace\ttab",
    "ünïcödé_名前",
    "\\windows\\path",
    "a" * 111 + "b" * 200,
    "a" * 111 + "c" * 200,
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_file_stem_is_a_plain_bounded_name(text: str) -> None:
    stem = file_stem(text)
    assert is_plain_file_name(stem + ".py")
    assert 0 < len(stem) <= MAX_STEM
    assert os.path.basename(stem) == stem and stem not in (".", "..")
    assert stem.split(".")[0].upper() not in ("CON", "PRN", "AUX", "NUL", "COM1", "LPT1")
    assert file_stem(text) == stem  # stable


def test_ordinary_names_are_kept_and_cut_names_differ() -> None:
    for name in ("full_code_for_toy_example", "__compiled_fn_0.aot_forward_graph", "__resume_at_30_1"):
        assert file_stem(name) == name
    long_a, long_b = file_stem("a" * 111 + "b" * 200), file_stem("a" * 111 + "c" * 200)
    assert long_a != long_b and long_a[:100] == long_b[:100]
    # The hash is of the text, not Python's salted hash(): the same in every process.
    code = "from depyf.dump.filenames import file_stem; print(file_stem('q' * 400))"
    env = dict(os.environ, PYTHONHASHSEED="123", PYTHONPATH=os.pathsep.join(sys.path))
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert other.stdout.strip() == file_stem("q" * 400)


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_writer_keeps_every_file_inside_its_folder(tmp_path, text: str) -> None:
    folder = tmp_path / "dump"
    writer = DumpWriter.claim(str(folder))
    try:
        name = writer.unique_name(f"full_code_for_{text}")
        path = writer.write_py(name, f"# {text!r}\nx = 1\n")
    finally:
        writer.close()
    assert path is not None and os.path.dirname(path) == str(folder)
    assert sorted(os.listdir(tmp_path)) == ["dump"]
    assert os.listdir(folder) == [name]
    with open(path, encoding="utf-8") as f:
        compile(f.read(), path, "exec")


def test_a_nul_in_text_said_to_compile_is_still_made_valid(tmp_path) -> None:
    writer = DumpWriter.claim(str(tmp_path))
    try:
        path = writer.write_py("x.py", "# name a\0b\ns = 'a\0b'\n", compiled=True)
    finally:
        writer.close()
    text = open(path, encoding="utf-8").read()
    namespace: dict = {}
    exec(compile(text, path, "exec"), namespace)
    assert namespace["s"] == "a\0b"


def test_writer_path_refuses_names_that_leave_the_folder(tmp_path) -> None:
    writer = DumpWriter(str(tmp_path))
    for bad in ("../x.py", "/tmp/x.py", "a/b.py", ".hidden", "a\0.py", "a\n.py"):
        with pytest.raises(ValueError):
            writer.path(bad)


def test_concurrent_claims_get_their_own_folders(tmp_path) -> None:
    base = str(tmp_path / "d")
    first, lock1 = claim_folder(base)
    second, lock2 = claim_folder(base)
    third, lock3 = claim_folder(base)
    assert (first, second, third) == (base, os.path.join(base, "process_1"), os.path.join(base, "process_2"))
    lock2.release()
    again, lock4 = claim_folder(base)  # the first free one
    assert again == os.path.join(base, "process_1")
    for lock in (lock1, lock3, lock4):
        lock.release()
    assert not os.path.exists(os.path.join(base, LOCK_NAME))
    alone, lock5 = claim_folder(base)
    assert alone == base
    lock5.release()


def test_a_crashed_process_leaves_no_claim(tmp_path) -> None:
    base = str(tmp_path / "d")
    script = textwrap.dedent(
        f"""
        import os
        from depyf.dump.claim import claim_folder
        folder, lock = claim_folder({base!r})
        print(folder)
        os._exit(1)  # no release
        """
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert done.stdout.strip() == base
    assert os.path.exists(os.path.join(base, LOCK_NAME))  # left behind, but no longer held
    folder, lock = claim_folder(base)
    assert folder == base
    lock.release()


def test_folders_that_cannot_be_made_raise_oserror(tmp_path) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("x")
    for base in (str(a_file), str(a_file / "sub"), str(a_file / "sub" / "deeper")):
        with pytest.raises(OSError):
            claim_folder(base)
    assert sorted(os.listdir(tmp_path)) == ["file"]


def test_failed_writes_are_recorded_not_raised(tmp_path, monkeypatch) -> None:
    writer = DumpWriter.claim(str(tmp_path / "d"))
    ok = writer.write_py(writer.unique_name("first"), "a = 1\n")
    real = writer_module._write_file
    calls = []

    def full_disk(path: str, text: str) -> None:
        calls.append(path)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text[: len(text) // 2])  # a part reached the disk, then it was full
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(writer_module, "_write_file", full_disk)
    assert writer.write_py(writer.unique_name("second"), "b = 2\n") is None
    assert writer.write_text("depyf_manifest.json", "{}") is None
    monkeypatch.setattr(writer_module, "_write_file", real)
    writer.close()
    assert ok is not None and calls
    assert writer.failure is not None and "No space left" in writer.failure
    assert writer.lost == ["second.py", "depyf_manifest.json"]
    assert sorted(os.listdir(tmp_path / "d")) == ["first.py"]  # no partial file, no temporary
    assert list(writer.written) == ["first.py"]


_PROCESS = textwrap.dedent(
    """
    import json, os, sys, time
    from depyf.dump.writer import DumpWriter
    from depyf.report.format import MANIFEST_FORMAT, MANIFEST_NAME, MANIFEST_VERSION
    k, base, ready = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    writer = DumpWriter.claim(base)
    open(os.path.join(ready, str(k)), "w").close()
    deadline = time.time() + 60
    while len(os.listdir(ready)) < 4 and time.time() < deadline:  # all four hold a folder at once
        time.sleep(0.02)
    name = writer.unique_name(f"full_code_for_program_{k}")
    writer.write_py(name, f"x = {k}\\n")
    manifest = {"format": MANIFEST_FORMAT, "version": MANIFEST_VERSION, "rank": None, "problems": [],
                "functions": [{"name": f"program_{k}", "kind": "function", "entries": []}],
                "skipped": [], "files": [name]}
    writer.write_text(MANIFEST_NAME, json.dumps(manifest))
    writer.close()
    print(writer.folder)
    """
)


def test_four_processes_on_one_folder_keep_four_dumps_and_the_report_shows_them(tmp_path) -> None:
    from depyf.report.load import find_dumps

    base, ready = tmp_path / "dump", tmp_path / "ready"
    ready.mkdir()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    procs = [
        subprocess.Popen([sys.executable, "-c", _PROCESS, str(k), str(base), str(ready)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for k in range(4)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, [err for _, err in outs]
    folders = sorted(out.strip() for out, _ in outs)
    assert folders == sorted([str(base)] + [str(base / f"process_{n}") for n in (1, 2, 3)])
    dumps = find_dumps(str(base))
    assert [d.folder for d in dumps] == [str(base)] + [str(base / f"process_{n}") for n in (1, 2, 3)]
    assert len({d.anchor for d in dumps}) == 4 and len({d.label for d in dumps}) == 4
    shown = {d.manifest["functions"][0]["name"] for d in dumps}
    assert shown == {f"program_{k}" for k in range(4)}
    for dump in dumps:
        assert sorted(os.listdir(dump.folder)) == sorted(
            ["depyf_manifest.json", dump.manifest["files"][0]] + (["process_1", "process_2", "process_3"] if dump.folder == str(base) else [])
        )
