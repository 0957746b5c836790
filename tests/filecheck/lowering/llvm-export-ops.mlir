// RUN: ferrox-opt %s -t llvm | filecheck %s
// RUN: ferrox-opt %s -t llvm | python -c "import sys, llvmlite.binding as l; l.parse_assembly(sys.stdin.read()).verify()"

// Instructions: the ops ferrox adds to the llvm dialect, and xDSL's that lose GPU information.

// CHECK-LABEL: define void @"casts"
llvm.func @casts(%g: !llvm.ptr<1>, %f: f32, %i: i32, %v: vector<4xf32>) {
  // CHECK: %"generic" = addrspacecast ptr addrspace(1) %"g" to ptr
  %generic = llvm.addrspacecast %g : !llvm.ptr<1> to !llvm.ptr
  // CHECK: %"s" = fptosi float %"f" to i32
  %s = llvm.fptosi %f : f32 to i32
  // CHECK: %"u" = fptoui float %"f" to i64
  %u = llvm.fptoui %f : f32 to i64
  // CHECK: %"w" = uitofp i32 %"i" to float
  %w = llvm.uitofp %i : i32 to f32
  // CHECK: %"nn" = uitofp nneg i32 %"i" to double
  %nn = llvm.uitofp nneg %i : i32 to f64
  // CHECK: %"lane" = extractelement <4 x float> %"v", i32 %"i"
  %lane = llvm.extractelement %v[%i : i32] : vector<4xf32>
  // CHECK: %"vec" = insertelement <4 x float> poison, float %"f", i32 %"i"
  %p = llvm.mlir.poison : vector<4xf32>
  %vec = llvm.insertelement %f, %p[%i : i32] : vector<4xf32>
  // CHECK: %"frozen" = freeze float %"f"
  %frozen = llvm.freeze %f : f32
  llvm.return
}

// CHECK-LABEL: define void @"memory"
llvm.func @memory(%p: !llvm.ptr<1>, %s: !llvm.ptr<3>, %f: f32, %i: i32) {
  // CHECK: %"old" = atomicrmw fadd ptr addrspace(1) %"p", float %"f" syncscope("block") monotonic, align 4
  %old = llvm.atomicrmw fadd %p, %f syncscope("block") monotonic {alignment = 4 : i64} : !llvm.ptr<1>, f32
  // LLVM's NVPTX backend ignores an atomicrmw's ordering, so stronger orderings become fences.
  // CHECK-NEXT: fence syncscope("device") release
  // CHECK-NEXT: %"count" = atomicrmw add ptr addrspace(3) %"s", i32 %"i" syncscope("device") monotonic
  // CHECK-NEXT: fence syncscope("device") acquire
  %count = llvm.atomicrmw add %s, %i syncscope("device") acq_rel : !llvm.ptr<3>, i32
  // CHECK-NEXT: fence seq_cst
  // CHECK-NEXT: %"andv" = atomicrmw volatile and ptr addrspace(1) %"p", i32 %"i" monotonic
  // CHECK-NEXT: fence acquire
  %andv = llvm.atomicrmw volatile _and %p, %i seq_cst : !llvm.ptr<1>, i32
  // CHECK-NEXT: fence syncscope("block") release
  // CHECK-NEXT: %"mx" = atomicrmw umax ptr addrspace(1) %"p", i32 %"i" syncscope("block") monotonic
  // CHECK-NOT: fence
  %mx = llvm.atomicrmw umax %p, %i syncscope("block") release : !llvm.ptr<1>, i32
  // CHECK: %"pair" = cmpxchg weak ptr addrspace(1) %"p", i32 %"i", i32 %"count" syncscope("block") acq_rel monotonic, align 4
  %pair = llvm.cmpxchg weak %p, %i, %count syncscope("block") acq_rel monotonic {alignment = 4 : i64} : !llvm.ptr<1>, i32
  // CHECK: %"ok" = extractvalue {i32, i1} %"pair", 1
  %ok = llvm.extractvalue %pair[1] : !llvm.struct<(i32, i1)>
  // CHECK: fence syncscope("block") acq_rel
  llvm.fence syncscope("block") acq_rel
  // CHECK: fence seq_cst
  llvm.fence seq_cst
  // Loads and stores keep their atomic ordering, scope, volatility and metadata.
  // CHECK: %"acq" = load atomic i32, ptr addrspace(1) %"p" syncscope("device") acquire, align 4
  %acq = llvm.load %p atomic acquire {syncscope = "device"} : !llvm.ptr<1> -> i32
  // CHECK: %"inv" = load float, ptr addrspace(1) %"p", align 4, !invariant.load
  %inv = llvm.load %p {alignment = 4 : i64, invariant} : !llvm.ptr<1> -> f32
  // CHECK: store volatile float %"inv", ptr addrspace(3) %"s"
  llvm.store volatile %inv, %s : f32, !llvm.ptr<3>
  // CHECK: store atomic i32 %"acq", ptr addrspace(1) %"p" syncscope("block") release, align 4
  llvm.store %acq, %p {ordering = 5 : i64, syncscope = "block"} : i32, !llvm.ptr<1>
  // CHECK: store float %"f", ptr addrspace(1) %"p", !nontemporal
  llvm.store %f, %p {nontemporal} : f32, !llvm.ptr<1>
  llvm.return
}

