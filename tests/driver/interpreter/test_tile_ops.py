"""Every tile op on random tiles against NumPy, run through real kernels on the interpreter.

`run_op` wraps an op in a one-block kernel: each operand is a tensor loaded whole as `%x0`,
`%x1`, ..., the body defines `%r`, and `%r` is stored to a NaN-poisoned output (i1 results go
out as i8, rank-0 results as a [1] tile), so the value compared is the value the op produced.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ferrox.dialects.tile.types import shape_str
from ferrox.driver.interpreter.tile_kernel import run_tile_kernel
from ferrox.driver.interpreter.tile_ops.dtypes import bf16_bits_round
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.verify import verify_module

NUMPY = {
    "f16": np.float16,
    "bf16": np.float32,
    "f32": np.float32,
    "f64": np.float64,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
}


@pytest.fixture
def rng():
    return np.random.default_rng(11)


def tt(e: str, shape) -> str:
    return f"!tile.tile<{e}, {shape_str(shape)}>"


def run_op(body: str, result: tuple[str, tuple[int, ...]], *operands, scalars=()) -> np.ndarray:
    """The value of `%r` (element type and shape `result`) computed by `body` on `operands`,
    each `(element type, array)`; `scalars` are `(type, value)` parameters `%s0`, ..."""
    re, rs = result
    store_e, store_s = ("i8" if re == "i1" else re), (rs or (1,))
    params = [f"%out: !tile.partition<{store_e}, {shape_str(store_s)}>"]
    lines = ["%c0 = arith.constant 0 : index"]
    poison = np.iinfo(NUMPY[store_e]).max if store_e.startswith("i") else np.nan
    args: list = [np.full(store_s, poison, dtype=NUMPY[store_e])]
    for k, (e, array) in enumerate(operands):
        ttype = f"!tile.tensor<{e}, {shape_str(array.shape)}>"
        params.append(f"%a{k}: {ttype}")
        index = ", ".join(["%c0"] * array.ndim)
        lines.append(f"%x{k} = tile.load %a{k}[{index}] : {ttype} -> {tt(e, array.shape)}")
        args.append(array)
    for k, (t, value) in enumerate(scalars):
        params.append(f"%s{k}: {t}")
        args.append(value)
    lines.append(body.strip())
    out = "%r"
    if re == "i1":
        lines.append(f"%r8 = tile.astype %r : {tt('i1', rs)} -> {tt('i8', rs)}")
        out = "%r8"
    if not rs:
        lines.append(f"%r1 = tile.reshape {out} : {tt(store_e, ())} -> {tt(store_e, (1,))}")
        out = "%r1"
    lines.append(
        f"tile.store {out}, %out : {tt(store_e, store_s)}, "
        f"!tile.partition<{store_e}, {shape_str(store_s)}>"
    )
    lines.append("tile.return")
    text = "tile.kernel @k(" + ", ".join(params) + ") {\n  " + "\n  ".join(lines) + "\n}\n"
    module = parse_module(make_context(), text, "op.mlir")
    verify_module(module)
    run_tile_kernel(module, "k", args)
    value = args[0]
    if re == "i1":
        assert set(np.unique(value)) <= {0, 1}
        value = value.astype(np.bool_)
    return value.reshape(rs)


def random(rng, e: str, shape) -> np.ndarray:
    if e.startswith("i"):
        info = np.iinfo(NUMPY[e])
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=NUMPY[e])
    x = (rng.standard_normal(shape) * 4).astype(np.float32 if e == "bf16" else NUMPY[e])
    return bf16_bits_round(x) if e == "bf16" else x


def exact(a, b) -> bool:
    """Equal values with equal zero signs; any NaN equals any NaN."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or not np.array_equal(a, b, equal_nan=True):
        return False
    numbers = ~np.isnan(a)
    return bool(np.array_equal(np.signbit(a[numbers]), np.signbit(b[numbers])))


def wrap(values, e: str) -> np.ndarray:
    """Python integers reduced to the two's-complement range of `e`."""
    bits = np.iinfo(NUMPY[e]).bits
    return np.array(
        [((int(v) + 2 ** (bits - 1)) % 2**bits) - 2 ** (bits - 1) for v in np.ravel(values)],
        dtype=NUMPY[e],
    ).reshape(np.shape(values))


