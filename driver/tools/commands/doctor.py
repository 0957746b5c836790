"""ferrox doctor: what this machine can do (NVPTX, ptxas, CUDA, GPU, cache) and what is missing.

Each line is `found` or `missing`, and every missing piece says how to get it. The command
reports; it exits 0 whatever it finds, unless `--strict` asks it to fail when anything is missing.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import ferrox


@dataclass
class Check:
    name: str
    found: bool
    detail: str
    fix: str | None = None


def check_llvmlite() -> Check:
    name = "llvmlite NVPTX"
    fix = "pip install 'llvmlite>=0.50,<0.51' (PyPI's wheels include the NVPTX backend)"
    try:
        import llvmlite
        import llvmlite.binding as llvm
    except ImportError as exc:
        return Check(name, False, f"llvmlite is not installed ({exc})", fix)
    version = f"llvmlite {llvmlite.__version__}, LLVM {'.'.join(map(str, llvm.llvm_version_info))}"
    try:
        llvm.initialize_all_targets()
        llvm.initialize_all_asmprinters()
        llvm.Target.from_triple("nvptx64-nvidia-cuda").create_target_machine(cpu="sm_90")
    except RuntimeError as exc:
        return Check(name, False, f"{version}: no NVPTX target ({exc})", fix)
    return Check(name, True, f"{version}: nvptx64-nvidia-cuda, sm_90 target machine created")


def check_ptxas() -> Check:
    from ferrox.targets.toolchain import find_ptxas

    name = "ptxas"
    fix = (
        "pip install nvidia-cuda-nvcc, or install the CUDA toolkit and put its bin/ on PATH "
        "(needed for --cubin)"
    )
    path = find_ptxas()
    if path is None:
        return Check(
            name, False, "not on PATH, under CUDA_HOME or in the nvidia-cuda-nvcc wheel", fix
        )
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        return Check(name, False, f"{path} does not run: {exc}", fix)
    m = re.search(r"release [\d.]+, V[\d.]+", out)
    return Check(name, True, f"{path} ({m.group(0) if m else out.strip().splitlines()[-1:]})")


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def check_cuda_python() -> Check:
    name = "cuda-python"
    versions = {d: _version(d) for d in ("cuda-python", "cuda-bindings", "cuda-core")}
    try:
        import cuda.bindings.driver  # noqa: F401
    except ImportError as exc:
        return Check(
            name, False, f"cuda.bindings cannot be imported ({exc})", "pip install cuda-python"
        )
    listed = (
        ", ".join(f"{d} {v}" for d, v in versions.items() if v) or "cuda.bindings (version unknown)"
    )
    return Check(name, True, listed)


def check_driver() -> Check:
    from ferrox.driver.runtime import device
    from ferrox.driver.runtime.errors import CudaError, CudaUnavailable

    name = "CUDA driver"
    fix = (
        "install the NVIDIA driver (it provides libcuda.so.1); in a container, run it with GPU "
        "access (--gpus all); without one, `ferrox run --device cpu` uses the interpreter"
    )
    try:
        major, minor = device.driver_version()
    except (CudaUnavailable, CudaError) as exc:
        return Check(name, False, str(exc), fix)
    return Check(name, True, f"CUDA {major}.{minor} driver")


def _gib(n: int) -> str:
    return f"{n / 2**30:.1f} GiB"


def check_gpus() -> list[Check]:
    from ferrox.driver.runtime import device
    from ferrox.driver.runtime.device import DeviceLimits
    from ferrox.driver.runtime.errors import CudaError, CudaUnavailable

    fix = (
        "ferrox needs an NVIDIA GPU for --device gpu; "
        "`ferrox run --device cpu` runs on the interpreter"
    )
    try:
        count = device.device_count()
    except CudaUnavailable:
        return [Check("GPU", False, "none usable without the CUDA driver (see above)", fix)]
    except CudaError as exc:
        return [Check("GPU", False, f"none usable: {exc}", fix)]
    if count == 0:
        return [Check("GPU", False, "the driver reports no CUDA device", fix)]
    checks = []
    for ordinal in range(count):
        try:
            d = DeviceLimits.query(ordinal)
        except (CudaUnavailable, CudaError) as exc:
            checks.append(Check(f"GPU {ordinal}", False, str(exc), fix))
            continue
        major, minor = d.compute_capability
        shared, optin = d.max_shared_per_block // 1024, d.max_shared_per_block_optin // 1024
        detail = (
            f"{d.name}: {d.chip} (compute {major}.{minor}), {d.sm_count} SMs, "
            f"{_gib(d.total_memory)}, warp {d.warp_size}, {d.max_threads_per_block} threads/block, "
            f"block {d.max_block_dims}, grid {d.max_grid_dims}, "
            f"shared {shared} KiB/block ({optin} KiB opt-in)"
        )
        checks.append(Check(f"GPU {ordinal}", True, detail))
    return checks


def _writable(folder: Path) -> tuple[bool, str]:
    """Whether ferrox can write there; a folder that does not exist yet is judged by its parent."""
    probe = folder
    while not probe.exists():
        if probe.parent == probe:
            return False, "no existing parent folder"
        probe = probe.parent
    if not probe.is_dir():
        return False, f"{probe} is not a folder"
    try:  # os.access says yes to root even where the filesystem says no (/proc, read-only mounts)
        with tempfile.TemporaryFile(dir=probe):
            pass
    except OSError as exc:
        return False, f"{probe} is not writable ({exc.strerror or exc})"
    return True, "writable" if probe == folder else "will be created"


def check_cache() -> Check:
    from ferrox.targets.cache import CACHE_ENV, cache_usage, default_cache_dir

    folder = default_cache_dir()
    source = f"from {CACHE_ENV}" if os.environ.get(CACHE_ENV) else f"set {CACHE_ENV} to move it"
    ok, state = _writable(folder)
    if not ok:
        return Check(
            "kernel cache", False, f"{folder}: {state}", f"set {CACHE_ENV} to a writable folder"
        )
    entries, size = cache_usage(folder)
    return Check(
        "kernel cache",
        True,
        f"{folder} ({state}, {entries} kernels, {size / 2**20:.1f} MiB; {source})",
    )


CHECKS: list[Callable[[], Check | list[Check]]] = [
    check_llvmlite,
    check_ptxas,
    check_cuda_python,
    check_driver,
    check_gpus,
    check_cache,
]

LABELS: dict[Callable[[], object], str] = {
    check_llvmlite: "llvmlite NVPTX",
    check_ptxas: "ptxas",
    check_cuda_python: "cuda-python",
    check_driver: "CUDA driver",
    check_gpus: "GPU",
    check_cache: "kernel cache",
}
"""The name a check's line has when the check itself crashes."""


def run_checks() -> list[Check]:
    """Every check; one that crashes is reported as missing, never raised."""
    results: list[Check] = []
    for probe in CHECKS:
        try:
            found = probe()
        except Exception as exc:  # doctor must always finish its report
            found = Check(
                LABELS.get(probe, probe.__name__.removeprefix("check_")),
                False,
                f"check failed: {type(exc).__name__}: {exc}",
            )
        results.extend(found if isinstance(found, list) else [found])
    return results


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--strict", action="store_true", help="exit 1 when anything is missing")


def execute(args: argparse.Namespace) -> int:
    results = run_checks()
    width = max(len(c.name) for c in results)
    print(f"ferrox {ferrox.__version__} doctor")
    for c in results:
        print(f"{'found' if c.found else 'missing':8} {c.name:{width}}  {c.detail}")
        if not c.found and c.fix:
            print(f"{'':8} {'':{width}}  to get it: {c.fix}")
    missing = sum(not c.found for c in results)
    print(f"{len(results) - missing} found, {missing} missing")
    return 1 if args.strict and missing else 0
