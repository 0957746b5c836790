"""A kept launch written out as one function (`driver/checker/relaunch_hot.py`) answers as
`signature` and `Relaunch` do together: it launches exactly the calls whose key is the kept
one and that pass the aliasing and stream rules, on the same addresses, and leaves every other
call (another dtype, shape, contiguity, device, class, scalar, argument count, a read that
raises, an overlap, another stream) to the generic path, launching nothing."""

from __future__ import annotations

import ctypes
import sys
import types

import numpy as np
import pytest

from ferrox.driver.checker.relaunch import Relaunch
from ferrox.driver.checker.signature import signature
from ferrox.driver.runtime.streams import LEGACY


class Tensor:
    """Just enough of a torch tensor (its class named as torch's is): the reads `signature`
    makes, each a value this test chooses."""

    def __init__(self, ptr, shape=(1024,), dtype="f32", contiguous=True, device=("cuda", 0)):
        self.ptr, self.shape, self.dtype = ptr, shape, dtype
        self.contiguous, self.device = contiguous, device

    def data_ptr(self) -> int:
        if self.ptr is None:
            raise RuntimeError("no address (a sparse tensor's)")
        return self.ptr

    def is_contiguous(self) -> bool:
        return self.contiguous


Tensor.__module__, Tensor.__name__, Tensor.__qualname__ = "torch", "Tensor", "Tensor"
KB = 4096  # each tensor's bytes in the aliasing pairs


def kept(args: tuple, device=None, paired: bool = True):
    """Two relaunches of the key of `args`: one called as the generic path calls it, one
    written out; each records (stream, the addresses its cells hold) per launch. `paired`: the
    first and last buffers are an aliasing pair (else the rule has no pair to compare)."""
    key, addresses = signature(args)
    made = []
    for _ in range(2):
        cells = [(i, ctypes.c_uint64(a)) for i, a in enumerate(addresses)]
        record: list = []

        def launch(stream, cells=cells, record=record):
            record.append((stream, [c.value for _, c in cells]))

        pairs = [(0, KB, len(addresses) - 1, KB)] if paired and len(addresses) > 1 else []
        made.append((Relaunch(key, launch, cells, pairs, device, addresses), record))
    (generic, seen_generic), (written, seen_written) = made
    function = written.hot()
    assert function is not None
    return generic, seen_generic, function, seen_written


def generic_call(relaunch: Relaunch, args: tuple, stream=None) -> bool:
    found = signature(args)
    return found is not None and found[0] == relaunch.key and relaunch(found[1], stream)


