// RUN: ferrox-opt %s -p convert-to-llvm | filecheck %s
// RUN: ferrox-opt %s -p convert-to-llvm | filecheck %s --check-prefix=GONE

// nvvm ops lower in the same walk as the standard dialects (patterns from convert-nvvm-to-llvm).
// GONE-NOT: {{^ *(%[0-9a-z_]+ = )?"?nvvm\.}}
// GONE-NOT: unrealized_conversion_cast

// The global thread index, as convert-simt-to-nvvm writes it, with a bounds check and a barrier.
// CHECK-LABEL: llvm.func @scale(
// CHECK-SAME: [[P:%[a-z0-9_]+]]: !llvm.ptr<1> {llvm.noalias}, [[N:%[a-z0-9_]+]]: i64)
// CHECK-SAME: attributes {nvvm.kernel}
// CHECK-NEXT: [[TID:%.+]] = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
// CHECK-NEXT: [[CTA:%.+]] = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ctaid.x"() : () -> i32
// CHECK-NEXT: [[NT:%.+]] = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ntid.x"() : () -> i32
// CHECK-NEXT: [[BASE:%.+]] = llvm.mul [[CTA]], [[NT]] : i32
// CHECK-NEXT: [[G:%.+]] = llvm.add [[BASE]], [[TID]] : i32
// CHECK-NEXT: [[I:%.+]] = llvm.sext [[G]] : i32 to i64
// CHECK-NEXT: [[IN:%.+]] = llvm.icmp "ult" [[I]], [[N]] : i64
// CHECK-NEXT: llvm.cond_br [[IN]], ^[[STORE:[a-z0-9_]+]], ^[[DONE:[a-z0-9_]+]]
// CHECK-NEXT: ^[[STORE]]:
// CHECK-NEXT: [[Q:%.+]] = llvm.getelementptr inbounds [[P]][[[I]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: llvm.store {{%.+}}, [[Q]] : f32, !llvm.ptr<1>
// CHECK-NEXT: llvm.br ^[[DONE]]
// CHECK-NEXT: ^[[DONE]]:
// CHECK-NEXT: [[ZERO:%.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.all"([[ZERO]]) {convergent} : (i32) -> ()
// CHECK-NEXT: llvm.return
func.func @scale(%p: !llvm.ptr<1> {llvm.noalias}, %n: index) attributes {nvvm.kernel} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %cta = nvvm.read.ptx.sreg.ctaid.x : i32
  %nt = nvvm.read.ptx.sreg.ntid.x : i32
  %base = arith.muli %cta, %nt : i32
  %g = arith.addi %base, %tid : i32
  %i = arith.index_cast %g : i32 to index
  %in = arith.cmpi ult, %i, %n : index
  scf.if %in {
    %ii = arith.index_cast %i : index to i64
    %q = llvm.getelementptr inbounds %p[%ii] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %v = llvm.load %q : !llvm.ptr<1> -> f32
    %two = arith.constant 2.0 : f32
    %w = arith.mulf %v, %two : f32
    llvm.store %w, %q : f32, !llvm.ptr<1>
  }
  nvvm.barrier0
  func.return
}
