"""Buffers: element names, the contiguity rule, what `view_of` refuses and why, and NumPy
staging through `DeviceArray` (on the fake GPU's memory)."""

from __future__ import annotations

import sys
import types
from types import SimpleNamespace

import numpy as np
import pytest

import ferrox
from ferrox.driver.runtime import buffers
from ferrox.driver.runtime.buffers import (
    DeviceArray,
    DeviceView,
    c_contiguous,
    element_of,
    view_of,
)
from ferrox.driver.runtime.errors import ArrayError


@pytest.mark.parametrize(
    "dtype, name",
    [
        (np.float32, "f32"),
        (np.float16, "f16"),
        (np.float64, "f64"),
        (np.int8, "i8"),
        (np.int32, "i32"),
        (np.int64, "i64"),
        (np.uint16, "u16"),
        (np.bool_, "i1"),
        ("<f4", "f32"),
    ],
)
def test_element_names(dtype, name):
    assert element_of(dtype) == name


def test_bf16_is_named_by_its_dtype_name():
    assert element_of("torch.bfloat16") == "bf16"
    assert element_of("bfloat16") == "bf16"


def test_unsupported_elements_are_refused():
    with pytest.raises(ArrayError, match=r"^unsupported element type complex64 \(supported: i1,"):
        element_of(np.complex64)
    with pytest.raises(ArrayError, match=r"^big-endian arrays are not supported \(dtype >f4\)$"):
        element_of(">f4")


@pytest.mark.parametrize(
    "shape, strides, dense",
    [
        ((4, 3), None, True),
        ((4, 3), (3, 1), True),
        ((4, 3), (1, 4), False),
        ((4, 3), (6, 2), False),
        ((4, 1), (1, 99), True),  # a size-1 dimension's stride does not matter
        ((0, 3), (7, 7), True),
        ((5,), (2,), False),
    ],
)
def test_c_contiguous(shape, strides, dense):
    assert c_contiguous(shape, strides) is dense


def test_numpy_arrays_are_refused_with_what_to_do():
    with pytest.raises(ArrayError) as info:
        view_of(np.zeros(3, np.float32))
    assert str(info.value) == (
        "a NumPy array lives on the host: copy it to the device first "
        "(DeviceArray.from_numpy), or launch through the checked API, which does"
    )


def test_objects_without_a_protocol_are_refused():
    with pytest.raises(ArrayError) as info:
        view_of([1.0, 2.0])
    assert str(info.value) == (
        "expected a device array (DLPack or __cuda_array_interface__), got list"
    )


class HostTensor:
    """A DLPack producer in CPU memory (what a CPU torch tensor looks like)."""

    def __dlpack__(self, **kw):
        raise AssertionError("a CPU producer must not be asked to export")

    def __dlpack_device__(self):
        return (1, 0)


def test_host_dlpack_producers_are_refused_before_export():
    with pytest.raises(ArrayError) as info:
        view_of(HostTensor())
    assert str(info.value) == "HostTensor lives in host memory, not on a CUDA device: copy it first"


F32 = np.dtype(np.float32)


class GpuTensor:
    """A device array, seen through a stand-in for cuda.core's StridedMemoryView."""

    def __init__(self, shape, strides=None, dtype=F32, ptr=0x1000):
        self.shape, self.strides, self.view_dtype, self.ptr = shape, strides, dtype, ptr

    def __dlpack__(self, **kw):  # only its presence matters: the view below stands in
        raise AssertionError

    def __dlpack_device__(self):
        return (2, 0)


@pytest.fixture
def fake_views(monkeypatch):
    """`StridedMemoryView(obj, stream_ptr)` as cuda.core answers for a CUDA producer; the
    consumer stream each view was asked for is recorded."""
    asked = []

    def view(obj, stream_ptr):
        asked.append(stream_ptr)
        return SimpleNamespace(
            ptr=obj.ptr,
            shape=obj.shape,
            strides=obj.strides,
            dtype=obj.view_dtype,
            device_id=0,
            is_device_accessible=True,
            readonly=False,
        )

    monkeypatch.setattr(buffers, "StridedMemoryView", SimpleNamespace(from_any_interface=view))
    return asked


def test_a_device_array_is_viewed_in_place_on_the_consumer_stream(fake_views):
    tensor = GpuTensor((4, 3))
    view = view_of(tensor)
    assert (view.ptr, view.nbytes, view.shape, view.element, view.ordinal) == (
        0x1000,
        48,
        (4, 3),
        "f32",
        0,
    )
    assert view.owner is tensor and view.size == 12
    view_of(tensor, stream=0x55)
    assert fake_views == [1, 0x55]  # None is the legacy default stream, DLPack's 1


def test_non_contiguous_views_are_refused(fake_views):
    with pytest.raises(ArrayError) as info:
        view_of(GpuTensor((4, 3), (1, 4)))
    assert str(info.value) == (
        "GpuTensor of shape (4, 3) with strides (1, 4) (in elements) is not C-contiguous: "
        "make it contiguous first (.contiguous() in PyTorch, cupy.ascontiguousarray in CuPy)"
    )


def test_bf16_without_a_numpy_dtype_comes_from_the_producers_dtype(fake_views):
    tensor = GpuTensor((8,), dtype=np.dtype("V2"))
    tensor.dtype = "torch.bfloat16"
    view = view_of(tensor)
    assert (view.element, view.nbytes) == ("bf16", 16)


def test_views_overlap_by_byte_ranges():
    a = DeviceView(1000, 400, (100,), "f32", 0)
    assert a.overlaps(DeviceView(1396, 4, (1,), "f32", 0))
    assert not a.overlaps(DeviceView(1400, 4, (1,), "f32", 0))
    assert not a.overlaps(DeviceView(1000, 0, (0,), "f32", 0))
    assert view_of(a) is a


