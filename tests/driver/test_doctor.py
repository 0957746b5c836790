"""`ferrox doctor`: one found/missing line per capability, how to get what is missing, exit 0.

The report on this machine is judged against facts found independently of the doctor's own
probes: code generated with llvmlite, PTX assembled by the reported ptxas, and the CUDA driver
asked through ctypes. A doctor that said "found" for something that does not work, or "missing"
for something that does, fails here.
"""

import ctypes
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ferrox.driver.runtime import device
from ferrox.driver.runtime.device import DeviceLimits
from ferrox.driver.runtime.errors import CudaUnavailable
from ferrox.driver.tools import cli
from ferrox.driver.tools.commands import doctor

LINE = re.compile(r"^(found|missing) +(\S.*?)  +(\S.*)$")

TINY_PTX = """.version 7.8
.target sm_90
.address_size 64
.visible .entry tiny() { ret; }
"""


def run(capsys, *args):
    code = cli.main(["doctor", *args])
    return code, capsys.readouterr().out


def status(out):
    """{check name: (found?, detail)} from the report, with every line's shape checked."""
    lines = out.splitlines()
    assert lines[0].startswith("ferrox ") and lines[0].endswith(" doctor")
    assert re.fullmatch(r"\d+ found, \d+ missing", lines[-1])
    result = {}
    for line in lines[1:-1]:
        if line.lstrip().startswith("to get it: "):
            continue
        m = LINE.match(line)
        assert m, f"malformed line: {line!r}"
        result[m.group(2)] = (m.group(1) == "found", m.group(3))
    return result


@pytest.fixture
def report(capsys, tmp_path, monkeypatch):
    """The doctor's report on this machine, with the kernel cache in a fresh folder."""
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path / "cache"))
    code, out = run(capsys)
    assert code == 0
    return status(out)


@pytest.fixture
def no_driver(monkeypatch):
    def missing():
        raise CudaUnavailable("the CUDA driver library (libcuda.so) could not be loaded: not found")

    monkeypatch.setattr(device, "driver_version", missing)
    monkeypatch.setattr(device, "device_count", missing)


def libcuda():
    """The driver library through ctypes, or None where it cannot be loaded."""
    try:
        return ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None


def test_llvmlite_line_agrees_with_code_generation(report):
    import llvmlite
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    module = llvm.parse_assembly(
        'target triple = "nvptx64-nvidia-cuda"\ndefine void @tiny() {\n  ret void\n}\n'
    )
    target = llvm.Target.from_triple("nvptx64-nvidia-cuda").create_target_machine(cpu="sm_90")
    assert ".target sm_90" in target.emit_assembly(module)
    found, detail = report["llvmlite NVPTX"]
    assert found and detail.startswith(f"llvmlite {llvmlite.__version__}, LLVM ")


def test_ptxas_line_agrees_with_assembling_ptx(report, tmp_path):
    found, detail = report["ptxas"]
    if not found:
        # Missing: none where a user would look either.
        assert shutil.which("ptxas") is None
        homes = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
        assert not any(h and (Path(h) / "bin" / "ptxas").is_file() for h in homes)
        return
    path = detail.split(" (")[0]
    source, cubin = tmp_path / "tiny.ptx", tmp_path / "tiny.cubin"
    source.write_text(TINY_PTX)
    done = subprocess.run(
        [path, "-arch=sm_90", str(source), "-o", str(cubin)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert cubin.read_bytes()[:4] == b"\x7fELF"


def test_cuda_python_line_names_the_importable_bindings(report):
    import cuda.bindings

    found, detail = report["cuda-python"]
    assert found and f"cuda-bindings {cuda.bindings.__version__}" in detail


def test_driver_and_gpu_lines_agree_with_the_driver_itself(report):
    lib = libcuda()
    if lib is None or lib.cuInit(0) != 0:
        assert report["CUDA driver"][0] is False
        assert report["GPU"][0] is False
        return
    version, count = ctypes.c_int(), ctypes.c_int()
    assert lib.cuDriverGetVersion(ctypes.byref(version)) == 0
    assert lib.cuDeviceGetCount(ctypes.byref(count)) == 0
    major, minor = version.value // 1000, (version.value % 1000) // 10
    assert report["CUDA driver"] == (True, f"CUDA {major}.{minor} driver")
    gpus = sorted(name for name in report if name.startswith("GPU"))
    if count.value == 0:
        assert gpus == ["GPU"] and report["GPU"][0] is False
    else:
        assert gpus == [f"GPU {i}" for i in range(count.value)]
        assert all(report[name][0] for name in gpus)


def test_a_fresh_cache_folder_is_reported_and_not_created(report, tmp_path):
    assert report["kernel cache"] == (
        True,
        f"{tmp_path / 'cache'} (will be created, 0 kernels, 0.0 MiB; from FERROX_CACHE_DIR)",
    )
    assert not (tmp_path / "cache").exists()  # doctor looks, it does not create


def test_missing_driver_and_gpu_say_how_to_get_them(capsys, no_driver, tmp_path, monkeypatch):
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path))
    code, out = run(capsys)
    assert code == 0
    assert status(out)["CUDA driver"] == (
        False,
        "the CUDA driver library (libcuda.so) could not be loaded: not found",
    )
    assert "to get it: install the NVIDIA driver (it provides libcuda.so.1)" in out
    assert "missing  GPU             none usable without the CUDA driver (see above)" in out
    assert "`ferrox run --device cpu` runs on the interpreter" in out
    assert run(capsys, "--strict")[0] == 1


