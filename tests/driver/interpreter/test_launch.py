"""A bad launch is refused before any thread runs, with the reason; a good one after it works."""

from __future__ import annotations

import numpy as np
import pytest

from ferrox.driver.interpreter import LaunchError, run_simt_kernel


def args(n=256, dtype=np.float32):
    return [np.ones(n, dtype), np.ones(n, dtype), np.full(n, np.nan, dtype)]


def test_unknown_kernel_lists_the_kernels(example):
    with pytest.raises(
        LaunchError, match=r"no simt.kernel named @vadd in the module \(kernels: @vecadd\)"
    ):
        run_simt_kernel(example("vecadd"), "vadd", (1, 1, 1), (256, 1, 1), args())


def test_kernel_name_may_carry_the_at_sign(example):
    a, b, out = args()
    run_simt_kernel(example("vecadd"), "@vecadd", (1, 1, 1), (256, 1, 1), [a, b, out])
    assert (out == 2).all()


def test_block_must_match_the_contract(example):
    with pytest.raises(LaunchError) as info:
        run_simt_kernel(example("vecadd"), "vecadd", (2, 1, 1), (128, 1, 1), args())
    assert str(info.value) == (
        "@vecadd requires block (256, 1, 1) (its launch contract, emitted as .reqntid), "
        "but the launch has block (128, 1, 1)"
    )


@pytest.mark.parametrize(
    ("grid", "block", "message"),
    [
        ((0, 1, 1), (256, 1, 1), r"grid dimensions must be at least 1, got \(0, 1, 1\)"),
        ((1, 1, 1, 1), (256, 1, 1), "grid must be 1 to 3 positive integers"),
        ((1, 70000, 1), (256, 1, 1), "grid.y = 70000 is over the CUDA limit of 65535"),
        ((1.0, 1, 1), (256, 1, 1), "grid must be 1 to 3 positive integers"),
    ],
)
def test_bad_dimensions(example, grid, block, message):
    with pytest.raises(LaunchError, match=message):
        run_simt_kernel(example("vecadd"), "vecadd", grid, block, args())


def test_short_dimensions_are_padded(example):
    a, b, out = args(300)
    run_simt_kernel(example("vecadd"), "vecadd", 2, (256,), [a, b, out])
    assert (out == 2).all()


def test_too_many_threads_without_a_contract(example):
    with pytest.raises(
        LaunchError, match=r"a block of \(64, 32, 1\) has 2048 threads; CUDA allows 1024"
    ):
        run_simt_kernel(
            example("vecadd_unchecked"), "vecadd_unchecked", 1, (64, 32, 1), [*args(), 256]
        )


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (lambda a, b, o: [a, b], "@vecadd takes 3 arguments, got 2"),
        (
            lambda a, b, o: [a.astype(np.float64), b, o],
            r"%a \(argument 0 of @vecadd\) holds f32, but the array's dtype is float64",
        ),
        (
            lambda a, b, o: [a, [1.0] * 256, o],
            r"%b \(argument 1 of @vecadd\) takes a NumPy array, got list",
        ),
        (
            lambda a, b, o: [a, b, _readonly(o)],
            r"%out \(argument 2 of @vecadd\) is written by the kernel, but the array is read-only",
        ),
        (
            lambda a, b, o: [a, b, np.ones((4, 64), np.float32)[:, ::2]],
            "takes a 1-D or C-contiguous array",
        ),
    ],
)
def test_bad_arguments(example, values, message):
    a, b, out = args()
    with pytest.raises(LaunchError, match=message):
        run_simt_kernel(example("vecadd"), "vecadd", (1, 1, 1), (256, 1, 1), values(a, b, out))
    run_simt_kernel(example("vecadd"), "vecadd", (1, 1, 1), (256, 1, 1), [a, b, out])  # still works
    assert (out == 2).all()


def _readonly(array):
    view = array.view()
    view.flags.writeable = False
    return view


def test_inputs_may_be_read_only_and_are_never_written(example):
    a, b, out = args()
    a.flags.writeable = False
    run_simt_kernel(example("vecadd"), "vecadd", (1, 1, 1), (256, 1, 1), [a, b, out])
    assert (out == 2).all() and (a == 1).all()


