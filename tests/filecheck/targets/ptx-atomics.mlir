// RUN: ferrox-opt %s -t ptx | filecheck %s

// CHECK-LABEL: .visible .entry histogram(
llvm.func @histogram(%bins: !llvm.ptr<1>, %sum: !llvm.ptr<1>, %x: f32, %bin: i32) attributes {nvvm.kernel} {
  %one = llvm.mlir.constant(1 : i32) : i32
  %pbin = llvm.getelementptr inbounds %bins[%bin] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  // A relaxed float add in global memory.
  // CHECK: atom.global.add.f32
  %0 = llvm.atomicrmw fadd %sum, %x monotonic : !llvm.ptr<1>, f32
  // An acq_rel, block-scoped add: the fences give it its ordering.
  // CHECK: fence.acq_rel.cta;
  // CHECK-NEXT: atom.global.add.u32
  // CHECK-NEXT: fence.acq_rel.cta;
  %1 = llvm.atomicrmw add %pbin, %one syncscope("block") acq_rel : !llvm.ptr<1>, i32
  // cmpxchg keeps its semantics and scope in the instruction itself.
  // CHECK: atom.acq_rel.gpu.global.cas.b32
  %2 = llvm.cmpxchg %pbin, %1, %one syncscope("device") acq_rel monotonic : !llvm.ptr<1>, i32
  // CHECK: fence.sc.cta;
  llvm.fence syncscope("block") seq_cst
  // CHECK: atom.global.max.s32
  %3 = llvm.atomicrmw max %pbin, %bin monotonic : !llvm.ptr<1>, i32
  llvm.return
}

// CHECK-LABEL: .visible .entry shared_count(
// CHECK: atom.shared.add.u32
llvm.mlir.global internal @counter() {addr_space = 3 : i32, alignment = 4 : i64} : i32
llvm.func @shared_count(%out: !llvm.ptr<1>) attributes {nvvm.kernel} {
  %one = llvm.mlir.constant(1 : i32) : i32
  %c = llvm.mlir.addressof @counter : !llvm.ptr<3>
  %old = llvm.atomicrmw add %c, %one syncscope("block") monotonic : !llvm.ptr<3>, i32
  llvm.store %old, %out : i32, !llvm.ptr<1>
  llvm.return
}
