"""Tile loads, stores and the grid on the interpreter: padding at ragged edges and outside the
tensor, masked stores, block ids, `tile.dim`, several output partitions, and scf control flow."""

from __future__ import annotations

import numpy as np
import pytest

from ferrox.driver.interpreter.tile_kernel import run_tile_kernel
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.verify import verify_module


def parse(text: str):
    module = parse_module(make_context(), text, "memory.mlir")
    verify_module(module)
    return module


@pytest.fixture
def rng():
    return np.random.default_rng(3)


LOAD_AT = """
tile.kernel @load_at(%out: !tile.partition<f32, [4, 8]>, %x: !tile.tensor<f32, [?, ?]>, %i: index, %j: index) {{
  %t = tile.load %x[%i, %j]{padding} : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [4, 8]>
  tile.store %t, %out : !tile.tile<f32, [4, 8]>, !tile.partition<f32, [4, 8]>
  tile.return
}}
"""


def load_at(x, i, j, padding=""):
    module = parse(LOAD_AT.format(padding=f" padding = {padding}" if padding else ""))
    out = np.full((4, 8), 7.0, dtype=np.float32)
    run_tile_kernel(module, "load_at", [out, x, i, j])
    return out


def reference_load(x, i, j, pad):
    """The tile at (i, j) of x viewed as a grid of [4, 8] tiles, element by element."""
    tile = np.full((4, 8), pad, dtype=np.float32)
    for a in range(4):
        for b in range(8):
            g0, g1 = i * 4 + a, j * 8 + b
            if 0 <= g0 < x.shape[0] and 0 <= g1 < x.shape[1]:
                tile[a, b] = x[g0, g1]
    return tile


@pytest.mark.parametrize(
    ("padding", "value"),
    [("", 0.0), ("zero", 0.0), ("neg_inf", -np.inf), ("pos_inf", np.inf), ("nan", np.nan)],
)
@pytest.mark.parametrize(
    ("i", "j"), [(0, 0), (1, 0), (1, 1), (0, 1), (-1, 0), (0, -1), (2, 0), (5, 9), (-3, -3)]
)
def test_load_pads_exactly_the_elements_outside_the_tensor(rng, padding, value, i, j):
    x = rng.standard_normal((5, 11), dtype=np.float32)
    got = load_at(x, i, j, padding)
    assert np.array_equal(got, reference_load(x, i, j, value), equal_nan=True)


def test_a_tile_wholly_outside_is_all_padding(rng):
    x = rng.standard_normal((5, 11), dtype=np.float32)
    assert np.isneginf(load_at(x, 9, 0, "neg_inf")).all()
    assert (load_at(x, 0, -2) == 0).all()
    huge = 2**62  # b * T is computed exactly: no wrap-around back into the tensor
    assert (load_at(x, huge, huge) == 0).all()


def test_loads_of_integer_tensors_accept_unsigned_arrays():
    module = parse("""
tile.kernel @ints(%out: !tile.partition<i32, [8]>, %x: !tile.tensor<i8, [?]>) {
  %t = tile.load_like %x, %out : !tile.tensor<i8, [?]>, !tile.partition<i32, [8]> -> !tile.tile<i8, [8]>
  %w = tile.astype %t : !tile.tile<i8, [8]> -> !tile.tile<i32, [8]>
  tile.store %w, %out : !tile.tile<i32, [8]>, !tile.partition<i32, [8]>
  tile.return
}
""")
    x = np.array([0, 1, 127, 128, 255, 200, 3], dtype=np.uint8)
    out = np.full(7, 2**32 - 1, dtype=np.uint32)
    run_tile_kernel(module, "ints", [out, x])
    assert list(out.view(np.int32)) == [
        0,
        1,
        127,
        -128,
        -1,
        -56,
        3,
    ]  # signless bytes, sign-extended


