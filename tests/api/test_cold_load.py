"""`ferrox.load` of a cached .mlir in a new process reaches its first launch without the compiler:
no module of xDSL, the dialects, the passes, the lowering, ferrox's parser or llvmlite is
imported, and the image handed to the driver is the cached cubin (no PTX JIT), where ptxas made
one. The GPU is the runtime's seams replaced in the child (no GPU here); the launch itself adds
`a + b` in the fake memory, so the values that come back show the arguments went through."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ferrox
from ferrox.targets import cache as cache_module
from ferrox.targets.toolchain import find_ptxas

ROOT = Path(__file__).resolve().parents[2]
VECADD = ROOT / "examples" / "simt" / "vecadd.mlir"
HEAVY = ("xdsl", "llvmlite", "ferrox.dialects", "ferrox.passes", "ferrox.lowering", "ferrox.parser")

CHILD = """
import dataclasses, json, sys
import numpy as np
import ferrox
from ferrox.driver.checker import INTERPRETER_LIMITS
from ferrox.driver.runtime import buffers, device, launcher

memory, images, launches = {}, [], []
device._count_devices = lambda: 1
class Device:
    def sync(self):
        pass

device._open_device = lambda ordinal: Device()
device._open_context = lambda ordinal: None
device._limits[0] = dataclasses.replace(INTERPRETER_LIMITS, ordinal=0, name="fake H200")

def alloc(nbytes, ordinal):
    ptr = 0x7F0000000000 + 2**24 * len(memory)
    memory[ptr] = np.zeros(nbytes, np.uint8)
    return ptr, ptr

def copy_in(ptr, host, ordinal):
    memory[ptr][: host.nbytes] = host.reshape(-1).view(np.uint8)

def copy_out(host, ptr, ordinal):
    host[:] = memory[ptr][: host.nbytes]

buffers._alloc, buffers._copy_in, buffers._copy_out = alloc, copy_in, copy_out
buffers._release = lambda buffer, ordinal: memory.pop(buffer)

class Kernel:
    arguments_info = [(8 * i, 8) for i in range(6)]  # (address, length) for a, b and out
    handle = 1

class Code:
    def get_kernel(self, name):
        return Kernel()

def load_object(artifact, image, is_cubin, ordinal):
    images.append((image == artifact.cubin, is_cubin))
    return Code()

def run(grid, block, values):
    (pa, na), (pb, nb), (po, no) = zip(values[::2], values[1::2])
    f32 = lambda p, n: memory[p][: 4 * n].view(np.float32)
    f32(po, no)[:] = f32(pa, na)[:no] + f32(pb, nb)[:no]
    launches.append([list(grid), list(block)])

launcher._load_object = load_object
launcher._launch = lambda stream, config, kernel, values: run(config.grid, config.block, values)
launcher._launch_packed = lambda kernel, dims, stream, packed: run(dims[0], dims[1], packed.values)

module = ferrox.load(sys.argv[1], device="gpu")
n = 1000
a, b = np.arange(n, dtype=np.float32), np.full(n, 0.5, np.float32)
out = np.full(n, np.nan, np.float32)
if sys.argv[3] == "numpy":  # staged: copied in, launched, copied back
    module["vecadd"][4, 256](a, b, out)
else:  # arrays already on the device, as torch's tensors are: packed and launched
    on_device = [buffers.DeviceArray.from_numpy(x) for x in (a, b, out)]
    module["vecadd"][4, 256](*on_device)
    on_device[2].copy_to_host(out)
heavy = sorted(m for m in sys.modules if m.startswith(tuple(sys.argv[2].split(","))))
print(json.dumps({
    "heavy": heavy, "images": images, "launches": launches, "chip": module.artifact.chip,
    "right": bool(np.array_equal(out, a + b)), "device": module.device,
    "cuda_core": "cuda.core" in sys.modules,
}))
"""


def _child(cache: Path, arrays: str = "numpy") -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(VECADD), ",".join(HEAVY), arrays],
        capture_output=True,
        text=True,
        env=dict(os.environ, FERROX_CACHE_DIR=str(cache)),
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("arrays", ["numpy", "device"])
def test_a_new_process_loads_a_cached_mlir_without_the_compiler(
    tmp_path: Path, monkeypatch, arrays: str
):
    monkeypatch.setattr(cache_module, "_versions", None)  # measured from the sources as they are
    cache_module.toolchain_signature.cache_clear()
    cache_module.compiler_fingerprint.cache_clear()  # other edits since this process began
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path / "cache"))
    compiled = ferrox.compile(VECADD, chip="sm_90")  # what ferrox.load asks on an sm_90 device
    result = _child(tmp_path / "cache", arrays)
    assert result["heavy"] == []
    assert result["device"] == "gpu" and result["chip"] == "sm_90"
    has_cubin = find_ptxas() is not None
    assert (compiled.cubin is not None) == has_cubin
    assert result["images"] == [[has_cubin, has_cubin]]  # the cached cubin itself, as a cubin
    assert result["launches"] == [[[4, 1, 1], [256, 1, 1]]]
    assert result["right"]
    assert result["cuda_core"] == (arrays == "numpy")  # staging uses cuda.core; device arrays not


def test_a_miss_in_the_same_child_imports_the_compiler(tmp_path: Path):
    """The check above can fail: with an empty cache the same child compiles, and imports it."""
    result = _child(tmp_path / "empty")
    assert {"ferrox.lowering.pipeline", "ferrox.parser", "llvmlite", "xdsl.ir"} <= set(
        result["heavy"]
    )
    assert result["right"] and result["launches"] == [[[4, 1, 1], [256, 1, 1]]]