def test_gpu_line(capsys, monkeypatch, tmp_path):
    h200 = DeviceLimits(
        ordinal=0,
        name="NVIDIA H200",
        compute_capability=(9, 0),
        sm_count=132,
        warp_size=32,
        max_threads_per_block=1024,
        max_block_dims=(1024, 1024, 64),
        max_grid_dims=(2147483647, 65535, 65535),
        max_shared_per_block=49152,
        max_shared_per_block_optin=232448,
        max_registers_per_block=65536,
        total_memory=150_110_000_000,
    )
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(device, "driver_version", lambda: (13, 0))
    monkeypatch.setattr(device, "device_count", lambda: 1)
    monkeypatch.setattr(DeviceLimits, "query", classmethod(lambda cls, ordinal=0: h200))
    code, out = run(capsys)
    found = status(out)
    assert found["CUDA driver"] == (True, "CUDA 13.0 driver")
    assert found["GPU 0"] == (
        True,
        "NVIDIA H200: sm_90 (compute 9.0), 132 SMs, 139.8 GiB, warp 32, 1024 threads/block, "
        "block (1024, 1024, 64), grid (2147483647, 65535, 65535), "
        "shared 48 KiB/block (227 KiB opt-in)",
    )


def test_unwritable_cache_is_missing(capsys, tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("FERROX_CACHE_DIR", str(blocker / "cache"))
    out = run(capsys)[1]
    assert status(out)["kernel cache"] == (False, f"{blocker / 'cache'}: {blocker} is not a folder")
    assert "to get it: set FERROX_CACHE_DIR to a writable folder" in out


def test_existing_cache_reports_its_size(capsys, tmp_path, monkeypatch):
    from ferrox.targets.cache import KernelCache, KernelKey

    KernelCache(tmp_path).get_or_compile(KernelKey("ir", "sm_90"), lambda: b"x" * 2**20)
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path))
    assert status(run(capsys)[1])["kernel cache"] == (
        True,
        f"{tmp_path} (writable, 1 kernels, 1.0 MiB; from FERROX_CACHE_DIR)",
    )


def test_a_crashing_check_is_reported_not_raised(capsys, monkeypatch):
    def boom():
        raise ZeroDivisionError("oops")

    def driver_boom():
        raise ImportError("half-installed")

    monkeypatch.setattr(doctor, "CHECKS", [boom, doctor.check_cuda_python, doctor.check_driver])
    monkeypatch.setattr(device, "driver_version", driver_boom)
    code, out = run(capsys)
    assert code == 0
    found = status(out)
    assert found["boom"] == (False, "check failed: ZeroDivisionError: oops")
    assert found["CUDA driver"] == (False, "check failed: ImportError: half-installed")


def test_help_line_comes_from_the_docstring():
    out = subprocess.run(
        [sys.executable, "-m", "ferrox.driver.tools.cli", "--help"], capture_output=True, text=True
    ).stdout
    assert "doctor" in out and "what this machine can do" in out
