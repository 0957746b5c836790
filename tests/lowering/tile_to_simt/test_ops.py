"""Each tile op family, lowered and run on the interpreter against NumPy: the semantics of
docs/dialects/tile.md (padding, masking, NaN rules, astype rounding and saturation, reductions
with and without keepdims, shape ops, mma on f16, control flow), on ragged sizes."""

from __future__ import annotations

import numpy as np
import pytest

from ferrox.passes.verify_disjoint import collect

rng = np.random.default_rng(11)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def poisoned(*shape, dtype=np.float32):
    if np.dtype(dtype).kind == "f":
        return np.full(shape, np.nan, dtype)
    return np.full(shape, -77, dtype)


@pytest.fixture
def run(lower, interpreter, find_kernel):
    """`run(text, name, args, threads=0, elems=0)`: lower, check verify-disjoint, launch."""

    def go(text: str, name: str, args: list, threads: int = 0, elems: int = 0):
        module = lower(text, threads, elems)
        assert collect(find_kernel(module, name)) == []
        interpreter(module, name, args)
        return args

    return go


UNARY = """
tile.kernel @k(%out: !tile.partition<f32, [8, 32]>, %x: !tile.tensor<f32, [?, ?]>) {
  %t = tile.load_like %x, %out : !tile.tensor<f32, [?, ?]>, !tile.partition<f32, [8, 32]> -> !tile.tile<f32, [8, 32]>
  %r = tile.OP %t : !tile.tile<f32, [8, 32]>
  tile.store %r, %out : !tile.tile<f32, [8, 32]>, !tile.partition<f32, [8, 32]>
  tile.return
}
"""


@pytest.mark.parametrize(
    "op, ref",
    [
        ("neg", np.negative),
        ("exp", np.exp),
        ("exp2", np.exp2),
        ("log", np.log),
        ("sqrt", np.sqrt),
        ("rsqrt", lambda x: 1 / np.sqrt(x)),
        ("tanh", np.tanh),
    ],
)
def test_unary(run, op, ref):
    x = np.abs(f32(13, 45)) + np.float32(0.01) if op in ("log", "sqrt", "rsqrt") else f32(13, 45)
    (out, _) = run(UNARY.replace("OP", op), "k", [poisoned(13, 45), x])
    np.testing.assert_allclose(out, ref(x), rtol=2e-6, atol=1e-6)


BINARY = """
tile.kernel @k(%out: !tile.partition<T, [64]>, %x: !tile.tensor<T, [?]>, %y: !tile.tensor<T, [?]>) {
  %a = tile.load_like %x, %out : !tile.tensor<T, [?]>, !tile.partition<T, [64]> -> !tile.tile<T, [64]>
  %b = tile.load_like %y, %out : !tile.tensor<T, [?]>, !tile.partition<T, [64]> -> !tile.tile<T, [64]>
  %r = tile.OP %a, %b : !tile.tile<T, [64]>
  tile.store %r, %out : !tile.tile<T, [64]>, !tile.partition<T, [64]>
  tile.return
}
"""

NAN_PAIRS = np.array([np.nan, 1.0, -0.0, 0.0, np.inf, -np.inf, 3.0], np.float32)


@pytest.mark.parametrize(
    "op, ref",
    [
        ("add", np.add),
        ("sub", np.subtract),
        ("mul", np.multiply),
        ("div", np.divide),
        ("maximum", np.maximum),
        ("minimum", np.minimum),
    ],
)
def test_binary_f32(run, op, ref):
    x, y = f32(150), f32(150)
    x[:7], y[:7] = NAN_PAIRS, NAN_PAIRS[::-1]
    (out, _, _) = run(BINARY.replace("OP", op).replace("T", "f32"), "k", [poisoned(150), x, y])
    with np.errstate(all="ignore"):
        want = ref(x, y)
    np.testing.assert_array_equal(out, want)
    if op in ("maximum", "minimum"):  # -0.0 < +0.0, as arith.maximumf
        assert np.signbit(out[2:4]).tolist() == np.signbit(want[2:4]).tolist()


