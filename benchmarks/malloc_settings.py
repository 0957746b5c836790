"""ptxas and LLVM's worker with and without ferrox's glibc allocator settings.

    python benchmarks/malloc_settings.py [--reps 20] [--examples simt/transpose tile/softmax ...]

`targets/toolchain.py`'s `PTXAS_MALLOC` and `targets/llvm_worker.py`'s `WORKER_MALLOC` are
`GLIBC_TUNABLES` for the two children of a compile. For each example (default: SIMT transpose
and vecadd, tile softmax and attention) this compiles the PTX and the LLVM IR once, then times,
the two settings taking turns:
- ptxas as a compile runs it (`ptxas_job.py`): started ahead, its input fed once it waits, timed
  from the input to its exit; its page faults over that time; whether the cubin and `-v`
  report (less its compile time) are the same;
- LLVM's worker, one child per setting, each request from the IR sent to the PTX read back; its
  page faults a request; whether the PTX is the same.
It prints min and median milliseconds of each. CPU only (ptxas must be installed); the GPU is
not used. The settings change nothing ptxas or LLVM make; what they save depends on the
machine's transparent huge pages (`/sys/kernel/mm/transparent_hugepage/enabled`) and glibc.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ["simt/transpose", "simt/vecadd", "tile/softmax", "tile/attention"]
EMPTY_IR = 'target triple = "nvptx64-nvidia-cuda"\ndefine ptx_kernel void @k() {\n  ret void\n}\n'


def chip_of(path: Path) -> str:
    m = re.search(r'"ferrox\.chip"\s*=\s*"(\w+)"', path.read_text())
    return m.group(1) if m else "sm_90"


def faults(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[7])


def timeless(log: bytes) -> bytes:
    return re.sub(rb"Compile time = [0-9.]+", b"", log)


def ptxas_once(ptxas: str, ptx: bytes, chip: str, env: dict[str, str]) -> tuple[float, int, tuple]:
    """ptxas started ahead as `PtxasJob` starts it, then fed: (ms to its exit, faults, output)."""
    with tempfile.TemporaryDirectory(prefix="ferrox-malloc-") as tmp:
        folder = Path(tmp)
        source, cubin, log = folder / "kernel.ptx", folder / "kernel.cubin", folder / "log"
        os.symlink("/proc/self/fd/0", source)
        reader, writer = os.pipe()
        with open(log, "w+b") as out:
            command = [ptxas, f"-arch={chip}", "-v", "-o", str(cubin), str(source)]
            proc = subprocess.Popen(command, stdin=reader, stdout=out, stderr=out, env=env)
            os.close(reader)
            time.sleep(0.05)  # (a spare has long started when its compile's PTX is ready)
            before = faults(proc.pid)
            start = time.perf_counter()
            second = folder / "second"
            second.write_bytes(ptx)
            os.replace(second, source)
            os.write(writer, ptx)
            os.close(writer)
            _, status, usage = os.wait4(proc.pid, 0)
            ms = (time.perf_counter() - start) * 1000
            if status != 0:
                raise RuntimeError(f"ptxas failed: {log.read_text()}")
            output = (cubin.read_bytes(), timeless(log.read_bytes().replace(bytes(source), b"")))
        return ms, usage.ru_minflt - before, output


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--examples", nargs="*", default=DEFAULT)
    args = parser.parse_args()
    os.environ.setdefault("FERROX_CACHE_DIR", tempfile.mkdtemp(prefix="ferrox-bench-cache-"))
    import ferrox
    from ferrox.targets import llvm_worker
    from ferrox.targets.toolchain import PTXAS_MALLOC, find_ptxas, tuned_env

    ptxas = find_ptxas()
    if ptxas is None:
        sys.exit("needs ptxas")
    plain = {k: v for k, v in os.environ.items() if k != "GLIBC_TUNABLES"}
    captured: list[tuple] = []
    submit = llvm_worker.LLVMWorker.submit

    def capture(self, llvm_ir, chip, features, opt):
        captured.append((llvm_ir, chip, features, opt))
        return submit(self, llvm_ir, chip, features, opt)

    workers = {}  # each child started (by a first request) under its setting
    for name, env in (("plain", lambda _: plain), ("tuned", tuned_env)):
        llvm_worker.tuned_env = env  # type: ignore[assignment]
        workers[name] = llvm_worker.LLVMWorker()
        workers[name].compile(EMPTY_IR, "sm_90", "+ptx80", 3)
    llvm_worker.tuned_env = tuned_env  # type: ignore[assignment]
    print(f"THP: {Path('/sys/kernel/mm/transparent_hugepage/enabled').read_text().strip()}")
    head = f"{'example':18} {'tool':6} {'setting':6} {'min ms':>8} {'median':>8} {'faults':>7}"
    print(f"{head}  same")
    for name in args.examples:
        path = ROOT / "examples" / f"{name}.mlir"
        chip = chip_of(path)
        llvm_worker.LLVMWorker.submit = capture  # type: ignore[method-assign]
        try:
            ptx = ferrox.compile(path, chip=chip, cache=False).ptx.encode()
        finally:
            llvm_worker.LLVMWorker.submit = submit  # type: ignore[method-assign]
        request = captured.pop()
        target = "sm_90a" if b".target sm_90a" in ptx else chip
        envs = {"plain": plain, "tuned": {**plain, "GLIBC_TUNABLES": PTXAS_MALLOC}}
        rows: dict[tuple[str, str], list[tuple[float, int, object]]] = {}
        for rep in range(args.reps):
            order = ["plain", "tuned"] if rep % 2 else ["tuned", "plain"]
            for setting in order:
                rows.setdefault(("ptxas", setting), []).append(
                    ptxas_once(ptxas, ptx, target, envs[setting])
                )
            for setting in order:
                worker = workers[setting]
                pid = worker.pid
                assert pid is not None
                before = faults(pid)
                start = time.perf_counter()
                out = worker.compile(*request)
                ms = (time.perf_counter() - start) * 1000
                rows.setdefault(("llvm", setting), []).append((ms, faults(pid) - before, out))
        for tool in ("ptxas", "llvm"):
            same = {r[2] for s in ("plain", "tuned") for r in rows[(tool, s)][1:]}
            for setting in ("plain", "tuned"):
                times = [r[0] for r in rows[(tool, setting)][1:]]
                n = statistics.median(r[1] for r in rows[(tool, setting)][1:])
                print(f"{name:18} {tool:6} {setting:6} {min(times):8.2f} "
                      f"{statistics.median(times):8.2f} {n:7.0f}  {len(same) == 1}")  # fmt: skip
    for worker in workers.values():
        worker.close()


if __name__ == "__main__":
    main()
