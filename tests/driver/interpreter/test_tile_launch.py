"""Launching tile kernels on the interpreter: arguments checked against the kernel's parameters
before any block runs, grids that disagree, aliasing, bf16 arrays, and located kernel traps."""

from __future__ import annotations

import numpy as np
import pytest

from ferrox.driver.interpreter.bf16 import bf16_bits, to_bf16
from ferrox.driver.interpreter.errors import KernelTrap, LaunchError
from ferrox.driver.interpreter.tile_kernel import (
    find_tile_kernel,
    launch_grid,
    run_tile_kernel,
    tile_launch_args,
)
from ferrox.driver.interpreter.tile_lowered import run_lowered_tile_kernel
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.verify import verify_module

TEXT = """builtin.module {
tile.kernel @scale(%out: !tile.partition<f32, [8]>, %x: !tile.tensor<f32, [?]>, %alpha: f32) {
  %t = tile.load_like %x, %out : !tile.tensor<f32, [?]>, !tile.partition<f32, [8]> -> !tile.tile<f32, [8]>
  %a = tile.full %alpha : f32 -> !tile.tile<f32, [8]>
  %r = tile.mul %t, %a : !tile.tile<f32, [8]>
  tile.store %r, %out : !tile.tile<f32, [8]>, !tile.partition<f32, [8]>
  tile.return
}
tile.kernel @pair(%a: !tile.partition<f32, [4]>, %w: !tile.tensor<i32, [3, ?]>, %b: !tile.partition<bf16, [8]>, %n: i8) {
  tile.return
}
tile.kernel @divide(%out: !tile.partition<f32, [4]>, %n: index, %d: index) {
  %q = arith.divui %n, %d : index
  tile.return
}
tile.kernel @widen(%out: !tile.partition<f32, [8]>, %x: !tile.tensor<bf16, [?]>, %s: bf16) {
  %t = tile.load_like %x, %out : !tile.tensor<bf16, [?]>, !tile.partition<f32, [8]> -> !tile.tile<bf16, [8]>
  %f = tile.full %s : bf16 -> !tile.tile<bf16, [8]>
  %p = tile.add %t, %f : !tile.tile<bf16, [8]>
  %w = tile.astype %p : !tile.tile<bf16, [8]> -> !tile.tile<f32, [8]>
  tile.store %w, %out : !tile.tile<f32, [8]>, !tile.partition<f32, [8]>
  tile.return
}
tile.kernel @narrow(%out: !tile.partition<bf16, [8]>, %x: !tile.tensor<f32, [?]>) {
  %t = tile.load_like %x, %out : !tile.tensor<f32, [?]>, !tile.partition<bf16, [8]> -> !tile.tile<f32, [8]>
  %b = tile.astype %t : !tile.tile<f32, [8]> -> !tile.tile<bf16, [8]>
  tile.store %b, %out : !tile.tile<bf16, [8]>, !tile.partition<bf16, [8]>
  tile.return
}
func.func @main() {
  func.return
}
}
"""


@pytest.fixture(scope="module")
def module():
    m = parse_module(make_context(), TEXT, "launch.mlir")
    verify_module(m)
    return m


def f32(n, value=np.nan):
    return np.full(n, value, dtype=np.float32)


def test_scale_runs_and_ignores_host_code_in_the_module(module):
    x = np.arange(19, dtype=np.float32)
    out = f32(19)
    run_tile_kernel(module, "@scale", [out, x, 0.5])
    assert np.array_equal(out, x * np.float32(0.5))


