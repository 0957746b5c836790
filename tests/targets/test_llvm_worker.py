"""LLVM's persistent worker: one child serves every compile of the process, gives the PTX a
new child gives (target machines it keeps make no difference), and is replaced after NVPTX
aborts it, with LLVM's own words as the error."""

from __future__ import annotations

import pytest

from ferrox.targets.llvm_worker import LLVMFailure, LLVMWorker

VECADD_IR = """
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @vecadd(ptr addrspace(1) noalias readonly %a,
                               ptr addrspace(1) noalias %c, i32 %n) "nvvm.reqntid"="64,1,1" {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %in = icmp slt i32 %tid, %n
  br i1 %in, label %body, label %exit
body:
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i32 %tid
  %pc = getelementptr inbounds float, ptr addrspace(1) %c, i32 %tid
  %x = load float, ptr addrspace(1) %pa, align 4
  %y = fadd float %x, 1.0
  store float %y, ptr addrspace(1) %pc, align 4
  br label %exit
exit:
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
"""


def _ir_calling(intrinsic: str, declare: str) -> str:
    return f"""
target triple = "nvptx64-nvidia-cuda"
{declare}
define ptx_kernel void @k(ptr addrspace(1) %p, float %x) {{
  %y = call float @{intrinsic}(float %x)
  store float %y, ptr addrspace(1) %p
  ret void
}}
"""


@pytest.fixture
def worker():
    w = LLVMWorker()
    yield w
    w.close()


def _vecadd_in_a_new_worker() -> str:
    """vecadd's PTX from a worker of its own, closed after."""
    fresh = LLVMWorker()
    try:
        return fresh.compile(VECADD_IR, "sm_90", "+ptx80", 3)
    finally:
        fresh.close()


def test_one_child_serves_every_compile(worker: LLVMWorker):
    first = worker.compile(VECADD_IR, "sm_90", "+ptx80", 3)
    pid = worker.pid
    assert pid is not None and ".entry vecadd(" in first
    other = worker.compile(VECADD_IR, "sm_80", "+ptx81", 2)
    again = worker.compile(VECADD_IR, "sm_90", "+ptx80", 3)
    assert ".target sm_80" in other and ".target sm_90" in again
    assert again == first, "a kept target machine changes nothing"
    assert (worker.pid, worker.started) == (pid, 1)
    assert _vecadd_in_a_new_worker() == first


def test_an_abort_is_reported_and_the_next_compile_gets_a_new_child(worker: LLVMWorker):
    worker.compile(VECADD_IR, "sm_90", "+ptx80", 3)
    pid = worker.pid
    ir = _ir_calling("llvm.exp.f32", "declare float @llvm.exp.f32(float)")
    with pytest.raises(LLVMFailure, match="no libcall available for fexp"):
        worker.compile(ir, "sm_90", "+ptx80", 3)
    assert worker.pid is None
    assert ".entry vecadd(" in worker.compile(VECADD_IR, "sm_90", "+ptx80", 3)
    assert worker.pid not in (None, pid) and worker.started == 2


def test_a_child_is_retired_after_its_requests(worker: LLVMWorker, monkeypatch):
    """LLVM keeps part of every request, so a child serves `RETIRE_AFTER` requests, then ends
    (between requests) and the next request starts another, which answers the same."""
    import ferrox.targets.llvm_worker as module

    monkeypatch.setattr(module, "RETIRE_AFTER", 2)
    first = worker.compile(VECADD_IR, "sm_90", "+ptx80", 3)
    old = worker._proc
    assert worker.compile(VECADD_IR, "sm_90", "+ptx80", 3) == first
    assert worker.started == 1 and old is not None and old.poll() is None
    assert worker.compile(VECADD_IR, "sm_90", "+ptx80", 3) == first
    assert old.poll() == 0, "the retired child exited on its own, its input closed"
    assert worker.pid not in (None, old.pid) and worker.started == 2


def test_invalid_ir_is_an_answer_not_a_death(worker: LLVMWorker):
    worker.compile(VECADD_IR, "sm_90", "+ptx80", 3)
    pid = worker.pid
    with pytest.raises(LLVMFailure, match="^invalid LLVM IR: "):
        worker.compile("define void @f() { ret i32 0 }", "sm_90", "+ptx80", 3)
    assert worker.pid == pid and worker.started == 1


LATE_IR = """
target triple = "nvptx64-nvidia-cuda"
define internal float @helper(ptr addrspace(1) %p, i64 %i) {inlining} {{
  %a = getelementptr inbounds float, ptr addrspace(1) %p, i64 %i
  %x = load float, ptr addrspace(1) %a, align 4
  %y = fmul float %x, 3.0
  ret float %y
}}
define ptx_kernel void @k(ptr addrspace(1) %p, ptr addrspace(1) %q) {{
  %a = call float @helper(ptr addrspace(1) %p, i64 1)
  %b = call float @helper(ptr addrspace(1) %p, i64 2)
  %s = fadd float %a, %b
  store float %s, ptr addrspace(1) %q, align 4
  ret void
}}
"""