// CHECK-LABEL: define void @"intrinsics"
llvm.func @intrinsics(%a: i32, %b: i32, %x: f32, %y: f32) {
  // CHECK: %"mx" = call i32 @"llvm.smax.i32"(i32 %"a", i32 %"b")
  %mx = llvm.intr.smax(%a, %b) : (i32, i32) -> i32
  // CHECK: %"mn" = call i32 @"llvm.umin.i32"(i32 %"a", i32 %"b")
  %mn = llvm.intr.umin(%a, %b) : (i32, i32) -> i32
  // CHECK: %"lz" = call i32 @"llvm.ctlz.i32"(i32 %"a", i1 false)
  %lz = llvm.intr.ctlz(%a) {is_zero_poison = false} : (i32) -> i32
  // CHECK: %"ab" = call i32 @"llvm.abs.i32"(i32 %"a", i1 true)
  %ab = llvm.intr.abs(%a) {is_int_min_poison = true} : (i32) -> i32
  // CHECK: %"pc" = call i32 @"llvm.ctpop.i32"(i32 %"a")
  %pc = llvm.intr.ctpop(%a) : (i32) -> i32
  // CHECK: %"fm" = call contract float @"llvm.fmuladd.f32"(float %"x", float %"y", float %"x")
  %fm = llvm.intr.fmuladd(%x, %y, %x) {fastmathFlags = #llvm.fastmath<contract>} : (f32, f32, f32) -> f32
  // CHECK: %"top" = call float @"llvm.maximum.f32"(float %"x", float %"y")
  %top = llvm.intr.maximum(%x, %y) : (f32, f32) -> f32
  // CHECK: %"tr" = call float @"llvm.trunc.f32"(float %"x")
  %tr = llvm.intr.trunc(%x) : (f32) -> f32
  llvm.return
}

// CHECK-LABEL: define ptx_kernel void @"sync"
llvm.func @sync(%m: i32, %v: i32) attributes {nvvm.kernel} {
  // Barriers and shuffles are convergent, at the call and on the declaration.
  // CHECK: call void @"llvm.nvvm.barrier0"() convergent
  llvm.call_intrinsic "llvm.nvvm.barrier0"() : () -> ()
  // CHECK: %"sh" = call i32 @"llvm.nvvm.shfl.sync.bfly.i32"(i32 %"m", i32 %"v", i32 1, i32 31) convergent
  %one = llvm.mlir.constant(1 : i32) : i32
  %clamp = llvm.mlir.constant(31 : i32) : i32
  %sh = llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"(%m, %v, %one, %clamp) : (i32, i32, i32, i32) -> i32
  // Any call may ask to be convergent.
  // CHECK: call void @"llvm.nvvm.barrier.cta.sync.aligned.all"(i32 0) convergent
  %zero = llvm.mlir.constant(0 : i32) : i32
  llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.all"(%zero) {convergent} : (i32) -> ()
  // Inline assembly keeps its side effects and may be convergent.
  // CHECK: call void asm sideeffect "bar.sync 1;", ""() convergent
  llvm.inline_asm has_side_effects "bar.sync 1;", "" {convergent} : () -> ()
  // CHECK: %"lane" = call i32 asm "mov.u32 $0, %laneid;", "=r"()
  %lane = llvm.inline_asm "mov.u32 $0, %laneid;", "=r" : () -> i32
  llvm.return
}

// CHECK: declare void @"llvm.nvvm.barrier0"() convergent
// CHECK: declare i32 @"llvm.nvvm.shfl.sync.bfly.i32"(i32 %".1", i32 %".2", i32 %".3", i32 %".4") convergent