def test_an_unknown_kernel_names_the_ones_there(module):
    with pytest.raises(
        LaunchError,
        match=r"no tile.kernel named @nope in the module "
        r"\(tile kernels: @scale, @pair, @divide, @widen, @narrow\)",
    ):
        run_tile_kernel(module, "nope", [])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([f32(8)], "@scale takes 3 arguments, got 1"),
        ([[1.0] * 8, f32(8), 1.0], r"%out \(argument 0 of @scale\) takes a NumPy array, got list"),
        (
            [f32((2, 4)), f32(8), 1.0],
            r"%out \(argument 0 of @scale\) is rank 1, but the array has shape \(2, 4\)",
        ),
        (
            [np.zeros(8), f32(8), 1.0],
            r"%out \(argument 0 of @scale\) holds f32 \(float32\), "
            r"but the array's dtype is float64",
        ),
        (
            [f32(8), np.zeros(8, np.int32), 1.0],
            r"%x \(argument 1 of @scale\) holds f32 \(float32\), but the array's dtype is int32",
        ),
        (
            [f32(8), f32(8), "2"],
            r"%alpha \(argument 2 of @scale\) is a scalar of type f32, got str",
        ),
        ([f32(8), f32(8), 1e39], r"%alpha \(argument 2 of @scale\) = 1e\+39 overflows f32"),
        ([f32(8), f32(8), True], r"%alpha \(argument 2 of @scale\) is a float \(f32\), got True"),
    ],
)
def test_bad_arguments_are_refused_before_anything_runs(module, args, message):
    with pytest.raises(LaunchError, match=message):
        run_tile_kernel(module, "scale", args)
    if isinstance(args[0], np.ndarray) and args[0].dtype == np.float32 and args[0].ndim == 1:
        assert np.isnan(args[0]).all()


def test_a_read_only_output_is_refused(module):
    out = f32(8)
    out.flags.writeable = False
    with pytest.raises(
        LaunchError,
        match=r"%out \(argument 0 of @scale\) is an output partition, but the array is read-only",
    ):
        run_tile_kernel(module, "scale", [out, f32(8), 1.0])


def test_static_tensor_dimensions_and_scalar_ranges_are_checked(module):
    a, b = f32(8), np.zeros(16, np.float32)
    with pytest.raises(
        LaunchError,
        match=r"%w \(argument 1 of @pair\) has type !tile.tensor<i32, \[3, \?\]>, "
        r"but the array has shape \(4, 5\) \(dimension 0\)",
    ):
        run_tile_kernel(module, "pair", [a, np.zeros((4, 5), np.int32), b, 1])
    with pytest.raises(LaunchError, match=r"%n \(argument 3 of @pair\) = 256 does not fit i8"):
        run_tile_kernel(module, "pair", [a, np.zeros((3, 5), np.int32), b, 256])
    with pytest.raises(
        LaunchError, match=r"%n \(argument 3 of @pair\) is an integer \(i8\), got 1.5"
    ):
        run_tile_kernel(module, "pair", [a, np.zeros((3, 5), np.int32), b, 1.5])
    run_tile_kernel(module, "pair", [a, np.zeros((3, 5), np.uint32), b, 255])  # signless: 255 is -1


def test_output_partitions_must_agree_on_the_grid(module):
    # @pair: [4]-tiles over 8 elements is a grid of 2; [8]-tiles over 24 is 3.
    with pytest.raises(LaunchError) as info:
        run_tile_kernel(module, "pair", [f32(8), np.zeros((3, 1), np.int32), f32(24), 0])
    assert str(info.value) == (
        "output partitions disagree on the grid: "
        "%a (argument 0 of @pair) has [2] tiles ([8] in tiles of [4]), "
        "%b (argument 2 of @pair) has [3] tiles ([24] in tiles of [8])"
    )
    kernel = find_tile_kernel(module, "pair")
    assert launch_grid(kernel, [f32(7), None, f32(9), 0]) == (2,)


def test_an_output_may_not_alias_another_argument(module):
    buf = f32(16, 1.0)
    with pytest.raises(
        LaunchError,
        match=r"%out \(argument 0 of @scale\) and %x \(argument 1 of @scale\) share memory",
    ):
        run_tile_kernel(module, "scale", [buf[:8], buf[4:12], 2.0])
    run_tile_kernel(module, "scale", [buf[:8], buf[8:], 2.0])  # disjoint halves are fine
    assert (buf[:8] == 2.0).all()


