"""TMA tensor maps at launch (driver/runtime/tensor_map.py), on the fake GPU: the artifact lists
each kernel's maps and the entry takes one 128-byte parameter a map after its own; every launch
builds the maps from that launch's slice address and rows/cols arguments (the driver's encoder
replaced by one that writes what it was asked, so the test reads it back), the kernel runs on
the interpreter and matches NumPy; a map that would reach past its slice, or that the driver
could not make, is refused with the exact message before anything runs."""

from __future__ import annotations

import struct

import numpy as np
import pytest

import ferrox
from ferrox.artifact import AbiSlot, ModuleArtifact, TensorMap
from ferrox.driver.runtime import launcher, tensor_map
from ferrox.driver.runtime.errors import ArgumentError

EXAMPLE = "examples/simt/tma_copy_f32.mlir"
SWIZZLED = "examples/simt/tma_copy.mlir"
_FORMAT = "<QQQQQ"


def _fake_encode(element, address, rows, cols, box, swizzle):
    head = struct.pack(_FORMAT, address, rows, cols, box[0] * 1000 + box[1], swizzle)
    return head + bytes(128 - len(head))


@pytest.fixture
def maps(fake, monkeypatch):
    """The maps of each launch, decoded, in launch order; the kernel then runs as the fake's."""
    seen: list[list[tuple]] = []
    monkeypatch.setattr(tensor_map, "encode_tiled", _fake_encode)
    run_packed = launcher._launch_packed

    def launch_packed(loaded, dims, stream, packed):
        count = len(loaded.info.tensor_maps)
        cells = packed.as_bytes()
        assert all(len(c) == 128 for c in cells[len(cells) - count :])
        seen.append([struct.unpack_from(_FORMAT, c) for c in cells[len(cells) - count :]])

        run_packed(loaded, dims, stream, packed)  # the fake drops the maps

    monkeypatch.setattr(launcher, "_launch_packed", launch_packed)
    return seen


def test_the_artifact_lists_the_maps_and_the_entry_takes_them():
    art = ferrox.compile(open(SWIZZLED).read())
    k = art["tma_copy"]
    assert k.tensor_maps == (TensorMap(0, 1, 2, "bf16", (64, 64), 128),)
    assert k.abi[-1] is AbiSlot.TENSOR_MAP and AbiSlot.TENSOR_MAP.nbytes == 128
    assert ModuleArtifact.from_json(art.to_json()) == art
    assert ".param .align 64 .b8 tma_copy_param_6[128]" in art.ptx
    assert "cvta.param.u64" in art.ptx
    assert "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes" in art.ptx


@pytest.mark.parametrize("rows, cols", [(32, 32), (45, 36), (70, 100)])
def test_each_launch_builds_its_map_from_its_arguments(maps, rows, cols):
    kernel = ferrox.load(EXAMPLE, device="gpu")["tma_copy_f32"]
    rng = np.random.default_rng()
    x = rng.standard_normal(rows * cols, dtype=np.float32)
    out = np.full(rows * cols, np.nan, np.float32)
    kernel[(-(-rows // 64), -(-cols // 32)), 128](x, rows, cols, out)
    np.testing.assert_array_equal(out, x)
    ((address, r, c, box, swizzle),) = maps[-1]
    assert (r, c, box, swizzle) == (rows, cols, 32032, 0) and address % 16 == 0
    y = rng.standard_normal(rows * cols, dtype=np.float32)
    kernel[(-(-rows // 64), -(-cols // 32)), 128](y, rows, cols, out)  # a new map, not a relaunch
    np.testing.assert_array_equal(out, y)
    assert len(maps) == 2


F32 = TensorMap(0, 1, 2, "f32", (32, 32), 0)


@pytest.mark.parametrize(
    "address, length, rows, cols, message",
    [
        (0x1000, 1023, 32, 32, "its TMA tensor map of 32 x 32 elements reaches past the slice's "
         "1023 elements"),
        (0x1000, 1000, 0, 4, "its TMA tensor map needs rows and cols from 1 to 2^32, got 0 x 4"),
        (0x1000, 1000, 10, 6, "a TMA tensor map's rows must be a multiple of 16 bytes, got 6 "
         "elements of f32 (24 bytes)"),
        (0x1008, 1000, 10, 8, "a TMA tensor map needs a 16-byte aligned address, got 0x1008"),
    ],
)  # fmt: skip
def test_maps_the_hardware_could_read_past_are_refused(address, length, rows, cols, message):
    art = ferrox.compile(open(EXAMPLE).read())["tma_copy_f32"]
    param = art.entry_params[0]
    with pytest.raises(ArgumentError) as info:
        tensor_map.check_bounds(F32, param, address, length, rows, cols)
    assert str(info.value) == f"argument 'x' (f32 shared slice): {message}"


def test_a_launch_past_the_slice_is_refused_before_anything_runs(maps, fake):
    kernel = ferrox.load(EXAMPLE, device="gpu")["tma_copy_f32"]
    out = np.full(1024, np.nan, np.float32)
    with pytest.raises(ArgumentError) as info:
        kernel[(1, 1), 128](np.zeros(1023, np.float32), 32, 32, out)
    assert str(info.value) == (
        "argument 'x' (f32 shared slice): its TMA tensor map of 32 x 32 elements reaches past "
        "the slice's 1023 elements"
    )
    assert maps == [] and fake.launches == [] and np.isnan(out).all()


def test_slot_starts_follow_the_abi():
    art = ferrox.compile(open(EXAMPLE).read())["tma_copy_f32"]
    assert tensor_map.slot_starts(art.entry_params) == [0, 2, 3, 4]


F32_3D = TensorMap(0, 1, 2, "f32", (32, 32), 0, planes_param=3)


@pytest.mark.parametrize(
    "length, planes, message",
    [
        (3 * 1024 - 1, 3, "its TMA tensor map of 3 x 32 x 32 elements reaches past the slice's "
         "3071 elements"),
        (4096, 2**32 + 1, "its TMA tensor map needs 1 to 2^32 planes, got 4294967297"),
    ],
)  # fmt: skip
def test_a_3d_map_is_refused_past_its_slice(length, planes, message):
    art = ferrox.compile(open(EXAMPLE).read())["tma_copy_f32"]
    param = art.entry_params[0]
    with pytest.raises(ArgumentError) as info:
        tensor_map.check_bounds(F32_3D, param, 0x1000, length, 32, 32, planes)
    assert str(info.value) == f"argument 'x' (f32 shared slice): {message}"
    tensor_map.check_bounds(F32_3D, param, 0x1000, 3 * 1024, 32, 32, 3)  # fits: no error


def test_a_3d_map_is_encoded_with_its_planes(monkeypatch):
    art = ferrox.compile(open(EXAMPLE).read())["tma_copy_f32"]
    asked = []
    monkeypatch.setattr(tensor_map, "encode_tiled", lambda *args: asked.append(args) or bytes(128))
    info = type("Info", (), {"entry_params": art.entry_params, "tensor_maps": (F32_3D,)})()
    # packed values: x (address, length), rows, cols, out (address, length); parameter 3 stands
    # in for the planes here: its first packed value, 4, is read as them
    values = [0x1000, 4 * 1024, 32, 32, 4, 0]
    tensor_map.map_values(info, values)  # type: ignore[arg-type]
    assert asked == [("f32", 0x1000, 32, 32, (32, 32), 0, 4)]