def test_a_3d_load(rng):
    module = parse("""
tile.kernel @cube(%out: !tile.partition<f64, [2, 4, 8]>, %x: !tile.tensor<f64, [?, ?, ?]>) {
  %t = tile.load_like %x, %out padding = nan : !tile.tensor<f64, [?, ?, ?]>, !tile.partition<f64, [2, 4, 8]> -> !tile.tile<f64, [2, 4, 8]>
  %r = tile.add %t, %t : !tile.tile<f64, [2, 4, 8]>
  tile.store %r, %out : !tile.tile<f64, [2, 4, 8]>, !tile.partition<f64, [2, 4, 8]>
  tile.return
}
""")
    x = rng.standard_normal((3, 9, 10))
    out = np.full((3, 9, 10), np.nan)
    run_tile_kernel(module, "cube", [out, x])
    assert np.array_equal(out, 2 * x)


BLOCK_IDS = """
tile.kernel @ids(%out: !tile.partition<i32, [2, 4]>, %n: !tile.partition<i32, [2, 4]>) {
  %i = tile.block_id 0
  %j = tile.block_id 1
  %c100 = arith.constant 100 : index
  %c1 = arith.constant 1 : index
  %hi = arith.muli %i, %c100 : index
  %sum = arith.addi %hi, %j : index
  %id = arith.addi %sum, %c1 : index
  %id32 = arith.index_cast %id : index to i32
  %t = tile.full %id32 : i32 -> !tile.tile<i32, [2, 4]>
  tile.store %t, %out : !tile.tile<i32, [2, 4]>, !tile.partition<i32, [2, 4]>
  %gx = tile.num_blocks 0
  %gy = tile.num_blocks 1
  %rows = tile.dim %out, 0 : !tile.partition<i32, [2, 4]>
  %cols = tile.dim %out, 1 : !tile.partition<i32, [2, 4]>
  %g = arith.muli %gx, %c100 : index
  %g2 = arith.addi %g, %gy : index
  %r = arith.muli %rows, %c100 : index
  %r2 = arith.addi %r, %cols : index
  %shift = arith.constant 100000 : index
  %packed = arith.muli %g2, %shift : index
  %packed2 = arith.addi %packed, %r2 : index
  %p32 = arith.index_cast %packed2 : index to i32
  %pt = tile.full %p32 : i32 -> !tile.tile<i32, [2, 4]>
  tile.store %pt, %n : !tile.tile<i32, [2, 4]>, !tile.partition<i32, [2, 4]>
  tile.return
}
"""