def narrow(e: str, wide) -> np.ndarray:
    """An f32/f64 NumPy result rounded to element type `e` (once)."""
    if e == "bf16":
        return bf16_bits_round(np.asarray(wide, dtype=np.float32))
    with np.errstate(over="ignore"):
        return np.asarray(wide).astype(NUMPY[e])


# --- elementwise arithmetic --------------------------------------------------------------
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply}


@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("e", ["f16", "bf16", "f32", "f64"])
def test_float_arithmetic_is_rounded_once_in_the_element_type(rng, op, e):
    shape = (8, 16)
    a, b = random(rng, e, shape), random(rng, e, shape)
    got = run_op(f"%r = tile.{op} %x0, %x1 : {tt(e, shape)}", (e, shape), (e, a), (e, b))
    wide = BINARY[op](a.astype(np.float64), b.astype(np.float64))  # exact for these inputs
    assert exact(got, narrow(e, wide.astype(np.float64 if e == "f64" else np.float32)))


@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("e", ["i8", "i16", "i32", "i64"])
def test_integer_arithmetic_wraps(rng, op, e):
    a, b = random(rng, e, (64,)), random(rng, e, (64,))
    got = run_op(f"%r = tile.{op} %x0, %x1 : {tt(e, (64,))}", (e, (64,)), (e, a), (e, b))
    py = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y}[op]
    assert got.dtype == NUMPY[e]
    assert np.array_equal(got, wrap([py(int(x), int(y)) for x, y in zip(a, b)], e))


def test_div_is_ieee(rng):
    a = np.array([1.0, -1.0, 0.0, 3.0, np.inf, 7.0, -0.0, 1e30], dtype=np.float32)
    b = np.array([0.0, 0.0, 0.0, 7.0, np.inf, -np.inf, 5.0, 1e-30], dtype=np.float32)
    got = run_op(
        f"%r = tile.div %x0, %x1 : {tt('f32', (8,))}", ("f32", (8,)), ("f32", a), ("f32", b)
    )
    with np.errstate(all="ignore"):
        assert exact(got, a / b)
    assert list(got[:2]) == [np.inf, -np.inf] and np.isnan(got[2]) and np.isinf(got[7])


@pytest.mark.parametrize("e", ["f16", "bf16"])
def test_narrow_div_rounds_the_f32_quotient(rng, e):
    a, b = random(rng, e, (256,)), random(rng, e, (256,))
    got = run_op(f"%r = tile.div %x0, %x1 : {tt(e, (256,))}", (e, (256,)), (e, a), (e, b))
    assert exact(got, narrow(e, a.astype(np.float32) / b.astype(np.float32)))


@pytest.mark.parametrize("e", ["f32", "bf16", "f16"])
def test_maximum_minimum_propagate_nan_and_order_signed_zeros(e):
    a = np.array([1.0, np.nan, 2.0, -0.0, 0.0, -0.0, 3.0, -5.0], dtype=np.float32)
    b = np.array([np.nan, 1.0, 2.0, 0.0, -0.0, -0.0, -3.0, 5.0], dtype=np.float32)
    a, b = a.astype(NUMPY[e]), b.astype(NUMPY[e])
    t = tt(e, (8,))
    mx = run_op(f"%r = tile.maximum %x0, %x1 : {t}", (e, (8,)), (e, a), (e, b))
    mn = run_op(f"%r = tile.minimum %x0, %x1 : {t}", (e, (8,)), (e, a), (e, b))
    assert exact(mx, [np.nan, np.nan, 2.0, 0.0, 0.0, -0.0, 3.0, 5.0])
    assert exact(mn, [np.nan, np.nan, 2.0, -0.0, -0.0, -0.0, -3.0, -5.0])


def test_integer_maximum_minimum_are_signed(rng):
    a, b = random(rng, "i32", (128,)), random(rng, "i32", (128,))
    t = tt("i32", (128,))
    assert np.array_equal(
        run_op(f"%r = tile.maximum %x0, %x1 : {t}", ("i32", (128,)), ("i32", a), ("i32", b)),
        np.maximum(a, b),
    )
    assert np.array_equal(
        run_op(f"%r = tile.minimum %x0, %x1 : {t}", ("i32", (128,)), ("i32", a), ("i32", b)),
        np.minimum(a, b),
    )


