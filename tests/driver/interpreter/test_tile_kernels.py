"""The eight example kernels of tests/filecheck/dialects/tile/kernels.mlir on the interpreter,
against NumPy on fresh random data.

Every output is a view into a larger NaN-poisoned array, with sizes that are not multiples of
the tile: each in-range element must be written (no NaN left) and nothing past the end may be
touched. Elementwise kernels match NumPy bit for bit; reductions and matmuls, whose order of
summation is unspecified, within a float32 tolerance.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ferrox.driver.interpreter.tile_kernel import run_tile_kernel
from ferrox.driver.interpreter.tile_ops.dtypes import bf16_bits_round
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.verify import verify_module

KERNELS = Path(__file__).resolve().parents[2] / "filecheck" / "dialects" / "tile" / "kernels.mlir"
NAMES = [
    "vector_add",
    "saxpy",
    "row_sum",
    "softmax",
    "layernorm",
    "transpose",
    "matmul_f32",
    "matmul_bf16",
    "attention",
]
PAD = 3  # extra poisoned elements past each end


@pytest.fixture(scope="module")
def module():
    m = parse_module(make_context(), KERNELS.read_text(), str(KERNELS))
    verify_module(m)
    return m


@pytest.fixture
def rng():
    return np.random.default_rng(2024)


def poisoned(*shape: int):
    """`(view, backing)`: a NaN output of `shape` inside a larger NaN array."""
    backing = np.full(tuple(d + PAD for d in shape), np.nan, dtype=np.float32)
    return backing[tuple(slice(0, d) for d in shape)], backing


def untouched_outside(view: np.ndarray, backing: np.ndarray) -> bool:
    mask = np.ones(backing.shape, bool)
    mask[tuple(slice(0, d) for d in view.shape)] = False
    return bool(np.isnan(backing[mask]).all())


def check(out, backing, expected, exact: bool):
    assert not np.isnan(out).any(), "an in-range element was not written"
    assert untouched_outside(out, backing), "an element past the end was written"
    if exact:
        assert np.array_equal(out, expected)
    else:
        assert np.allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_every_kernel_is_covered(module):
    from ferrox.dialects.tile import KernelOp

    assert [k.sym_name.data for k in module.walk() if isinstance(k, KernelOp)] == NAMES


@pytest.mark.parametrize("n", [1024, 4096, 1000, 3001, 1])
def test_vector_add(module, rng, n):
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    z, backing = poisoned(n)
    run_tile_kernel(module, "vector_add", [z, x, y])
    check(z, backing, x + y, exact=True)


@pytest.mark.parametrize("n", [2048, 1500])
def test_saxpy(module, rng, n):
    alpha = np.float32(rng.standard_normal())
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    out, backing = poisoned(n)
    run_tile_kernel(module, "saxpy", [out, alpha, x, y])
    check(out, backing, alpha * x + y, exact=True)


@pytest.mark.parametrize(("m", "n"), [(32, 256), (37, 300), (5, 1), (16, 129)])
def test_row_sum(module, rng, m, n):
    x = rng.standard_normal((m, n), dtype=np.float32)
    out, backing = poisoned(m)
    run_tile_kernel(module, "row_sum", [out, x])
    check(out, backing, x.astype(np.float64).sum(axis=1), exact=False)


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize(("m", "n"), [(8, 1024), (10, 1000), (3, 7), (1, 1)])
def test_softmax(module, rng, m, n):
    x = rng.standard_normal((m, n), dtype=np.float32) * 3
    out, backing = poisoned(m, n)
    run_tile_kernel(module, "softmax", [out, x])
    check(out, backing, softmax(x.astype(np.float64)), exact=False)


@pytest.mark.parametrize(("m", "n"), [(8, 1024), (6, 1000), (9, 33)])
def test_layernorm(module, rng, m, n):
    x = rng.standard_normal((m, n), dtype=np.float32) * 2 + 1
    gamma, beta = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    eps = 1e-5
    out, backing = poisoned(m, n)
    run_tile_kernel(module, "layernorm", [out, x, gamma, beta, eps])
    x64 = x.astype(np.float64)
    expected = (x64 - x64.mean(axis=1, keepdims=True)) / np.sqrt(
        x64.var(axis=1, keepdims=True) + eps
    ) * gamma + beta
    check(out, backing, expected, exact=False)


@pytest.mark.parametrize(("m", "n"), [(64, 128), (100, 37), (1, 65)])
def test_transpose(module, rng, m, n):
    x = rng.standard_normal((m, n), dtype=np.float32)
    out, backing = poisoned(n, m)
    run_tile_kernel(module, "transpose", [out, x])
    check(out, backing, x.T, exact=True)


@pytest.mark.parametrize(("m", "k", "n"), [(64, 64, 64), (128, 96, 64), (70, 45, 90), (1, 1, 1)])
def test_matmul_f32(module, rng, m, k, n):
    a, b = (
        rng.standard_normal((m, k), dtype=np.float32),
        rng.standard_normal((k, n), dtype=np.float32),
    )
    c, backing = poisoned(m, n)
    run_tile_kernel(module, "matmul_f32", [c, a, b])
    check(c, backing, a.astype(np.float64) @ b.astype(np.float64), exact=False)


@pytest.mark.parametrize(("m", "k", "n"), [(64, 64, 64), (70, 45, 90)])
def test_matmul_bf16(module, rng, m, k, n):
    # bf16 inputs as float32 arrays holding bf16 values (the interpreter's host format without
    # ml_dtypes); products are exact in f32, so only the summation order differs.
    a = bf16_bits_round(rng.standard_normal((m, k), dtype=np.float32))
    b = bf16_bits_round(rng.standard_normal((k, n), dtype=np.float32))
    c, backing = poisoned(m, n)
    run_tile_kernel(module, "matmul_bf16", [c, a, b])
    check(c, backing, a.astype(np.float64) @ b.astype(np.float64), exact=False)


def test_a_large_vector_add(module, rng):
    n = 1 << 20  # 1024 tile blocks (its time is benchmarks/interpreter.py's, never asserted)
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    z = np.full(n, np.nan, dtype=np.float32)
    run_tile_kernel(module, "vector_add", [z, x, y])
    assert np.array_equal(z, x + y)


@pytest.mark.parametrize(("heads", "seq"), [(1, 64), (2, 130)])
def test_attention(module, rng, heads, seq):
    """Causal attention with the online softmax: one block of keys, and a ragged third block."""
    q, k, v = (
        bf16_bits_round(rng.standard_normal((heads, seq, 64), dtype=np.float32)) for _ in range(3)
    )
    out, backing = poisoned(heads, seq, 64)
    run_tile_kernel(module, "attention", [out, q, k, v])
    x, y, z = (t.astype(np.float64) for t in (q, k, v))
    s = np.where(np.tri(seq, dtype=bool), x @ y.transpose(0, 2, 1) / 8.0, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    # p is rounded to bf16 before p @ v in the kernel (relative 2^-9), not in this reference.
    assert untouched_outside(out, backing)
    np.testing.assert_allclose(out, (p / p.sum(-1, keepdims=True)) @ z, rtol=1e-2, atol=1e-2)