def test_tile_launch_args_follow_the_host_binding_rule(module):
    kernel = find_tile_kernel(module, "pair")
    assert tile_launch_args(kernel, ["w", "n"], ["a", "b"]) == ["a", "w", "b", "n"]
    with pytest.raises(
        LaunchError, match="@pair takes 2 inputs and 2 output partitions, got 1 and 2"
    ):
        tile_launch_args(kernel, ["w"], ["a", "b"])


def test_a_trap_is_located_at_the_op_and_names_the_block(module):
    with pytest.raises(KernelTrap) as info:
        run_tile_kernel(module, "divide", [f32(10), 5, 0])
    err = info.value
    assert err.location.line == 13
    assert "integer division by zero in 'arith.divui'" in str(err) and "(block (0,)" in str(err)
    assert str(err).startswith("launch.mlir:13:")


WIDEN_IN = [1.0, 1.00390625, 1.005859375, 3.0, -2.5, 1e-3, 300.0, 255.0, 1.5]
WIDEN_OUT = [2.0, 2.0, 2.0, 4.0, -1.5, 1.0, 300.0, 256.0, 2.5]  # every sum rounded to bf16


@pytest.mark.parametrize("run", [run_tile_kernel, run_lowered_tile_kernel], ids=["tile", "lowered"])
def test_bf16_tensors_take_float32_or_bf16_bits(module, run):
    x = np.array(WIDEN_IN, dtype=np.float32)
    out = f32(9)
    run(module, "widen", [out, x, 1.00390625])  # both rounded to bf16 on the way in
    assert list(out) == WIDEN_OUT
    bits = to_bf16(x)
    out2 = f32(9)
    run(module, "widen", [out2, bits, 1.0])
    assert list(out2) == WIDEN_OUT


@pytest.mark.parametrize("run", [run_tile_kernel, run_lowered_tile_kernel], ids=["tile", "lowered"])
def test_bf16_tensors_refuse_other_dtypes(module, run):
    with pytest.raises(LaunchError) as info:
        run(module, "widen", [f32(9), np.zeros(9, np.uint16), 1.0])
    assert str(info.value) == (
        "%x (argument 1 of @widen) holds bf16, but the array's dtype is uint16: pass bf16 bit "
        "patterns as ferrox.bf16_bits(array), an ml_dtypes bfloat16 array, or float32"
    )


@pytest.mark.parametrize("run", [run_tile_kernel, run_lowered_tile_kernel], ids=["tile", "lowered"])
def test_bf16_outputs_hold_bf16_values(module, run):
    x = np.array([1.1, 3.39e38, np.nan, -0.0, 1.005859375, 3.4e38], dtype=np.float32)
    out = f32(6)
    run(module, "narrow", [out, x])
    assert out[0] == 1.1015625 and out[1] == 3.3895313892515355e38 and np.isnan(out[2])
    assert np.signbit(out[3]) and out[4] == 1.0078125 and np.isposinf(out[5])
    bits = bf16_bits(np.full(6, 0x7FC1, np.uint16))  # poisoned: a NaN no result has
    run(module, "narrow", [bits, x])
    assert list(bits.view(np.ndarray)) == [0x3F8D, 0x7F7F, 0x7FFF, 0x8000, 0x3F81, 0x7F80]


def test_ml_dtypes_bfloat16_arrays_are_taken_where_installed(module):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = np.array(WIDEN_IN, dtype=np.float32).astype(ml_dtypes.bfloat16)
    out = np.zeros(9, ml_dtypes.bfloat16)
    run_lowered_tile_kernel(module, "narrow", [out, x.astype(np.float32)])
    assert np.array_equal(out.astype(np.float32), x.astype(np.float32))
    out2 = f32(9)
    run_lowered_tile_kernel(module, "widen", [out2, x, 1.0])
    assert list(out2) == WIDEN_OUT
