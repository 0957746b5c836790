"""The kernel cache: keys, folders, atomic entries, and one compile among concurrent processes."""

import multiprocessing
import os
import time
from pathlib import Path

import pytest

import ferrox
from ferrox.driver.runtime.cache import (
    KernelCache,
    KernelKey,
    cache_usage,
    default_cache,
    default_cache_dir,
)

KEY = KernelKey(
    ir="llvm.func @k() { llvm.return }", chip="sm_90", options={"opt": 3, "features": "+ptx80"}
)


def test_key_depends_on_every_part(monkeypatch):
    digest = KEY.digest()
    assert (
        len(digest) == 64
        and digest == KernelKey(KEY.ir, "sm_90", {"features": "+ptx80", "opt": 3}).digest()
    )
    variants = [
        KernelKey(KEY.ir + " ", "sm_90", KEY.options),
        KernelKey(KEY.ir, "sm_80", KEY.options),
        KernelKey(KEY.ir, "sm_90", {"opt": 2, "features": "+ptx80"}),
        KernelKey(KEY.ir, "sm_90", KEY.options, artifact="cubin"),
    ]
    assert len({digest, *(v.digest() for v in variants)}) == 5
    monkeypatch.setattr(ferrox, "__version__", "9.9.9")
    assert KEY.digest() != digest
    monkeypatch.undo()
    import llvmlite

    monkeypatch.setattr(llvmlite, "__version__", "0.0.1")
    assert KEY.digest() != digest


def test_key_parts_record_versions_and_hash_the_ir():
    parts = KEY.parts()
    assert parts["ferrox"] == ferrox.__version__ and parts["chip"] == "sm_90"
    assert KEY.ir not in str(parts) and len(parts["ir_sha256"]) == 64
    assert parts["options"] == {"features": "+ptx80", "opt": 3}


def test_frozen_dataclass_options_are_hashed_by_value():
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Options:
        opt: int = 3
        fast_math: bool = False

    assert (
        KernelKey("x", "sm_90", Options()).digest()
        == KernelKey("x", "sm_90", {"opt": 3, "fast_math": False}).digest()
    )
    assert (
        KernelKey("x", "sm_90", Options(opt=2)).digest()
        != KernelKey("x", "sm_90", Options()).digest()
    )


def test_folder_from_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path / "mine"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "mine"
    assert KernelCache().directory == tmp_path / "mine"
    assert default_cache().directory == tmp_path / "mine" and default_cache() is default_cache()
    monkeypatch.delenv("FERROX_CACHE_DIR")
    assert default_cache_dir() == tmp_path / "xdg" / "ferrox"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "ferrox"


def test_compiles_once_then_hits_memory_then_disk(tmp_path):
    calls = []

    def compile_fn():
        calls.append(1)
        return b"PTX bytes"

    cache = KernelCache(tmp_path)
    assert cache.get_or_compile(KEY, compile_fn) == b"PTX bytes"
    assert cache.get_or_compile(KEY, compile_fn) == b"PTX bytes"
    assert (cache.compiles, cache.memory_hits, cache.disk_hits, len(calls)) == (1, 1, 0, 1)
    path = cache.path_for(KEY)
    assert path == tmp_path / "v1" / f"{KEY.digest()}.ptx" and path.read_bytes() == b"PTX bytes"
    fresh = KernelCache(tmp_path)  # a new process: memory is empty, the disk is not
    assert (
        fresh.get_or_compile(dict(ir=KEY.ir, chip="sm_90", options=KEY.options), compile_fn)
        == b"PTX bytes"
    )
    assert (fresh.compiles, fresh.disk_hits, len(calls)) == (0, 1, 1)
    assert cache_usage(tmp_path) == (1, len(b"PTX bytes"))


