"""`prepare` at run time: contract, device limits, `requires` and grid coverage, each refusal
naming the bound and both values, and every refusal reported at once."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from programs import EXAMPLES
from xdsl.dialects.builtin import f32

from ferrox.dialects.simt import KernelOp
from ferrox.driver.host_runner import INTERPRETER_LIMITS, PrepareError, check_prepare
from ferrox.driver.host_runner.prepare import check_same_args
from ferrox.driver.host_runner.values import Tensor
from ferrox.run_api import load_program

LIMITS = INTERPRETER_LIMITS


def kernel_of(name: str) -> KernelOp:
    module = load_program(EXAMPLES / f"{name}.mlir")
    return next(op for op in module.walk() if isinstance(op, KernelOp))


def inline(text: str, tmp_path) -> KernelOp:
    path = tmp_path / "k.mlir"
    path.write_text(text)
    return next(op for op in load_program(path).walk() if isinstance(op, KernelOp))


def t(*shape: int) -> Tensor:
    return Tensor(np.zeros(shape, np.float32), f32, shape, np.dtype(np.float32))


def problems(*args, **kw) -> list[str]:
    with pytest.raises(PrepareError) as info:
        check_prepare(*args, **kw)
    return info.value.problems


def test_a_good_launch_records_configuration_and_argument_shapes():
    p = check_prepare(kernel_of("vecadd"), [4], [256], None, [t(1000), t(1000), t(1000)], LIMITS)
    assert (p.kernel, p.grid, p.block, p.shared) == ("vecadd", (4, 1, 1), (256, 1, 1), 0)
    assert p.signature == ((1000,), (1000,), (1000,))


def test_block_rank_and_shared_against_the_contract():
    got = problems(kernel_of("vecadd"), [4, 1], [128, 2], 16, [t(1000)] * 3, LIMITS)
    assert got == [
        "grid has 2 dimensions, but @vecadd's contract has domain = 1",
        "block has 2 dimensions, but @vecadd's contract has domain = 1",
        "block is (128, 2, 1), but @vecadd's contract requires block = [256], i.e. (256, 1, 1)",
        "dynamic shared memory is 16 bytes, but @vecadd's contract has shared_bytes = 0",
    ]


def test_device_limits_and_compute_capability(tmp_path):
    k = inline(
        "simt.kernel @big(%out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [1024], "
        "min_cc = 100> {\n  simt.return\n}\n",
        tmp_path,
    )
    small = dataclasses.replace(
        LIMITS, name="Small GPU", max_threads_per_block=512, max_grid_dims=(3, 1, 1)
    )
    got = problems(k, [4], [1024], None, [t(4096)], small)
    assert got == [
        "block has 1024 threads, but Small GPU allows at most 512 per block",
        "grid.x is 4, but Small GPU allows at most 3",
        "the kernel needs compute capability 10.0, but Small GPU has 9.0",
    ]


def test_requires_names_the_relation_and_both_values():
    k = kernel_of("sgemm_naive")
    m, n, kk = 5, 7, 3
    got = problems(
        k, [1, 1], [16, 16], None, [t(m * kk - 1), t(kk * n), t(m * n + 1), m, n, kk], LIMITS
    )
    assert got == [
        "@sgemm_naive requires len(arg0) >= arg3 * arg5, but len(arg0) = 14 and arg3 * arg5 = 15 "
        "(arg3 = 5, arg5 = 3) [arg0 is %a, arg3 is %m, arg5 is %k]",
        "@sgemm_naive requires len(arg2) == arg3 * arg4, but len(arg2) = 36 and arg3 * arg4 = 35 "
        "(arg3 = 5, arg4 = 7) [arg2 is %c, arg3 is %m, arg4 is %n]",
    ]


def test_coverage_is_judged_only_for_the_contract_block():
    got = problems(kernel_of("vecadd"), [1], [128], None, [t(1000)] * 3, LIMITS)
    assert got == [
        "block is (128, 1, 1), but @vecadd's contract requires block = [256], i.e. (256, 1, 1)"
    ]


def test_1d_coverage_is_exact():
    k = kernel_of("vecadd")
    check_prepare(k, [4], [256], None, [t(1024)] * 3, LIMITS)
    assert problems(k, [4], [256], None, [t(1025)] * 3, LIMITS) == [
        "the grid does not cover %out: its 1d witness reaches grid.x * block.x = 4 * 256 = 1024 "
        "elements, but len(%out) = 1025 (grid.x must be at least 5)"
    ]


def test_warp_coverage_counts_one_element_per_warp():
    k = kernel_of("warp_reduce")
    check_prepare(k, [1], [256], None, [t(10), t(8)], LIMITS)
    assert problems(k, [1], [256], None, [t(10), t(9)], LIMITS) == [
        "the grid does not cover %out: its warp witness reaches grid.x * block.x / 32 = 8 elements "
        "(one per warp), but len(%out) = 9 (grid.x must be at least 2)"
    ]


def test_2d_runtime_coverage_reads_the_width_parameter():
    k = kernel_of("transpose")  # out is cols x rows, width = %rows (arg2)
    rows, cols = 70, 45
    check_prepare(k, [3, 2], [32, 32], None, [t(rows * cols), t(rows * cols), rows, cols], LIMITS)
    assert problems(
        k, [2, 1], [32, 32], None, [t(rows * cols), t(rows * cols), rows, cols], LIMITS
    ) == [
        "the grid does not cover %out: grid.x * block.x = 2 * 32 = 64 columns, but the row width "
        "%rows = 70 needs 70 (grid.x must be at least 3)",
        "the grid does not cover %out: grid.y * block.y = 1 * 32 = 32 rows, but len(%out) = 3150 at "
        "the row width %rows = 70 needs 45 (grid.y must be at least 2)",
    ]


def test_2d_static_stride_coverage(tmp_path):
    k = inline(
        "simt.kernel @fill(%out: !simt.disjoint_slice<f32, 2d<64>>, %v: f32) contract<domain = 2, "
        "block = [16, 16]> {\n  %w = simt.index_2d : !simt.thread_index<2d<64>>\n"
        "  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 2d<64>>, !simt.thread_index<2d<64>> {\n"
        "  ^bb0(%old: f32):\n    simt.yield %v : f32\n  }\n  simt.return\n}\n",
        tmp_path,
    )
    check_prepare(k, [4, 2], [16, 16], None, [t(64 * 32), np.float32(1)], LIMITS)
    assert problems(k, [3, 2], [16, 16], None, [t(64 * 33), np.float32(1)], LIMITS) == [
        "the grid does not cover %out: grid.x * block.x = 3 * 16 = 48 columns, but the row stride 64 "
        "needs 64 (grid.x must be at least 4)",
        "the grid does not cover %out: grid.y * block.y = 2 * 16 = 32 rows, but len(%out) = 2112 at "
        "the row stride 64 needs 33 (grid.y must be at least 3)",
    ]


def test_outputs_not_written_through_witnesses_are_not_judged():
    check_prepare(kernel_of("histogram"), [1], [256], None, [t(10**6), t(64)], LIMITS)


def test_a_launch_must_pass_what_was_prepared():
    k = kernel_of("vecadd")
    p = check_prepare(k, [4], [256], None, [t(1000)] * 3, LIMITS)
    assert check_same_args(k, p, [t(1000)] * 3) == []
    assert check_same_args(k, p, [t(1000), t(1000), t(1024)]) == [
        "argument #2 (%out) of @vecadd has shape [1024], but the launch was prepared with [1000]: "
        "prepare it again with these arguments"
    ]
    s = kernel_of("sgemm_naive")
    ps = check_prepare(s, [1, 1], [16, 16], None, [t(6), t(6), t(4), 2, 2, 3], LIMITS)
    assert check_same_args(s, ps, [t(6), t(6), t(4), 2, 2, 4])[0].startswith(
        "argument #5 (%k) of @sgemm_naive has value 4, but the launch was prepared with 3"
    )


def test_tile_space_coverage_counts_tiles_per_block():
    k = kernel_of("vecadd_vec4")  # tile<[1024], 4, arg3>: block b owns out[b*1024 .. +1024)
    n = 3000
    check_prepare(k, [3], [256], None, [t(n), t(n), t(n), n], LIMITS)
    assert problems(k, [2], [256], None, [t(n), t(n), t(n), n], LIMITS) == [
        "the grid does not cover %out: grid.x = 2 tiles of 1024, but dimension 0 (%n) is 3000 "
        "(grid.x must be at least 3)"
    ]
