"""Every kernel in examples/simt/ run on the interpreter against a NumPy formula.

Inputs are fresh random data, outputs start as NaN, and each reference computes in float32 in
the kernel's own order of operations, so results must match bit for bit (the GPU, which may
contract a multiply and an add into an fma, is compared with a tolerance elsewhere).
"""

from __future__ import annotations

import numpy as np
import pytest

from ferrox.driver.interpreter import run_simt_kernel

EXAMPLE_NAMES = [
    "vecadd",
    "vecadd_unchecked",
    "vecadd_vec4",
    "saxpy",
    "neighbour",
    "transpose",
    "sgemm_naive",
    "sgemm_tiled",
    "sgemm_micro",
    "gemm_wgmma",
    "gemm_tma",
    "tma_copy",
    "tma_copy_f32",
    "warp_reduce",
    "block_reduce",
    "block_reduce_gridstride",
    "histogram",
    "gcd",
    "alu",
    "piecewise",
]


def nan(n: int) -> np.ndarray:
    return np.full(n, np.nan, dtype=np.float32)


def test_every_example_is_covered():
    from pathlib import Path

    folder = Path(__file__).resolve().parents[3] / "examples" / "simt"
    assert sorted(p.stem for p in folder.glob("*.mlir")) == sorted(EXAMPLE_NAMES)


@pytest.mark.parametrize("n", [1024, 1000])
def test_vecadd(example, rng, n):
    a, b = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    backing = nan(n + 77)  # the slice is a view: nothing past its end may be touched
    out = backing[:n]
    run_simt_kernel(example("vecadd"), "vecadd", (4, 1, 1), (256, 1, 1), [a, b, out])
    assert np.array_equal(out, a + b)
    assert np.isnan(backing[n:]).all()


@pytest.mark.parametrize("n", [4096, 4099, 3])
def test_vecadd_vec4(example, rng, n):
    """Four elements a thread; the ragged last chunk is masked, nothing past the end is touched."""
    a, b = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    backing = nan(n + 9)
    out = backing[:n]
    blocks = -(-n // 1024)
    run_simt_kernel(
        example("vecadd_vec4"), "vecadd_vec4", (blocks, 1, 1), (256, 1, 1), [a, b, out, n]
    )
    assert np.array_equal(out, a + b)
    assert np.isnan(backing[n:]).all()


def test_vecadd_grid_short_of_the_data_leaves_the_rest_poisoned(example, rng):
    n = 1000
    a, b, out = (
        rng.standard_normal(n, dtype=np.float32),
        rng.standard_normal(n, dtype=np.float32),
        nan(n),
    )
    run_simt_kernel(example("vecadd"), "vecadd", (2, 1, 1), (256, 1, 1), [a, b, out])
    assert np.array_equal(out[:512], a[:512] + b[:512])
    assert np.isnan(out[512:]).all()


def test_kernels_are_found_among_host_functions(kernel, rng):
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "examples" / "simt" / "vecadd.mlir").read_text()
    snippet = text.split("// doc:begin vecadd", 1)[1].split("// doc:end", 1)[0]
    host = "  func.func @helper() {\n    func.return\n  }\n"
    module = kernel(host + snippet + host.replace("@helper", "@other"))
    n = 300
    a, b, out = (
        rng.standard_normal(n, dtype=np.float32),
        rng.standard_normal(n, dtype=np.float32),
        nan(n),
    )
    run_simt_kernel(module, "vecadd", (2, 1, 1), (256, 1, 1), [a, b, out])
    assert np.array_equal(out, a + b)


def test_vecadd_unchecked(example, rng):
    n = 1000
    a, b = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    out = nan(n + 5)
    run_simt_kernel(
        example("vecadd_unchecked"), "vecadd_unchecked", (4, 1, 1), (256, 1, 1), [a, b, out, n]
    )
    assert np.array_equal(out[:n], a + b)
    assert np.isnan(out[n:]).all()


def test_saxpy_in_place(example, rng):
    n = 1000
    alpha = np.float32(rng.standard_normal())
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    expected = alpha * x + y
    run_simt_kernel(example("saxpy"), "saxpy", (4, 1, 1), (256, 1, 1), [alpha, x, y])
    assert np.array_equal(y, expected)


def test_neighbour(example, rng):
    n = 1000
    x, out = rng.standard_normal(n, dtype=np.float32), nan(n)
    run_simt_kernel(example("neighbour"), "neighbour", (4, 1, 1), (256, 1, 1), [x, out])
    padded = np.append(x, np.float32(0))
    assert np.array_equal(out, padded[:-1] + padded[1:])


@pytest.mark.parametrize(("rows", "cols", "grid"), [(32, 32, (1, 1, 1)), (40, 24, (2, 1, 1))])
def test_transpose(example, rng, rows, cols, grid):
    a = rng.standard_normal((rows, cols), dtype=np.float32)
    out = nan(rows * cols)
    run_simt_kernel(example("transpose"), "transpose", grid, (32, 32, 1), [a, out, rows, cols])
    assert np.array_equal(out.reshape(cols, rows), a.T)