def test_neg(rng):
    x = np.array([-128, -1, 0, 1, 127, 5, -7, 100], dtype=np.int8)
    assert list(run_op(f"%r = tile.neg %x0 : {tt('i8', (8,))}", ("i8", (8,)), ("i8", x))) == [
        -128,
        1,
        0,
        -1,
        -127,
        -5,
        7,
        -100,
    ]
    f = np.array([0.0, -0.0, np.inf, np.nan, 1.5, -2.0, 1e-45, 3.0], dtype=np.float32)
    assert exact(run_op(f"%r = tile.neg %x0 : {tt('f32', (8,))}", ("f32", (8,)), ("f32", f)), -f)


MATH = {
    "exp": np.exp,
    "exp2": np.exp2,
    "log": np.log,
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x),
    "tanh": np.tanh,
}


@pytest.mark.parametrize("op", sorted(MATH))
@pytest.mark.parametrize("e", ["f16", "bf16", "f32", "f64"])
def test_math_is_the_rounded_f64_value(rng, op, e):
    x = (
        np.abs(random(rng, e, (4, 64)))
        if op in ("log", "sqrt", "rsqrt")
        else random(rng, e, (4, 64))
    )
    got = run_op(f"%r = tile.{op} %x0 : {tt(e, (4, 64))}", (e, (4, 64)), (e, x))
    with np.errstate(all="ignore"):
        wide = MATH[op](x.astype(np.float64))
        assert exact(got, narrow(e, wide) if e != "bf16" else _bf16_of_f64(wide))
        # and within a rounding of NumPy's own float32 result
        native = MATH[op](x.astype(np.float64 if e == "f64" else np.float32))
    assert np.allclose(
        got.astype(np.float64),
        native,
        rtol={"f16": 1e-3, "bf16": 8e-3}.get(e, 1e-6),
        atol=0,
        equal_nan=True,
    )


def _bf16_of_f64(x: np.ndarray) -> np.ndarray:
    from ferrox.driver.interpreter.tile_ops.dtypes import f32_round_to_odd

    return bf16_bits_round(f32_round_to_odd(x))


def test_math_special_values():
    x = np.array([0.0, -0.0, -1.0, np.inf, -np.inf, np.nan, 1.0, 4.0], dtype=np.float32)
    t, r = tt("f32", (8,)), ("f32", (8,))
    arg = ("f32", x)
    assert exact(
        run_op(f"%r = tile.log %x0 : {t}", r, arg),
        [-np.inf, -np.inf, np.nan, np.inf, np.nan, np.nan, 0.0, np.float32(np.log(4.0))],
    )
    assert exact(
        run_op(f"%r = tile.sqrt %x0 : {t}", r, arg),
        [0.0, -0.0, np.nan, np.inf, np.nan, np.nan, 1.0, 2.0],
    )
    assert exact(
        run_op(f"%r = tile.rsqrt %x0 : {t}", r, arg),
        [np.inf, -np.inf, np.nan, 0.0, np.nan, np.nan, 1.0, 0.5],
    )
    assert exact(
        run_op(f"%r = tile.exp %x0 : {t}", r, arg)[[0, 3, 4, 5]], [1.0, np.inf, 0.0, np.nan]
    )
    assert exact(run_op(f"%r = tile.exp2 %x0 : {t}", r, arg)[[0, 2, 7]], [1.0, 0.5, 16.0])
    assert exact(run_op(f"%r = tile.tanh %x0 : {t}", r, arg)[[0, 1, 3, 4]], [0.0, -0.0, 1.0, -1.0])


# --- compare, select, astype -------------------------------------------------------------
PREDICATES = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}


@pytest.mark.parametrize("pred", sorted(PREDICATES))
def test_float_compares_are_ordered_except_ne(pred):
    a = np.array([1.0, np.nan, np.nan, 2.0, -0.0, 3.0, -np.inf, 5.0], dtype=np.float32)
    b = np.array([np.nan, 1.0, np.nan, 2.0, 0.0, -3.0, np.inf, 6.0], dtype=np.float32)
    got = run_op(
        f"%r = tile.cmp {pred}, %x0, %x1 : {tt('f32', (8,))} -> {tt('i1', (8,))}",
        ("i1", (8,)),
        ("f32", a),
        ("f32", b),
    )
    assert np.array_equal(got, PREDICATES[pred](a, b))
    assert got[:3].all() if pred == "ne" else not got[:3].any()


