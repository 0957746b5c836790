"""The CPU interpreter's artifact (`ptx=False`): ferrox's whole compile (verifiers, lowerings,
the entry's ABI check) without LLVM's NVPTX code generation and ptxas, whose output the
interpreter never reads. Its kernel facts are the full compile's; it has no PTX and no cubin,
a GPU refuses it, it has a cache key of its own, and the CPU paths (the host runner, a Python
kernel's `.on("cpu")`) ask for it while the GPU paths still compile PTX."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ferrox import tile
from ferrox.diagnostics import DiagnosticError
from ferrox.driver.runtime.launcher import LoadedModule
from ferrox.run_api import run_program
from ferrox.targets import cache as cache_module
from ferrox.targets.cache import compile_cached, default_cache
from ferrox.tile import Partition, Tensor, f32

ROOT = Path(__file__).resolve().parents[2]
VECADD = ROOT / "examples" / "simt" / "vecadd.mlir"
TILE_SOFTMAX = ROOT / "examples" / "tile" / "softmax.mlir"
UNSAFE = """
simt.kernel @param_witness(%w: !simt.thread_index<1d>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}
"""


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path / "cache"))
    return default_cache()


@pytest.mark.parametrize("path", [VECADD, TILE_SOFTMAX], ids=lambda p: p.stem)
def test_same_facts_no_ptx(own_cache, path):
    full = compile_cached(path, chip="sm_90")
    interpreted = compile_cached(path, chip="sm_90", ptx=False)
    assert own_cache.compiles == 2, "a key of its own: the full artifact does not answer it"
    assert full.ptx and ".entry" in full.ptx
    assert interpreted.ptx == "" and interpreted.cubin is None
    assert (interpreted.chip, interpreted.features, interpreted.opt, interpreted.source) == (
        full.chip,
        full.features,
        full.opt,
        full.source,
    )
    for name, kernel in full.kernels.items():
        facts = interpreted.kernels[name]
        assert (facts.params, facts.writes, facts.tile, facts.abi) == (
            kernel.params,
            kernel.writes,
            kernel.tile,
            kernel.abi,
        )
    assert compile_cached(path, chip="sm_90", ptx=False) == interpreted
    assert own_cache.compiles == 2


def test_the_verifiers_still_refuse(own_cache):
    with pytest.raises(DiagnosticError, match="witness not produced by a trusted index op"):
        compile_cached(UNSAFE, chip="sm_90", ptx=False)


def test_a_gpu_refuses_it(own_cache):
    artifact = compile_cached(VECADD, chip="sm_90", ptx=False)
    with pytest.raises(ValueError, match="compiled for the CPU interpreter and has no PTX"):
        LoadedModule.load(artifact)


def _spy(monkeypatch) -> list[bool]:
    """The `ptx` option of every compile through the cache."""
    seen: list[bool] = []
    real = cache_module.compile_module

    def spy(module, **options):
        seen.append(options.get("ptx", True))
        return real(module, **options)

    monkeypatch.setattr(cache_module, "compile_module", spy)
    return seen


def test_the_host_runner_on_the_cpu_asks_for_it(own_cache, monkeypatch):
    seen = _spy(monkeypatch)
    result = run_program(VECADD, device="cpu", out=None)
    assert result.ok and seen == [False]


def test_a_tile_kernel_on_the_cpu_asks_for_it_and_still_computes(own_cache, monkeypatch):
    seen = _spy(monkeypatch)

    @tile.kernel
    def twice(out: Partition[f32, (64,)], x: Tensor[f32, (None,)]):
        tile.store(tile.load_like(x, out) * 2.0, out)

    x = np.random.default_rng(7).standard_normal(200).astype(np.float32)
    out = np.full(200, np.nan, np.float32)
    twice.on("cpu")(out, x)
    np.testing.assert_array_equal(out, x * np.float32(2.0))
    assert seen == [False]
    assert twice.artifact("sm_90").ptx, "asked for, the artifact is the GPU's, with PTX"
    assert seen == [False, True]