def sgemm_reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C[i, j] = sum over p in order of a[i, p] * b[p, j], each step rounded to float32."""
    acc = np.zeros((a.shape[0], b.shape[1]), dtype=np.float32)
    for p in range(a.shape[1]):
        acc = acc + a[:, p : p + 1] * b[p : p + 1, :]
    return acc


@pytest.mark.parametrize("name", ["sgemm_naive", "sgemm_tiled"])
@pytest.mark.parametrize(("m", "n", "k"), [(32, 32, 32), (20, 24, 18)])
def test_sgemm(example, rng, name, m, n, k):
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    c = nan(m * n)
    grid = (-(-n // 16), -(-m // 16), 1)
    run_simt_kernel(example(name), name, grid, (16, 16, 1), [a, b, c, m, n, k])
    assert np.array_equal(c.reshape(m, n), sgemm_reference(a, b))
    np.testing.assert_allclose(c.reshape(m, n), a @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(("m", "n", "k"), [(130, 140, 37), (128, 128, 32), (1, 200, 5)])
def test_sgemm_micro(example, rng, m, n, k):
    """The register-tiled SGEMM: 128 x 128 tiles, 8 x 8 outputs a thread, double-buffered
    async copies; against NumPy in f64 (f32 fused multiply-adds in k order)."""
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    c = nan(m * n)
    grid = (-(-m // 128), -(-n // 128), 1)
    run_simt_kernel(example("sgemm_micro"), "sgemm_micro", grid, (256, 1, 1), [a, b, c, m, n, k])
    np.testing.assert_allclose(
        c.reshape(m, n), a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5 * np.sqrt(k)
    )


def test_warp_reduce(example, rng):
    n = 1000
    x = rng.standard_normal(n, dtype=np.float32)
    out = nan(40)  # 32 warps in the grid; the last 8 elements have no warp
    run_simt_kernel(example("warp_reduce"), "warp_reduce", (4, 1, 1), (256, 1, 1), [x, out])
    v = np.zeros(1024, dtype=np.float32)
    v[:n] = x
    v = v.reshape(32, 32)
    lanes = np.arange(32)
    for offset in (16, 8, 4, 2, 1):  # the butterfly, as each lane computes it
        v = v + v[:, lanes ^ offset]
    assert np.array_equal(out[:32], v[:, 0])
    assert np.isnan(out[32:]).all()


def test_block_reduce(example, rng):
    n = 1000
    x = rng.standard_normal(n, dtype=np.float32)
    total = np.array([1.5], dtype=np.float32)
    run_simt_kernel(example("block_reduce"), "block_reduce", (4, 1, 1), (256, 1, 1), [x, total])
    tiles = np.zeros(1024, dtype=np.float32)
    tiles[:n] = x
    tiles = tiles.reshape(4, 256)
    for stride in (128, 64, 32, 16, 8, 4, 2, 1):
        tiles[:, :stride] = tiles[:, :stride] + tiles[:, stride : 2 * stride]
    expected = np.float32(1.5)
    for block_total in tiles[:, 0]:  # the interpreter runs blocks in order
        expected = np.float32(expected + block_total)
    assert total[0] == expected
    assert abs(float(total[0]) - (1.5 + float(x.astype(np.float64).sum()))) < 1e-3


@pytest.mark.parametrize("n, blocks", [(9001, 3), (100, 5), (0, 2)])
def test_block_reduce_gridstride(example, rng, n, blocks):
    """Any grid covers the array: blocks stride over it (more blocks than chunks too), the ragged
    last chunk is padded with 0, and every block adds its total to what was there."""
    x = rng.standard_normal(n, dtype=np.float32)
    total = np.array([1.5], dtype=np.float32)
    run_simt_kernel(
        example("block_reduce_gridstride"),
        "block_reduce_gridstride",
        (blocks, 1, 1),
        (256, 1, 1),
        [x, total],
    )
    assert abs(float(total[0]) - (1.5 + float(x.astype(np.float64).sum()))) < 1e-3


def test_histogram_counts_exactly(example, rng):
    n = 1000
    values = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    bins = np.zeros(10, dtype=np.int32)
    run_simt_kernel(example("histogram"), "histogram", (4, 1, 1), (256, 1, 1), [values, bins])
    expected = np.bincount(values.astype(np.uint32) % 10, minlength=10)
    assert bins.tolist() == expected.tolist()
    assert bins.sum() == n


def test_gcd_while_loop(example, rng):
    """scf.while with a data-dependent trip count; zeros end the loop at once (gcd(a, 0) = a)."""
    n = 1000
    a = rng.integers(0, 2**31, n, dtype=np.int64).astype(np.int32)
    b = rng.integers(0, 2**31, n, dtype=np.int64).astype(np.int32)
    a[:3], b[:3] = [12, 0, 0], [0, 18, 0]
    out = np.full(n, -7, dtype=np.int32)
    run_simt_kernel(example("gcd"), "gcd", (4, 1, 1), (256, 1, 1), [a, b, out])
    assert out.tolist() == np.gcd(a, b).tolist()
    assert out[:3].tolist() == [12, 18, 0]


def test_alu_index_switch(example, rng):
    """Every case and the default, negative codes (sign-extended to index) included."""
    n = 1000
    a, b = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    op = rng.integers(-3, 6, n).astype(np.int32)
    out = nan(n)
    run_simt_kernel(example("alu"), "alu", (4, 1, 1), (256, 1, 1), [a, b, op, out])
    want = np.select([op == 0, op == 1, op == 2], [a + b, a - b, a * b], np.maximum(a, b))
    assert np.array_equal(out, want)


def test_piecewise_cf_switch(example, rng):
    n = 1000
    x = rng.standard_normal(n, dtype=np.float32)
    sel = rng.integers(-2, 8, n).astype(np.int32)
    backing = nan(n + 5)
    out = backing[:n]
    run_simt_kernel(example("piecewise"), "piecewise", (4, 1, 1), (256, 1, 1), [x, sel, out])
    want = np.select([sel == 0, sel == 1, sel == 5], [x * x, x + 1, x], np.float32(0))
    assert np.array_equal(out, want)
    assert np.isnan(backing[n:]).all()
