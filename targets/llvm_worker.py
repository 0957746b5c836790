"""LLVM's NVPTX backend in one long-lived child process, shared by every compile of a process.

NVPTX ends its process on some inputs (`llvm.exp.f32` has "no libcall available", an unknown
`syncscope`, a PTX version too old for the chip), and a compiler library must not take its
caller down with it: so LLVM runs in a child. A new child per compile spent 70-100 ms starting
Python and loading llvmlite, several times LLVM's own work on a SIMT kernel. So one child
serves every compile of this process, and a new one is started only after one dies (its last
words on standard error become the error) or after it has served `RETIRE_AFTER` requests: LLVM
keeps some 55-60 KB of every request in its global context (a pass builder per request; one
kept across requests aborts LLVM), which a process that compiles thousands of kernels (a tuning
sweep) would otherwise carry without bound (review-17 measured 87.6 -> 254 MB over 3,000).

A function marked `"ferrox-inline-late"` (a `simt.load_chunk` helper of the tile lowering,
`lowering/tile_to_simt/helpers.py`) is `noinline` while LLVM optimises the module, so its body
is optimised once rather than once a call; the child then inlines it into every caller
(`inline_late`) before code generation, so the PTX has no call.

The child imports llvmlite alone. The protocol on its pipes is a JSON header line then that many
bytes, both ways: `{"chip", "features", "opt", "size"}` + LLVM IR in, `{"ok", "size"}` + PTX (or
the error) out. Requests are serialised by a lock; a process that forked gets its own child.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import tempfile
import threading
from typing import IO

from ferrox.targets.toolchain import tuned_env

_CHILD = r"""
import json
import sys

import llvmlite.binding as llvm

llvm.initialize_all_targets()
llvm.initialize_all_asmprinters()
requests, replies = sys.stdin.buffer, sys.stdout.buffer
machines = {}


LATE = '"ferrox-inline-late"'


def inline_late(module, machine):
    # Every function marked LATE (noinline until now) inlined into its callers: its attribute
    # groups made alwaysinline in the printed module, which LLVM's always-inliner then empties.
    lines = str(module).split("\n")
    for i, line in enumerate(lines):
        if line.startswith("attributes #") and LATE in line:
            lines[i] = line.replace(" noinline", " alwaysinline").replace(LATE, "")
    module = llvm.parse_assembly("\n".join(lines))
    inliner = llvm.create_new_module_pass_manager()
    inliner.add_always_inliner_pass()
    inliner.run(module, llvm.create_pass_builder(machine, llvm.create_pipeline_tuning_options(0)))
    return module


def optimise(module, machine, opt):
    # LLVM's module pipeline at `opt` (none at 0)
    if opt > 0:
        tuning = llvm.create_pipeline_tuning_options(speed_level=opt)
        passes = llvm.create_pass_builder(machine, tuning)
        passes.getModulePassManager().run(module, passes)


def reply(ok, text):
    data = text.encode()
    replies.write(json.dumps({"ok": ok, "size": len(data)}).encode() + b"\n" + data)
    replies.flush()


last = None  # the last request's (chip, features, opt): a warm-up's target
while True:
    line = requests.readline()
    if not line:
        break
    request = json.loads(line)
    ir = requests.read(request["size"]).decode()
    if request.get("warm"):  # the steps of a request, on the last one's target, no answer
        try:
            if last is not None:
                module = llvm.parse_assembly(ir)
                machine = machines[(module.triple, *last)]
                optimise(module, machine, last[2])
                machine.emit_assembly(module)
        except Exception:  # (a warm-up never fails a compile)
            pass
        continue
    chip, features, opt = request["chip"], request["features"], request["opt"]
    try:
        module = llvm.parse_assembly(ir)
        module.verify()
    except RuntimeError as e:
        reply(False, f"invalid LLVM IR: {e}")
        continue
    key = (module.triple, chip, features, opt)
    machine = machines.get(key)
    if machine is None:
        # Code generation at most at LLVM's Default level: Aggressive made byte-identical PTX
        # for every example, and took longer (the IR is optimised at `opt` all the same).
        machine = machines[key] = llvm.Target.from_triple(module.triple).create_target_machine(
            cpu=chip, features=features, opt=min(opt, 2)
        )
    optimise(module, machine, opt)
    if LATE in ir:
        module = inline_late(module, machine)
    reply(True, machine.emit_assembly(module))
    if module.triple == "nvptx64-nvidia-cuda":
        last = (chip, features, opt)
