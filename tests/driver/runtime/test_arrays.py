"""Array interop without a GPU: fake `__cuda_array_interface__` objects, DLPack capsules, NumPy."""

import ctypes

import numpy as np
import pytest

from ferrox.driver.runtime import arrays, dlpack
from ferrox.driver.runtime.arrays import (
    ArrayError,
    DeviceArray,
    as_device_array,
    c_contiguous,
    element_type,
)


class FakeCudaArray:
    def __init__(self, ptr, shape, typestr="<f4", strides=None, readonly=False, **extra):
        self.__cuda_array_interface__ = {
            "shape": shape, "typestr": typestr, "data": (ptr, readonly),
            "strides": strides, "version": 3, "stream": None, **extra,
        }  # fmt: skip


@pytest.fixture
def devices(monkeypatch):
    """Pretend the driver puts pointers at or above 0x1_0000_0000 on device 1, others on 0."""
    seen = []

    def pointer_device(ptr):
        seen.append(ptr)
        return 1 if ptr >= 0x1_0000_0000 else 0

    monkeypatch.setattr(arrays, "_pointer_device", pointer_device)
    return seen


@pytest.mark.parametrize(
    "dtype, name",
    [
        ("<f4", "f32"),
        (np.float64, "f64"),
        (np.float16, "f16"),
        ("|u1", "u8"),
        (np.int64, "i64"),
        (np.bool_, "bool"),
    ],
)
def test_element_types(dtype, name):
    assert element_type(dtype) == name


def test_unsupported_element_types():
    with pytest.raises(ArrayError, match="big-endian"):
        element_type(">f4")
    with pytest.raises(ArrayError, match="unsupported element type complex64"):
        element_type(np.complex64)


@pytest.mark.parametrize(
    "shape, strides, expected",
    [
        ((4, 5), None, True),
        ((4, 5), (20, 4), True),
        ((4, 5), (4, 16), False),
        ((4, 1), (4, 999), True),  # a size-1 dimension's stride does not matter
        ((0, 5), (4, 4), True),
        ((4, 5), (40, 8), False),
    ],
)
def test_c_contiguity(shape, strides, expected):
    assert c_contiguous(shape, strides, 4) is expected


def test_cuda_array_interface_is_zero_copy(devices):
    fake = FakeCudaArray(0xA000, (3, 4), strides=(16, 4), readonly=True)
    array = as_device_array(fake, "f32")
    assert (array.ptr, array.shape, array.elem, array.size, array.nbytes) == (
        0xA000,
        (3, 4),
        "f32",
        12,
        48,
    )
    assert array.owner is fake and array.readonly and array.ordinal == 0
    assert devices == [0xA000]


def test_strided_device_arrays_are_refused(devices):
    with pytest.raises(
        ArrayError,
        match=r"FakeCudaArray of shape \(3, 4\) with strides \(4, 12\) is not C-contiguous",
    ):
        as_device_array(FakeCudaArray(0xA000, (3, 4), strides=(4, 12)), "f32")
    assert devices == []  # refused before asking the driver anything


def test_wrong_device_and_wrong_dtype_are_refused(devices):
    with pytest.raises(
        ArrayError, match=r"^array is on CUDA device 1, but the kernel runs on device 0$"
    ):
        as_device_array(FakeCudaArray(0x2_0000_0000, (8,)), "f32")
    assert as_device_array(FakeCudaArray(0x2_0000_0000, (8,)), "f32", ordinal=1).ordinal == 1
    with pytest.raises(ArrayError, match=r"^expected i32 elements, got f64$"):
        as_device_array(FakeCudaArray(0xA000, (8,), typestr="<f8"), "i32")


def test_masked_arrays_are_refused(devices):
    with pytest.raises(ArrayError, match="mask"):
        as_device_array(FakeCudaArray(0xA000, (8,), mask=object()))


