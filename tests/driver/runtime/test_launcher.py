"""The launcher: arguments packed by the artifact's ABI (values, widths, ranges, refusals that
name the parameter), the ABI compared with the driver's once at load, one load per image and
device, the shared-memory opt-in, driver refusals explained; and a compiled kernel run end to
end on the fake GPU, compared with NumPy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cuda.bindings import driver as cu
from cuda.core import LEGACY_DEFAULT_STREAM

from ferrox.artifact import (
    AbiSlot,
    Contract,
    IndexSpace,
    KernelArtifact,
    ModuleArtifact,
    Param,
    ParamKind,
)
from ferrox.driver.runtime import errors, launcher
from ferrox.driver.runtime.abi import bf16_bits
from ferrox.driver.runtime.buffers import DeviceArray, DeviceView
from ferrox.driver.runtime.errors import ArgumentError, CoreCudaError, CudaError, InternalError
from ferrox.driver.runtime.launcher import LoadedModule, dim3

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "simt"

PARAMS = (
    Param("x", ParamKind.SHARED_SLICE, "f32"),
    Param("out", ParamKind.DISJOINT_SLICE, "f32", IndexSpace("1d")),
    Param("n", ParamKind.SCALAR, "i32"),
    Param("alpha", ParamKind.SCALAR, "f32"),
    Param("raw", ParamKind.POINTER, "i8"),
    Param("h", ParamKind.SCALAR, "bf16"),
    Param("flag", ParamKind.SCALAR, "i1"),
    Param("big", ParamKind.SCALAR, "index"),
)
KERNEL = KernelArtifact("k", PARAMS, Contract(domain=1, block=(256, 1, 1)))


def artifact(kernel: KernelArtifact = KERNEL, ptx: str = "// ptx", cubin=None) -> ModuleArtifact:
    return ModuleArtifact("sm_90", "+ptx80", 3, ptx, {kernel.name: kernel}, cubin)


class Entry:
    """What the driver reports of a loaded entry."""

    def __init__(self, sizes):
        self.arguments_info = [(8 * i, size) for i, size in enumerate(sizes)]
        self.handle = 0xF00


class Code:
    def __init__(self, sizes):
        self.sizes = sizes

    def get_kernel(self, name):
        return Entry(self.sizes)


@pytest.fixture
def loads(fake, monkeypatch):
    """The fake GPU, with modules whose entries report `Code.sizes`; records every load."""
    seen = []

    def load(art, image, cubin, ordinal):
        seen.append((image, cubin, ordinal))
        return Code([slot.nbytes for slot in art[next(iter(art.kernels))].abi])

    monkeypatch.setattr(launcher, "_load_object", load)
    return seen


@pytest.fixture
def launched(loads, monkeypatch):
    """Every launch, through cuda.core (`launch`) or pre-packed (`launch_packed`): the path,
    (grid, block, shared bytes), the stream handle or object, and the parameter values."""
    calls = []

    def core(stream, config, kernel, values):
        dims = (config.grid, config.block, config.shmem_size)
        calls.append(("core", dims, stream, values))

    def packed(kernel, dims, stream, packed):
        calls.append(("packed", dims, stream, packed.values))

    monkeypatch.setattr(launcher, "_launch", core)
    monkeypatch.setattr(launcher, "_launch_packed", packed)
    return calls


def views():
    return DeviceView(0x1000, 400, (100,), "f32", 0), DeviceView(0x2000, 40, (10,), "f32", 0)


def test_arguments_are_packed_by_the_abi(launched):
    kernel = LoadedModule.load(artifact()).kernel("k")
    x, out = views()
    values = kernel.values([x, out, 7, 0.5, 0xDEAD, 1.0, True, 2**40])
    assert values == (0x1000, 100, 0x2000, 10, 7, 0.5, 0xDEAD, 0x3F80, 1, 2**40)
    types = [type(v) for v in values]
    assert types == [int, int, int, int, np.int32, np.float32, int, np.uint16, np.int8, int]


def test_packed_parameters_are_the_bytes_the_driver_copies(launched):
    kernel = LoadedModule.load(artifact()).kernel("k")
    packed = kernel.pack([*views(), -7, 0.5, 2**64 - 1, -2.0, False, -(2**40)])
    assert packed.values[6] == -1  # cuda.core's int64 for an address past 2**63
    assert packed.as_bytes() == [
        (0x1000).to_bytes(8, "little"),
        (100).to_bytes(8, "little"),
        (0x2000).to_bytes(8, "little"),
        (10).to_bytes(8, "little"),
        (-7).to_bytes(4, "little", signed=True),
        np.float32(0.5).tobytes(),
        b"\xff" * 8,
        (0xC000).to_bytes(2, "little"),
        b"\x00",
        (-(2**40)).to_bytes(8, "little", signed=True),
    ]
    assert [len(b) for b in packed.as_bytes()] == [slot.nbytes for slot in KERNEL.abi]


def test_f16_scalars_are_packed_as_their_bits(launched):
    kernel = LoadedModule.load(
        artifact(KernelArtifact("k", (Param("h", ParamKind.SCALAR, "f16"),), None))
    ).kernel("k")
    assert kernel.pack([1.5]).as_bytes() == [np.float16(1.5).tobytes()]


def test_slices_take_device_arrays_and_signless_integers(launched):
    kernel = LoadedModule.load(
        artifact(KernelArtifact("k", (Param("v", ParamKind.SHARED_SLICE, "i32"),), None))
    ).kernel("k")
    array = DeviceArray.from_numpy(np.arange(6, dtype=np.uint32))
    assert kernel.values([array]) == (array.ptr, 6)


@pytest.mark.parametrize(
    "index, value, message",
    [
        (2, 2**31, "argument 'n' (i32 scalar): 2147483648 does not fit in i32 "
         "(-2147483648..2147483647)"),
        (2, 1.5, "argument 'n' (i32 scalar): expected an integer, got float 1.5"),
        (2, True, "argument 'n' (i32 scalar): expected an integer, got bool True"),
        (3, 1e39, "argument 'alpha' (f32 scalar): 1e+39 does not fit in f32 "
         "(largest is 3.40282e+38)"),
        (3, "1", "argument 'alpha' (f32 scalar): expected a number, got str"),
        (4, -1, "argument 'raw' (i8 pointer): address -1 is outside the 64-bit range"),
        (5, 1e39, "argument 'h' (bf16 scalar): 1e+39 does not fit in bf16 "
         "(largest is 3.38953e+38)"),
        (6, 2, "argument 'flag' (i1 scalar): 2 does not fit in i1 (0..1)"),
        (0, np.zeros(3, np.float32), "argument 'x' (f32 shared slice): a NumPy array lives on "
         "the host: copy it to the device first (DeviceArray.from_numpy), or launch through "
         "the checked API, which does"),
        (1, DeviceView(0x2000, 40, (10,), "i32", 0), "argument 'out' (f32 disjoint slice): "
         "expected f32 elements, got i32"),
    ],
)  # fmt: skip
def test_bad_values_are_refused_naming_the_parameter(launched, index, value, message):
    kernel = LoadedModule.load(artifact()).kernel("k")
    args = [*views(), 7, 0.5, 0xDEAD, 1.0, True, 5]
    args[index] = value
    with pytest.raises(ArgumentError) as info:
        kernel.launch(1, 256, args)
    assert str(info.value) == message
    assert launched == []


def test_numpy_integers_and_floats_are_accepted(launched):
    kernel = LoadedModule.load(artifact()).kernel("k")
    values = kernel.values([*views(), np.int64(-5), np.float64(2.0), np.uint64(2**64 - 1), 0, 0, 1])
    assert values[4:7] == (-5, 2.0, -1)  # an address past 2**63 wraps as cuda.core's int64


def test_the_argument_count_is_checked(launched):
    kernel = LoadedModule.load(artifact()).kernel("k")
    with pytest.raises(ArgumentError) as info:
        kernel.values(views())
    assert str(info.value) == (
        "kernel 'k' takes 8 arguments (x, out, n, alpha, raw, h, flag, big), got 2"
    )


def test_bf16_scalars_round_to_nearest_even():
    assert [int(bf16_bits(v)) for v in (1.0, 1 + 2**-8, 1 + 3 * 2**-8, -2.0, float("nan"))] == [
        0x3F80,
        0x3F80,
        0x3F82,
        0xC000,
        0x7FC0,
    ]


def test_launch_goes_through_cuda_core_and_launch_packed_prepacked(launched):
    kernel = LoadedModule.load(artifact()).kernel("k")
    args = [*views(), 1, 1.0, 0, 0.0, False, 3]
    kernel.launch((4, 2), [256], args, shared_bytes=128)
    kernel.launch((4, 2), [256], args, shared_bytes=128, stream=0x99)
    packed = kernel.pack(args)
    kernel.launch_packed((4, 2), [256], packed, shared_bytes=128)
    kernel.launch_packed(4, 256, packed, stream=0x99)
    (p1, d1, s1, v1), (p2, _, s2, v2), (p3, d3, s3, v3), (p4, d4, s4, _) = launched
    assert (p1, p2, p3, p4) == ("core", "core", "packed", "packed")
    assert d1 == d3 == ((4, 2, 1), (256, 1, 1), 128) and d4 == ((4, 1, 1), (256, 1, 1), 0)
    assert s1 is LEGACY_DEFAULT_STREAM and s3 == 1 and s4 == 0x99
    assert v1 == v2 == v3 == kernel.values(args)
    with pytest.raises(TypeError, match=r"^launch_packed takes what pack\(\) returns, not tuple$"):
        kernel.launch_packed(1, 256, v1)


@pytest.mark.parametrize(
    "grid, message",
    [
        (0, "grid dimensions must be at least 1, got (0,)"),
        ((1, 2, 3, 4), "grid must be 1 to 3 positive integers, got (1, 2, 3, 4)"),
        (2.0, "grid must be 1 to 3 positive integers, got 2.0"),
    ],
)
def test_bad_launch_shapes(launched, grid, message):
    kernel = LoadedModule.load(artifact()).kernel("k")
    packed = kernel.pack([*views(), 1, 1.0, 0, 0.0, False, 3])
    with pytest.raises(ValueError) as info:
        kernel.launch_packed(grid, 256, packed)
    assert str(info.value) == message
    with pytest.raises(ValueError, match=r"^shared_bytes must be an int >= 0, got -1$"):
        kernel.launch(1, 256, [*views(), 1, 1.0, 0, 0.0, False, 3], shared_bytes=-1)
    assert dim3(np.int64(5), "grid") == (5, 1, 1)


def test_shared_memory_above_48_kib_is_opted_in_once(launched, monkeypatch):
    asked = []
    monkeypatch.setattr(
        cu, "cuKernelSetAttribute", lambda attr, value, k, dev: asked.append(value) or (0,)
    )
    kernel = LoadedModule.load(artifact()).kernel("k")
    packed = kernel.pack([*views(), 1, 1.0, 0, 0.0, False, 3])
    for shared in (1024, 100 * 1024, 100 * 1024, 64 * 1024, 120 * 1024):
        kernel.launch_packed(1, 256, packed, shared_bytes=shared)
    assert asked == [100 * 1024, 120 * 1024]


def test_a_refused_launch_is_explained_by_the_contract(loads, monkeypatch):
    monkeypatch.setattr(errors, "error_description", lambda code: "invalid argument")

    def refuse(stream, config, kernel, values):
        raise CoreCudaError("CUDA_ERROR_INVALID_VALUE: This indicates that ...")

    def refuse_packed(kernel, dims, stream, packed):
        errors.check((cu.CUresult.CUDA_ERROR_INVALID_VALUE,), "cuLaunchKernel")

    monkeypatch.setattr(launcher, "_launch", refuse)
    monkeypatch.setattr(launcher, "_launch_packed", refuse_packed)
    kernel = LoadedModule.load(artifact()).kernel("k")
    args = [*views(), 1, 1.0, 0, 0.0, False, 3]
    with pytest.raises(CudaError) as info:
        kernel.launch(1, 128, args)
    assert str(info.value) == (
        "cuLaunchKernelEx failed: CUDA_ERROR_INVALID_VALUE (invalid argument): "
        "block (128, 1, 1) does not match the kernel's contract block (256, 1, 1)"
    )
    with pytest.raises(CudaError) as info:
        kernel.launch_packed(1, 128, kernel.pack(args))
    assert str(info.value) == (
        "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (invalid argument): "
        "block (128, 1, 1) does not match the kernel's contract block (256, 1, 1)"
    )
    with pytest.raises(CudaError) as info:
        kernel.launch(1, 256, args)
    assert str(info.value) == "cuLaunchKernelEx failed: CUDA_ERROR_INVALID_VALUE (invalid argument)"


def test_an_abi_disagreement_is_an_internal_error(fake, monkeypatch):
    monkeypatch.setattr(launcher, "_load_object", lambda *a: Code([8, 8, 8, 4, 4, 8, 2, 1]))
    with pytest.raises(InternalError) as info:
        LoadedModule.load(artifact()).kernel("k")
    assert str(info.value) == (
        "internal error (a ferrox bug, please report it): kernel 'k': the artifact's parameters "
        "take [8, 8, 8, 8, 4, 4, 8, 2, 1, 8] bytes, but the loaded entry's take "
        "[8, 8, 8, 4, 4, 8, 2, 1]"
    )


def test_one_load_per_image_and_device_cubin_for_the_devices_chip(loads):
    a = LoadedModule.load(artifact(ptx="// one"))
    assert LoadedModule.load(artifact(ptx="// one")) is a
    assert a.kernel("k") is a["k"]
    LoadedModule.load(artifact(ptx="// two", cubin=b"\x7fELF-sm90"))
    other_chip = ModuleArtifact("sm_80", "", 3, "// three", {"k": KERNEL}, b"\x7fELF-sm80")
    LoadedModule.load(other_chip)
    assert loads == [(b"// one", False, 0), (b"\x7fELF-sm90", True, 0), (b"// three", False, 0)]
    with pytest.raises(KeyError, match="no kernel named 'nope' in this module"):
        a.kernel("nope")


def test_an_arch_specific_cubin_loads_on_its_own_chip_only(loads):
    """wgmma's sm_90a cubin runs on an sm_90 device (the fake's chip): loaded as it is, without
    the driver's PTX JIT; sm_100a's is not for it, so its PTX goes to the driver instead."""
    arch = ModuleArtifact("sm_90a", "", 3, "// wgmma", {"k": KERNEL}, b"\x7fELF-sm90a")
    LoadedModule.load(arch)
    later = ModuleArtifact("sm_100a", "", 3, "// later", {"k": KERNEL}, b"\x7fELF-sm100a")
    LoadedModule.load(later)
    assert loads == [(b"\x7fELF-sm90a", True, 0), (b"// later", False, 0)]
    assert launcher.runs_on("sm_90a", "sm_90") and launcher.runs_on("sm_90", "sm_90")
    assert not launcher.runs_on("sm_90", "sm_90a") and not launcher.runs_on("sm_80", "sm_90")


def test_a_compiled_kernel_runs_on_the_fake_gpu(fake):
    from ferrox.parser import parse_module
    from ferrox.registry import make_context
    from ferrox.targets.compile import compile_module

    path = EXAMPLES / "vecadd.mlir"
    art = compile_module(parse_module(make_context(), path.read_text(), str(path)), cubin=False)
    assert [s for s in art["vecadd"].abi] == [AbiSlot.U64, AbiSlot.I64] * 3
    rng = np.random.default_rng(7)
    n = 1000
    a, b = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    da, db = DeviceArray.from_numpy(a), DeviceArray.from_numpy(b)
    out = DeviceArray.from_numpy(np.full(n, np.nan, np.float32))
    kernel = LoadedModule.load(art).kernel("vecadd")
    kernel.launch(4, 256, [da, db, out])
    np.testing.assert_array_equal(out.copy_to_host(), a + b)
    out2 = DeviceArray.from_numpy(np.full(n, np.nan, np.float32))
    kernel.launch_packed(4, 256, kernel.pack([db, db, out2]))
    np.testing.assert_array_equal(out2.copy_to_host(), b + b)
    assert fake.launches == [("vecadd", (4, 1, 1), (256, 1, 1), 0)] * 2
