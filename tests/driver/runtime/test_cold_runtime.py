"""The driver-only pieces a new process's first launch uses, without a GPU: `make_current` opens
each device's primary context once per thread (and not again after `core_device` did), and the
runtime's modules import no cuda.core until a cuda.core object is asked for."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest

from ferrox.driver.runtime import device
from ferrox.driver.runtime.errors import CudaUnavailable


def test_make_current_opens_the_context_once_per_thread(monkeypatch):
    opened = []
    monkeypatch.setattr(device, "_count_devices", lambda: 2)
    monkeypatch.setattr(device, "_open_context", opened.append)
    monkeypatch.setattr(device, "_open_device", lambda o: f"device {o}")
    monkeypatch.setattr(device, "_current", threading.local())
    for _ in range(3):
        device.make_current(0)
    assert opened == [0]
    thread = threading.Thread(target=device.make_current, args=(0,))
    thread.start()
    thread.join()
    assert opened == [0, 0]
    device.make_current(1)
    assert opened == [0, 0, 1]
    assert device.core_device(0) == "device 0"  # cuda.core's Device makes it current itself
    device.make_current(0)
    assert opened == [0, 0, 1]
    with pytest.raises(CudaUnavailable, match=r"^no CUDA device 2: this machine has 2$"):
        device.make_current(2)


CHILD = """
import json, sys
import ferrox.driver.runtime as runtime
from ferrox.driver.runtime import buffers, device, errors, library, streams
before = "cuda.core" in sys.modules
errors.CoreCudaError  # asked for: now it is imported
print(json.dumps([before, "cuda.core" in sys.modules, sorted(runtime.__all__)[:3]]))
"""


def test_the_runtime_imports_cuda_core_when_asked():
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [False, True, ["ArgumentError", "ArrayError", "CudaError"]]