@pytest.mark.parametrize("pred", sorted(PREDICATES))
@pytest.mark.parametrize("e", ["i8", "i64", "f16", "bf16"])
def test_compares_on_random_tiles(rng, pred, e):
    a = random(rng, e, (16, 8))
    b = np.where(rng.random((16, 8)) < 0.3, a, random(rng, e, (16, 8)))  # some ties
    got = run_op(
        f"%r = tile.cmp {pred}, %x0, %x1 : {tt(e, (16, 8))} -> {tt('i1', (16, 8))}",
        ("i1", (16, 8)),
        (e, a),
        (e, b),
    )
    assert np.array_equal(got, PREDICATES[pred](a, b))


@pytest.mark.parametrize("pred", sorted(PREDICATES))
def test_i1_compares_are_unsigned(pred):
    a = np.array([0, 0, 1, 1], dtype=np.int8)
    b = np.array([0, 1, 0, 1], dtype=np.int8)
    body = f"""
  %z = tile.constant dense<0> : {tt("i8", (4,))}
  %p = tile.cmp ne, %x0, %z : {tt("i8", (4,))} -> {tt("i1", (4,))}
  %q = tile.cmp ne, %x1, %z : {tt("i8", (4,))} -> {tt("i1", (4,))}
  %r = tile.cmp {pred}, %p, %q : {tt("i1", (4,))} -> {tt("i1", (4,))}"""
    got = run_op(body, ("i1", (4,)), ("i8", a), ("i8", b))
    assert np.array_equal(got, PREDICATES[pred](a.astype(bool), b.astype(bool)))  # false < true


@pytest.mark.parametrize("e", ["f32", "bf16", "i16"])
def test_select(rng, e):
    a, b = random(rng, e, (32, 4)), random(rng, e, (32, 4))
    body = f"""
  %c = tile.cmp lt, %x0, %x1 : {tt(e, (32, 4))} -> {tt("i1", (32, 4))}
  %r = tile.select %c, %x0, %x1 : {tt("i1", (32, 4))}, {tt(e, (32, 4))}"""
    assert exact(run_op(body, (e, (32, 4)), (e, a), (e, b)), np.where(a < b, a, b))


def test_astype_float_to_int_saturates_and_truncates():
    x = np.array([2.9, -2.9, 1e10, -1e10, np.nan, np.inf, -0.5, 127.99], dtype=np.float32)
    got = run_op(
        f"%r = tile.astype %x0 : {tt('f32', (8,))} -> {tt('i32', (8,))}", ("i32", (8,)), ("f32", x)
    )
    assert list(got) == [2, -2, 2**31 - 1, -(2**31), 0, 2**31 - 1, 0, 127]
    got8 = run_op(
        f"%r = tile.astype %x0 : {tt('f32', (8,))} -> {tt('i8', (8,))}", ("i8", (8,)), ("f32", x)
    )
    assert list(got8) == [2, -2, 127, -128, 0, 127, 0, 127]


def test_astype_f32_to_narrow_floats_rounds_to_nearest_even(rng):
    x = np.concatenate(
        [
            np.array([1.00390625, 1.005859375, 65520.0, 1e-8, np.nan, -np.inf], dtype=np.float32),
            random(rng, "f32", (58,)),
        ]
    )
    for e in ("bf16", "f16"):
        got = run_op(
            f"%r = tile.astype %x0 : {tt('f32', (64,))} -> {tt(e, (64,))}", (e, (64,)), ("f32", x)
        )
        assert exact(got, narrow(e, x))
    assert exact(narrow("bf16", x[:2]), [1.0, 1.0078125])  # ties to even, above the tie rounds up


