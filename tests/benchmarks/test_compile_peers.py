"""`benchmarks/compile_peers.py`'s ferrox side, on the CPU: the kernel text it cuts from each
example compiles to that one kernel, and the launch it makes computes the example's result."""

from __future__ import annotations

import numpy as np
import pytest

import ferrox
from benchmarks import compile_peers


@pytest.mark.parametrize("kernel", ["vecadd", "transpose"])
def test_the_kernel_text_is_the_examples_kernel_alone(kernel):
    text = compile_peers.ferrox_kernel_text(kernel, "r1")
    assert text != compile_peers.ferrox_kernel_text(kernel, "r2")  # no cache can serve a rep
    assert "func.func @main" not in text  # the host program is left out
    artifact = ferrox.compile(text, chip="sm_90", cache=False, ptx=False)
    assert list(artifact.kernels) == [kernel]


@pytest.mark.parametrize("kernel, shape", [("vecadd", (1000,)), ("transpose", (70, 45))])
def test_its_launch_computes_the_examples_result(kernel, shape):
    rng = np.random.default_rng()
    text = compile_peers.ferrox_kernel_text(kernel, "r0")
    artifact = ferrox.compile(text, chip="sm_90", cache=False, ptx=False)
    k = ferrox.load(artifact, device="cpu")[kernel]
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


def test_each_peer_names_its_kernel_by_the_rep():
    """The Triton and numba sources are Python that defines the rep's own function, so no
    in-memory cache of either tool sees the same function twice."""
    for table in (compile_peers.TRITON, compile_peers.NUMBA):
        for kernel, source in table.items():
            code = compile(source.format(rep="r3"), f"<{kernel}>", "exec")
            assert f"{kernel}_r3" in code.co_names
    for kernel, source in compile_peers.CUDA.items():
        assert f'extern "C" __global__ void {kernel}(' in source.format(rep="r3")
