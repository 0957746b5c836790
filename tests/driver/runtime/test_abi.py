"""Argument packing: a slice is (u64 pointer, i64 length), scalars by type, every value checked."""

import ctypes
import struct

import numpy as np
import pytest

from ferrox.driver.runtime import arrays
from ferrox.driver.runtime.abi import ArgumentError, check_kind, pack_args, param_count
from ferrox.driver.runtime.arrays import DeviceArray
from ferrox.driver.runtime.cuda import PackedParams


class FakeCudaArray:
    """What PyTorch and CuPy expose for a device array, without a GPU."""

    def __init__(self, ptr, shape, typestr="<f4", strides=None):
        self.__cuda_array_interface__ = {
            "shape": shape, "typestr": typestr, "data": (ptr, False),
            "strides": strides, "version": 3, "stream": None,
        }  # fmt: skip


@pytest.fixture(autouse=True)
def on_device_zero(monkeypatch):
    monkeypatch.setattr(arrays, "_pointer_device", lambda ptr: 0)


def test_slice_is_pointer_then_length_in_elements():
    a = DeviceArray(0x7000_0000, (4, 8), "f32")
    packed = pack_args(
        ["slice:f32", "f32", "i32", "i64", "index", "ptr"], [a, 2.5, -3, 2**40, 7, 0xDEAD]
    )
    assert packed == [
        (ctypes.c_uint64, 0x7000_0000),
        (ctypes.c_int64, 32),
        (ctypes.c_float, 2.5),
        (ctypes.c_int32, -3),
        (ctypes.c_int64, 2**40),
        (ctypes.c_int64, 7),
        (ctypes.c_uint64, 0xDEAD),
    ]
    assert param_count(["slice:f32", "f32", "i32", "i64", "index", "ptr"]) == 7


def test_packed_params_hold_the_exact_bytes_the_driver_copies():
    params = PackedParams(
        pack_args(["slice:f32", "f32", "i32"], [DeviceArray(0x1234, (10,), "f32"), 1.5, -2])
    )
    assert params.as_bytes() == [
        struct.pack("<Q", 0x1234),
        struct.pack("<q", 10),
        struct.pack("<f", 1.5),
        struct.pack("<i", -2),
    ]
    pointers = (ctypes.c_void_p * 4).from_address(params.address)
    assert ctypes.c_float.from_address(pointers[2]).value == 1.5
    assert PackedParams([]).address == 0


def test_zero_copy_device_arrays_pack_their_own_pointer():
    packed = pack_args(
        ["slice:f32", "ptr"], [FakeCudaArray(0xABC000, (3, 5)), FakeCudaArray(0xDEF000, (1,))]
    )
    assert packed == [
        (ctypes.c_uint64, 0xABC000),
        (ctypes.c_int64, 15),
        (ctypes.c_uint64, 0xDEF000),
    ]


def test_wrong_count_names_the_signature():
    with pytest.raises(
        ArgumentError, match=r"^kernel takes 2 arguments \(slice:f32, i32\), got 1$"
    ):
        pack_args(["slice:f32", "i32"], [DeviceArray(0x10, (1,), "f32")])


def test_wrong_element_type_names_the_argument():
    with pytest.raises(
        ArgumentError, match=r"^argument 1 \(slice:f32\): expected f32 elements, got f64$"
    ):
        pack_args(["i32", "slice:f32"], [1, DeviceArray(0x10, (4,), "f64")])
    with pytest.raises(
        ArgumentError, match=r"^argument 0 \(slice:i32\): expected i32 elements, got f32$"
    ):
        pack_args(["slice:i32"], [FakeCudaArray(0x10, (4,))])


def test_numpy_arrays_must_be_copied_first_and_dtype_is_checked_first():
    with pytest.raises(
        ArgumentError, match=r"argument 0 \(slice:f32\): a NumPy array lives on the host"
    ):
        pack_args(["slice:f32"], [np.zeros(4, np.float32)])
    with pytest.raises(
        ArgumentError, match=r"argument 0 \(slice:f32\): expected f32 elements, got f64 \(float64\)"
    ):
        pack_args(["slice:f32"], [np.zeros(4)])


@pytest.mark.parametrize(
    "kind, value, message",
    [
        ("i32", 2**31, r"2147483648 does not fit in i32 \(-2147483648\.\.2147483647\)"),
        ("i32", 1.5, r"expected an integer, got float 1\.5"),
        ("i64", True, r"expected an integer, got bool"),
        ("index", -(2**63) - 1, r"-9223372036854775809 does not fit in index"),
        ("u32", -1, r"-1 does not fit in u32"),
        ("f32", 1e39, r"1e\+39 does not fit in f32"),
        ("f32", "1.0", r"expected a number, got str"),
        ("ptr", -5, r"pointer -5 is outside the 64-bit address range"),
        ("ptr", 1.0, r"expected a device pointer \(int\) or a device array, got float"),
        ("slice:f32", [1.0, 2.0], r"expected a NumPy array or a CUDA device array"),
    ],
)
def test_bad_scalars_are_refused_with_the_reason(kind, value, message):
    with pytest.raises(ArgumentError, match=rf"^argument 0 \({kind}\): {message}"):
        pack_args([kind], [value])


def test_numpy_scalars_and_inf_are_accepted():
    assert pack_args(["f32", "i64", "f64"], [np.float32(0.5), np.int64(9), float("inf")]) == [
        (ctypes.c_float, 0.5),
        (ctypes.c_int64, 9),
        (ctypes.c_double, float("inf")),
    ]


def test_unknown_kinds_are_refused():
    with pytest.raises(ArgumentError, match=r"unknown argument kind 'slice:f7'"):
        check_kind("slice:f7")
    with pytest.raises(ArgumentError, match=r"unknown argument kind 'float'"):
        pack_args(["float"], [1.0])
