// RUN: ferrox-opt %s | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s --print-op-generic | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// The ops ferrox adds to xDSL's llvm dialect, in MLIR's spelling.

// CHECK-LABEL: llvm.func ptx_kernel @casts
llvm.func ptx_kernel @casts(%g: !llvm.ptr<1>, %s: !llvm.ptr<3>, %f: f32, %i: i32, %v: vector<4xf32>) {
  // CHECK: %{{.*}} = llvm.addrspacecast %{{.*}} : !llvm.ptr<1> to !llvm.ptr
  %0 = llvm.addrspacecast %g : !llvm.ptr<1> to !llvm.ptr
  // CHECK: %{{.*}} = llvm.addrspacecast %{{.*}} : !llvm.ptr<3> to !llvm.ptr
  %1 = llvm.addrspacecast %s : !llvm.ptr<3> to !llvm.ptr
  // CHECK: %{{.*}} = llvm.fptosi %{{.*}} : f32 to i32
  %2 = llvm.fptosi %f : f32 to i32
  // CHECK: %{{.*}} = llvm.fptoui %{{.*}} : f32 to i64
  %3 = llvm.fptoui %f : f32 to i64
  // CHECK: %{{.*}} = llvm.uitofp %{{.*}} : i32 to f32
  %4 = llvm.uitofp %i : i32 to f32
  // CHECK: %{{.*}} = llvm.uitofp nneg %{{.*}} : i32 to f64
  %5 = llvm.uitofp nneg %i : i32 to f64
  // CHECK: %{{.*}} = llvm.extractelement %{{.*}}[%{{.*}} : i32] : vector<4xf32>
  %6 = llvm.extractelement %v[%i : i32] : vector<4xf32>
  // CHECK: %{{.*}} = llvm.mlir.poison : vector<4xf32>
  %7 = llvm.mlir.poison : vector<4xf32>
  // CHECK: %{{.*}} = llvm.freeze %{{.*}} : f32
  %8 = llvm.freeze %f : f32
  llvm.return
}

// CHECK-LABEL: llvm.func @atomics
llvm.func @atomics(%p: !llvm.ptr<1>, %f: f32, %i: i32) {
  // CHECK: %{{.*}} = llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, f32
  %0 = llvm.atomicrmw fadd %p, %f monotonic : !llvm.ptr<1>, f32
  // CHECK: %{{.*}} = llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("block") acq_rel {alignment = 4 : i64} : !llvm.ptr<1>, i32
  %1 = llvm.atomicrmw add %p, %i syncscope("block") acq_rel {alignment = 4 : i64} : !llvm.ptr<1>, i32
  // CHECK: %{{.*}} = llvm.atomicrmw volatile _and %{{.*}}, %{{.*}} seq_cst : !llvm.ptr<1>, i32
  %2 = llvm.atomicrmw volatile _and %p, %i seq_cst : !llvm.ptr<1>, i32
  // CHECK: %{{.*}} = llvm.atomicrmw umax %{{.*}}, %{{.*}} syncscope("device") release : !llvm.ptr<1>, i32
  %3 = llvm.atomicrmw umax %p, %i syncscope("device") release : !llvm.ptr<1>, i32
  // CHECK: %{{.*}} = llvm.atomicrmw xchg %{{.*}}, %{{.*}} acquire : !llvm.ptr<1>, f32
  %4 = llvm.atomicrmw xchg %p, %f acquire : !llvm.ptr<1>, f32
  // CHECK: %{{.*}} = llvm.cmpxchg %{{.*}}, %{{.*}}, %{{.*}} acq_rel monotonic : !llvm.ptr<1>, i32
  %5 = llvm.cmpxchg %p, %i, %1 acq_rel monotonic : !llvm.ptr<1>, i32
  // CHECK: %{{.*}} = llvm.cmpxchg weak volatile %{{.*}}, %{{.*}}, %{{.*}} syncscope("block") seq_cst seq_cst {alignment = 4 : i64} : !llvm.ptr<1>, i32
  %6 = llvm.cmpxchg weak volatile %p, %i, %1 syncscope("block") seq_cst seq_cst {alignment = 4 : i64} : !llvm.ptr<1>, i32
  // CHECK: %{{.*}} = llvm.extractvalue %{{.*}}[1] : !llvm.struct<(i32, i1)>
  %7 = llvm.extractvalue %6[1] : !llvm.struct<(i32, i1)>
  // CHECK: llvm.fence acq_rel
  llvm.fence acq_rel
  // CHECK: llvm.fence syncscope("block") seq_cst
  llvm.fence syncscope("block") seq_cst
  llvm.return
}