@pytest.mark.parametrize(
    "op, ref",
    [
        ("add", np.add),
        ("mul", np.multiply),
        ("maximum", np.maximum),
        ("minimum", np.minimum),
        ("sub", np.subtract),
    ],
)
def test_binary_i32_wraps(run, op, ref):
    x = rng.integers(-(2**31), 2**31, 100, dtype=np.int64).astype(np.int32)
    y = rng.integers(-(2**31), 2**31, 100, dtype=np.int64).astype(np.int32)
    (out, _, _) = run(
        BINARY.replace("OP", op).replace("T", "i32"), "k", [poisoned(100, dtype=np.int32), x, y]
    )
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(out, ref(x, y))


CMP = """
tile.kernel @k(%out: !tile.partition<f32, [32]>, %x: !tile.tensor<f32, [?]>, %y: !tile.tensor<f32, [?]>) {
  %a = tile.load_like %x, %out : !tile.tensor<f32, [?]>, !tile.partition<f32, [32]> -> !tile.tile<f32, [32]>
  %b = tile.load_like %y, %out : !tile.tensor<f32, [?]>, !tile.partition<f32, [32]> -> !tile.tile<f32, [32]>
  %c = tile.cmp P, %a, %b : !tile.tile<f32, [32]> -> !tile.tile<i1, [32]>
  %one = tile.astype %c : !tile.tile<i1, [32]> -> !tile.tile<f32, [32]>
  %r = tile.select %c, %a, %one : !tile.tile<i1, [32]>, !tile.tile<f32, [32]>
  tile.store %r, %out : !tile.tile<f32, [32]>, !tile.partition<f32, [32]>
  tile.return
}
"""


@pytest.mark.parametrize(
    "pred, ref",
    [
        ("eq", np.equal),
        ("ne", np.not_equal),
        ("lt", np.less),
        ("le", np.less_equal),
        ("gt", np.greater),
        ("ge", np.greater_equal),
    ],
)
def test_compare_and_select(run, pred, ref):
    x = np.array([np.nan, 1, 2, np.nan, -1, 5, 0, -0.0] * 5, np.float32)
    y = np.array([np.nan, 1, 1, 0, 3, 5, -0.0, 0] * 5, np.float32)
    (out, _, _) = run(CMP.replace("P", pred), "k", [poisoned(40), x, y])
    c = ref(x, y)
    np.testing.assert_array_equal(out, np.where(c, x, c.astype(np.float32)))


ASTYPE = """
tile.kernel @k(%out: !tile.partition<D, [16]>, %x: !tile.tensor<S, [?]>) {
  %a = tile.load_like %x, %out : !tile.tensor<S, [?]>, !tile.partition<D, [16]> -> !tile.tile<S, [16]>
  %r = tile.astype %a : !tile.tile<S, [16]> -> !tile.tile<D, [16]>
  tile.store %r, %out : !tile.tile<D, [16]>, !tile.partition<D, [16]>
  tile.return
}
"""

with np.errstate(over="ignore"):
    SPECIAL_F16 = np.array(
        [
            np.nan,
            np.inf,
            -np.inf,
            3e9,
            -3e9,
            2.9,
            -2.9,
            0.5,
            -0.5,
            127.5,
            -128.9,
            300.0,
            65504.0,
            1e-8,
            1.0,
            0.0,
        ],
        np.float32,
    ).astype(np.float16)
SPECIAL = np.array(
    [
        np.nan,
        np.inf,
        -np.inf,
        3e9,
        -3e9,
        2.9,
        -2.9,
        0.5,
        -0.5,
        127.5,
        -128.9,
        300.0,
        65504.0,
        1e-8,
        1.0,
        0.0,
    ],
    np.float32,
)


def _saturate(x, dtype):
    info = np.iinfo(dtype)
    with np.errstate(all="ignore"):
        t = np.trunc(np.nan_to_num(x, nan=0.0, posinf=info.max, neginf=info.min).astype(np.float64))
    return np.clip(t, info.min, info.max).astype(dtype)


