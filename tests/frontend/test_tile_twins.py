"""Every tile MLIR example (examples/tile/*.mlir) has a Python twin here. The twin's IR holds the
same ops with the same types as the MLIR kernel's, passes the same checks (the op verifiers,
then `convert-tile-to-simt` with its verify-disjoint when compiled, giving the same launch map),
and computes the same results on the interpreter from the same random inputs."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from compiled import compiled

import ferrox
from ferrox import tile
from ferrox.dialects import tile as tile_dialect
from ferrox.driver.interpreter.tile_kernel import run_tile_kernel
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.tile import Constexpr, Partition, Tensor, bf16, f32, i32, index

ROOT = Path(__file__).resolve().parents[2]


# Tile shapes below name the kernels' Constexpr parameters, which linters cannot see.
# ruff: noqa: F821


@tile.kernel
def vector_add(z: Partition[f32, 1024], x: Tensor[f32, None], y: Tensor[f32, None]):
    tile.store(tile.load_like(x, z) + tile.load_like(y, z), z)


@tile.kernel
def saxpy(out: Partition[f32, 1024], alpha: f32, x: Tensor[f32, None], y: Tensor[f32, None]):
    a = tile.full(1024, alpha)
    tile.store(a * tile.load_like(x, out) + tile.load_like(y, out), out)


@tile.kernel
def row_sum(out: Partition[f32, 16], x: Tensor[f32, (None, None)]):
    i = tile.block_id(0)
    total = tile.zeros(16)
    for j in range(tile.cdiv(tile.dim(x, 1), 128)):
        total = total + tile.sum(tile.load(x, (i, j), (16, 128)), axis=1)
    tile.store(total, out)


@tile.kernel
def softmax(out: Partition[f32, (4, 1024)], x: Tensor[f32, (None, None)]):
    t = tile.load_like(x, out, padding="neg_inf")
    shifted = t - tile.broadcast(t.max(axis=1, keepdims=True), t.shape)
    e = tile.exp(shifted)
    tile.store(e / tile.broadcast(e.sum(axis=1, keepdims=True), t.shape), out)


@tile.kernel
def layernorm(
    out: Partition[f32, (4, 1024)],
    x: Tensor[f32, (None, None)],
    gamma: Tensor[f32, None],
    beta: Tensor[f32, None],
    eps: f32,
):
    t = tile.load_like(x, out)
    n32 = i32(tile.dim(x, 1))
    count = tile.full((4, 1), f32(n32))
    mean = tile.sum(t, 1, keepdims=True) / count
    diff = t - tile.broadcast(mean, (4, 1024))
    mask = tile.broadcast(tile.iota(1024) < n32, (4, 1024))
    centered = tile.where(mask, diff, tile.zeros((4, 1024)))
    var = tile.sum(centered * centered, 1, keepdims=True) / count
    normed = centered * tile.broadcast(tile.rsqrt(var + eps), (4, 1024))
    j = tile.block_id(1)
    g = tile.broadcast(tile.load(gamma, j, 1024), (4, 1024))
    b = tile.broadcast(tile.load(beta, j, 1024), (4, 1024))
    tile.store(normed * g + b, out)


@tile.kernel
def transpose(out: Partition[f32, (32, 64)], x: Tensor[f32, (None, None)]):
    i = tile.block_id(0)
    j = tile.block_id(1)
    tile.store(tile.load(x, (j, i), (64, 32)).T, out)


@tile.kernel
def matmul_f32(
    c: Partition[f32, (BM, BN)],
    a: Tensor[DT, (None, None)],
    b: Tensor[DT, (None, None)],
    DT: Constexpr = f32,
    BM: Constexpr = 64,
    BN: Constexpr = 64,
    BK: Constexpr = 32,
):
    i = tile.block_id(0)
    j = tile.block_id(1)
    k = tile.dim(a, 1)
    acc = tile.zeros((BM, BN))
    for kk in range(tile.cdiv(k, BK)):
        x = tile.load(a, (i, kk), (BM, BK))
        y = tile.load(b, (kk, j), (BK, BN))
        acc = tile.mma(x, y, acc)
    tile.store(acc, c)


# attention.mlir is causal with a head dim of 64 (examples/python/tile_attention.py: either).
@tile.kernel
def attention(
    out: Partition[f32, (1, 64, 64)],
    q: Tensor[bf16, (None, None, 64)],
    k: Tensor[bf16, (None, None, 64)],
    v: Tensor[bf16, (None, None, 64)],
):
    head = tile.block_id(0)
    i = tile.block_id(1)
    seq = tile.dim(k, 1)
    c0, c1, c64 = index(0), index(1), index(64)  # shared index constants, as the MLIR's
    qt = tile.reshape(tile.load(q, (head, i, c0), (1, 64, 64)), (64, 64))
    neg_inf = tile.full((64, 64), float("-inf"))
    zero = tile.zeros((64, 64))
    scale = tile.full((64, 64), 0.125)
    row_max = tile.full((64, 1), float("-inf"))
    row_sum = tile.zeros((64, 1))
    iota = tile.iota(64)
    rows = tile.broadcast(tile.reshape(iota + tile.full(64, i32(i * c64)), (64, 1)), (64, 64))
    end = tile.broadcast(tile.full((1, 1), i32(seq)), (64, 64))
    acc = zero
    for j in range(c0, min(tile.cdiv(seq, c64), i + c1), c1):  # key blocks up to the diagonal
        kt = tile.reshape(tile.load(k, (head, j, c0), (1, 64, 64)), (64, 64))
        vt = tile.reshape(tile.load(v, (head, j, c0), (1, 64, 64)), (64, 64))
        s = tile.mma(qt, tile.transpose(kt), zero) * scale
        cols = tile.broadcast(tile.reshape(iota + tile.full(64, i32(j * c64)), (1, 64)), (64, 64))
        s = tile.where(cols < end, s, neg_inf)  # keys past the end
        s = tile.where(cols <= rows, s, neg_inf)  # keys after the query
        new_max = tile.maximum(row_max, tile.max(s, axis=1, keepdims=True))
        p = tile.exp(s - tile.broadcast(new_max, (64, 64)))
        rescale = tile.exp(row_max - new_max)
        row_sum = row_sum * rescale + tile.sum(p, axis=1, keepdims=True)
        acc = tile.mma(bf16(p), vt, acc * tile.broadcast(rescale, (64, 64)))
        row_max = new_max
    tile.store(tile.reshape(acc / tile.broadcast(row_sum, (64, 64)), (1, 64, 64)), out)


# matmul_bf16.mlir's twin is the same Python kernel over bf16 tensors.
TWINS = {
    "vector_add": (vector_add, {}),
    "saxpy": (saxpy, {}),
    "row_sum": (row_sum, {}),
    "softmax": (softmax, {}),
    "layernorm": (layernorm, {}),
    "transpose": (transpose, {}),
    "matmul_f32": (matmul_f32, {"BM": 128, "BN": 128, "BK": 16}),
    "matmul_bf16": (matmul_f32, {"DT": bf16, "BM": 128, "BN": 256, "BK": 64}),
    "attention": (attention, {}),
}


def mlir_module(name: str):
    path = ROOT / "examples" / "tile" / f"{name}.mlir"
    return parse_module(make_context(), path.read_text(), str(path))


def kernel_of(module, name: str) -> tile_dialect.KernelOp:
    (op,) = [op for op in module.walk() if isinstance(op, tile_dialect.KernelOp)]
    assert op.sym_name.data == name
    return op


def ops_of(kernel: tile_dialect.KernelOp) -> Counter:
    """The kernel's ops as (name, operand types, result types), counted: the same computation
    up to the order of independent ops and SSA names."""
    return Counter(
        (
            op.name,
            tuple(str(o.type) for o in op.operands),
            tuple(str(r.type) for r in op.results),
            str(op.properties.get("padding", "")),
            str(op.properties.get("axis", "")),
            str(op.properties.get("predicate", "")),
        )
        for op in kernel.walk()
        if op is not kernel
    )


def twin_module(name: str):
    fn, consts = TWINS[name]
    module = fn.module(**consts)
    kernel = kernel_of(module, fn.name)
    kernel.sym_name = type(kernel.sym_name)(name)  # the MLIR example's symbol
    return module


@pytest.mark.parametrize("name", sorted(TWINS))
def test_twin_has_the_mlir_kernels_signature_and_ops(name):
    theirs = kernel_of(mlir_module(name), name)
    ours = kernel_of(twin_module(name), name)
    assert [a.type for a in ours.args] == [a.type for a in theirs.args]
    assert ops_of(ours) == ops_of(theirs)


def _inputs(name: str, rng: np.random.Generator) -> list:
    """Ragged sizes: no dimension is a multiple of its tile."""
    if name in ("vector_add", "saxpy"):
        n = 3001
        x, y = (rng.uniform(-1, 1, n).astype(np.float32) for _ in range(2))
        out = np.full(n, np.nan, np.float32)
        return [out, 2.5, x, y] if name == "saxpy" else [out, x, y]
    if name == "row_sum":
        x = rng.uniform(-1, 1, (37, 300)).astype(np.float32)
        return [np.full(37, np.nan, np.float32), x]
    if name in ("softmax", "layernorm"):
        x = rng.normal(1.0, 2.0, (9, 1000)).astype(np.float32)
        out = np.full((9, 1000), np.nan, np.float32)
        if name == "softmax":
            return [out, x]
        gamma = rng.uniform(0.5, 1.5, 1000).astype(np.float32)
        beta = rng.uniform(-0.5, 0.5, 1000).astype(np.float32)
        return [out, x, gamma, beta, 1e-5]
    if name == "transpose":
        x = rng.uniform(-1, 1, (70, 100)).astype(np.float32)
        return [np.full((100, 70), np.nan, np.float32), x]
    if name == "attention":  # bf16 q, k, v [heads, seq, 64] held in f32 arrays; seq ragged
        q, k, v = (
            (rng.uniform(-1, 1, (2, 100, 64)).astype(np.float32).view(np.uint32) & 0xFFFF0000).view(
                np.float32
            )
            for _ in range(3)
        )
        return [np.full((2, 100, 64), np.nan, np.float32), q, k, v]
    a = rng.uniform(-1, 1, (70, 40)).astype(np.float32)
    b = rng.uniform(-1, 1, (40, 65)).astype(np.float32)
    if name == "matmul_bf16":  # bf16 values, held in f32 arrays (the interpreter's fallback)
        a = (a.view(np.uint32) & 0xFFFF0000).view(np.float32)
        b = (b.view(np.uint32) & 0xFFFF0000).view(np.float32)
    return [np.full((70, 65), np.nan, np.float32), a, b]


@pytest.mark.parametrize("name", sorted(TWINS))
def test_twin_computes_what_the_mlir_kernel_computes(name):
    seed = np.random.default_rng().integers(1 << 31)
    ours = _inputs(name, np.random.default_rng(seed))
    theirs = _inputs(name, np.random.default_rng(seed))
    run_tile_kernel(twin_module(name), name, ours)
    run_tile_kernel(mlir_module(name), name, theirs)
    assert not np.isnan(ours[0]).any()  # every element written
    assert np.array_equal(ours[0], theirs[0])


@pytest.mark.parametrize("name", ["vector_add", "layernorm", "matmul_bf16"])
def test_twin_compiles_to_the_mlir_kernels_launch(name):
    """Through ferrox's whole pipeline (the tile lowering, verify-disjoint on its result, down
    to the llvm dialect; NVPTX and ptxas left out, `ptx=False`: the examples' own tests
    assemble their PTX, and on the bf16 GEMM they took half of this test's time): the same
    parameters and the same map from the tile launch onto the lowered kernel."""
    ours = ferrox.compile(twin_module(name), cache=False, ptx=False).kernels[name]
    # the example's sm_90 compile that tests/targets/test_compile_stages.py reads too (one
    # compile for the test run: tests/support/compiled.py)
    theirs = compiled(ROOT / "examples" / "tile" / f"{name}.mlir", "sm_90").kernels[name]
    assert ours.params == theirs.params
    assert ours.tile == theirs.tile
    assert ours.contract == theirs.contract
