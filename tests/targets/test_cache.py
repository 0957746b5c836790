"""The kernel cache: keys (the compiler's own source and the tools' versions included), folders,
atomic entries, one compile among concurrent processes, and `compile_cached`: a hit compiles
nothing, a damaged or old-schema entry is compiled again."""

import json
import multiprocessing
import os
import sys
import time
from pathlib import Path

import llvmlite
import pytest
import xdsl

import ferrox
from ferrox.artifact import SCHEMA_VERSION, ModuleArtifact
from ferrox.diagnostics import DiagnosticError
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.targets import cache as cache_module
from ferrox.targets.cache import (
    KernelCache,
    KernelKey,
    cache_usage,
    compile_cached,
    compiler_fingerprint,
    compiler_sources,
    default_cache,
    default_cache_dir,
)

ROOT = Path(__file__).resolve().parents[2]
VECADD = ROOT / "examples" / "simt" / "vecadd.mlir"

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
    assert KEY.digest() == digest, "the package version says nothing of its code"
    for module, name, value in [
        (llvmlite, "__version__", "0.0.1"),
        (xdsl, "__version__", "0.0.1"),
        (cache_module, "ptxas_version", lambda: "Cuda compilation tools, release 1.0"),
        (cache_module, "compiler_fingerprint", lambda: "0" * 64),
    ]:
        # measured at each key, not read from this process's (or the disk's) memo
        monkeypatch.setattr(cache_module, "toolchain_versions", cache_module._measured_versions)
        monkeypatch.setattr(module, name, value)
        assert KEY.digest() != digest, name
        monkeypatch.undo()
        assert KEY.digest() == digest


def test_key_parts_record_versions_and_hash_the_ir():
    parts = KEY.parts()
    assert parts["chip"] == "sm_90" and "ferrox" not in parts
    assert parts["compiler"] == compiler_fingerprint() and len(parts["compiler"]) == 64
    assert parts["xdsl"] == str(xdsl.__version__)
    assert parts["llvmlite"] == str(llvmlite.__version__)
    assert parts["ptxas"] == cache_module.ptxas_version() != ""
    assert KEY.ir not in str(parts) and len(parts["ir_sha256"]) == 64
    assert parts["options"] == {"features": "+ptx80", "opt": 3}


def test_the_fingerprint_covers_every_loaded_module_of_the_package():
    import ferrox.driver.tools.cli  # noqa: F401  (the top layer, so that most of ferrox is loaded)
    import ferrox.lowering.pipeline  # noqa: F401

    files = {path.resolve() for _, path in compiler_sources()}
    loaded = {
        Path(m.__file__).resolve()
        for name, m in list(sys.modules.items())
        if (name == "ferrox" or name.startswith("ferrox.")) and getattr(m, "__file__", None)
    }
    assert loaded and loaded <= files, sorted(map(str, loaded - files))[:5]


def test_changing_a_lowering_module_changes_the_key(tmp_path, monkeypatch):
    """The compiler's fingerprint, so the key, follows the source of the lowering."""
    sources = compiler_sources()
    names = [name for name, _ in sources]
    target = "ferrox.lowering/simt_to_nvvm/memory.py"
    assert target in names
    copy = tmp_path / "memory.py"
    original = dict(sources)[target].read_bytes()
    copy.write_bytes(original)
    patched = [(n, copy if n == target else p) for n, p in sources]
    monkeypatch.setattr(cache_module, "compiler_sources", lambda: patched)
    monkeypatch.setattr(cache_module, "toolchain_versions", cache_module._measured_versions)
    cache_module.compiler_fingerprint.cache_clear()
    try:
        before = KEY.digest()
        assert before == KernelKey(KEY.ir, KEY.chip, KEY.options).digest()
        copy.write_bytes(original + b"\n# a change to the lowering\n")
        cache_module.compiler_fingerprint.cache_clear()
        assert KEY.digest() != before
        copy.write_bytes(original)
        cache_module.compiler_fingerprint.cache_clear()
        assert KEY.digest() == before
    finally:
        monkeypatch.undo()
        cache_module.compiler_fingerprint.cache_clear()


def test_a_new_process_reads_the_versions_from_the_memo(tmp_path, monkeypatch):
    """The memo holds what would be measured, under a signature of file metadata that a
    changed compiler source changes."""
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cache_module, "_versions", None)
    measured = cache_module._measured_versions()
    assert cache_module.toolchain_versions() == measured
    memo = tmp_path / f"toolchain-{cache_module.toolchain_signature()[:32]}.json"
    assert not tmp_path.joinpath("v1").exists(), "a key alone writes nothing"
    KernelCache(tmp_path).get_or_compile(KEY, lambda: b"PTX")  # the first entry brings the memo
    assert json.loads(memo.read_text()) == measured
    memo.write_text(json.dumps({**measured, "ptxas": "from the memo"}))
    monkeypatch.setattr(cache_module, "_versions", None)
    assert cache_module.toolchain_versions()["ptxas"] == "from the memo", "read, not measured"
    sources = cache_module.compiler_sources()
    name, path = sources[0]
    copy = tmp_path / "copy.py"
    copy.write_bytes(path.read_bytes() + b"\n")
    signature = cache_module.toolchain_signature()
    monkeypatch.setattr(cache_module, "compiler_sources", lambda: [(name, copy), *sources[1:]])
    cache_module.toolchain_signature.cache_clear()
    try:
        assert cache_module.toolchain_signature() != signature
    finally:
        monkeypatch.undo()
        cache_module.toolchain_signature.cache_clear()


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


