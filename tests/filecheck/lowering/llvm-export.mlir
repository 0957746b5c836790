// RUN: ferrox-opt %s -t llvm | filecheck %s
// RUN: ferrox-opt %s -t llvm | python -c "import sys, llvmlite.binding as l; l.parse_assembly(sys.stdin.read()).verify()"

// Functions and globals: what xDSL's exporter drops and a GPU needs.

// CHECK: target triple = "nvptx64-nvidia-cuda"
// CHECK: target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"

// Shared memory: internal, addrspace(3), aligned, no initial value.
// CHECK: @"tile" = internal addrspace(3) global [256 x float] undef, align 16
llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x f32>

// Dynamic shared memory is an external, zero-sized shared array.
// CHECK: @"dynamic" = external addrspace(3) global [0 x float], align 4
llvm.mlir.global external @dynamic() {addr_space = 3 : i32, alignment = 4 : i64} : !llvm.array<0 x f32>

// A constant table in the constant address space.
// CHECK: @"table" = internal addrspace(4) constant [2 x i32] [i32 1, i32 2], align 8
llvm.mlir.global internal constant @table(dense<[1, 2]> : tensor<2xi32>) {addr_space = 4 : i32, alignment = 8 : i64} : !llvm.array<2 x i32>

// A kernel marked with nvvm.kernel is a ptx_kernel; the arguments keep their attributes and
// the launch bounds become NVVM function attributes.
// CHECK: define ptx_kernel void @"vecadd"(ptr addrspace(1) captures(none) noalias readonly align 16 %"a", ptr addrspace(1) noalias readonly %"b", ptr addrspace(1) noalias writeonly %"c", i32 %"n") "nvvm.reqntid"="128,1,1" "nvvm.minctasm"="2"
llvm.func @vecadd(%a: !llvm.ptr<1> {llvm.noalias, llvm.readonly, llvm.nocapture, llvm.align = 16 : i64},
                  %b: !llvm.ptr<1> {llvm.noalias, llvm.readonly},
                  %c: !llvm.ptr<1> {llvm.noalias, llvm.writeonly}, %n: i32)
    attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>, nvvm.minctasm = 2 : i32} {
  %tid = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
  // A GEP keeps the address space of its base pointer.
  // CHECK: %"pa" = getelementptr inbounds float, ptr addrspace(1) %"a", i32 %"tid"
  %pa = llvm.getelementptr inbounds %a[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  // CHECK: %"pc" = getelementptr float, ptr addrspace(1) %"c", i32 %"tid"
  %pc = llvm.getelementptr %c[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  // CHECK: %"x" = load float, ptr addrspace(1) %"pa", align 4
  %x = llvm.load %pa {alignment = 4 : i64} : !llvm.ptr<1> -> f32
  // Calls use the callee's calling convention.
  // CHECK: %"y" = call ptx_device float @"twice"(float %"x")
  %y = llvm.call @twice(%x) : (f32) -> f32
  // CHECK: store float %"y", ptr addrspace(1) %"pc", align 4
  llvm.store %y, %pc {alignment = 4 : i64} : f32, !llvm.ptr<1>
  llvm.return
}

// The calling convention may also be spelled as MLIR does; maxntid and maxnreg pass through.
// CHECK: define ptx_kernel void @"bounded"() "nvvm.maxntid"="256" "nvvm.maxnreg"="32"
llvm.func ptx_kernel @bounded() attributes {nvvm.maxntid = array<i32: 256>, nvvm.maxnreg = 32 : i32} {
  llvm.return
}

// Device functions keep their linkage, calling convention and attributes.
// CHECK: define internal ptx_device float @"twice"(float %"v") alwaysinline nounwind
llvm.func internal ptx_device @twice(%v: f32) -> f32 attributes {always_inline, no_unwind} {
  %r = llvm.fadd %v, %v : f32
  llvm.return %r : f32
}

// CHECK: define private void @"helper"() convergent noinline "nvvm.custom"="1"
llvm.func private @helper() attributes {no_inline, convergent, passthrough = [["nvvm.custom", "1"]]} {
  llvm.return
}

// An external declaration stays a declaration.
// CHECK: declare i32 @"vprintf"(ptr %".1", ptr %".2")
llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32

// Synchronising intrinsics are declared convergent; others are not.
// CHECK: declare i32 @"llvm.nvvm.read.ptx.sreg.tid.x"()
// CHECK-NOT: convergent
// CHECK-EMPTY:
