"""`benchmarks/compile_peers.py`'s ferrox side, on the CPU: the kernel text it cuts from each
example compiles to that one kernel under the rep's own name, and the launch it makes
computes the example's result."""

from __future__ import annotations

import numpy as np
import pytest

import ferrox
from benchmarks import compile_peers


@pytest.mark.parametrize("kernel", compile_peers.KERNELS)
def test_each_rep_compiles_a_kernel_of_its_own(kernel):
    """The example's kernel alone, renamed for the rep: two reps' artifacts differ, so neither
    the runtime's table of loaded modules nor any other cache can serve the second."""
    one = compile_peers.ferrox_kernel_text(kernel, "p1_r1")
    assert "func.func @main" not in one  # the host program is left out
    first = ferrox.compile(one, chip="sm_90", cache=False)
    second = ferrox.compile(compile_peers.ferrox_kernel_text(kernel, "p1_r2"), chip="sm_90")
    assert list(first.kernels) == [f"{kernel}_p1_r1"]
    assert list(second.kernels) == [f"{kernel}_p1_r2"]
    assert first.ptx != second.ptx


@pytest.mark.parametrize("kernel, shape", [("vecadd", (1000,)), ("transpose", (70, 45))])
def test_its_launch_computes_the_examples_result(kernel, shape):
    rng = np.random.default_rng()
    text = compile_peers.ferrox_kernel_text(kernel, "r0")
    artifact = ferrox.compile(text, chip="sm_90", cache=False, ptx=False)
    k = ferrox.load(artifact, device="cpu")[f"{kernel}_r0"]
    size = int(np.prod(shape))
    out = np.full(size, np.nan, np.float32)
    if kernel == "vecadd":
        a, b = (rng.standard_normal(size, dtype=np.float32) for _ in range(2))
        compile_peers.launch_ferrox(k, kernel, (a, b), out, shape)
        np.testing.assert_array_equal(out, a + b)
    else:
        x = rng.standard_normal(size, dtype=np.float32)
        compile_peers.launch_ferrox(k, kernel, (x,), out, shape)
        np.testing.assert_array_equal(out, x.reshape(shape).T.reshape(-1))


def test_each_peers_source_is_new_for_each_rep():
    """Triton's and numba's sources define the rep's own function (no in-memory cache of either
    sees the same function twice); CuPy's differ by rep (its cache is keyed by the source)."""
    for table in (compile_peers.TRITON, compile_peers.NUMBA):
        for kernel, source in table.items():
            code = compile(source.format(rep="p1_r3"), f"<{kernel}>", "exec")
            assert f"{kernel}_p1_r3" in code.co_names
    for source in compile_peers.CUDA.values():
        assert source.format(rep="p1_r3") != source.format(rep="p1_r4")


def test_importing_it_changes_nothing_around_it(monkeypatch):
    """The cache folders are set by `main`, for its own run, never at import."""
    import importlib
    import os

    monkeypatch.delenv("CUPY_CACHE_DIR", raising=False)
    monkeypatch.delenv("TRITON_CACHE_DIR", raising=False)
    importlib.reload(compile_peers)
    assert "CUPY_CACHE_DIR" not in os.environ and "TRITON_CACHE_DIR" not in os.environ