@pytest.mark.parametrize(
    "src, dst, x, want",
    [
        ("f32", "i32", SPECIAL, _saturate(SPECIAL, np.int32)),
        ("f32", "i8", SPECIAL, _saturate(SPECIAL, np.int8)),
        ("f32", "f16", SPECIAL, SPECIAL_F16),
        ("f16", "f32", SPECIAL_F16, SPECIAL_F16.astype(np.float32)),
        ("f32", "f64", SPECIAL, SPECIAL.astype(np.float64)),
        (
            "i32",
            "f32",
            np.arange(-8, 8, dtype=np.int32) * 123457,
            (np.arange(-8, 8) * 123457).astype(np.float32),
        ),
        (
            "i32",
            "i8",
            np.arange(-8, 8, dtype=np.int32) * 100,
            (np.arange(-8, 8) * 100).astype(np.int8),
        ),
        (
            "i8",
            "i32",
            np.arange(-8, 8, dtype=np.int8) * 16,
            (np.arange(-8, 8) * 16).astype(np.int8).astype(np.int32),
        ),
    ],
)
def test_astype(run, src, dst, x, want):
    text = ASTYPE.replace("S", src).replace("D", dst)
    (out, _) = run(text, "k", [poisoned(16, dtype=want.dtype), x])
    np.testing.assert_array_equal(out, want)


REDUCE = """
tile.kernel @k(%out: !tile.partition<@T@, @OUT@>, %x: !tile.tensor<@T@, [?, ?]>) {
  %z = arith.constant 0 : index
  %t = tile.load %x[%z, %z] @PAD@ : !tile.tensor<@T@, [?, ?]> -> !tile.tile<@T@, [16, 32]>
  %r = tile.reduce_@OP@ %t axis = @AXIS@ @KEEP@ : !tile.tile<@T@, [16, 32]> -> !tile.tile<@T@, @RES@>
  %s = tile.reshape %r : !tile.tile<@T@, @RES@> -> !tile.tile<@T@, @OUT@>
  tile.store %s, %out : !tile.tile<@T@, @OUT@>, !tile.partition<@T@, @OUT@>
  tile.return
}
"""


def fill(template: str, **values) -> str:
    for key, value in values.items():
        template = template.replace(f"@{key}@", str(value))
    return template


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize(
    "op, dtype, pad",
    [
        ("sum", "f32", ""),
        ("prod", "f32", ""),
        ("max", "f32", "padding = neg_inf"),
        ("min", "i32", ""),
        ("max", "i32", ""),
        ("sum", "f64", ""),
        ("sum", "i64", ""),
    ],
)
def test_reductions(run, op, dtype, pad, axis, keep):
    n = 32 if axis == 0 else 16
    res = "[1, 32]" if (keep and axis == 0) else "[16, 1]" if keep else f"[{n}]"
    text = fill(
        REDUCE,
        T=dtype,
        OUT=f"[{n}]",
        RES=res,
        OP=op,
        AXIS=axis,
        KEEP="keepdims" if keep else "",
        PAD=pad,
    )
    np_dtype = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64}[dtype]
    rows, cols = 11, 29  # ragged: the tile [16, 32] is padded
    if np_dtype in (np.int32, np.int64):
        x = rng.integers(-1000, 1000, (rows, cols)).astype(np_dtype)
    else:
        x = (
            rng.standard_normal((rows, cols)) * (0.1 if op == "prod" else 1)
            + (1 if op == "prod" else 0)
        ).astype(np_dtype)
    padded = np.full((16, 32), -np.inf if pad else 0, np_dtype)
    padded[:rows, :cols] = x
    want = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}[op](padded, axis=axis)
    (out, _) = run(text, "k", [poisoned(n, dtype=np_dtype), x])
    tol = 1e-5 if np_dtype == np.float32 else 1e-12
    # A sum that cancels has a small result but the rounding error of its terms: bound the error
    # by the sum of the magnitudes too (the data depend on what ran before on the worker).
    scale = np.sum(np.abs(padded), axis=axis) if op == "sum" else 0
    np.testing.assert_allclose(out, want, rtol=tol, atol=tol * np.max(scale))


