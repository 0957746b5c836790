// RUN: ferrox-opt %s -t ptx | filecheck %s

// The read-only path needs both promises: without noalias (or without readonly) a load could
// see a store through another pointer, so LLVM must use a plain global load.

// CHECK-LABEL: .entry copy_readonly(
// CHECK: ld.global.nc.b32
// CHECK: st.global.b32
llvm.func @copy_readonly(%src: !llvm.ptr<1> {llvm.noalias, llvm.readonly}, %dst: !llvm.ptr<1> {llvm.noalias}) attributes {nvvm.kernel} {
  %x = llvm.load %src : !llvm.ptr<1> -> f32
  llvm.store %x, %dst : f32, !llvm.ptr<1>
  llvm.return
}

// CHECK-LABEL: .entry copy_may_alias(
// CHECK-NOT: ld.global.nc
// CHECK: ld.global.b32
// CHECK: st.global.b32
llvm.func @copy_may_alias(%src: !llvm.ptr<1> {llvm.readonly}, %dst: !llvm.ptr<1>) attributes {nvvm.kernel} {
  %x = llvm.load %src : !llvm.ptr<1> -> f32
  llvm.store %x, %dst : f32, !llvm.ptr<1>
  llvm.return
}

// CHECK-LABEL: .entry copy_invariant(
// CHECK: ld.global.nc.b32
llvm.func @copy_invariant(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>) attributes {nvvm.kernel} {
  %x = llvm.load %src {invariant} : !llvm.ptr<1> -> f32
  llvm.store %x, %dst : f32, !llvm.ptr<1>
  llvm.return
}