def test_str_results_are_encoded_and_other_results_refused(tmp_path):
    cache = KernelCache(tmp_path)
    assert cache.get_or_compile(KEY, lambda: ".version 8.0") == b".version 8.0"
    with pytest.raises(TypeError, match="compile_fn must return bytes, not int"):
        cache.get_or_compile(KernelKey("other", "sm_90"), lambda: 42)
    with pytest.raises(TypeError, match="unknown kernel key parts: arch"):
        cache.get_or_compile({"ir": "x", "chip": "sm_90", "arch": 1}, lambda: b"")


def test_failed_compile_leaves_nothing_behind(tmp_path):
    cache = KernelCache(tmp_path)

    def broken():
        raise RuntimeError("LLVM said no")

    with pytest.raises(RuntimeError, match="LLVM said no"):
        cache.get_or_compile(KEY, broken)
    assert not cache.path_for(KEY).exists()
    assert [p.name for p in (tmp_path / "v1").iterdir() if not p.name.endswith(".lock")] == []
    assert cache.get_or_compile(KEY, lambda: b"ok") == b"ok"


def test_unwritable_folder_degrades_to_memory_with_a_warning(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cache = KernelCache(blocker / "cache")
    with pytest.warns(RuntimeWarning, match="kernels are cached in memory only"):
        assert cache.get_or_compile(KEY, lambda: b"still works") == b"still works"
    assert cache.get_or_compile(KEY, lambda: b"never called") == b"still works"


def test_disk_can_be_turned_off(tmp_path):
    cache = KernelCache(tmp_path, disk=False)
    assert cache.get_or_compile(KEY, lambda: b"x") == b"x"
    assert not (tmp_path / "v1").exists()


# ---------------------------------------------------------------------- several processes


def _compile_in_process(directory, barrier, counter, out):
    def compile_fn():
        with open(counter, "a") as log:
            log.write(f"{os.getpid()}\n")
        time.sleep(0.3)  # long enough for every other process to arrive and wait
        return os.urandom(16) + b"x" * (4 << 20)  # not deterministic: only one result may win

    barrier.wait()
    data = KernelCache(directory).get_or_compile(KEY, compile_fn)
    Path(out).write_bytes(data)


def _put_in_process(directory, barrier, payload, rounds):
    cache = KernelCache(directory)
    path = cache.path_for(KEY)
    barrier.wait()
    for _ in range(rounds):
        cache._write(path, payload)


@pytest.fixture
def fork():
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("needs the fork start method")
    return multiprocessing.get_context("fork")


def test_concurrent_processes_compile_once_and_agree(tmp_path, fork):
    n = 8
    barrier = fork.Barrier(n)
    counter = tmp_path / "compiles.log"
    outs = [tmp_path / f"out{i}" for i in range(n)]
    procs = [
        fork.Process(target=_compile_in_process, args=(tmp_path / "c", barrier, counter, o))
        for o in outs
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0] * n
    results = {o.read_bytes() for o in outs}
    assert len(results) == 1
    (data,) = results
    assert len(data) == 16 + (4 << 20)
    assert len(counter.read_text().splitlines()) == 1  # the others waited and read its entry
    folder = tmp_path / "c" / "v1"
    assert (folder / f"{KEY.digest()}.ptx").read_bytes() == data
    assert sorted(p.suffix for p in folder.iterdir()) == [".lock", ".ptx"]  # no temporary left


def test_readers_never_see_a_partial_entry(tmp_path, fork):
    writers = 4
    payloads = [bytes([65 + i]) * (2 << 20) for i in range(writers)]
    barrier = fork.Barrier(writers + 1)
    procs = [
        fork.Process(target=_put_in_process, args=(tmp_path, barrier, p, 10)) for p in payloads
    ]
    for p in procs:
        p.start()
    path = KernelCache(tmp_path).path_for(KEY)
    barrier.wait()
    seen = set()
    while any(p.is_alive() for p in procs):
        try:
            seen.add(path.read_bytes())
        except FileNotFoundError:
            continue
    for p in procs:
        p.join(60)
    seen.add(path.read_bytes())
    assert seen <= set(payloads) and seen
    assert [p.name for p in path.parent.iterdir()] == [path.name]