SHAPES = """
tile.kernel @k(%out: !tile.partition<f32, [2, 4, 16]>, %x: !tile.tensor<f32, [?, ?, ?]>, %v: !tile.tensor<f32, [?]>) {
  %t = tile.load_like %x, %out : !tile.tensor<f32, [?, ?, ?]>, !tile.partition<f32, [2, 4, 16]> -> !tile.tile<f32, [2, 4, 16]>
  %p = tile.permute %t [2, 0, 1] : !tile.tile<f32, [2, 4, 16]> -> !tile.tile<f32, [16, 2, 4]>
  %f = tile.reshape %p : !tile.tile<f32, [16, 2, 4]> -> !tile.tile<f32, [16, 8]>
  %tt = tile.transpose %f : !tile.tile<f32, [16, 8]> -> !tile.tile<f32, [8, 16]>
  %back = tile.reshape %tt : !tile.tile<f32, [8, 16]> -> !tile.tile<f32, [2, 4, 16]>
  %z = arith.constant 0 : index
  %row = tile.load %v[%z] : !tile.tensor<f32, [?]> -> !tile.tile<f32, [16]>
  %rows = tile.broadcast %row : !tile.tile<f32, [16]> -> !tile.tile<f32, [2, 4, 16]>
  %col = tile.reduce_max %t axis = 2 keepdims : !tile.tile<f32, [2, 4, 16]> -> !tile.tile<f32, [2, 4, 1]>
  %cols = tile.broadcast %col : !tile.tile<f32, [2, 4, 1]> -> !tile.tile<f32, [2, 4, 16]>
  %s = tile.add %back, %rows : !tile.tile<f32, [2, 4, 16]>
  %r = tile.sub %s, %cols : !tile.tile<f32, [2, 4, 16]>
  tile.store %r, %out : !tile.tile<f32, [2, 4, 16]>, !tile.partition<f32, [2, 4, 16]>
  tile.return
}
"""


@pytest.mark.parametrize("threads", [32, 64])
def test_shapes_in_three_dims(run, threads):
    x, v = f32(3, 5, 20), f32(16)
    out = poisoned(3, 5, 20)
    run(SHAPES, "k", [out, x, v], threads=threads)
    tiles = np.full((4, 8, 32), np.nan, np.float32)
    tiles[:3, :5, :20] = x
    tiles = np.nan_to_num(tiles, nan=0.0)
    want = np.empty_like(tiles)
    for b in np.ndindex(2, 2, 2):
        t = tiles[b[0] * 2 : b[0] * 2 + 2, b[1] * 4 : b[1] * 4 + 4, b[2] * 16 : b[2] * 16 + 16]
        back = np.transpose(t, (2, 0, 1)).reshape(16, 8).T.reshape(2, 4, 16)
        want[b[0] * 2 : b[0] * 2 + 2, b[1] * 4 : b[1] * 4 + 4, b[2] * 16 : b[2] * 16 + 16] = (
            back + v - t.max(2, keepdims=True)
        )
    np.testing.assert_allclose(out, want[:3, :5, :20], rtol=1e-6)


CREATION = """
tile.kernel @k(%out: !tile.partition<f32, [4, 8]>, %o2: !tile.partition<i32, [4, 8]>, %s: f32) {
  %c = tile.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [0.5, 0.25, 0.0, -1.0, -2.0, -3.0, -4.0, -5.0], [100.0, 200.0, 300.0, 400.0, 500.0, 600.0, 700.0, 800.0]]> : !tile.tile<f32, [4, 8]>
  %i = tile.iota : !tile.tile<f32, [8]>
  %ib = tile.broadcast %i : !tile.tile<f32, [8]> -> !tile.tile<f32, [4, 8]>
  %full = tile.full %s : f32 -> !tile.tile<f32, [4, 8]>
  %a = tile.add %c, %ib : !tile.tile<f32, [4, 8]>
  %r = tile.mul %a, %full : !tile.tile<f32, [4, 8]>
  %total = tile.reduce_sum %r axis = 1 : !tile.tile<f32, [4, 8]> -> !tile.tile<f32, [4]>
  %all = tile.reduce_sum %total axis = 0 : !tile.tile<f32, [4]> -> !tile.tile<f32, []>
  %x = tile.extract %all : !tile.tile<f32, []> -> f32
  %xi = arith.fptosi %x : f32 to i32
  %ii = tile.iota : !tile.tile<i32, [8]>
  %iib = tile.broadcast %ii : !tile.tile<i32, [8]> -> !tile.tile<i32, [4, 8]>
  %xf = tile.full %xi : i32 -> !tile.tile<i32, [4, 8]>
  %o = tile.add %iib, %xf : !tile.tile<i32, [4, 8]>
  tile.store %r, %out : !tile.tile<f32, [4, 8]>, !tile.partition<f32, [4, 8]>
  tile.store %o, %o2 : !tile.tile<i32, [4, 8]>, !tile.partition<i32, [4, 8]>
  tile.return
}
"""


