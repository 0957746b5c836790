// RUN: ferrox-opt %s -t llvm --split-input-file | filecheck %s

// `-t llvm` on input that is not GPU code targets the host, as xdsl-opt's `-t llvm`: the host's
// triple and no data layout. GPU code (a kernel, an nvvm attribute or op, a ferrox op, an NVPTX
// triple) targets NVPTX. The choice is made per input, before any pass (ferrox-opt.md); ferrox's
// exporter writes both, so its refusals hold for both (llvm-export-invalid.mlir has no triple).

// CHECK: ; ModuleID = ""
// CHECK-NEXT: target triple = "{{[a-zA-Z0-9_.-]+}}"
// CHECK-NEXT: target datalayout = ""
// CHECK: define void @"device"()
llvm.func @device() {
  llvm.return
}

// -----

// The same function next to a kernel: the module is GPU code.
// CHECK: target triple = "nvptx64-nvidia-cuda"
// CHECK-NEXT: target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
// CHECK: define void @"device"()
// CHECK: define ptx_kernel void @"k"()
llvm.func @device() {
  llvm.return
}
llvm.func @k() attributes {nvvm.kernel} {
  llvm.return
}

// -----

// A device function alone is exported for NVPTX when its module names the triple.
// CHECK: target triple = "nvptx64-nvidia-cuda"
// CHECK-NEXT: target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
// CHECK: define void @"device"()
module attributes {llvm.target_triple = "nvptx64-nvidia-cuda"} {
  llvm.func @device() {
    llvm.return
  }
}

// -----

// A call of an NVVM intrinsic makes the module GPU code.
// CHECK: target triple = "nvptx64-nvidia-cuda"
// CHECK: call i32 @"llvm.nvvm.read.ptx.sreg.tid.x"()
llvm.func @tid() -> i32 {
  %0 = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
  llvm.return %0 : i32
}