# ---------------------------------------------------------------------- compile_cached


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _no_compiler(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the compiler ran on a cache hit")

    monkeypatch.setattr(cache_module, "compile_module", refuse)
    monkeypatch.setattr(cache_module, "_parse", refuse)


def test_a_hit_compiles_nothing(cache_dir, monkeypatch):
    first = compile_cached(VECADD, chip="sm_90")
    assert isinstance(first, ModuleArtifact) and ".entry vecadd(" in first.ptx
    assert compile_cached(VECADD, chip="sm_90") is first  # the same process: from memory
    cache = default_cache()
    assert (cache.compiles, cache.memory_hits, cache.disk_hits) == (1, 1, 0)
    _no_compiler(monkeypatch)
    cache.clear_memory()  # as a new process would: only the disk holds it
    again = compile_cached(VECADD, chip="sm_90")
    assert again == first and again is not first
    assert (cache.compiles, cache.disk_hits) == (1, 1)
    assert compile_cached(VECADD.read_text(), chip="sm_90") == first, "text and path: one key"
    with pytest.raises(AssertionError, match="the compiler ran on a cache hit"):
        compile_cached(VECADD, chip="sm_80")  # another target is another key


def test_every_option_is_in_the_key(cache_dir):
    text = VECADD.read_text()
    artifacts = [
        compile_cached(text, chip="sm_90"),
        compile_cached(text, chip="sm_80"),
        compile_cached(text, chip="sm_90", opt=2),
        compile_cached(text, chip="sm_90", features="+ptx81"),
    ]
    assert default_cache().compiles == 4
    assert [(a.chip, a.opt, a.features) for a in artifacts] == [
        ("sm_90", 3, "+ptx80"),
        ("sm_80", 3, "+ptx80"),
        ("sm_90", 2, "+ptx80"),
        ("sm_90", 3, "+ptx81"),
    ]
    assert len(list((cache_dir / "v1").glob("*.artifact.json"))) == 4


@pytest.mark.parametrize("damage", ["truncated", "old schema", "not json"])
def test_a_damaged_or_old_entry_is_compiled_again(cache_dir, damage):
    first = compile_cached(VECADD)
    (entry,) = (cache_dir / "v1").glob("*.artifact.json")
    good = entry.read_text()
    if damage == "truncated":
        entry.write_text(good[: len(good) // 2])
    elif damage == "old schema":
        raw = json.loads(good)
        raw["schema"] = SCHEMA_VERSION - 1
        entry.write_text(json.dumps(raw))
    else:
        entry.write_bytes(b"\x00\xff garbage")
    cache = default_cache()
    cache.clear_memory()
    assert compile_cached(VECADD) == first
    assert (cache.compiles, cache.disk_hits) == (2, 0)
    assert entry.read_text() == good, "the entry was replaced by a good one"


def test_a_miss_verifies_and_reports_located_diagnostics(cache_dir, tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text(
        """simt.kernel @twice(%out: !simt.disjoint_slice<f32, 1d>) {
  %w = simt.thread_index_1d
  %i = simt.witness_value %w : !simt.thread_index<1d>
  %s = builtin.unrealized_conversion_cast %out : !simt.disjoint_slice<f32, 1d> to !simt.slice<f32>
  simt.return
}
"""
    )
    with pytest.raises(DiagnosticError) as e:
        compile_cached(bad)
    assert str(e.value) == (
        f"{bad}:4:3: error: disjoint slice `%out` cannot be used by "
        "'builtin.unrealized_conversion_cast': it is written only through simt.get_mut"
    )
    with pytest.raises(DiagnosticError) as e:
        compile_cached("simt.nonsense()", filename="k.mlir")
    assert str(e.value) == "k.mlir:1:14: error: Operation simt.nonsense is not registered"
    assert default_cache().compiles == 0 and not list((cache_dir / "v1").glob("*.json"))


def test_cache_false_compiles_every_time(cache_dir, monkeypatch):
    first = compile_cached(VECADD, cache=False)
    assert compile_cached(VECADD, cache=False) == first
    assert not cache_dir.exists()


def test_a_miss_returns_what_the_compile_made_and_stores_its_json(cache_dir):
    """No decoding of the JSON just written: the compile's own artifact, equal to it."""
    made = compile_cached(VECADD)
    cache = default_cache()
    cache.clear_memory()
    stored = compile_cached(VECADD)
    assert stored == made and stored is not made and cache.disk_hits == 1


def test_a_parsed_module_is_printed_once_for_key_and_source(cache_dir, monkeypatch):
    module = parse_module(make_context(), VECADD.read_text(), str(VECADD))
    printed = str(module)
    calls = []
    real = cache_module.compile_module
    monkeypatch.setattr(
        cache_module, "compile_module", lambda m, **o: calls.append(o) or real(m, **o)
    )
    artifact = compile_cached(module, cache=False)
    assert [o["source"] for o in calls] == [printed] and artifact.source == printed
    assert artifact == compile_cached(printed, cache=False)