def test_astype_int_to_float_and_back(rng):
    x = np.array([2**24 + 1, -(2**24) - 3, 7, -7, 2**31 - 1, -(2**31), 0, 259], dtype=np.int32)
    f = run_op(
        f"%r = tile.astype %x0 : {tt('i32', (8,))} -> {tt('f32', (8,))}", ("f32", (8,)), ("i32", x)
    )
    assert list(f) == [2.0**24, -(2.0**24) - 4, 7.0, -7.0, 2.0**31, -(2.0**31), 0.0, 259.0]
    b = run_op(
        f"%r = tile.astype %x0 : {tt('i32', (8,))} -> {tt('bf16', (8,))}",
        ("bf16", (8,)),
        ("i32", x),
    )
    assert list(b[[2, 7]]) == [7.0, 260.0]  # 259 rounds to 8 significant bits
    i = run_op(
        f"%r = tile.astype %x0 : {tt('i32', (8,))} -> {tt('i8', (8,))}", ("i8", (8,)), ("i32", x)
    )
    assert list(i) == [1, -3, 7, -7, -1, 0, 0, 3]


def test_astype_to_and_from_i1():
    x = np.array([0.0, -0.0, np.nan, 2.5], dtype=np.float32)
    body = f"""
  %b = tile.astype %x0 : {tt("f32", (4,))} -> {tt("i1", (4,))}
  %r = tile.astype %b : {tt("i1", (4,))} -> {tt("f32", (4,))}"""
    assert list(run_op(body, ("f32", (4,)), ("f32", x))) == [0.0, 0.0, 1.0, 1.0]


# --- creation ----------------------------------------------------------------------------
def test_constants_decode_exactly():
    body = f"""
  %list = tile.constant dense<[[1.5, -2.0], [3.25, 4.0]]> : {tt("f32", (2, 2))}
  %half = tile.constant dense<0.5> : {tt("f32", (2, 2))}
  %r = tile.add %list, %half : {tt("f32", (2, 2))}"""
    assert exact(run_op(body, ("f32", (2, 2))), [[2.0, -1.5], [3.75, 4.5]])
    ints = run_op(
        f"%r = tile.constant dense<[[1, -2], [127, -128]]> : {tt('i8', (2, 2))}", ("i8", (2, 2))
    )
    assert ints.tolist() == [[1, -2], [127, -128]]
    bf = run_op(f"%r = tile.constant dense<[1.1, 3.0]> : {tt('bf16', (2,))}", ("bf16", (2,)))
    assert list(bf) == [1.1015625, 3.0]  # the bf16 value the IR holds
    flags = run_op(
        f"%r = tile.constant dense<[true, false, true, true]> : {tt('i1', (4,))}", ("i1", (4,))
    )
    assert list(flags) == [True, False, True, True]
    h = run_op(f"%r = tile.constant dense<0.1> : {tt('f16', (4,))}", ("f16", (4,)))
    assert exact(h, np.full(4, np.float16(0.1)))


def test_full_of_scalar_parameters():
    got = run_op(
        f"%r = tile.full %s0 : f32 -> {tt('f32', (4, 8))}", ("f32", (4, 8)), scalars=[("f32", 2.5)]
    )
    assert exact(got, np.full((4, 8), 2.5))
    got = run_op(
        f"%r = tile.full %s0 : i16 -> {tt('i16', (4,))}", ("i16", (4,)), scalars=[("i16", 65535)]
    )
    assert list(got) == [-1] * 4  # signless: 65535 is the bit pattern of -1
    got = run_op(
        f"%r = tile.full %s0 : bf16 -> {tt('bf16', (2,))}", ("bf16", (2,)), scalars=[("bf16", 1.1)]
    )
    assert list(got) == [1.1015625] * 2


@pytest.mark.parametrize(
    ("e", "n"), [("i32", 16), ("i8", 128), ("f32", 128), ("bf16", 512), ("f16", 4096)]
)
def test_iota(e, n):
    got = run_op(f"%r = tile.iota : {tt(e, (n,))}", (e, (n,)))
    assert exact(
        got, narrow(e, np.arange(n, dtype=np.float64)) if not e.startswith("i") else np.arange(n)
    )
    if e == "bf16":
        assert got[257] == 256.0 and got[259] == 260.0  # rounded to 8 significant bits


