"""Streams: any library's stream object to a handle and a cuda.core stream, torch's current
stream for launches on torch tensors, and ferrox's own streams (on the fake GPU)."""

from __future__ import annotations

import sys
import types

import pytest
from cuda.core import LEGACY_DEFAULT_STREAM

from ferrox.driver.runtime import streams
from ferrox.driver.runtime.streams import Stream, core_stream, current_stream_for, stream_handle


class TorchStream:
    cuda_stream = 0xABC


class CupyStream:
    ptr = 0xDEF


class ProtocolStream:
    def __cuda_stream__(self):
        return (0, 0x123)


def test_stream_handles_of_every_kind():
    assert stream_handle(None) == 1  # the legacy default stream
    assert stream_handle(0x77) == 0x77
    assert stream_handle(TorchStream()) == 0xABC
    assert stream_handle(CupyStream()) == 0xDEF
    assert stream_handle(ProtocolStream()) == 0x123
    with pytest.raises(TypeError, match=r"^a stream cannot be a bool$"):
        stream_handle(True)
    with pytest.raises(TypeError, match=r"^not a CUDA stream: str$"):
        stream_handle("s")


def test_default_streams_are_cuda_cores_legacy_stream():
    assert core_stream(None) is LEGACY_DEFAULT_STREAM
    assert core_stream(0) is LEGACY_DEFAULT_STREAM
    assert core_stream(1) is LEGACY_DEFAULT_STREAM


def test_foreign_handles_are_wrapped_once(monkeypatch):
    made = []
    monkeypatch.setattr(streams, "_wrapped", {})
    monkeypatch.setattr(streams, "_from_handle", lambda h: made.append(h) or f"s{h:x}")
    assert core_stream(TorchStream()) == "sabc" and core_stream(0xABC) == "sabc"
    assert made == [0xABC]


def fake_torch(monkeypatch, current: int):
    module = types.ModuleType("torch")
    module.cuda = types.SimpleNamespace(
        current_stream=lambda device: types.SimpleNamespace(cuda_stream=current)
    )
    monkeypatch.setitem(sys.modules, "torch", module)
    tensor_type = type("Tensor", (), {"__module__": "torch", "is_cuda": True, "device": 0})
    cpu_type = type("Tensor", (), {"__module__": "torch", "is_cuda": False})
    return tensor_type(), cpu_type()


def test_torch_tensors_launch_on_torchs_current_stream(monkeypatch):
    gpu, cpu = fake_torch(monkeypatch, current=0x5000)
    assert current_stream_for([3, cpu, gpu]) == 0x5000
    assert current_stream_for([3, cpu]) == 1
    gpu, _ = fake_torch(monkeypatch, current=0)  # torch's default stream is the legacy one
    assert current_stream_for([gpu]) == 1


def test_own_streams(fake):
    with Stream() as s:
        assert s.handle == 1 and s.__cuda_stream__() == (0, 1)
        assert core_stream(s) is s.core and stream_handle(s) == 1
        s.synchronize()
        core = s.core
    assert s.handle == 0 and core.closed
    s.close()
    assert Stream().handle == 2