@pytest.mark.parametrize("opt", [0, 3])
def test_a_late_inlined_function_is_optimised_once_then_inlined(worker: LLVMWorker, opt):
    """`noinline "ferrox-inline-late"` (the tile lowering's load helpers): no call and no
    `.func` in the PTX, which computes what the `alwaysinline` function's would."""
    late = worker.compile(
        LATE_IR.format(inlining='noinline "ferrox-inline-late"'), "sm_90", "+ptx80", opt
    )
    assert "call" not in late and ".func" not in late
    assert late.count("ld.global") == 2 and late.count("mul.rn.f32") == 2
    plain = worker.compile(LATE_IR.format(inlining="noinline"), "sm_90", "+ptx80", opt)
    assert ".func" in plain and "call" in plain, "only the marked function is inlined"


def test_the_child_runs_with_the_malloc_settings_and_they_change_no_ptx(worker, monkeypatch):
    from pathlib import Path

    from ferrox.targets import llvm_worker

    tuned = worker.compile(VECADD_IR, "sm_90", "+ptx80", 3)
    environ = Path(f"/proc/{worker.pid}/environ")
    if environ.exists():
        given = [
            e.partition("=")[2]
            for e in environ.read_bytes().decode().split("\0")
            if e.startswith("GLIBC_TUNABLES=")
        ]
        # (glibc 2.36 leaves only the first setting in the text /proc shows, having read all)
        assert len(given) == 1 and given[0]
        assert set(given[0].split(":")) <= set(llvm_worker.WORKER_MALLOC.split(":"))
    monkeypatch.setattr(llvm_worker, "tuned_env", lambda _: None)  # this process's environment
    assert _vecadd_in_a_new_worker() == tuned


def test_a_warm_up_answers_nothing_and_changes_no_ptx(worker: LLVMWorker):
    from ferrox.targets import llvm_worker

    assert not worker.warm(), "no child yet: nothing to warm"
    first = worker.compile(VECADD_IR, "sm_90", "+ptx80", 3)
    assert worker.warm() and worker.warm()  # two warm-ups queued, no answers to read
    assert worker.compile(VECADD_IR, "sm_90", "+ptx80", 3) == first
    assert worker.started == 1
    # (the warm-up's module compiles as a request too)
    assert ".entry warm(" in worker.compile(llvm_worker.WARM_IR, "sm_90", "+ptx80", 3)


def test_warm_up_is_off_unless_asked_and_starts_no_worker(monkeypatch):
    from ferrox.targets import llvm_worker

    sent = []
    monkeypatch.setattr(llvm_worker.LLVMWorker, "warm", lambda self: sent.append(self) or True)
    monkeypatch.setattr(llvm_worker, "WARM_UP", False)
    llvm_worker.warm_up()
    monkeypatch.setattr(llvm_worker, "WARM_UP", True)
    monkeypatch.setattr(llvm_worker, "_worker", None)
    llvm_worker.warm_up()
    assert sent == []
    w = LLVMWorker()
    monkeypatch.setattr(llvm_worker, "_worker", w)
    llvm_worker.warm_up()
    assert sent == [w]


def test_a_compile_with_warm_ups_makes_the_same_artifact(monkeypatch):
    from pathlib import Path

    import ferrox
    from ferrox.targets import llvm_worker

    path = Path(__file__).resolve().parents[2] / "examples" / "simt" / "transpose.mlir"
    plain = ferrox.compile(path, chip="sm_90", cache=False)
    sent = []
    warm = llvm_worker.LLVMWorker.warm
    monkeypatch.setattr(llvm_worker.LLVMWorker, "warm", lambda self: sent.append(warm(self)))
    monkeypatch.setattr(llvm_worker, "WARM_UP", True)
    warmed = [ferrox.compile(path, chip="sm_90", cache=False) for _ in range(2)]
    assert sent == [True, True]
    assert all(a.ptx == plain.ptx and a.cubin == plain.cubin for a in warmed)


def test_a_warm_up_that_fails_fails_no_compile(worker: LLVMWorker, monkeypatch):
    from ferrox.targets import llvm_worker

    first = worker.compile(VECADD_IR, "sm_90", "+ptx80", 3)
    monkeypatch.setattr(llvm_worker, "WARM_IR", "this is not LLVM IR")
    assert worker.warm()
    assert worker.compile(VECADD_IR, "sm_90", "+ptx80", 3) == first
    assert worker.started == 1