"""


RETIRE_AFTER = 1000
"""Requests one child serves before it is ended and the next request starts another: its
memory stays within some 60 MB of a fresh one's, for a new child's 70-100 ms once in a
thousand compiles."""


WORKER_MALLOC = (
    "glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864"
    ":glibc.malloc.trim_threshold=268435456:glibc.malloc.mmap_threshold=33554432"
)
"""glibc's allocator settings for the child (`toolchain.tuned_env`): what LLVM frees stays in
the heap for the next request (no trim below 256 MB, blocks under 32 MB from the heap rather
than mapped apart), grown 64 MB at a time on transparent huge pages. Page faults a request:
SIMT transpose 76 -> 0, attention 1,580 -> 2, bf16 GEMM 2,240 -> 2; its resident memory after
a bf16 GEMM 112 -> 119 MB. The same LLVM on the same IR: the same PTX."""


WARM_UP = os.environ.get("FERROX_LLVM_WARM_UP", "") not in ("", "0")
"""`warm_up()` sends the worker `WARM_IR` at the start of each compile (an experiment, off unless
the environment sets `FERROX_LLVM_WARM_UP=1`): LLVM's time on a request grows with the time its
process sat idle before it (SIMT transpose, 4.3 ms of its CPU back to back, 6.0 after 20 ms
idle, on the CPU machine), and a small module compiled while the main process parses left the
real request 8 ms later at 5.6 ms instead of 6.6. The cost: 4-6 ms of the worker's CPU a
compile, which on a machine without an idle core competes with the compile itself (there the
whole compile was slower), and a request that arrives before the warm-up is done waits for
it. docs/performance.md, sixteenth session."""

WARM_IR = """target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
@tile = internal addrspace(3) global [32 x [33 x float]] undef, align 16
define ptx_kernel void @warm(ptr addrspace(1) noalias readonly align 4 %in, i64 %in_len,
    ptr addrspace(1) noalias align 4 %out, i64 %out_len, i64 %rows, i64 %cols)
    "nvvm.reqntid"="32,32,1" {
entry:
  %l = sext i64 %in_len to i128
  %r = sext i64 %rows to i128
  %c = sext i64 %cols to i128
  %n = mul i128 %r, %c
  %fits = icmp sge i128 %l, %n
  call void @llvm.assume(i1 %fits)
  %tid.x = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tx = zext i32 %tid.x to i64
  %tid.y = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %ty = zext i32 %tid.y to i64
  %ctaid.x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bx = zext i32 %ctaid.x to i64
  %bx32 = mul i64 %bx, 32
  %row = add i64 %bx32, %ty
  %row_ok = icmp ult i64 %row, %rows
  %col_ok = icmp ult i64 %tx, %cols
  %ok = and i1 %row_ok, %col_ok
  br i1 %ok, label %load, label %join
load:
  %base = mul i64 %row, %cols
  %idx = add i64 %base, %tx
  %over = icmp uge i64 %idx, %in_len
  br i1 %over, label %trap, label %read
trap:
  call void @llvm.trap()
  br label %read
read:
  %p = getelementptr inbounds float, ptr addrspace(1) %in, i64 %idx
  %x = load float, ptr addrspace(1) %p
  br label %join
join:
  %v = phi float [%x, %read], [0.0, %entry]
  %s = getelementptr [32 x [33 x float]], ptr addrspace(3) @tile, i32 0, i64 %ty, i64 %tx
  store float %v, ptr addrspace(3) %s
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %t = getelementptr [32 x [33 x float]], ptr addrspace(3) @tile, i32 0, i64 %tx, i64 %ty
  %y = load float, ptr addrspace(3) %t
  %wide = zext i64 %row to i128
  %w = mul i128 %wide, %c
  %lo = trunc i128 %w to i64
  %at = add i64 %lo, %tx
  %in_bounds = icmp ult i64 %at, %out_len
  br i1 %in_bounds, label %store, label %exit
store:
  %q = getelementptr inbounds float, ptr addrspace(1) %out, i64 %at
  store float %y, ptr addrspace(1) %q
  br label %exit
exit:
  ret void
}
declare void @llvm.assume(i1)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.trap()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) convergent
"""
"""A small SIMT kernel (transpose's shape): what `warm_up` has the worker compile."""


class LLVMFailure(Exception):
    """LLVM refused the IR, or its process died (the message is what it said)."""


class LLVMWorker:
    """The child process, started on first use and again after it dies."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._owner = 0  # the pid that started the child
        self.started = 0  # children started so far (a test reads it)
        self._served = 0  # requests sent to the running child

    @property
    def pid(self) -> int | None:
        """The running child's pid, None before the first compile or after one died."""
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    def compile(self, llvm_ir: str, chip: str, features: str, opt: int) -> str:
        """PTX for `llvm_ir`; `LLVMFailure` with LLVM's message when it cannot make it."""
        return self.submit(llvm_ir, chip, features, opt).result()

    def submit(self, llvm_ir: str, chip: str, features: str, opt: int) -> PendingPtx:
        """Send `llvm_ir` to the child and return at once: LLVM works while the caller does
        something else, and `result()` waits for the PTX. The worker serves no one else until
        then, so `result()` must be called (a `try`/`finally`)."""
        data = llvm_ir.encode()
        header = {"chip": chip, "features": features, "opt": opt, "size": len(data)}
        self._lock.acquire()
        try:
            proc, log = self._ready()
            start = os.lseek(log.fileno(), 0, os.SEEK_END)
            assert proc.stdin is not None
            try:
                proc.stdin.write(json.dumps(header).encode() + b"\n" + data)
                proc.stdin.flush()
                sent = True
            except (OSError, ValueError):
                sent = False
        except BaseException:
            self._lock.release()
            raise
        return PendingPtx(self, proc, log, start, sent)

    def warm(self) -> bool:
        """Have the running child compile `WARM_IR` on its last request's target, answering
        nothing (see `WARM_UP`). Nothing where no child runs or has served a request yet (it
        skips it), or another request is in flight. Whether it was sent."""
        if not self._lock.acquire(blocking=False):
            return False
        try:
            proc = self._proc
            if proc is None or self._owner != os.getpid() or proc.poll() is not None:
                return False
            if self._served == 0 or self._served >= RETIRE_AFTER:
                return False
            assert proc.stdin is not None
            data = WARM_IR.encode()
            proc.stdin.write(json.dumps({"warm": True, "size": len(data)}).encode() + b"\n" + data)
            proc.stdin.flush()
            self._served += 1
            return True
        except (OSError, ValueError):  # (a dead child: the next request starts another)
            return False
        finally:
            self._lock.release()

    def _answer(self, pending: PendingPtx) -> str:
        """The reply to `pending`'s request (the lock is held since `submit`)."""
        proc, log = pending.proc, pending.log
        try:
            answer, text = None, ""
            if pending.sent:
                assert proc.stdout is not None
                try:
                    line = proc.stdout.readline()
                    answer = json.loads(line) if line else None
                    text = proc.stdout.read(answer["size"]).decode() if answer else ""
                except (OSError, ValueError):
                    answer = None
            if answer is None or len(text.encode()) != answer["size"]:
                raise LLVMFailure(self._died(proc, log, pending.start))
        finally:
            self._lock.release()
        if not answer["ok"]:
            raise LLVMFailure(text)
        return text

    def _ready(self) -> tuple[subprocess.Popen[bytes], IO[bytes]]:
        if self._proc is not None and self._owner != os.getpid():
            self._proc = self._log = None  # forked: the parent's child is not ours to use
        if self._proc is not None and self._served >= RETIRE_AFTER:
            self._end(self._proc)
            if self._log is not None:
                self._log.close()
            self._proc = self._log = None
        if self._proc is None or self._proc.poll() is not None:
            self._log = tempfile.TemporaryFile()
            self._proc = subprocess.Popen(
                [sys.executable, "-c", _CHILD],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._log,
                env=tuned_env(WORKER_MALLOC),
            )
            self._owner = os.getpid()
            self.started += 1
            self._served = 0
        self._served += 1
        assert self._log is not None
        return self._proc, self._log

    def _died(self, proc: subprocess.Popen[bytes], log: IO[bytes], start: int) -> str:
        """What the dead child said since the request began; it is replaced on the next call."""
        try:
            status = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:  # alive but speaking nonsense: a bug, end it
            proc.kill()
            status = proc.wait()
        self._proc = None
        log.seek(start)
        said = log.read().decode(errors="replace").strip()
        log.close()
        return said or f"LLVM exited with status {status}"

    def close(self) -> None:
        """End the child (it exits when its input closes)."""
        with self._lock:
            proc, self._proc = self._proc, None
            if proc is None or self._owner != os.getpid():
                return
            self._end(proc)

    @staticmethod
    def _end(proc: subprocess.Popen[bytes]) -> None:
        """End a child between requests: it exits when its input closes."""
        try:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()


class PendingPtx:
    """A request sent to the worker whose answer is not read yet (`LLVMWorker.submit`)."""

    def __init__(
        self, worker: LLVMWorker, proc: subprocess.Popen[bytes], log: IO[bytes], start: int,
        sent: bool,
    ):  # fmt: skip
        self.worker, self.proc, self.log, self.start, self.sent = worker, proc, log, start, sent
        self._done = False

    def result(self) -> str:
        """The PTX; `LLVMFailure` with LLVM's message when it could not make it. Once only."""
        assert not self._done, "the answer of a worker request is read once"
        self._done = True
        return self.worker._answer(self)


_worker: LLVMWorker | None = None
_worker_lock = threading.Lock()


def worker() -> LLVMWorker:
    """This process's worker (one for all compiles)."""
    global _worker
    if _worker is None:
        with _worker_lock:
            if _worker is None:
                _worker = LLVMWorker()
                atexit.register(_worker.close)
    return _worker


def warm_up() -> None:
    """`LLVMWorker.warm` on this process's worker where `WARM_UP` is on and a worker exists
    (none is started for it)."""
    if WARM_UP and _worker is not None:
        _worker.warm()


def compile_in_worker(llvm_ir: str, chip: str, features: str, opt: int) -> str:
    return worker().compile(llvm_ir, chip, features, opt)


def submit_to_worker(llvm_ir: str, chip: str, features: str, opt: int) -> PendingPtx:
    return worker().submit(llvm_ir, chip, features, opt)


__all__ = [
    "LLVMFailure",
    "LLVMWorker",
    "PendingPtx",
    "compile_in_worker",
    "submit_to_worker",
    "warm_up",
    "worker",
]
