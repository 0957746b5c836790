"""The launch checker, rule by rule: each refusal pins its exact message, and a launch that
keeps the rule passes. The kernels are hand-made artifacts with the facts the compiler records
for examples/simt/vecadd.mlir, sgemm_naive, warp_reduce and examples/tile/vector_add."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ferrox.artifact import (
    Contract,
    IndexSpace,
    KernelArtifact,
    Param,
    ParamKind,
    Relation,
    SizeExpr,
    TileLaunch,
    Write,
)
from ferrox.driver.checker import (
    INTERPRETER_LIMITS,
    BufferArg,
    LaunchError,
    aliasing,
    check_launch,
    numpy_buffer,
)

LIMITS = INTERPRETER_LIMITS

SHARED, DISJOINT, SCALAR = ParamKind.SHARED_SLICE, ParamKind.DISJOINT_SLICE, ParamKind.SCALAR


def length(i: int) -> SizeExpr:
    return SizeExpr("len", i)


def arg(i: int) -> SizeExpr:
    return SizeExpr("arg", i)


def mul(a: SizeExpr, b: SizeExpr) -> SizeExpr:
    return SizeExpr("*", operands=(a, b))


def space(kind: str, **kw) -> IndexSpace:
    return IndexSpace(kind, **kw)


VECADD = KernelArtifact(
    "vecadd",
    (
        Param("a", SHARED, "f32"),
        Param("b", SHARED, "f32"),
        Param("out", DISJOINT, "f32", space("1d")),
    ),
    Contract(
        1,
        (256, 1, 1),
        requires=(
            Relation(length(0), ">=", length(2)),
            Relation(length(1), ">=", length(2)),
        ),
    ),
    (Write(2, space("1d")),),
)

SGEMM = KernelArtifact(
    "sgemm_naive",
    (
        Param("a", SHARED, "f32"),
        Param("b", SHARED, "f32"),
        Param("c", DISJOINT, "f32", space("2d_runtime")),
        Param("m", SCALAR, "index"),
        Param("n", SCALAR, "index"),
        Param("k", SCALAR, "index"),
    ),
    Contract(
        2,
        (16, 16, 1),
        requires=(
            Relation(length(0), ">=", mul(arg(3), arg(5))),
            Relation(length(1), ">=", mul(arg(5), arg(4))),
            Relation(length(2), "==", mul(arg(3), arg(4))),
        ),
    ),
    (Write(2, space("2d_runtime"), width_param=4),),
)

WARP = KernelArtifact(
    "warp_reduce",
    (Param("x", SHARED, "f32"), Param("out", DISJOINT, "f32", space("warp"))),
    Contract(1, (256, 1, 1)),
    (Write(1, space("warp")),),
)

FILL2D = KernelArtifact(
    "fill",
    (Param("out", DISJOINT, "f32", space("2d", stride=64)), Param("v", SCALAR, "f32")),
    Contract(2, (16, 16, 1)),
    (Write(0, space("2d", stride=64)),),
)

TILE_SPACE = space("tile", tile=(1024,), chunk=4, dims_param=1)
VECTOR_ADD = KernelArtifact(
    "vector_add",
    (
        Param("z", ParamKind.PARTITION, "f32", shape=(None,), tile=(1024,)),
        Param("x", ParamKind.TILE_TENSOR, "f32", shape=(None,)),
        Param("y", ParamKind.TILE_TENSOR, "f32", shape=(None,)),
    ),
    Contract(
        1,
        (256, 1, 1),
        requires=(
            Relation(length(0), "==", arg(1)),
            Relation(length(2), "==", arg(3)),
            Relation(length(4), "==", arg(5)),
        ),
    ),
    (Write(0, TILE_SPACE),),
    TileLaunch(((0, None), (0, 0), (1, None), (1, 0), (2, None), (2, 0)), 0, (1024,), 256),
    (
        Param("z", DISJOINT, "f32", TILE_SPACE),
        Param("z_d0", SCALAR, "index"),
        Param("x", SHARED, "f32"),
        Param("x_d0", SCALAR, "index"),
        Param("y", SHARED, "f32"),
        Param("y_d0", SCALAR, "index"),
    ),
)


# -- helpers -----------------------------------------------------------------------------------

F32 = np.float32


def buf(*shape: int, dtype=F32) -> np.ndarray:
    return np.zeros(shape, dtype)


def b(array: np.ndarray) -> BufferArg:
    return numpy_buffer(array)


def refused(kernel, grid, block, args, *, shared=None, limits=LIMITS) -> list[str]:
    with pytest.raises(LaunchError) as info:
        check_launch(kernel, grid, block, shared, args, limits)
    assert str(info.value) == "; ".join(info.value.problems)
    return info.value.problems


def vec(n: int = 1000) -> list[BufferArg]:
    return [b(buf(n)), b(buf(n)), b(buf(n))]


# -- configuration -----------------------------------------------------------------------------


def test_a_good_launch_gives_the_padded_configuration_and_arguments():
    args = vec()
    got = check_launch(VECADD, [4], [256], None, args, LIMITS)
    assert (got.kernel, got.grid, got.block, got.shared_bytes) == (
        "vecadd",
        (4, 1, 1),
        (256, 1, 1),
        0,
    )
    assert got.args == tuple(args) and got.entry_args == tuple(args)


def test_the_block_may_be_left_out_and_is_the_contracts():
    got = check_launch(VECADD, 4, None, None, vec(), LIMITS)
    assert (got.grid, got.block) == ((4, 1, 1), (256, 1, 1))


def test_block_rank_and_shared_against_the_contract():
    assert refused(VECADD, [4, 1], [128, 2], vec(), shared=16) == [
        "grid has 2 dimensions, but @vecadd's contract has domain = 1",
        "block has 2 dimensions, but @vecadd's contract has domain = 1",
        "block is (128, 2, 1), but @vecadd's contract requires block = [256], i.e. (256, 1, 1)",
        "dynamic shared memory is 16 bytes, but @vecadd's contract has shared_bytes = 0",
    ]


def test_a_2d_grid_on_a_domain_1_kernel_is_refused_even_with_the_right_block():
    assert refused(VECADD, (4, 2), None, vec()) == [
        "grid has 2 dimensions, but @vecadd's contract has domain = 1"
    ]


def test_a_wrong_block_alone():
    assert refused(VECADD, 8, 128, vec()) == [
        "block is (128, 1, 1), but @vecadd's contract requires block = [256], i.e. (256, 1, 1)"
    ]


def test_sizes_must_be_positive_integers():
    assert refused(VECADD, [0], None, vec()) == ["grid dimensions must be at least 1, got (0,)"]
    assert refused(VECADD, [1, 1, 1, 1], None, vec()) == [
        "grid must be 1 to 3 positive integers, got [1, 1, 1, 1]"
    ]
    assert refused(VECADD, 4, 2.5, vec()) == ["block must be 1 to 3 positive integers, got 2.5"]


def test_device_limits_compute_capability_and_static_shared_memory():
    big = dataclasses.replace(
        VECADD,
        contract=Contract(1, (1024, 1, 1), min_cc=100, static_shared_bytes=64 * 1024),
        writes=(),
    )
    small = dataclasses.replace(
        LIMITS, name="Small GPU", max_threads_per_block=512, max_grid_dims=(3, 1, 1)
    )
    assert refused(big, 4, None, vec(), limits=small) == [
        "block has 1024 threads, but Small GPU allows at most 512 per block",
        "grid.x is 4, but Small GPU allows at most 3",
        "the kernel needs compute capability 10.0, but Small GPU has 9.0",
        "@vecadd declares 65536 bytes of static shared memory, but Small GPU allows at most "
        "49152 per block",
    ]


def test_a_kernel_without_a_contract_is_refused():
    bare = dataclasses.replace(VECADD, contract=None)
    assert refused(bare, 4, 256, vec()) == [
        "@vecadd has no launch contract, so it cannot be launched safely"
    ]


# -- arguments ---------------------------------------------------------------------------------


def test_argument_count():
    assert refused(VECADD, 4, None, vec()[:2]) == ["@vecadd takes 3 arguments, got 2"]


def test_element_types_and_kinds():
    args = [b(buf(1000, dtype=np.float64)), 3, b(buf(1000))]
    assert refused(VECADD, 4, None, args) == [
        "%a (argument #0) of @vecadd is a slice of f32, but the array holds f64 (its element "
        "type must be f32)",
        "%b (argument #1) of @vecadd is a slice of f32, but the argument is the number 3",
    ]


def test_integers_are_signless_and_bools_are_i1():
    assert numpy_buffer(buf(4, dtype=np.uint32)).element == "i32"
    assert numpy_buffer(buf(4, dtype=np.int32)).element == "i32"
    assert numpy_buffer(buf(4, dtype=np.bool_)).element == "i1"


def test_scalars_against_their_parameters():
    args = [b(buf(15)), b(buf(21)), b(buf(35)), 5.0, b(buf(1)), 1 << 70]
    assert refused(SGEMM, [1, 1], None, args) == [
        "%m (argument #3) of @sgemm_naive is a scalar index, but the argument is 5.0",
        "%n (argument #4) of @sgemm_naive is a scalar index, but the argument is an array",
        f"%k (argument #5) of @sgemm_naive is a scalar index, but the argument {1 << 70} does "
        "not fit it",
    ]


def test_strided_views_and_read_only_outputs():
    out = buf(1000)
    out.flags.writeable = False
    args = [b(buf(2000)[::2]), b(buf(1000)), b(out)]
    assert refused(VECADD, 4, None, args) == [
        "%a (argument #0) of @vecadd is a slice of f32, but the array is a strided view: a "
        "kernel buffer must be contiguous (pass a contiguous copy)",
        "%out (argument #2) of @vecadd is written by the kernel, but the array is read-only",
    ]


# -- requires ----------------------------------------------------------------------------------


def test_requires_names_the_relation_and_both_values():
    m, n, k = 5, 7, 3
    args = [b(buf(m * k - 1)), b(buf(k * n)), b(buf(m * n + 1)), m, n, k]
    assert refused(SGEMM, [1, 1], None, args) == [
        "@sgemm_naive requires len(arg0) >= arg3 * arg5, but len(arg0) = 14 and arg3 * arg5 = 15 "
        "(arg3 = 5, arg5 = 3) [arg0 is %a, arg3 is %m, arg5 is %k]",
        "@sgemm_naive requires len(arg2) == arg3 * arg4, but len(arg2) = 36 and arg3 * arg4 = 35 "
        "(arg3 = 5, arg4 = 7) [arg2 is %c, arg3 is %m, arg4 is %n]",
    ]


def test_requires_that_hold():
    m, n, k = 5, 7, 3
    check_launch(SGEMM, [1, 1], None, None, [b(buf(15)), b(buf(21)), b(buf(35)), m, n, k], LIMITS)


def test_requires_on_vecadd_inputs():
    assert refused(VECADD, 4, None, [b(buf(999)), b(buf(1000)), b(buf(1000))]) == [
        "@vecadd requires len(arg0) >= len(arg2), but len(arg0) = 999 and len(arg2) = 1000 "
        "[arg0 is %a, arg2 is %out]"
    ]


# -- coverage ----------------------------------------------------------------------------------


def test_1d_coverage_is_exact():
    check_launch(VECADD, 4, None, None, vec(1024), LIMITS)
    assert refused(VECADD, 4, None, vec(1025)) == [
        "the grid does not cover %out: its 1d witness reaches grid.x * block.x = 4 * 256 = 1024 "
        "elements, but len(%out) = 1025 (grid.x must be at least 5)"
    ]


def test_a_too_small_grid_for_1000_elements():
    assert refused(VECADD, 1, None, vec(1000)) == [
        "the grid does not cover %out: its 1d witness reaches grid.x * block.x = 1 * 256 = 256 "
        "elements, but len(%out) = 1000 (grid.x must be at least 4)"
    ]


def test_warp_coverage_counts_one_element_per_warp():
    check_launch(WARP, 1, None, None, [b(buf(10)), b(buf(8))], LIMITS)
    assert refused(WARP, 1, None, [b(buf(10)), b(buf(9))]) == [
        "the grid does not cover %out: its warp witness reaches grid.x * block.x / 32 = 8 "
        "elements (one per warp), but len(%out) = 9 (grid.x must be at least 2)"
    ]


def test_2d_runtime_coverage_reads_the_width_parameter():
    m, n, k = 40, 70, 3  # c is m x n, width %n
    args = [b(buf(m * k)), b(buf(k * n)), b(buf(m * n)), m, n, k]
    check_launch(SGEMM, [5, 3], None, None, args, LIMITS)
    assert refused(SGEMM, [4, 2], None, args) == [
        "the grid does not cover %c: grid.x * block.x = 4 * 16 = 64 columns, but the row width "
        "%n = 70 needs 70 (grid.x must be at least 5)",
        "the grid does not cover %c: grid.y * block.y = 2 * 16 = 32 rows, but len(%c) = 2800 at "
        "the row width %n = 70 needs 40 (grid.y must be at least 3)",
    ]


def test_2d_static_stride_coverage():
    check_launch(FILL2D, [4, 2], None, None, [b(buf(64 * 32)), 1.0], LIMITS)
    assert refused(FILL2D, [3, 2], None, [b(buf(64 * 33)), 1.0]) == [
        "the grid does not cover %out: grid.x * block.x = 3 * 16 = 48 columns, but the row "
        "stride 64 needs 64 (grid.x must be at least 4)",
        "the grid does not cover %out: grid.y * block.y = 2 * 16 = 32 rows, but len(%out) = 2112 "
        "at the row stride 64 needs 33 (grid.y must be at least 3)",
    ]


# -- aliasing ----------------------------------------------------------------------------------


def test_an_output_passed_as_an_input_too_is_refused():
    a, out = buf(1000), buf(1000)
    assert refused(VECADD, 4, None, [b(a), b(out), b(out)]) == [
        "%b (argument #1) and %out (argument #2) of @vecadd overlap by 4000 bytes, but %out is "
        "an exclusive output (disjoint slice) and must not alias any other argument (pass a copy)"
    ]


def test_overlapping_slices_of_one_buffer_are_refused():
    whole = buf(1500)
    args = [b(whole[:1000]), b(buf(1000)), b(whole[500:1500])]
    assert refused(VECADD, 4, None, args) == [
        "%a (argument #0) and %out (argument #2) of @vecadd overlap by 2000 bytes, but %out is "
        "an exclusive output (disjoint slice) and must not alias any other argument (pass a copy)"
    ]


def test_disjoint_slices_of_one_buffer_and_shared_inputs_may_share():
    whole = buf(3000)
    check_launch(
        VECADD, 4, None, None, [b(whole[:1000]), b(whole[:1000]), b(whole[1000:2000])], LIMITS
    )


def test_views_of_one_buffer_count_by_their_extent():
    whole = buf(2000)
    evens, odds = whole[0::2], whole[1::2]
    assert aliasing.overlap(numpy_buffer(evens), numpy_buffer(odds)) == 7992
    assert aliasing.overlap(numpy_buffer(whole[:10]), numpy_buffer(whole[10:20])) == 0
    reversed_view = numpy_buffer(whole[::-1])
    assert (reversed_view.start, reversed_view.nbytes) == (numpy_buffer(whole).start, 8000)


def test_device_buffers_are_judged_by_their_addresses():
    a = BufferArg(0x1000, 4000, 1000, "f32", (1000,))
    out = BufferArg(0x1000 + 3996, 4000, 1000, "f32", (1000,))
    b_ = BufferArg(0x9000, 4000, 1000, "f32", (1000,))
    assert refused(VECADD, 4, None, [a, b_, out]) == [
        "%a (argument #0) and %out (argument #2) of @vecadd overlap by 4 bytes, but %out is an "
        "exclusive output (disjoint slice) and must not alias any other argument (pass a copy)"
    ]


# -- tile kernels ------------------------------------------------------------------------------


def tile_args(n: int) -> list[BufferArg]:
    return [b(buf(n)), b(buf(n)), b(buf(n))]


def test_a_tile_launch_becomes_its_simt_kernels_launch():
    args = tile_args(3001)
    got = check_launch(VECTOR_ADD, 3, None, None, args, LIMITS)
    assert (got.grid, got.block) == ((3, 1, 1), (256, 1, 1))
    assert got.entry_args == (args[0], 3001, args[1], 3001, args[2], 3001)
    assert check_launch(VECTOR_ADD, None, None, None, args, LIMITS).grid == (3, 1, 1)


def test_the_tile_grid_is_one_block_per_tile():
    assert refused(VECTOR_ADD, 2, None, tile_args(3001)) == [
        "grid is [2], but @vector_add's output partition %z of shape [3001] in tiles of [1024] "
        "has [3] tiles (the grid must be [3])"
    ]


def test_tile_tensor_rank_and_static_dims():
    fixed = dataclasses.replace(
        VECTOR_ADD,
        params=(
            VECTOR_ADD.params[0],
            Param("x", ParamKind.TILE_TENSOR, "f32", shape=(2048,)),
            VECTOR_ADD.params[2],
        ),
    )
    args = [b(buf(2048)), b(buf(3000)), b(buf(16, 128))]
    assert refused(fixed, 2, None, args) == [
        "%x of @vector_add has shape [2048], but the array bound to it has shape [3000] "
        "(dimension 0 is 3000, not 2048)",
        "%y of @vector_add has shape [?] (rank 1), but the array bound to it has shape [16, 128]",
    ]


def test_an_output_partition_must_not_alias_an_input_tensor():
    x = buf(4096)
    args = [b(x[1024:3072]), b(x[:2048]), b(buf(2048))]
    assert refused(VECTOR_ADD, 2, None, args) == [
        "%z (argument #0) and %x (argument #1) of @vector_add overlap by 4096 bytes, but %z is "
        "an exclusive output (partition) and must not alias any other argument (pass a copy)"
    ]


# -- persistent tile kernels (docs/safety.md#simt-1-persistent) ----------------------------

PERSISTENT_SPACE = dataclasses.replace(TILE_SPACE, persistent=True)
PERSISTENT_ADD = dataclasses.replace(
    VECTOR_ADD,
    writes=(Write(0, PERSISTENT_SPACE),),
    tile=dataclasses.replace(VECTOR_ADD.tile, persistent=True),
    simt_params=(
        Param("z", DISJOINT, "f32", PERSISTENT_SPACE),
        *VECTOR_ADD.simt_params[1:],
    ),
)


@pytest.mark.parametrize("n, blocks", [(3001, 3), (10 * 1024, 3), (1000, 1), (2048, 2)])
def test_a_persistent_launch_takes_min_of_tiles_and_sms(n, blocks):
    assert check_launch(PERSISTENT_ADD, None, None, None, tile_args(n), LIMITS).grid == (
        blocks, 1, 1,
    )  # fmt: skip
    fake = dataclasses.replace(LIMITS, sm_count=132)  # an H100's SMs
    got = check_launch(PERSISTENT_ADD, None, None, None, tile_args(200 * 1024), fake)
    assert got.grid == (132, 1, 1)


def test_a_persistent_kernel_takes_any_1d_grid_of_one_block_or_more():
    for grid in (1, 2, 7, 50):  # fewer or more blocks than tiles: each loops over its own
        assert check_launch(PERSISTENT_ADD, grid, None, None, tile_args(3001), LIMITS)


def test_only_a_persistent_kernel_takes_a_grid_smaller_than_its_tiles():
    assert refused(VECTOR_ADD, 1, None, tile_args(3001)) == [
        "grid is [1], but @vector_add's output partition %z of shape [3001] in tiles of [1024] "
        "has [3] tiles (the grid must be [3])"
    ]
    assert refused(PERSISTENT_ADD, (2, 2), None, tile_args(3001)) == [
        "grid has 2 dimensions, but @vector_add's contract has domain = 1"
    ]
    wider = dataclasses.replace(  # a contract that let a 2-D grid through: the tile rule still
        PERSISTENT_ADD, contract=dataclasses.replace(PERSISTENT_ADD.contract, domain=2)
    )
    assert refused(wider, (2, 2), None, tile_args(3001)) == [
        "grid is [2, 2], but @vector_add is persistent: it loops over its tiles on a 1-D grid "
        "of at least one block (the host launches min(tiles, SMs) blocks)"
    ]


def test_coverage_takes_a_persistent_output_from_one_block_and_refuses_none():
    from ferrox.driver.checker import coverage

    def problems(grid):
        return coverage.problems(
            (Write(0, PERSISTENT_SPACE),),
            grid,
            (256, 1, 1),
            length=lambda p: 3001,
            scalar=lambda p: 3001,
            name=lambda p: f"%arg{p}",
        )

    assert problems((1, 1, 1)) == []  # one block loops over all 3 tiles
    assert problems((0, 1, 1)) == [
        "the grid does not cover %arg0: its persistent tile loop needs at least one block"
    ]
    # the same space without `persistent` needs its 3 tiles on grid.x
    assert coverage.problems(
        (Write(0, TILE_SPACE),), (1, 1, 1), (256, 1, 1), lambda p: 3001, lambda p: 3001, str
    ) == [
        "the grid does not cover 0: grid.x = 1 tiles of 1024, but dimension 0 (1) is 3001 "
        "(grid.x must be at least 3)"
    ]
