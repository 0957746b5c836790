"""`host.prepare` runs the launch checker on the compiler's artifact: the facts it checks (the
contract, `requires`, coverage writes, the tile launch map) are the compiler's for each example,
the refusals are the checker's sentences, and a launch must pass what was prepared, with no
exclusive output overlapping another argument. Each rule on its own: tests/driver/checker."""

from __future__ import annotations

import numpy as np
import pytest
from programs import EXAMPLES
from xdsl.dialects.builtin import f32, i32

from ferrox.artifact import KernelArtifact
from ferrox.driver.checker import INTERPRETER_LIMITS, LaunchError, numpy_buffer
from ferrox.driver.host_runner.prepare import check_prepare, check_same_args
from ferrox.driver.host_runner.values import Tensor
from ferrox.targets.cache import compile_cached

LIMITS = INTERPRETER_LIMITS
TILE = EXAMPLES.parent / "tile"


def kernel_of(name: str, folder=EXAMPLES) -> KernelArtifact:
    return compile_cached(folder / f"{name}.mlir")[name]


def t(*shape: int, dtype=np.float32) -> Tensor:
    element = f32 if dtype == np.float32 else i32
    return Tensor(np.zeros(shape, dtype), element, shape, np.dtype(dtype))


def describe(tensor: Tensor):
    return numpy_buffer(tensor.data, obj=tensor)


def prepare(kernel, grid, block, args):
    return check_prepare(kernel, grid, block, None, args, describe, LIMITS)


def problems(kernel, grid, block, args) -> list[str]:
    with pytest.raises(LaunchError) as info:
        prepare(kernel, grid, block, args)
    return info.value.problems


def test_a_good_launch_records_configuration_and_argument_shapes():
    p = prepare(kernel_of("vecadd"), [4], [256], [t(1000), t(1000), t(1000)])
    assert (p.kernel, p.grid, p.block, p.shared) == ("vecadd", (4, 1, 1), (256, 1, 1), 0)
    assert p.signature == ((1000,), (1000,), (1000,))


def test_the_contract_from_the_artifact():
    assert problems(kernel_of("vecadd"), [4, 1], [128, 2], [t(1000), t(1000), t(1000)]) == [
        "grid has 2 dimensions, but @vecadd's contract has domain = 1",
        "block has 2 dimensions, but @vecadd's contract has domain = 1",
        "block is (128, 2, 1), but @vecadd's contract requires block = [256], i.e. (256, 1, 1)",
    ]


def test_requires_from_the_artifact():
    m, n, kk = 5, 7, 3
    args = [t(m * kk - 1), t(kk * n), t(m * n + 1), m, n, kk]
    assert problems(kernel_of("sgemm_naive"), [1, 1], [16, 16], args) == [
        "@sgemm_naive requires len(arg0) >= arg3 * arg5, but len(arg0) = 14 and arg3 * arg5 = 15 "
        "(arg3 = 5, arg5 = 3) [arg0 is %a, arg3 is %m, arg5 is %k]",
        "@sgemm_naive requires len(arg2) == arg3 * arg4, but len(arg2) = 36 and arg3 * arg4 = 35 "
        "(arg3 = 5, arg4 = 7) [arg2 is %c, arg3 is %m, arg4 is %n]",
    ]


def test_1d_coverage_from_the_artifact():
    k = kernel_of("vecadd")
    prepare(k, [4], [256], [t(1024), t(1024), t(1024)])
    assert problems(k, [4], [256], [t(1025), t(1025), t(1025)]) == [
        "the grid does not cover %out: its 1d witness reaches grid.x * block.x = 4 * 256 = 1024 "
        "elements, but len(%out) = 1025 (grid.x must be at least 5)"
    ]


def test_warp_coverage_from_the_artifact():
    k = kernel_of("warp_reduce")
    prepare(k, [1], [256], [t(10), t(8)])
    assert problems(k, [1], [256], [t(10), t(9)]) == [
        "the grid does not cover %out: its warp witness reaches grid.x * block.x / 32 = 8 elements "
        "(one per warp), but len(%out) = 9 (grid.x must be at least 2)"
    ]


def test_2d_runtime_coverage_from_the_artifact():
    k = kernel_of("transpose")  # out is cols x rows, width = %rows (arg2)
    rows, cols = 70, 45
    prepare(k, [3, 2], [32, 32], [t(rows * cols), t(rows * cols), rows, cols])
    assert problems(k, [2, 1], [32, 32], [t(rows * cols), t(rows * cols), rows, cols]) == [
        "the grid does not cover %out: grid.x * block.x = 2 * 32 = 64 columns, but the row width "
        "%rows = 70 needs 70 (grid.x must be at least 3)",
        "the grid does not cover %out: grid.y * block.y = 1 * 32 = 32 rows, but len(%out) = 3150 "
        "at the row width %rows = 70 needs 45 (grid.y must be at least 2)",
    ]


def test_tile_space_coverage_from_the_artifact():
    k = kernel_of("vecadd_vec4")  # tile<[1024], 4, arg3>: block b owns out[b*1024 .. +1024)
    n = 3000
    prepare(k, [3], [256], [t(n), t(n), t(n), n])
    assert problems(k, [2], [256], [t(n), t(n), t(n), n]) == [
        "the grid does not cover %out: grid.x = 2 tiles of 1024, but dimension 0 (%n) is 3000 "
        "(grid.x must be at least 3)"
    ]


def test_outputs_not_written_through_witnesses_are_not_judged():
    prepare(kernel_of("histogram"), [1], [256], [t(10**6, dtype=np.int32), t(64, dtype=np.int32)])


def test_the_tile_launch_map_from_the_artifact():
    k = kernel_of("vector_add", TILE)
    assert k.tile is not None and k.tile.grid_tile == (1024,) and k.tile.grid_partition == 0
    assert [p.name for p in k.params] == ["z", "x", "y"]
    assert len(k.entry_params) == len(k.tile.sources)


def test_a_launch_must_pass_what_was_prepared():
    k = kernel_of("vecadd")
    p = prepare(k, [4], [256], [t(1000), t(1000), t(1000)])
    assert check_same_args(k, p, [t(1000), t(1000), t(1000)], describe) == []
    assert check_same_args(k, p, [t(1000), t(1000), t(1024)], describe) == [
        "argument #2 (%out) of @vecadd has shape [1024], but the launch was prepared with [1000]: "
        "prepare it again with these arguments"
    ]
    s = kernel_of("sgemm_naive")
    ps = prepare(s, [1, 1], [16, 16], [t(6), t(6), t(4), 2, 2, 3])
    assert check_same_args(s, ps, [t(6), t(6), t(4), 2, 2, 4], describe)[0].startswith(
        "argument #5 (%k) of @sgemm_naive has value 4, but the launch was prepared with 3"
    )


def test_a_launch_must_not_alias_what_it_writes():
    k = kernel_of("vecadd")
    a, out = t(1000), t(1000)
    p = prepare(k, [4], [256], [a, t(1000), out])
    assert check_same_args(k, p, [a, out, out], describe) == [
        "%b (argument #1) and %out (argument #2) of @vecadd overlap by 4000 bytes, but %out is "
        "an exclusive output (disjoint slice) and must not alias any other argument (pass a copy)"
    ]