def test_creation_extract_and_two_outputs(run):
    c = np.array(
        [
            [1, 2, 3, 4, 5, 6, 7, 8],
            [9, 10, 11, 12, 13, 14, 15, 16],
            [0.5, 0.25, 0, -1, -2, -3, -4, -5],
            [100, 200, 300, 400, 500, 600, 700, 800],
        ],
        np.float32,
    )
    out, o2 = poisoned(4, 8), poisoned(4, 8, dtype=np.int32)
    run(CREATION, "k", [out, o2, np.float32(0.5)])
    r = (c + np.arange(8, dtype=np.float32)) * np.float32(0.5)
    np.testing.assert_array_equal(out, r)
    np.testing.assert_array_equal(
        o2, np.broadcast_to(np.arange(8, dtype=np.int32) + np.int32(r.sum()), (4, 8))
    )


PADDING = """
tile.kernel @k(%out: !tile.partition<f32, [8, 8]>, %x: !tile.tensor<f32, [?, ?]>, %di: index, %dj: index) {
  %i = tile.block_id 0
  %j = tile.block_id 1
  %ii = arith.addi %i, %di : index
  %jj = arith.addi %j, %dj : index
  %t = tile.load %x[%ii, %jj] padding = PAD : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [8, 8]>
  tile.store %t, %out : !tile.tile<f32, [8, 8]>, !tile.partition<f32, [8, 8]>
  tile.return
}
"""


@pytest.mark.parametrize(
    "pad, value", [("zero", 0.0), ("neg_inf", -np.inf), ("pos_inf", np.inf), ("nan", np.nan)]
)
@pytest.mark.parametrize("di, dj", [(0, 0), (1, -1), (-1, 0), (-(2**62), 2**62), (0, 3)])
def test_load_padding_at_any_index(run, pad, value, di, dj):
    x = f32(13, 21)
    out = np.full((20, 20), -5.0, np.float32)
    run(PADDING.replace("PAD", pad), "k", [out, x, di, dj])
    full = np.full((200, 200), value, np.float32)
    want = np.empty((24, 24), np.float32)
    for bi in range(3):
        for bj in range(3):
            ti, tj = bi + di, bj + dj
            block = np.full((8, 8), value, np.float32)
            for e in np.ndindex(8, 8):
                g = (ti * 8 + e[0], tj * 8 + e[1])
                if 0 <= g[0] < 13 and 0 <= g[1] < 21:
                    block[e] = x[g]
            want[bi * 8 : bi * 8 + 8, bj * 8 : bj * 8 + 8] = block
    del full
    np.testing.assert_array_equal(out, want[:20, :20])


CONTROL = """
tile.kernel @k(%out: !tile.partition<f32, [64]>, %x: !tile.tensor<f32, [?]>) {
  %i = tile.block_id 0
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %t = tile.load_like %x, %out : !tile.tensor<f32, [?]>, !tile.partition<f32, [64]> -> !tile.tile<f32, [64]>
  %odd = arith.andi %i, %c1 : index
  %is_odd = arith.cmpi eq, %odd, %c1 : index
  %r = scf.if %is_odd -> (!tile.tile<f32, [64]>) {
    %n = tile.neg %t : !tile.tile<f32, [64]>
    scf.yield %n : !tile.tile<f32, [64]>
  } else {
    scf.yield %t : !tile.tile<f32, [64]>
  }
  %acc = scf.for %k = %c0 to %c3 step %c1 iter_args(%a = %r) -> (!tile.tile<f32, [64]>) {
    %s = tile.add %a, %t : !tile.tile<f32, [64]>
    scf.yield %s : !tile.tile<f32, [64]>
  }
  tile.store %acc, %out : !tile.tile<f32, [64]>, !tile.partition<f32, [64]>
  tile.return
}
"""


