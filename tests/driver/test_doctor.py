"""`ferrox doctor`: one found/missing line per capability, how to get what is missing, exit 0."""

import re
import subprocess
import sys

import pytest

from ferrox.driver.runtime import cuda
from ferrox.driver.runtime.device import DeviceLimits
from ferrox.driver.runtime.errors import CudaUnavailable
from ferrox.driver.tools import cli
from ferrox.driver.tools.commands import doctor
from ferrox.targets.toolchain import find_ptxas

LINE = re.compile(r"^(found|missing) +(\S.*?)  +(\S.*)$")


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
def no_driver(monkeypatch):
    def missing():
        raise CudaUnavailable("the CUDA driver library (libcuda.so) could not be loaded: not found")

    monkeypatch.setattr(cuda, "driver_version", missing)
    monkeypatch.setattr(cuda, "device_count", missing)


def test_report_on_this_machine(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path / "cache"))
    code, out = run(capsys)
    assert code == 0
    found = status(out)
    assert (
        found["llvmlite NVPTX"][0] and "sm_90 target machine created" in found["llvmlite NVPTX"][1]
    )
    assert found["cuda-python"][0] and "cuda-bindings" in found["cuda-python"][1]
    assert found["ptxas"][0] is (find_ptxas() is not None)
    assert found["CUDA driver"][0] is (cuda.unavailable_reason() is None)
    assert found["kernel cache"] == (
        True,
        f"{tmp_path / 'cache'} (will be created, 0 kernels, 0.0 MiB; from FERROX_CACHE_DIR)",
    )
    assert not (tmp_path / "cache").exists()  # doctor looks, it does not create


def test_missing_driver_and_gpu_say_how_to_get_them(capsys, no_driver, tmp_path, monkeypatch):
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path))
    code, out = run(capsys)
    assert code == 0
    assert (
        "missing  CUDA driver     the CUDA driver library (libcuda.so) could not be loaded: not found"
        in out
    )
    assert "to get it: install the NVIDIA driver (it provides libcuda.so.1)" in out
    assert "missing  GPU             none usable without the CUDA driver (see above)" in out
    assert "`ferrox run --device cpu` runs on the interpreter" in out
    assert run(capsys, "--strict")[0] == 1


def test_gpu_line(capsys, monkeypatch, tmp_path):
    h200 = DeviceLimits(
        ordinal=0, name="NVIDIA H200", compute_capability=(9, 0), sm_count=132, warp_size=32,
        max_threads_per_block=1024, max_block_dims=(1024, 1024, 64), max_grid_dims=(2147483647, 65535, 65535),
        max_shared_per_block=49152, max_shared_per_block_optin=232448, max_registers_per_block=65536,
        total_memory=150_110_000_000,
    )  # fmt: skip
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cuda, "driver_version", lambda: (13, 0))
    monkeypatch.setattr(cuda, "device_count", lambda: 1)
    monkeypatch.setattr(DeviceLimits, "query", classmethod(lambda cls, ordinal=0: h200))
    code, out = run(capsys)
    found = status(out)
    assert found["CUDA driver"] == (True, "CUDA 13.0 driver")
    assert found["GPU 0"] == (
        True,
        "NVIDIA H200: sm_90 (compute 9.0), 132 SMs, 139.8 GiB, warp 32, 1024 threads/block, "
        "block (1024, 1024, 64), grid (2147483647, 65535, 65535), shared 48 KiB/block (227 KiB opt-in)",
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

    monkeypatch.setattr(doctor, "CHECKS", [boom, doctor.check_cuda_python])
    code, out = run(capsys)
    assert code == 0
    assert status(out)["boom"] == (False, "check failed: ZeroDivisionError: oops")


def test_help_line_comes_from_the_docstring():
    out = subprocess.run(
        [sys.executable, "-m", "ferrox.driver.tools.cli", "--help"], capture_output=True, text=True
    ).stdout
    assert "doctor" in out and "what this machine can do" in out
