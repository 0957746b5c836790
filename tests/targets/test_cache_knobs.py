"""A lowering knob flipped from its default is part of every compile key (`lowering/knobs.py`):
the disk and memory cache's `KernelKey`, and a Python kernel's own memo. A flip compiles anew;
putting it back finds the default's artifact again; a default compile's key is unchanged."""

import ast
import importlib
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from ferrox import simt, tile
from ferrox.lowering import knobs
from ferrox.lowering.simt_to_nvvm import pipeline
from ferrox.lowering.tile_to_simt import gemm, gemm_wgmma
from ferrox.simt import DisjointSlice, SimtKernel, Slice
from ferrox.targets.cache import KernelCache, KernelKey
from ferrox.tile import Partition, Tensor, TileKernel, f32

ROOT = Path(__file__).resolve().parents[2]
KEY = KernelKey(ir="llvm.func @k() { llvm.return }", chip="sm_90", options={"opt": 3})


def documented_knobs() -> list[tuple[str, str]]:
    """(module, NAME) of each upper-case module setting of the lowering whose docstring calls it
    a knob."""
    found = []
    for path in sorted((ROOT / "lowering").rglob("*.py")):
        body = ast.parse(path.read_text()).body
        module = "ferrox." + ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for node, after in zip(body, body[1:], strict=False):
            target = (
                node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
            )
            doc = getattr(after.value, "value", None) if isinstance(after, ast.Expr) else None
            if isinstance(target, ast.Name) and target.id.isupper() and isinstance(doc, str):
                if "knob" in doc.lower():
                    found.append((module, target.id))
    return found


def flipped(value):
    return (not value) if isinstance(value, bool) else (1 if value is None else value + 1)


def test_every_documented_knob_is_watched(monkeypatch):
    names = documented_knobs()
    assert ("ferrox.lowering.tile_to_simt.gemm_wgmma", "PERSISTENT") in names
    assert len(names) >= 15
    for module_name, name in names:
        module = importlib.import_module(module_name)
        assert knobs.changed() == ()
        monkeypatch.setattr(module, name, flipped(getattr(module, name)))
        assert knobs.changed() == ((f"{module_name}.{name}", getattr(module, name)),)
        monkeypatch.undo()
    assert knobs.changed() == ()


def test_the_key_follows_a_flip_and_comes_back(monkeypatch):
    default = KEY.digest()
    monkeypatch.setattr(gemm_wgmma, "PERSISTENT", True)
    persistent = KEY.digest()
    monkeypatch.setattr(gemm, "MIN_BLOCKS", 1)
    both = KEY.digest()
    monkeypatch.setattr(gemm_wgmma, "PERSISTENT", False)
    assert len({default, persistent, both, KEY.digest()}) == 4
    monkeypatch.setattr(gemm, "MIN_BLOCKS", None)
    assert KEY.digest() == default


def test_a_bool_and_an_int_of_equal_value_are_different_settings(monkeypatch):
    monkeypatch.setattr(gemm_wgmma, "PERSISTENT", 0)
    assert knobs.changed() == (("ferrox.lowering.tile_to_simt.gemm_wgmma.PERSISTENT", 0),)


def test_the_cache_compiles_again_after_a_flip(tmp_path, monkeypatch):
    cache = KernelCache(tmp_path)
    made = []

    def compile_fn() -> bytes:
        made.append(knobs.changed())
        return str(len(made)).encode()

    assert cache.get_or_compile(KEY, compile_fn) == b"1"
    monkeypatch.setattr(gemm_wgmma, "PERSISTENT", True)
    assert cache.get_or_compile(KEY, compile_fn) == b"2"
    monkeypatch.undo()
    assert cache.get_or_compile(KEY, compile_fn) == b"1"
    assert KernelCache(tmp_path).get_or_compile(KEY, compile_fn) == b"1"  # from disk
    assert made == [(), (("ferrox.lowering.tile_to_simt.gemm_wgmma.PERSISTENT", True),)]


