"""NVIDIA's command-line tools: find them (PATH, CUDA_HOME, the nvidia-cuda-nvcc wheel), run ptxas.

`run_ptxas` assembles PTX into a cubin and, with `-v`, reports each function's resources,
parsed into `FunctionResources` so that tests can require, for instance, no register spills.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

PTXAS_HINT = (
    "install NVIDIA's CUDA toolkit (ptxas on PATH, or set CUDA_HOME), "
    "or `pip install nvidia-cuda-nvcc`, which ships ptxas"
)


class ToolchainError(Exception):
    """A tool is missing or failed; the message says what happened and what to do."""


def scratch_dir() -> str | None:
    """Where ptxas's input and output files go: `/dev/shm` (memory) where it is writable and
    TMPDIR does not name another place, else the system's temporary folder (None). On a disk,
    creating and removing a job's few files took several ms of each compile."""
    if "TMPDIR" not in os.environ and os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        return "/dev/shm"
    return None


PTXAS_MALLOC = "glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864"
"""glibc's allocator settings for ptxas (`GLIBC_TUNABLES`; another C library, or a glibc older
than 2.35, ignores what it does not know). ptxas grows its heap a few pages at a time and
touches each new page once: on SIMT transpose some 900 page faults after its input arrives,
10,000 on the bf16 GEMM, about a microsecond each. With the heap grown 64 MB at a time
(virtual memory: only touched pages are backed) and marked for transparent huge pages, the
first 2 MB page is faulted in while a spare ptxas waits for its input (`ptxas_job.py`), and
the rest 2 MB at a time: 200 faults on transpose, 250 on the GEMM. The same ptxas on the same
text: the cubin and report are byte-identical (tests/targets/test_ptxas_env.py)."""


def tuned_env(tunables: str) -> dict[str, str]:
    """This process's environment for a child, with glibc's `tunables` before any
    `GLIBC_TUNABLES` of the caller's (a later setting of the same tunable wins in glibc)."""
    env = dict(os.environ)
    given = env.get("GLIBC_TUNABLES")
    env["GLIBC_TUNABLES"] = f"{tunables}:{given}" if given else tunables
    return env


def ptxas_env() -> dict[str, str]:
    """The environment ptxas runs in: `tuned_env(PTXAS_MALLOC)`."""
    return tuned_env(PTXAS_MALLOC)


def find_ptxas() -> str | None:
    if found := shutil.which("ptxas"):
        return found
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home and (candidate := Path(home) / "bin" / "ptxas").is_file():
            return str(candidate)
    try:  # (by name: the `nvidia` namespace has no type information, installed or not)
        wheel = importlib.import_module("nvidia.cuda_nvcc")
    except ImportError:
        return None
    for base in getattr(wheel, "__path__", []):
        for candidate in Path(base).rglob("ptxas"):
            if os.access(candidate, os.X_OK):
                return str(candidate)
    return None


def require_ptxas() -> str:
    if (found := find_ptxas()) is None:
        raise ToolchainError(f"ptxas not found: {PTXAS_HINT}")
    return found


@dataclass(frozen=True)
class FunctionResources:
    """What `ptxas -v` reports for one function; byte counts are per thread unless noted."""

    name: str
    entry: bool = False
    registers: int = 0
    stack_frame: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    local_memory: int = 0
    """Local memory per thread: the stack frame, or `lmem` where ptxas reports that instead."""
    shared_memory: int = 0
    """Static shared memory per block (`smem`)."""
    barriers: int = 0
    constant_memory: dict[int, int] = field(default_factory=dict)
    """Bytes of each constant bank (`cmem[0]`: the kernel parameters)."""

    @property
    def spills(self) -> bool:
        return self.spill_stores > 0 or self.spill_loads > 0


_FUNCTION = re.compile(r"Function properties for (\S+)")
_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_BARRIERS = re.compile(r"used (\d+) barriers")
_SMEM = re.compile(r"(\d+) bytes smem")
_LMEM = re.compile(r"(\d+) bytes lmem")
_CMEM = re.compile(r"(\d+) bytes cmem\[(\d+)\]")


def parse_ptxas_info(text: str) -> dict[str, FunctionResources]:
    """Every function `ptxas -v` describes in `text`, by name."""
    found: dict[str, dict] = {}
    entries: set[str] = set()
    current: str | None = None
    for line in text.splitlines():
        if m := _ENTRY.search(line):
            entries.add(m.group(1))
            current = m.group(1)
            found.setdefault(current, {})
        elif m := _FUNCTION.search(line):
            current = m.group(1)
            found.setdefault(current, {})
        elif current is None:
            continue
        elif m := _FRAME.search(line):
            frame, stores, loads = (int(g) for g in m.groups())
            found[current].update(stack_frame=frame, spill_stores=stores, spill_loads=loads)
        elif m := _USED.search(line):
            info = found[current]
            info["registers"] = int(m.group(1))
            if b := _BARRIERS.search(line):
                info["barriers"] = int(b.group(1))
            if s := _SMEM.search(line):
                info["shared_memory"] = int(s.group(1))
            if lm := _LMEM.search(line):
                info["local_memory"] = int(lm.group(1))
            info["constant_memory"] = {int(bank): int(n) for n, bank in _CMEM.findall(line)}
    result = {}
    for name, info in found.items():
        info.setdefault("local_memory", info.get("stack_frame", 0))
        result[name] = FunctionResources(name=name, entry=name in entries, **info)
    return result


@dataclass(frozen=True)
class PtxasResult:
    cubin: bytes
    log: str
    resources: dict[str, FunctionResources]


def run_ptxas(
    ptx: str, chip: str, *, verbose: bool = True, extra_args: tuple[str, ...] = ()
) -> PtxasResult:
    """Assemble `ptx` for `chip` (e.g. `sm_90`); raises `ToolchainError` with ptxas's own errors."""
    ptxas = require_ptxas()
    with tempfile.TemporaryDirectory(prefix="ferrox-ptxas-", dir=scratch_dir()) as tmp:
        source, cubin = Path(tmp) / "kernel.ptx", Path(tmp) / "kernel.cubin"
        source.write_text(ptx, encoding="utf-8")
        command = [ptxas, f"-arch={chip}", *(["-v"] if verbose else []), *extra_args]
        command += ["-o", str(cubin), str(source)]
        proc = subprocess.run(command, capture_output=True, text=True, env=ptxas_env())
        log = (proc.stdout + proc.stderr).replace(str(source), "<ptx>")
        if proc.returncode != 0:
            raise ToolchainError(f"ptxas rejected the PTX for {chip}:\n{log.strip()}")
        return PtxasResult(cubin.read_bytes(), log, parse_ptxas_info(log))