def test_each_block_writes_exactly_its_own_tile_masked_at_ragged_edges():
    module = parse(BLOCK_IDS)
    backing = np.full((8, 12), -7, dtype=np.int32)
    out = backing[1:6, 2:11]  # a strided [5, 9] view: nothing around it may change
    meta = np.full((5, 9), -7, dtype=np.int32)
    run_tile_kernel(module, "ids", [out, meta])
    rows, cols = np.indices((5, 9))
    assert np.array_equal(out, (rows // 2) * 100 + cols // 4 + 1)
    outside = np.ones(backing.shape, bool)
    outside[1:6, 2:11] = False
    assert (backing[outside] == -7).all()
    # grid (3, 3) = ceil([5, 9] / [2, 4]); tile.dim of a partition is the whole tensor's size
    assert (meta == (3 * 100 + 3) * 100000 + 5 * 100 + 9).all()


def test_several_output_partitions_share_the_first_ones_grid(rng):
    module = parse("""
tile.kernel @two(%a: !tile.partition<f32, [4]>, %b: !tile.partition<f16, [2]>, %x: !tile.tensor<f32, [?]>) {
  %t = tile.load_like %x, %a : !tile.tensor<f32, [?]>, !tile.partition<f32, [4]> -> !tile.tile<f32, [4]>
  %n = tile.neg %t : !tile.tile<f32, [4]>
  tile.store %n, %a : !tile.tile<f32, [4]>, !tile.partition<f32, [4]>
  %i = tile.block_id 0
  %s = tile.load %x[%i] : !tile.tensor<f32, [?]> -> !tile.tile<f32, [2]>
  %h = tile.astype %s : !tile.tile<f32, [2]> -> !tile.tile<f16, [2]>
  tile.store %h, %b : !tile.tile<f16, [2]>, !tile.partition<f16, [2]>
  tile.return
}
""")
    x = rng.standard_normal(10, dtype=np.float32)
    a = np.full(10, np.nan, dtype=np.float32)
    b = np.full(5, np.nan, dtype=np.float16)  # ceil(5 / 2) = 3 = ceil(10 / 4)
    run_tile_kernel(module, "two", [a, b, x])
    assert np.array_equal(a, -x)
    assert np.array_equal(b, x[[0, 1, 2, 3, 4]].astype(np.float16))  # block i reads x[2i:2i+2]


def test_storing_twice_writes_twice_in_program_order():
    module = parse("""
tile.kernel @twice(%out: !tile.partition<f32, [4]>) {
  %a = tile.constant dense<1.0> : !tile.tile<f32, [4]>
  %b = tile.constant dense<2.0> : !tile.tile<f32, [4]>
  tile.store %a, %out : !tile.tile<f32, [4]>, !tile.partition<f32, [4]>
  tile.store %b, %out : !tile.tile<f32, [4]>, !tile.partition<f32, [4]>
  tile.return
}
""")
    out = np.full(6, np.nan, dtype=np.float32)
    run_tile_kernel(module, "twice", [out])
    assert (out == 2.0).all()


def test_scf_for_and_if_with_tiles():
    # The control-flow example of docs/dialects/tile.md: sum 4 consecutive 16-wide tiles in
    # block 0, zeros elsewhere.
    module = parse("""
tile.kernel @control_flow(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?]>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %i = tile.block_id 0
  %zero = tile.constant dense<0.0> : !tile.tile<f32, [16]>
  %sum = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (!tile.tile<f32, [16]>) {
    %t = tile.load %x[%k] : !tile.tensor<f32, [?]> -> !tile.tile<f32, [16]>
    %next = tile.add %acc, %t : !tile.tile<f32, [16]>
    scf.yield %next : !tile.tile<f32, [16]>
  }
  %first = arith.cmpi eq, %i, %c0 : index
  %r = scf.if %first -> (!tile.tile<f32, [16]>) {
    scf.yield %sum : !tile.tile<f32, [16]>
  } else {
    scf.yield %zero : !tile.tile<f32, [16]>
  }
  tile.store %r, %out : !tile.tile<f32, [16]>, !tile.partition<f32, [16]>
  tile.return
}
""")
    x = np.arange(60, dtype=np.float32)  # the 4th tile is ragged: zero padded
    out = np.full(40, np.nan, dtype=np.float32)
    run_tile_kernel(module, "control_flow", [out, x])
    padded = np.concatenate([x, np.zeros(4, np.float32)]).reshape(4, 16)
    assert np.array_equal(out[:16], padded.sum(axis=0))
    assert (out[16:] == 0).all()


def test_inputs_are_read_through_read_only_views(rng):
    module = parse("""
tile.kernel @copy(%out: !tile.partition<f32, [8]>, %x: !tile.tensor<f32, [?]>) {
  %t = tile.load_like %x, %out : !tile.tensor<f32, [?]>, !tile.partition<f32, [8]> -> !tile.tile<f32, [8]>
  tile.store %t, %out : !tile.tile<f32, [8]>, !tile.partition<f32, [8]>
  tile.return
}
""")
    x = rng.standard_normal(20, dtype=np.float32)
    before = x.copy()
    out = np.full(20, np.nan, dtype=np.float32)
    run_tile_kernel(module, "copy", [out, x])
    assert np.array_equal(out, before) and np.array_equal(x, before)
    assert x.flags.writeable  # the caller's array keeps its flags


def test_an_empty_output_runs_no_block():
    module = parse("""
tile.kernel @k(%out: !tile.partition<f32, [8]>, %n: index) {
  %c0 = arith.constant 0 : index
  %bad = arith.divui %n, %c0 : index
  tile.return
}
""")
    run_tile_kernel(module, "k", [np.zeros(0, np.float32), 1])  # grid 0: the division never runs