def test_extract_a_reduced_scalar_and_full_it_back(rng):
    x = random(rng, "f32", (64,))
    body = f"""
  %s = tile.reduce_max %x0 axis = 0 : {tt("f32", (64,))} -> {tt("f32", ())}
  %v = tile.extract %s : {tt("f32", ())} -> f32
  %r = tile.full %v : f32 -> {tt("f32", (8,))}"""
    assert exact(run_op(body, ("f32", (8,)), ("f32", x)), np.full(8, x.max()))
    ints = np.array([3, -9, 4, 1], dtype=np.int32)
    body = f"""
  %s = tile.reduce_sum %x0 axis = 0 : {tt("i32", (4,))} -> {tt("i32", ())}
  %v = tile.extract %s : {tt("i32", ())} -> i32
  %w = arith.muli %v, %v : i32
  %r = tile.full %w : i32 -> {tt("i32", (2,))}"""
    assert list(run_op(body, ("i32", (2,)), ("i32", ints))) == [1, 1]


# --- shape -------------------------------------------------------------------------------
def test_broadcast_follows_numpy(rng):
    row = random(rng, "f32", (1, 16))
    got = run_op(
        f"%r = tile.broadcast %x0 : {tt('f32', (1, 16))} -> {tt('f32', (2, 8, 16))}",
        ("f32", (2, 8, 16)),
        ("f32", row),
    )
    assert exact(got, np.broadcast_to(row, (2, 8, 16)))
    col = random(rng, "i32", (4, 1))
    got = run_op(
        f"%r = tile.broadcast %x0 : {tt('i32', (4, 1))} -> {tt('i32', (4, 32))}",
        ("i32", (4, 32)),
        ("i32", col),
    )
    assert np.array_equal(got, np.broadcast_to(col, (4, 32)))


def test_reshape_transpose_permute(rng):
    x = random(rng, "f32", (8, 16))
    got = run_op(
        f"%r = tile.reshape %x0 : {tt('f32', (8, 16))} -> {tt('f32', (2, 4, 16))}",
        ("f32", (2, 4, 16)),
        ("f32", x),
    )
    assert exact(got, x.reshape(2, 4, 16))
    got = run_op(
        f"%r = tile.transpose %x0 : {tt('f32', (8, 16))} -> {tt('f32', (16, 8))}",
        ("f32", (16, 8)),
        ("f32", x),
    )
    assert exact(got, x.T)
    cube = random(rng, "i64", (2, 4, 8))
    got = run_op(
        f"%r = tile.permute %x0 [2, 0, 1] : {tt('i64', (2, 4, 8))} -> {tt('i64', (8, 2, 4))}",
        ("i64", (8, 2, 4)),
        ("i64", cube),
    )
    assert np.array_equal(got, np.transpose(cube, (2, 0, 1)))
    # a view of a view, stored: the element order is the logical one
    body = f"""
  %t = tile.transpose %x0 : {tt("f32", (8, 16))} -> {tt("f32", (16, 8))}
  %r = tile.reshape %t : {tt("f32", (16, 8))} -> {tt("f32", (128,))}"""
    assert exact(run_op(body, ("f32", (128,)), ("f32", x)), x.T.reshape(-1))


# --- reductions --------------------------------------------------------------------------
REDUCE = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}


@pytest.mark.parametrize("op", sorted(REDUCE))
@pytest.mark.parametrize(("axis", "keepdims"), [(0, False), (1, False), (1, True), (0, True)])
def test_float_reductions(rng, op, axis, keepdims):
    x = random(rng, "f32", (16, 32)) / (4 if op == "prod" else 1)
    shape = list(x.shape)
    if keepdims:
        shape[axis] = 1
    else:
        del shape[axis]
    kd = " keepdims" if keepdims else ""
    got = run_op(
        f"%r = tile.reduce_{op} %x0 axis = {axis}{kd} : {tt('f32', x.shape)} -> {tt('f32', shape)}",
        ("f32", tuple(shape)),
        ("f32", x),
    )
    expected = REDUCE[op](x.astype(np.float64), axis=axis, keepdims=keepdims)
    if op in ("max", "min"):
        assert exact(got, expected)
    else:
        assert np.allclose(got, expected, rtol=1e-5, atol=1e-6)  # summation order is unspecified