def test_empty_arrays_need_no_pointer(devices):
    array = as_device_array(FakeCudaArray(0, (0,)), "f32", ordinal=2)
    assert (array.ptr, array.size, array.ordinal) == (0, 0, 2)
    assert devices == []


def test_producer_stream_is_synchronised(devices, monkeypatch):
    synced = []
    monkeypatch.setattr(arrays, "_sync_producer_stream", synced.append)
    as_device_array(FakeCudaArray(0xA000, (8,), stream=0x55))
    assert synced == [0x55]


def test_refused_interface_without_dlpack_is_reported():
    class Refuses:
        @property
        def __cuda_array_interface__(self):
            raise RuntimeError("Can't get __cuda_array_interface__ on Variable that requires grad")

    with pytest.raises(ArrayError, match=r"Refuses refused __cuda_array_interface__: Can't get"):
        as_device_array(Refuses())


def test_non_arrays_are_refused():
    with pytest.raises(
        ArrayError, match=r"expected a NumPy array or a CUDA device array .*got list"
    ):
        as_device_array([1.0, 2.0])


def test_numpy_without_copy_is_refused_after_the_dtype_check():
    with pytest.raises(ArrayError, match=r"expected f32 elements, got f64 \(float64\)"):
        as_device_array(np.zeros(3), "f32", copy=False)
    with pytest.raises(ArrayError, match="lives on the host"):
        as_device_array(np.zeros(3, np.float32), "f32", copy=False)


def test_device_array_exposes_the_interface_for_torch_and_cupy(devices):
    ours = DeviceArray(0xB000, (2, 3), "f32")
    assert ours.__cuda_array_interface__ == {
        "shape": (2, 3), "typestr": "<f4", "data": (0xB000, False), "strides": None, "version": 3, "stream": None,
    }  # fmt: skip
    consumer = type("Consumer", (), {"__cuda_array_interface__": ours.__cuda_array_interface__})()
    again = as_device_array(consumer)
    assert (again.ptr, again.shape, again.elem) == (0xB000, (2, 3), "f32")
    assert as_device_array(ours, "f32") is ours
    with pytest.raises(
        ArrayError, match=r"array is on CUDA device 0, but the kernel runs on device 3"
    ):
        as_device_array(ours, ordinal=3)


def test_bf16_has_no_numpy_dtype():
    array = DeviceArray(0xC000, (4,), "bf16")
    assert (array.itemsize, array.nbytes) == (2, 8)
    with pytest.raises(ArrayError, match="NumPy has no bf16"):
        _ = array.dtype
    with pytest.raises(ArrayError, match="fill_nan needs an f32 array"):
        array.fill_nan()
    assert repr(array) == "DeviceArray(bf16, shape=(4,), ptr=0xc000, device=0)"


# ------------------------------------------------------------------------------------- DLPack


def test_numpy_dlpack_capsules_are_described_without_being_consumed():
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    for capsule in (host.__dlpack__(), host.__dlpack__(max_version=(1, 0))):
        ptr, device, elem, shape, strides, readonly = dlpack.describe(capsule)
        assert (ptr, device, elem, shape) == (host.ctypes.data, (dlpack.CPU, 0), "f32", (3, 4))
        assert strides in (None, (16, 4))
        assert not readonly
        assert dlpack._get_name(capsule).startswith(b"dltensor")  # not renamed to used_dltensor
    view = host[:, ::2]
    _, _, _, shape, strides, _ = dlpack.describe(view.__dlpack__())
    assert (shape, strides) == ((3, 2), (16, 8))
    frozen = np.zeros(4, np.int16)
    frozen.flags.writeable = False
    elem, shape, strides, readonly = dlpack.describe(frozen.__dlpack__(max_version=(1, 0)))[2:]
    assert (elem, shape, strides in (None, (2,)), readonly) == ("i16", (4,), True, True)


