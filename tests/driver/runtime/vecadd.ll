; Hand-written vecadd in the kernel ABI ferrox lowers to: each slice is (ptr addrspace(1), i64 len).
; @vecadd carries a launch contract's block as "nvvm.reqntid", which LLVM 22 emits as
; `.reqntid 256, 1, 1`; @vecadd_any has none, so any block shape may launch it.
target datalayout = "e-p:64:64:64-p3:32:32:32-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

define ptx_kernel void @vecadd(ptr addrspace(1) noalias readonly %a, i64 %na, ptr addrspace(1) noalias readonly %b, i64 %nb, ptr addrspace(1) noalias %c, i64 %nc) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bdim = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %t0 = mul i32 %bid, %bdim
  %t1 = add i32 %t0, %tid
  %i = zext i32 %t1 to i64
  %ok = icmp ult i64 %i, %nc
  br i1 %ok, label %store, label %exit
store:
  %pa = getelementptr float, ptr addrspace(1) %a, i64 %i
  %pb = getelementptr float, ptr addrspace(1) %b, i64 %i
  %pc = getelementptr float, ptr addrspace(1) %c, i64 %i
  %x = load float, ptr addrspace(1) %pa
  %y = load float, ptr addrspace(1) %pb
  %z = fadd float %x, %y
  store float %z, ptr addrspace(1) %pc
  br label %exit
exit:
  ret void
}

define ptx_kernel void @vecadd_any(ptr addrspace(1) noalias readonly %a, i64 %na, ptr addrspace(1) noalias readonly %b, i64 %nb, ptr addrspace(1) noalias %c, i64 %nc) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bdim = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %t0 = mul i32 %bid, %bdim
  %t1 = add i32 %t0, %tid
  %i = zext i32 %t1 to i64
  %ok = icmp ult i64 %i, %nc
  br i1 %ok, label %store, label %exit
store:
  %pa = getelementptr float, ptr addrspace(1) %a, i64 %i
  %pb = getelementptr float, ptr addrspace(1) %b, i64 %i
  %pc = getelementptr float, ptr addrspace(1) %c, i64 %i
  %x = load float, ptr addrspace(1) %pa
  %y = load float, ptr addrspace(1) %pb
  %z = fadd float %x, %y
  store float %z, ptr addrspace(1) %pc
  br label %exit
exit:
  ret void
}

attributes #0 = { "nvvm.reqntid"="256,1,1" }