def test_control_flow(run):
    x = f32(200)
    out = poisoned(200)
    run(CONTROL, "k", [out, x])
    sign = np.where((np.arange(200) // 64) % 2 == 1, -1, 1).astype(np.float32)
    np.testing.assert_allclose(out, sign * x + 3 * x, rtol=1e-6)


MATMUL_F16 = """
tile.kernel @k(%c: !tile.partition<f32, [32, 16]>, %a: !tile.tensor<f16, [?, ?]>, %b: !tile.tensor<f16, [?, ?]>, %c0t: !tile.tensor<f32, [?, ?]>) {
  %i = tile.block_id 0
  %j = tile.block_id 1
  %k = tile.dim %a, 1 : !tile.tensor<f16, [?, ?]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %kt = arith.ceildivui %k, %c16 : index
  %init = tile.load_like %c0t, %c : !tile.tensor<f32, [?, ?]>, !tile.partition<f32, [32, 16]> -> !tile.tile<f32, [32, 16]>
  %acc = scf.for %kk = %c0 to %kt step %c1 iter_args(%s = %init) -> (!tile.tile<f32, [32, 16]>) {
    %x = tile.load %a[%i, %kk] : !tile.tensor<f16, [?, ?]> -> !tile.tile<f16, [32, 16]>
    %y = tile.load %b[%kk, %j] : !tile.tensor<f16, [?, ?]> -> !tile.tile<f16, [16, 16]>
    %n = tile.mma %x, %y, %s : !tile.tile<f16, [32, 16]>, !tile.tile<f16, [16, 16]>, !tile.tile<f32, [32, 16]>
    scf.yield %n : !tile.tile<f32, [32, 16]>
  }
  tile.store %acc, %c : !tile.tile<f32, [32, 16]>, !tile.partition<f32, [32, 16]>
  tile.return
}
"""


@pytest.mark.parametrize("threads", [32, 128])
def test_mma_f16_with_accumulator(run, threads):
    a = f32(40, 37).astype(np.float16)
    b = f32(37, 20).astype(np.float16)
    c0 = f32(40, 20)
    out = poisoned(40, 20)
    run(MATMUL_F16, "k", [out, a, b, c0], threads=threads)
    want = c0 + a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


BYTES = """
tile.kernel @k(%out: !tile.partition<i8, [4, 64]>, %x: !tile.tensor<i8, [?, ?]>) {
  %t = tile.load_like %x, %out : !tile.tensor<i8, [?, ?]>, !tile.partition<i8, [4, 64]> -> !tile.tile<i8, [4, 64]>
  %r = tile.add %t, %t : !tile.tile<i8, [4, 64]>
  tile.store %r, %out : !tile.tile<i8, [4, 64]>, !tile.partition<i8, [4, 64]>
  tile.return
}
"""


def test_i8_chunks_of_16(run, lower, find_kernel):
    module = lower(BYTES)
    space = find_kernel(module, "k").params[0].type.space
    assert space.chunk.data == 16
    x = rng.integers(-128, 128, (7, 70)).astype(np.int8)
    out = poisoned(7, 70, dtype=np.int8)
    run(BYTES, "k", [out, x])
    np.testing.assert_array_equal(out, (x.astype(np.int32) * 2).astype(np.int8))


@pytest.mark.parametrize("threads", [128, 256])
def test_tensor_core_matmul_at_the_example_size(run, examples_text, threads):
    """The bf16 example's kernel (128 x 256 tiles) on f16 (the interpreter has no bf16 memory):
    the same portable lowering (no chip named: cp.async + mma.sync m16n8k16 fragments), at
    256 accumulators a thread (128 threads, the most a thread may hold) and at 128."""
    start = examples_text.index("tile.kernel @matmul_bf16")
    text = examples_text[start : examples_text.index("// doc:end", start)].replace("bf16", "f16")
    a = f32(70, 50).astype(np.float16)
    b = f32(50, 90).astype(np.float16)
    out = poisoned(70, 90)
    run(text, "matmul_f16", [out, a, b], threads=threads)
    np.testing.assert_allclose(
        out, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-5
    )