_NAME = b"dltensor"
_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class FakeCudaDLPack:
    """A DLPack producer of CUDA memory, built by hand: what torch.cuda tensors export."""

    def __init__(
        self, data, shape, code=2, bits=32, device=(dlpack.CUDA, 0), strides=None, offset=0
    ):
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.strides = (ctypes.c_int64 * len(shape))(*strides) if strides else None
        self.managed = dlpack._Managed()
        t = self.managed.dl_tensor
        t.data, t.ndim, t.byte_offset = data, len(shape), offset
        t.device.device_type, t.device.device_id = device
        t.dtype.code, t.dtype.bits, t.dtype.lanes = code, bits, 1
        t.shape = ctypes.cast(self.shape, ctypes.POINTER(ctypes.c_int64))
        if self.strides is not None:
            t.strides = ctypes.cast(self.strides, ctypes.POINTER(ctypes.c_int64))
        self.device = device
        self.calls = []

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None):
        self.calls.append(stream)
        return _new_capsule(ctypes.addressof(self.managed), _NAME, None)


def test_cuda_dlpack_is_zero_copy():
    producer = FakeCudaDLPack(0xD000, (2, 8), offset=64)
    array = as_device_array(producer, "f32")
    assert (array.ptr, array.shape, array.elem, array.ordinal) == (0xD000 + 64, (2, 8), "f32", 0)
    assert array.owner[0] is producer
    assert producer.calls == [1]  # the consumer's stream: 1 is the legacy default stream
    bf16 = as_device_array(FakeCudaDLPack(0xE000, (4,), code=4, bits=16))
    assert (bf16.elem, bf16.nbytes) == ("bf16", 8)


def test_cuda_dlpack_layout_device_and_dtype_are_checked():
    with pytest.raises(
        ArrayError, match=r"shape \(2, 8\) with strides \(4, 8\) is not C-contiguous"
    ):
        as_device_array(FakeCudaDLPack(0xD000, (2, 8), strides=(1, 2)), "f32")
    with pytest.raises(
        ArrayError, match="array is on CUDA device 1, but the kernel runs on device 0"
    ):
        as_device_array(FakeCudaDLPack(0xD000, (8,), device=(dlpack.CUDA, 1)), "f32")
    with pytest.raises(ArrayError, match="expected f32 elements, got bf16"):
        as_device_array(FakeCudaDLPack(0xD000, (8,), code=4, bits=16), "f32")
    with pytest.raises(ArrayError, match="lives in CUDA pinned host memory, not on a CUDA device"):
        as_device_array(FakeCudaDLPack(0xD000, (8,), device=(dlpack.CUDA_HOST, 0)), "f32")
    with pytest.raises(ArrayError, match=r"unsupported DLPack dtype \(code 5, 64 bits"):
        as_device_array(FakeCudaDLPack(0xD000, (8,), code=5, bits=64))


def test_cpu_dlpack_goes_the_numpy_way():
    class CpuTensor:
        def __init__(self, data):
            self.data = data

        def __dlpack_device__(self):
            return self.data.__dlpack_device__()

        def __dlpack__(self, **kwargs):
            return self.data.__dlpack__(**kwargs)

    with pytest.raises(ArrayError, match=r"expected i32 elements, got f32"):
        as_device_array(CpuTensor(np.zeros(3, np.float32)), "i32", copy=False)
    with pytest.raises(ArrayError, match="lives on the host"):
        as_device_array(CpuTensor(np.zeros(3, np.float32)), "f32", copy=False)


def test_dlpack_export_refusal_is_an_array_error():
    class NeedsGrad(FakeCudaDLPack):
        def __dlpack__(self, stream=None):
            raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")

    with pytest.raises(
        ArrayError,
        match=r"^NeedsGrad.__dlpack__ refused: Can't export tensors that require gradient",
    ):
        as_device_array(NeedsGrad(0xD000, (4,)), "f32")


def test_old_dlpack_producers_without_keywords_still_work():
    class Old(FakeCudaDLPack):
        def __dlpack__(self):
            return super().__dlpack__()

    assert as_device_array(Old(0xD000, (4,)), "f32").ptr == 0xD000