def variants(t: Tensor, u: Tensor) -> list[tuple]:
    return [
        (t, 3, u),
        (Tensor(0x9000), 3, Tensor(0xA000)),  # other addresses: cells written
        (t, 3, u),  # and back
        (Tensor(0x9000), 3, Tensor(0x9000 + KB // 2)),  # overlapping: refused
        (t, 4, u),  # another scalar
        (t, True, u),  # equal to 1 is not 3 anyway; a bool is another class
        (t, 3.0, u),  # equal to 3, another class
        (Tensor(0x1000, dtype="f16"), 3, u),
        (Tensor(0x1000, shape=(1024, 1)), 3, u),
        (Tensor(0x1000, contiguous=False), 3, u),
        (Tensor(0x1000, device=("cuda", 1)), 3, u),
        (Tensor(0x1000, device=("cpu", -1)), 3, u),
        (Tensor(None), 3, u),  # a read that raises
        (np.zeros(4, np.float32), 3, u),  # a class without the key's
        (t, 3),  # fewer arguments
        (t, 3, u, u),  # more
        (),
        (t, 3, u),
    ]


def test_the_written_out_relaunch_answers_as_signature_and_relaunch_do():
    t, u = Tensor(0x1000), Tensor(0x4000)
    generic, seen_generic, function, seen_written = kept((t, 3, u))
    answers = []
    for args in variants(t, u):
        expected = generic_call(generic, args)
        assert function(args, None) is expected, args
        answers.append(expected)
    assert answers.count(True) == 4  # the kept key on its own, other and its own addresses
    assert seen_written == seen_generic
    assert seen_written == [
        (LEGACY, [0x1000, 0x4000]),
        (LEGACY, [0x9000, 0xA000]),
        (LEGACY, [0x1000, 0x4000]),
        (LEGACY, [0x1000, 0x4000]),
    ]


def test_without_pairs_other_addresses_are_written_and_any_overlap_launches():
    """A key whose aliasing rule compares nothing (inputs only): no address comparison before
    the lock, yet a call on other addresses still writes them, as the generic path does."""
    t, u = Tensor(0x1000), Tensor(0x4000)
    generic, seen_generic, function, seen_written = kept((t, u), paired=False)
    for args in [(t, u), (Tensor(0x9000), Tensor(0x9000 + KB // 2)), (t, u)]:
        assert function(args, None) is generic_call(generic, args) is True
    assert seen_written == seen_generic
    assert [cells for _, cells in seen_written] == [
        [0x1000, 0x4000],
        [0x9000, 0x9000 + KB // 2],
        [0x1000, 0x4000],
    ]


def test_scalars_and_floats_are_compared_as_the_key_holds_them():
    generic, seen_generic, function, seen_written = kept((Tensor(0x1000), 0.0, np.int32(7)))
    for args in [
        (Tensor(0x1000), 0.0, np.int32(7)),
        (Tensor(0x1000), -0.0, np.int32(7)),  # equal to 0.0, packs to other bytes
        (Tensor(0x1000), 0.0, np.int64(7)),
        (Tensor(0x1000), 0.0, np.int32(8)),
    ]:
        assert function(args, None) is generic_call(generic, args)
    assert seen_written == seen_generic == [(LEGACY, [0x1000])]


def test_the_stream_rule_is_the_relaunchs(monkeypatch):
    """Torch tensors go on torch's current stream (read each call); an explicit stream is taken
    only when it is that one."""
    current = [0x500]
    fake_torch = types.SimpleNamespace(
        _C=types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: current[0])
    )
    monkeypatch.setitem(sys.modules, "torch", fake_torch)
    args = (Tensor(0x1000), Tensor(0x4000))
    generic, seen_generic, function, seen_written = kept(args, device=0)
    for stream in [None, 0x500, 0x700, None]:
        assert function(args, stream) is generic_call(generic, args, stream)
    current[0] = 0  # torch's default stream: the legacy one
    assert function(args, None) is generic_call(generic, args, None)
    assert (
        seen_written
        == seen_generic
        == [
            (0x500, [0x1000, 0x4000]),
            (0x500, [0x1000, 0x4000]),
            (0x500, [0x1000, 0x4000]),
            (LEGACY, [0x1000, 0x4000]),
        ]
    )


def test_a_key_of_an_unknown_reader_is_not_written_out():
    relaunch = Relaunch((object, ()), lambda stream: None, [], [], None, [])
    assert relaunch.hot() is None


@pytest.mark.parametrize("count", [0, 1])
def test_no_and_one_argument(count):
    args = (Tensor(0x1000),)[:count]
    generic, seen_generic, function, seen_written = kept(args)
    assert function(args, None) is generic_call(generic, args) is True
    assert function((Tensor(0x1000), 1)[: count + 1], None) is False
    assert seen_written == seen_generic


def test_cupy_arrays_read_cupys_stream_once_a_call(monkeypatch):
    """CuPy's current stream is per thread, so one read a call answers for every CuPy array in
    it: the written-out relaunch of three arrays reads it once where `signature` reads it three
    times, and still launches nothing once it is not the null stream."""
    import fake_arrays

    from ferrox.driver.checker import signature as signature_module

    _, cupy = fake_arrays.install(monkeypatch)
    reads = []
    real = signature_module.cupy_stream
    monkeypatch.setattr(signature_module, "cupy_stream", lambda: reads.append(1) or real())
    args = tuple(fake_arrays.ndarray(0x1000 * (k + 1), (256,)) for k in range(3))
    generic, _, function, seen_written = kept(args, paired=False)
    reads.clear()
    assert function(args, None) is True
    assert len(reads) == 1
    assert seen_written == [(LEGACY, [0x1000, 0x2000, 0x3000])]
    reads.clear()
    assert generic_call(generic, args) is True
    assert len(reads) == 3  # the generic path: once an array
    cupy.current = 0x900
    reads.clear()
    assert function(args, None) is False
    assert len(reads) == 1
    assert seen_written == [(LEGACY, [0x1000, 0x2000, 0x3000])]


def test_device_arrays_and_cupy_arrays_are_compared_as_their_readers_read_them(monkeypatch):
    """A DeviceArray's reads are written out inline; a CuPy array's reader (its CUDA array
    interface, the legacy stream only) is called: both answer as `signature` does."""
    import fake_arrays

    from ferrox.driver.runtime.buffers import DeviceArray

    _, cupy = fake_arrays.install(monkeypatch)
    a, c = DeviceArray(0x1000, (1024,), "f32"), fake_arrays.ndarray(0x4000, (1024,))
    generic, seen_generic, function, seen_written = kept((a, c))
    for args in [
        (a, c),
        (DeviceArray(0x9000, (1024,), "f32"), fake_arrays.ndarray(0xA000, (1024,))),
        (DeviceArray(0x1000, (512,), "f32"), c),
        (DeviceArray(0x1000, (1024,), "i32"), c),
        (DeviceArray(0x1000, (1024,), "f32", ordinal=1), c),
        (a, fake_arrays.ndarray(0x4000, (1024,), np.float16)),
        (a, fake_arrays.ndarray(0x4000, (1024,), device=1)),
        (a, fake_arrays.ndarray(0x4000, (512,), strides=(8,))),
        (a, fake_arrays.ndarray(0x1000 + KB // 2, (1024,))),  # overlapping: refused
        (a, c),
    ]:
        assert function(args, None) is generic_call(generic, args), args
    cupy.current = 0x900  # its producer on another stream: no key, so no relaunch
    assert function((a, c), None) is generic_call(generic, (a, c)) is False
    assert (
        seen_written
        == seen_generic
        == [
            (LEGACY, [0x1000, 0x4000]),
            (LEGACY, [0x9000, 0xA000]),
            (LEGACY, [0x1000, 0x4000]),
        ]
    )