@pytest.fixture
def matmul(tmp_path, monkeypatch):
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path))
    path = ROOT / "examples" / "python" / "tile_matmul_f32.py"
    spec = importlib.util.spec_from_file_location("tile_matmul_f32_knobs", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.matmul


def test_a_python_kernel_compiles_again_after_a_flip(matmul, monkeypatch):
    """The kernel's own memo (no disk look-up on a repeated call) keys on the knobs too: with
    `FAST_COPIES` off no copy is unchecked, and back on the first PTX returns."""
    tiles = {"BM": 64, "BN": 64, "BK": 32}
    fast = matmul.ptx("sm_90", **tiles)
    monkeypatch.setattr(gemm, "FAST_COPIES", False)
    checked = matmul.ptx("sm_90", **tiles)
    monkeypatch.undo()
    assert checked != fast and matmul.ptx("sm_90", **tiles) == fast


@tile.kernel
def doubled(out: Partition[f32, (64,)], x: Tensor[f32, (None,)]):
    tile.store(tile.load_like(x, out) * 2.0, out)


@simt.kernel(block=64)
def halved(x: Slice[f32], y: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    with y[w] as slot:
        slot.value = x[w.value] * 0.5


def spy(monkeypatch, cls) -> list:
    """The knobs each compile look-up of `cls` (a Python kernel class) ran under."""
    seen = []
    real = cls._compile

    def compile_spy(self, *args, **kwargs):
        seen.append(knobs.changed())
        return real(self, *args, **kwargs)

    monkeypatch.setattr(cls, "_compile", compile_spy)
    return seen


FLIP = (("ferrox.lowering.tile_to_simt.gemm.FAST_COPIES", False),)
IMMEDIATE = (("ferrox.lowering.simt_to_nvvm.pipeline.IMMEDIATE_OFFSETS", True),)


def test_a_repeated_tile_call_compiles_again_after_a_flip(tmp_path, monkeypatch):
    """A call with every Constexpr at its default keeps its launch, so the next goes straight
    to it; after a flip that kept launch is another schedule's kernel: the call looks the
    artifact up again (under the flip), and after the flip is undone, once more."""
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path))
    kernel = doubled.on("cpu")
    x = np.arange(100, dtype=np.float32)
    out = np.full(100, np.nan, np.float32)
    kernel(out, x)
    seen = spy(monkeypatch, TileKernel)
    kernel(out, x)
    assert seen == []  # the kept launch: no look-up
    monkeypatch.setattr(gemm, "FAST_COPIES", False)
    kernel(out, x)
    kernel(out, x)
    assert seen == [FLIP]
    monkeypatch.setattr(gemm, "FAST_COPIES", True)
    kernel(out, x)
    assert seen == [FLIP, ()]
    np.testing.assert_array_equal(out, x * 2)


def test_a_repeated_simt_launch_compiles_again_after_a_flip(tmp_path, monkeypatch):
    """The same for a SIMT kernel's launcher (`k[grid, block]`, which keeps its launches and
    the loaded kernel per argument kinds), with a knob of the SIMT lowering: the launch after
    the flip loads the flip's kernel, and after the flip is undone the first one again."""
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path))
    loads = []
    real = SimtKernel._loaded

    def loaded_spy(self, *args, **kwargs):
        loads.append((knobs.changed(), real(self, *args, **kwargs)))
        return loads[-1][1]

    monkeypatch.setattr(SimtKernel, "_loaded", loaded_spy)
    launch = halved.on("cpu")[2, 64]
    x = np.arange(100, dtype=np.float32)
    y = np.full(100, np.nan, np.float32)
    launch(x, y)
    launch(x, y)
    assert [k for k, _ in loads] == [()]  # the second launch: the kept one
    monkeypatch.setattr(pipeline, "IMMEDIATE_OFFSETS", True)
    launch(x, y)
    launch(x, y)
    assert [k for k, _ in loads] == [(), IMMEDIATE]
    monkeypatch.setattr(pipeline, "IMMEDIATE_OFFSETS", False)
    launch(x, y)
    assert [k for k, _ in loads] == [(), IMMEDIATE, ()]
    first, flipped_kernel, again = (kernel for _, kernel in loads)
    assert flipped_kernel.artifact is not first.artifact and again is first
    np.testing.assert_array_equal(y, x * 0.5)