@pytest.mark.parametrize("op", sorted(REDUCE))
@pytest.mark.parametrize("e", ["i8", "i32", "i64"])
def test_integer_reductions_wrap_and_compare_signed(rng, op, e):
    x = random(rng, e, (8, 16))
    got = run_op(
        f"%r = tile.reduce_{op} %x0 axis = 1 : {tt(e, (8, 16))} -> {tt(e, (8,))}", (e, (8,)), (e, x)
    )
    rows = [[int(v) for v in row] for row in x]
    py = {"sum": sum, "prod": math.prod, "max": max, "min": min}[op]
    assert np.array_equal(got, wrap([py(row) for row in rows], e))


def test_rank_1_reduces_to_rank_0(rng):
    x = random(rng, "f32", (128,))
    got = run_op(
        f"%r = tile.reduce_sum %x0 axis = 0 : {tt('f32', (128,))} -> {tt('f32', ())}",
        ("f32", ()),
        ("f32", x),
    )
    assert got.shape == () and np.isclose(got, x.astype(np.float64).sum(), rtol=1e-5)


def test_reductions_propagate_nan_and_order_zeros():
    x = np.array(
        [
            [1.0, np.nan, 3.0, 0.0],
            [-0.0, 0.0, -0.0, -1.0],
            [-0.0, -0.0, -2.0, -0.0],
            [0.0, 0.0, 5.0, 0.0],
        ],
        dtype=np.float32,
    )
    t, r = tt("f32", (4, 4)), ("f32", (4,))
    assert exact(
        run_op(f"%r = tile.reduce_max %x0 axis = 1 : {t} -> {tt('f32', (4,))}", r, ("f32", x)),
        [np.nan, 0.0, -0.0, 5.0],
    )
    assert exact(
        run_op(f"%r = tile.reduce_min %x0 axis = 1 : {t} -> {tt('f32', (4,))}", r, ("f32", x)),
        [np.nan, -1.0, -2.0, 0.0],
    )
    assert exact(
        run_op(f"%r = tile.reduce_sum %x0 axis = 1 : {t} -> {tt('f32', (4,))}", r, ("f32", x))[1:],
        [-1.0, -2.0, 5.0],
    )


@pytest.mark.parametrize("e", ["f16", "bf16"])
def test_narrow_sums_are_taken_in_f32_and_rounded_once(rng, e):
    x = random(rng, e, (4, 512))
    got = run_op(
        f"%r = tile.reduce_sum %x0 axis = 1 : {tt(e, (4, 512))} -> {tt(e, (4,))}", (e, (4,)), (e, x)
    )
    exact_sum = x.astype(np.float64).sum(axis=1)
    ulp = {"f16": 2.0**-10, "bf16": 2.0**-7}[e]
    assert np.all(np.abs(got.astype(np.float64) - exact_sum) <= ulp * np.abs(exact_sum) + 1e-3)


# --- mma ---------------------------------------------------------------------------------
@pytest.mark.parametrize("e", ["f16", "bf16", "f32"])
def test_mma_is_acc_plus_x_at_y_in_f32(rng, e):
    x, y = random(rng, e, (32, 64)), random(rng, e, (64, 16))
    acc = random(rng, "f32", (32, 16))
    body = (
        f"%r = tile.mma %x0, %x1, %x2 : {tt(e, (32, 64))}, {tt(e, (64, 16))}, {tt('f32', (32, 16))}"
    )
    got = run_op(body, ("f32", (32, 16)), (e, x), (e, y), ("f32", acc))
    assert got.dtype == np.float32
    expected = acc.astype(np.float64) + x.astype(np.float64) @ y.astype(np.float64)
    assert np.allclose(got, expected, rtol=1e-5, atol=1e-4)


def test_mma_f32_inputs_are_not_rounded_to_tf32():
    x = np.array([[1 + 2**-20, 0.0], [0.0, 0.0]], dtype=np.float32)
    y = np.eye(2, dtype=np.float32)
    acc = np.zeros((2, 2), dtype=np.float32)
    t22 = tt("f32", (2, 2))
    body = f"%r = tile.mma %x0, %x1, %x2 : {t22}, {t22}, {t22}"
    assert run_op(body, ("f32", (2, 2)), ("f32", x), ("f32", y), ("f32", acc))[0, 0] == np.float32(
        1 + 2**-20
    )