def test_numpy_round_trip(fake):
    host = np.random.default_rng(0).standard_normal((5, 7)).astype(np.float32)
    array = DeviceArray.from_numpy(host)
    assert (array.shape, array.element, array.nbytes) == ((5, 7), "f32", 140)
    out = np.full((5, 7), np.nan, np.float32)
    assert array.copy_to_host(out) is out
    np.testing.assert_array_equal(out, host)
    np.testing.assert_array_equal(array.copy_to_host(), host)
    view = view_of(array)
    assert (view.ptr, view.nbytes, view.element, view.owner) == (array.ptr, 140, "f32", array)


def test_non_contiguous_numpy_is_copied_in_c_order(fake):
    host = np.arange(12, dtype=np.int32).reshape(3, 4).T
    np.testing.assert_array_equal(DeviceArray.from_numpy(host).copy_to_host(), host)


def test_bf16_travels_as_its_bits(fake):
    bits = np.array([0x3F80, 0xC000, 0x7FC0], np.uint16)
    array = DeviceArray.from_numpy(bits, element="bf16")
    assert (array.element, array.dtype) == ("bf16", np.dtype(np.uint16))
    np.testing.assert_array_equal(array.copy_to_host(), bits)
    with pytest.raises(ArrayError, match=r"^expected bf16 elements, got f32 \(float32\)$"):
        DeviceArray.from_numpy(np.zeros(2, np.float32), element="bf16")
    with pytest.raises(AttributeError, match="bf16 has no __cuda_array_interface__"):
        getattr(array, "__cuda_array_interface__")  # noqa: B009 (the property raises)


def test_empty_free_and_bad_copies(fake):
    array = DeviceArray.empty((2, 3), "i64")
    assert array.nbytes == 48 and len(fake.memory) == 1
    with pytest.raises(ArrayError) as info:
        array.copy_to_host(np.zeros(5, np.int64))
    assert str(info.value) == "copy_to_host needs a writable C-contiguous array of 48 bytes"
    array.free()
    array.free()
    assert fake.memory == {}
    assert DeviceArray.empty(0, "f32").ptr == 0 and fake.memory == {}
    with pytest.raises(ArrayError, match=r"^unsupported element type 'q8'$"):
        DeviceArray.empty(3, "q8")


def test_cuda_array_interface_of_a_device_array(fake):
    array = DeviceArray.from_numpy(np.zeros((2, 2), np.float64))
    assert array.__cuda_array_interface__ == {
        "shape": (2, 2),
        "typestr": "<f8",
        "data": (array.ptr, False),
        "strides": None,
        "version": 3,
        "stream": None,
    }


class FakeTorchTensor:
    """What `view_of` reads of a torch CUDA tensor on its fast path."""

    __module__ = "torch"
    is_cuda = True

    def __init__(self, shape, strides, dtype="torch.float32"):
        self.shape, self._strides, self.dtype = shape, strides, dtype

    def stride(self):
        return self._strides

    def data_ptr(self):
        return 0x4000

    def get_device(self):
        return 0

    def __dlpack__(self, **kw):
        return None


@pytest.fixture
def torch_on(monkeypatch, fake_views):
    """A stand-in torch whose current stream on device 0 is 0x700."""
    module = types.ModuleType("torch")
    module.cuda = SimpleNamespace(current_stream=lambda i: SimpleNamespace(cuda_stream=0x700))
    monkeypatch.setitem(sys.modules, "torch", module)
    return fake_views


def test_torch_tensors_on_torchs_current_stream_are_read_from_the_tensor(torch_on):
    tensor = FakeTorchTensor((4, 8), (8, 1), "torch.bfloat16")
    view = view_of(tensor, stream=0x700)
    assert (view.ptr, view.nbytes, view.shape, view.element, view.ordinal) == (
        0x4000,
        64,
        (4, 8),
        "bf16",
        0,
    )
    assert view.owner is tensor and torch_on == []  # no DLPack export was needed
    with pytest.raises(ArrayError) as info:
        view_of(FakeTorchTensor((4, 8), (1, 4)), stream=0x700)
    assert str(info.value) == (
        "Tensor of shape (4, 8) with strides (1, 4) (in elements) is not C-contiguous: "
        "make it contiguous first (.contiguous() in PyTorch, cupy.ascontiguousarray in CuPy)"
    )


def test_torch_tensors_for_another_stream_go_through_dlpack(torch_on):
    tensor = FakeTorchTensor((4,), (1,))
    tensor.ptr, tensor.strides, tensor.view_dtype = 0x4000, None, F32
    view_of(tensor, stream=0x800)
    assert torch_on == [0x800]  # cuda.core was asked, with the consumer stream


def test_marked_bf16_bits_and_signless_integers_are_staged_as_the_checker_names_them(fake):
    bits = ferrox.to_bf16(np.array([1.0, -2.5, 3.0e38, np.nan]))
    array = DeviceArray.from_numpy(np.ascontiguousarray(bits), element="bf16")
    assert array.element == "bf16"
    back = ferrox.bf16_bits(np.zeros(4, np.uint16))
    array.copy_to_host(back)
    assert list(back.view(np.ndarray)) == [0x3F80, 0xC020, 0x7F62, 0x7FFF]
    unsigned = DeviceArray.from_numpy(np.arange(5, dtype=np.uint32), element="i32")
    assert unsigned.element == "i32" and list(unsigned.copy_to_host()) == [0, 1, 2, 3, 4]
    with pytest.raises(ArrayError, match=r"^expected i32 elements, got i64 \(int64\)$"):
        DeviceArray.from_numpy(np.zeros(2, np.int64), element="i32")