def test_contiguous_matrices_are_flattened_in_place(example, rng):
    a, b = (
        rng.standard_normal((4, 8), dtype=np.float32),
        rng.standard_normal((8, 4), dtype=np.float32),
    )
    c = np.full((4, 4), np.nan, np.float32)
    run_simt_kernel(
        example("sgemm_naive"), "sgemm_naive", (1, 1, 1), (16, 16, 1), [a, b, c, 4, 4, 8]
    )
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def test_signless_integer_slices_take_unsigned_arrays(example):
    values = np.array([3, 4, 0xFFFFFFFF], np.uint32)
    bins = np.zeros(4, np.uint32)
    run_simt_kernel(example("histogram"), "histogram", (1, 1, 1), (256, 1, 1), [values, bins])
    assert bins.tolist() == [1, 0, 0, 2]  # 3, 0xFFFFFFFF % 4 == 3; 4 % 4 == 0


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (
            [2**63, 4, 4],
            r"%m \(argument 3 of @sgemm_naive\) = 9223372036854775808 does not fit index",
        ),
        ([4, 4.0, 4], r"%n \(argument 4 of @sgemm_naive\) is an integer \(index\), got 4.0"),
        ([4, 4, True], r"%k \(argument 5 of @sgemm_naive\) is an integer \(index\), got True"),
    ],
)
def test_bad_scalars(example, values, message):
    a, b, c = np.zeros(16, np.float32), np.zeros(16, np.float32), np.zeros(16, np.float32)
    with pytest.raises(LaunchError, match=message):
        run_simt_kernel(
            example("sgemm_naive"), "sgemm_naive", (1, 1, 1), (16, 16, 1), [a, b, c, *values]
        )


def test_float_scalar_overflowing_f32(example):
    x, y = np.zeros(4, np.float32), np.zeros(4, np.float32)
    with pytest.raises(
        LaunchError, match=r"%alpha \(argument 0 of @saxpy\) = 1e\+39 overflows f32"
    ):
        run_simt_kernel(example("saxpy"), "saxpy", (1, 1, 1), (256, 1, 1), [1e39, x, y])


def test_static_shared_memory_limit(kernel):
    text = """
  simt.kernel @big(%out: !simt.ptr<f32>) unsafe {
    %t = simt.shared_alloc : !simt.shared<f32, [128, 128]>
    simt.return
  }
"""
    with pytest.raises(
        LaunchError, match="@big allocates 65536 bytes of static shared memory; the limit is 49152"
    ):
        run_simt_kernel(kernel(text), "big", (1, 1, 1), (1, 1, 1), [np.zeros(1, np.float32)])


def test_static_shared_memory_counts_alignment_padding(kernel):
    # 48 KiB - 16 bytes of data, but a 1-byte array before a 1024-aligned one may leave 1008
    # bytes of padding wherever ptxas puts it: the GPU could not hold it, so neither may we.
    text = """
  simt.kernel @padded(%out: !simt.ptr<f32>) unsafe {
    %a = simt.shared_alloc : !simt.shared<i8, [1]>
    %b = simt.shared_alloc {align = 1024} : !simt.shared<f32, [12284]>
    simt.return
  }
"""
    with pytest.raises(
        LaunchError,
        match="@padded allocates 50160 bytes of static shared memory; the limit is 49152",
    ):
        run_simt_kernel(kernel(text), "padded", (1, 1, 1), (1, 1, 1), [np.zeros(1, np.float32)])


def test_static_shared_memory_exactly_at_the_limit_runs(kernel):
    text = """
  simt.kernel @full(%out: !simt.ptr<f32>) unsafe {
    %a = simt.shared_alloc : !simt.shared<f32, [4096]>
    %b = simt.shared_alloc {align = 1024} : !simt.shared<f32, [8192]>
    simt.return
  }
"""
    out = np.full(1, np.nan, np.float32)
    run_simt_kernel(kernel(text), "full", (1, 1, 1), (1, 1, 1), [out])
    assert np.isnan(out).all()  # the kernel writes nothing; the point is that it launched


def test_bf16_slices_take_bf16_bits_not_other_arrays(kernel):
    text = """
  simt.kernel @half(%x: !simt.slice<bf16>) {
    simt.return
  }
"""
    for wrong in (np.zeros(2, np.float16), np.zeros(2, np.uint16)):
        with pytest.raises(LaunchError) as info:
            run_simt_kernel(kernel(text), "half", (1, 1, 1), (1, 1, 1), [wrong])
        assert str(info.value) == (
            f"%x (argument 0 of @half) holds bf16, but the array's dtype is {wrong.dtype}: pass "
            "bf16 bit patterns as ferrox.bf16_bits(array), an ml_dtypes bfloat16 array, or float32"
        )


def test_unsupported_ops_are_located_faults(kernel):
    from ferrox.driver.interpreter import KernelFault, KernelTrap

    text = """
  simt.kernel @odd(%out: !simt.ptr<f32>, %x: f32) unsafe {
    %m = memref.alloca() : memref<4xf32>
    simt.return
  }
  simt.kernel @vec(%out: !simt.ptr<f32>) unsafe {
    %c = arith.constant dense<1.0> : vector<4xf32>
    simt.return
  }
"""
    module = kernel(text)
    with pytest.raises(
        KernelFault,
        match=r"test.mlir:4:5: error: the interpreter has no implementation of 'memref.alloca'",
    ) as info:
        run_simt_kernel(module, "odd", (1, 1, 1), (1, 1, 1), [np.zeros(1, np.float32), 2.0])
    assert not isinstance(info.value, KernelTrap)
    with pytest.raises(
        KernelFault, match=r"test.mlir:8:5: error: the interpreter handles scalar constants only"
    ):
        run_simt_kernel(module, "vec", (1, 1, 1), (1, 1, 1), [np.zeros(1, np.float32)])
