// RUN: ferrox-opt %s -t ptx | filecheck %s

// CHECK-LABEL: .entry exact(
// CHECK-NEXT: .reqntid 32, 8, 1
// CHECK-NEXT: .minnctapersm 4
llvm.func @exact() attributes {nvvm.kernel, nvvm.reqntid = array<i32: 32, 8, 1>, nvvm.minctasm = 4 : i32} {
  llvm.return
}

// CHECK-LABEL: .entry bounded(
// CHECK-NEXT: .maxntid 512
// CHECK-NEXT: .maxnreg 64
llvm.func ptx_kernel @bounded() attributes {nvvm.maxntid = array<i32: 512>, nvvm.maxnreg = 64 : i32} {
  llvm.return
}

// A device function is a .func, not an entry, and internal linkage keeps it out of .visible.
// CHECK: {{^}}.func helper(
// CHECK-LABEL: .entry caller(
// CHECK: call.uni helper
llvm.func internal ptx_device @helper(%p: !llvm.ptr<1>) attributes {no_inline} {
  %v = llvm.mlir.constant(7 : i32) : i32
  llvm.store %v, %p : i32, !llvm.ptr<1>
  llvm.return
}
llvm.func @caller(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {
  llvm.call @helper(%p) : (!llvm.ptr<1>) -> ()
  llvm.return
}