// CHECK-LABEL: llvm.func @intrinsics
llvm.func @intrinsics(%a: i32, %b: i32, %x: f32, %y: f32) {
  // CHECK: %{{.*}} = llvm.intr.smax(%{{.*}}, %{{.*}}) : (i32, i32) -> i32
  %0 = llvm.intr.smax(%a, %b) : (i32, i32) -> i32
  // CHECK: %{{.*}} = llvm.intr.smin(%{{.*}}, %{{.*}}) : (i32, i32) -> i32
  %1 = llvm.intr.smin(%a, %b) : (i32, i32) -> i32
  // CHECK: %{{.*}} = llvm.intr.umax(%{{.*}}, %{{.*}}) : (i32, i32) -> i32
  %2 = llvm.intr.umax(%a, %b) : (i32, i32) -> i32
  // CHECK: %{{.*}} = llvm.intr.umin(%{{.*}}, %{{.*}}) : (i32, i32) -> i32
  %3 = llvm.intr.umin(%a, %b) : (i32, i32) -> i32
  // CHECK: %{{.*}} = llvm.intr.fshl(%{{.*}}, %{{.*}}, %{{.*}}) : (i32, i32, i32) -> i32
  %4 = llvm.intr.fshl(%a, %a, %b) : (i32, i32, i32) -> i32
  // CHECK: %{{.*}} = llvm.intr.fshr(%{{.*}}, %{{.*}}, %{{.*}}) : (i32, i32, i32) -> i32
  %5 = llvm.intr.fshr(%a, %a, %b) : (i32, i32, i32) -> i32
  // CHECK: %{{.*}} = llvm.intr.ctpop(%{{.*}}) : (i32) -> i32
  %6 = llvm.intr.ctpop(%a) : (i32) -> i32
  // CHECK: %{{.*}} = llvm.intr.bitreverse(%{{.*}}) : (i32) -> i32
  %7 = llvm.intr.bitreverse(%a) : (i32) -> i32
  // CHECK: %{{.*}} = llvm.intr.bswap(%{{.*}}) : (i32) -> i32
  %8 = llvm.intr.bswap(%a) : (i32) -> i32
  // CHECK: %{{.*}} = llvm.intr.ctlz(%{{.*}}) {is_zero_poison = false} : (i32) -> i32
  %9 = llvm.intr.ctlz(%a) {is_zero_poison = false} : (i32) -> i32
  // CHECK: %{{.*}} = llvm.intr.cttz(%{{.*}}) {is_zero_poison = true} : (i32) -> i32
  %10 = llvm.intr.cttz(%a) {is_zero_poison = true} : (i32) -> i32
  // CHECK: %{{.*}} = llvm.intr.abs(%{{.*}}) {is_int_min_poison = false} : (i32) -> i32
  %11 = llvm.intr.abs(%a) {is_int_min_poison = false} : (i32) -> i32
  // CHECK: %{{.*}} = llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (f32, f32, f32) -> f32
  %12 = llvm.intr.fmuladd(%x, %y, %x) : (f32, f32, f32) -> f32
  // CHECK: %{{.*}} = llvm.intr.maximum(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
  %13 = llvm.intr.maximum(%x, %y) : (f32, f32) -> f32
  // CHECK: %{{.*}} = llvm.intr.minimum(%{{.*}}, %{{.*}}) {fastmathFlags = #llvm.fastmath<nnan>} : (f32, f32) -> f32
  %14 = llvm.intr.minimum(%x, %y) {fastmathFlags = #llvm.fastmath<nnan>} : (f32, f32) -> f32
  // CHECK: %{{.*}} = llvm.intr.trunc(%{{.*}}) : (f32) -> f32
  %15 = llvm.intr.trunc(%x) : (f32) -> f32
  // CHECK: %{{.*}} = llvm.intr.round(%{{.*}}) : (f32) -> f32
  %16 = llvm.intr.round(%x) : (f32) -> f32
  // CHECK: %{{.*}} = llvm.intr.roundeven(%{{.*}}) : (f32) -> f32
  %17 = llvm.intr.roundeven(%x) : (f32) -> f32
  // CHECK: %{{.*}} = llvm.intr.rint(%{{.*}}) : (f32) -> f32
  %18 = llvm.intr.rint(%x) : (f32) -> f32
  // CHECK: %{{.*}} = llvm.intr.nearbyint(%{{.*}}) : (f32) -> f32
  %19 = llvm.intr.nearbyint(%x) : (f32) -> f32
  llvm.return
}

// The PTX calling conventions parse and print as in MLIR.
// CHECK-LABEL: llvm.func internal ptx_device @helper
llvm.func internal ptx_device @helper() {
  llvm.return
}

// The generic form keeps MLIR's i64 encodings of orderings and operations.
// GENERIC: "llvm.atomicrmw"(%{{.*}}, %{{.*}}) <{bin_op = 11 : i64, ordering = 2 : i64}>
// GENERIC: "llvm.atomicrmw"(%{{.*}}, %{{.*}}) <{bin_op = 1 : i64, syncscope = "block", ordering = 6 : i64, alignment = 4 : i64}>
// GENERIC: "llvm.cmpxchg"(%{{.*}}, %{{.*}}, %{{.*}}) <{success_ordering = 6 : i64, failure_ordering = 2 : i64}>
// GENERIC: "llvm.fence"() <{ordering = 6 : i64}>
// GENERIC: CConv = #llvm.cconv<ptx_device>
