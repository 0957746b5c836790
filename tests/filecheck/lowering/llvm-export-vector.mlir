// RUN: ferrox-opt %s -t llvm | filecheck %s
// RUN: ferrox-opt %s -t llvm | python -c "import sys, llvmlite.binding as l; l.parse_assembly(sys.stdin.read()).verify()"
// RUN: ferrox-opt %s -t 'ptx{chip=sm_90}' | filecheck %s --check-prefix=PTX
// RUN: ferrox-opt %s -t 'ptx{chip=sm_90}' > %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// REQUIRES: ptxas

// Vectors, as the tile track's vectorised elementwise kernels use them: 16-byte loads and stores,
// intrinsics overloaded on a vector type (mangled `llvm.floor.v4f32`), lane-wise arithmetic, and
// lanes taken apart and put back. LLVM 22 spells the 16-byte accesses `ld.global.v4.b32` (untyped;
// LLVM 19 and older said `.v4.f32`).

// CHECK: @"stage" = internal addrspace(3) global [256 x float] undef, align 16
llvm.mlir.global internal @stage() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x f32>

// CHECK-LABEL: define ptx_kernel void @"intrinsics"
// PTX-LABEL: .entry intrinsics(
llvm.func @intrinsics(%p: !llvm.ptr<1>, %q: !llvm.ptr<1>) attributes {nvvm.kernel} {
  // CHECK: %"x" = load <4 x float>, ptr addrspace(1) %"p", align 16
  // PTX: ld.global.v4.{{[bf]}}32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}];
  %x = llvm.load %p {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
  // CHECK-NEXT: %"f" = call <4 x float> @"llvm.floor.v4f32"(<4 x float> %"x")
  // PTX-COUNT-4: cvt.rmi.f32.f32
  %f = llvm.intr.floor(%x) : (vector<4xf32>) -> vector<4xf32>
  // CHECK-NEXT: %"c" = call <4 x float> @"llvm.ceil.v4f32"(<4 x float> %"x")
  %c = llvm.intr.ceil(%x) : (vector<4xf32>) -> vector<4xf32>
  // CHECK-NEXT: %"a" = call <4 x float> @"llvm.fabs.v4f32"(<4 x float> %"c")
  %a = llvm.intr.fabs(%c) : (vector<4xf32>) -> vector<4xf32>
  // CHECK-NEXT: %"s" = call <4 x float> @"llvm.sqrt.v4f32"(<4 x float> %"a")
  %s = llvm.intr.sqrt(%a) : (vector<4xf32>) -> vector<4xf32>
  // CHECK-NEXT: %"mx" = call nnan <4 x float> @"llvm.maxnum.v4f32"(<4 x float> %"s", <4 x float> %"f")
  %mx = llvm.intr.maxnum(%s, %f) {fastmathFlags = #llvm.fastmath<nnan>} : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
  // CHECK-NEXT: %"mn" = call <4 x float> @"llvm.minnum.v4f32"(<4 x float> %"mx", <4 x float> %"x")
  %mn = llvm.intr.minnum(%mx, %x) : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
  // CHECK-NEXT: %"cs" = call <4 x float> @"llvm.copysign.v4f32"(<4 x float> %"mn", <4 x float> %"x")
  %cs = llvm.intr.copysign(%mn, %x) : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
  // CHECK-NEXT: %"fm" = call <4 x float> @"llvm.fma.v4f32"(<4 x float> %"cs", <4 x float> %"x", <4 x float> %"x")
  %fm = llvm.intr.fma(%cs, %x, %x) : (vector<4xf32>, vector<4xf32>, vector<4xf32>) -> vector<4xf32>
  // ferrox's own intrinsic ops mangle the same way.
  // CHECK-NEXT: %"mxe" = call <4 x float> @"llvm.maximum.v4f32"(<4 x float> %"fm", <4 x float> %"x")
  %mxe = llvm.intr.maximum(%fm, %x) : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
  // CHECK-NEXT: %"t" = call <4 x float> @"llvm.trunc.v4f32"(<4 x float> %"mxe")
  %t = llvm.intr.trunc(%mxe) : (vector<4xf32>) -> vector<4xf32>
  // CHECK-NEXT: %"e" = call <4 x float> @"llvm.exp2.v4f32"(<4 x float> %"t")
  %e = llvm.intr.exp2(%t) : (vector<4xf32>) -> vector<4xf32>
  // CHECK-NEXT: %"sn" = call afn <4 x float> @"llvm.sin.v4f32"(<4 x float> %"e")
  %sn = llvm.intr.sin(%e) {fastmathFlags = #llvm.fastmath<afn>} : (vector<4xf32>) -> vector<4xf32>
  // PTX-COUNT-4: cvt.rpi.f32.f32
  // PTX-COUNT-4: abs.f32
  // PTX-COUNT-4: sqrt.rn.f32
  // PTX-COUNT-4: max.f32
  // PTX-COUNT-4: min.f32
  // PTX-COUNT-4: copysign.f32
  // PTX-COUNT-4: fma.rn.f32
  // PTX-COUNT-4: max.NaN.f32
  // PTX-COUNT-4: cvt.rzi.f32.f32
  // PTX-COUNT-4: ex2.approx.f32
  // PTX-COUNT-4: sin.approx.f32
  // A reduction is mangled with its vector type; `reassoc` lets it add the lanes as a tree.
  // CHECK-NEXT: %"sum" = call reassoc float @"llvm.vector.reduce.fadd.v4f32"(float {{.*}}, <4 x float> %"sn")
  // PTX-COUNT-4: add.rn.f32
  %zero = llvm.mlir.constant(0.0 : f32) : f32
  %sum = "llvm.intr.vector.reduce.fadd"(%zero, %sn) <{fastmathFlags = #llvm.fastmath<reassoc>}> : (f32, vector<4xf32>) -> f32
  // PTX: st.global.b32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
  llvm.store %sum, %p : f32, !llvm.ptr<1>
  // CHECK: store <4 x float> %"sn", ptr addrspace(1) %"q", align 16
  // PTX: st.global.v4.{{[bf]}}32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
  llvm.store %sn, %q {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
  llvm.return
}

// Lane-wise arithmetic on vector<4xf32>: one scalar instruction a lane, 16-byte accesses around.
// CHECK-LABEL: define ptx_kernel void @"arith"
// PTX-LABEL: .entry arith(
llvm.func @arith(%p: !llvm.ptr<1>, %q: !llvm.ptr<1>) attributes {nvvm.kernel} {
  // PTX: ld.global.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}];
  %x = llvm.load %p {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
  %p1 = llvm.getelementptr %p[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, vector<4xf32>
  // CHECK: %"p1" = getelementptr <4 x float>, ptr addrspace(1) %"p", i32 1
  // PTX: ld.global.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}+16];
  %y = llvm.load %p1 {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
  // CHECK: %"sum" = fadd <4 x float> %"x", %"y"
  // PTX-COUNT-4: add.rn.f32
  %sum = llvm.fadd %x, %y : vector<4xf32>
  // CHECK-NEXT: %"prod" = fmul <4 x float> %"sum", %"x"
  // PTX-COUNT-4: mul.rn.f32
  %prod = llvm.fmul %sum, %x : vector<4xf32>
  // CHECK-NEXT: %"diff" = fsub <4 x float> %"prod", %"y"
  // PTX-COUNT-4: sub.rn.f32
  %diff = llvm.fsub %prod, %y : vector<4xf32>
  // CHECK-NEXT: %"neg" = fneg <4 x float> %"diff"
  // PTX-COUNT-4: neg.f32
  %neg = llvm.fneg %diff : vector<4xf32>
  // CHECK-NEXT: %"quo" = fdiv <4 x float> %"neg", %"y"
  // PTX-COUNT-4: div.rn.f32
  %quo = llvm.fdiv %neg, %y : vector<4xf32>
  // PTX: st.global.v4.b32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
  llvm.store %quo, %q {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
  llvm.return
}

// CHECK-LABEL: define ptx_kernel void @"ints"
// PTX-LABEL: .entry ints(
llvm.func @ints(%p: !llvm.ptr<1>, %q: !llvm.ptr<1>) attributes {nvvm.kernel} {
  // CHECK: %"x" = load <4 x i32>, ptr addrspace(1) %"p", align 16
  // PTX: ld.global.v4.b32
  %x = llvm.load %p {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
  // CHECK-NEXT: %"m" = mul <4 x i32> %"x", %"x"
  // PTX-COUNT-4: mul.lo.s32
  %m = llvm.mul %x, %x : vector<4xi32>
  // CHECK-NEXT: %"mx" = call <4 x i32> @"llvm.smax.v4i32"(<4 x i32> %"m", <4 x i32> %"x")
  // PTX-COUNT-4: max.s32
  %mx = llvm.intr.smax(%m, %x) : (vector<4xi32>, vector<4xi32>) -> vector<4xi32>
  // CHECK-NEXT: %"lz" = call <4 x i32> @"llvm.ctlz.v4i32"(<4 x i32> %"mx", i1 false)
  // PTX-COUNT-4: clz.b32
  %lz = llvm.intr.ctlz(%mx) {is_zero_poison = false} : (vector<4xi32>) -> vector<4xi32>
  // CHECK-NEXT: %"pc" = call <4 x i32> @"llvm.ctpop.v4i32"(<4 x i32> %"lz")
  // PTX-COUNT-4: popc.b32
  %pc = llvm.intr.ctpop(%lz) : (vector<4xi32>) -> vector<4xi32>
  // CHECK-NEXT: %"sum" = add <4 x i32> %"pc", %"x"
  // PTX-COUNT-4: add.s32
  %sum = llvm.add %pc, %x : vector<4xi32>
  // PTX: st.global.v4.b32
  llvm.store %sum, %q {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
  llvm.return
}

// Lanes out and in: with constant positions, no lane goes through memory.
// CHECK-LABEL: define ptx_kernel void @"lanes"
// PTX-LABEL: .entry lanes(
llvm.func @lanes(%p: !llvm.ptr<1>, %q: !llvm.ptr<1>, %s: f32) attributes {nvvm.kernel} {
  // PTX: ld.global.v4.b32 {%[[X0:r[0-9]+]], %[[X1:r[0-9]+]], %[[X2:r[0-9]+]], %[[X3:r[0-9]+]]}, [%rd{{[0-9]+}}];
  %x = llvm.load %p {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
  %i0 = llvm.mlir.constant(0 : i32) : i32
  %i3 = llvm.mlir.constant(3 : i32) : i32
  // CHECK: %"l0" = extractelement <4 x float> %"x", i32 0
  %l0 = llvm.extractelement %x[%i0 : i32] : vector<4xf32>
  // CHECK-NEXT: %"l3" = extractelement <4 x float> %"x", i32 3
  %l3 = llvm.extractelement %x[%i3 : i32] : vector<4xf32>
  // CHECK-NEXT: %"t" = fadd float %"l0", %"l3"
  // PTX: ld.param.b32 %[[S:r[0-9]+]], [lanes_param_2];
  // PTX: add.rn.f32 %[[T:r[0-9]+]], %[[X0]], %[[X3]];
  %t = llvm.fadd %l0, %l3 : f32
  // CHECK-NEXT: %"v0" = insertelement <4 x float> %"x", float %"t", i32 0
  %v0 = llvm.insertelement %t, %x[%i0 : i32] : vector<4xf32>
  // CHECK-NEXT: %"v1" = insertelement <4 x float> %"v0", float %"s", i32 3
  %v1 = llvm.insertelement %s, %v0[%i3 : i32] : vector<4xf32>
  // CHECK-NEXT: store <4 x float> %"v1", ptr addrspace(1) %"q", align 16
  // PTX: st.global.v4.b32 [%rd{{[0-9]+}}], {%[[T]], %[[X1]], %[[X2]], %[[S]]};
  // PTX-NOT: .local
  llvm.store %v1, %q {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
  llvm.return
}

// Lanes built from scalars on poison, and lanes chosen at run time: those go through a stack
// slot in local memory (NVPTX cannot index a register), so vectorised kernels keep lanes constant.
// CHECK-LABEL: define ptx_kernel void @"build"
// PTX-LABEL: .entry build(
llvm.func @build(%q: !llvm.ptr<1>, %a: f32, %b: f32, %i: i32, %j: i32) attributes {nvvm.kernel} {
  %i0 = llvm.mlir.constant(0 : i32) : i32
  %i1 = llvm.mlir.constant(1 : i32) : i32
  %i2 = llvm.mlir.constant(2 : i32) : i32
  %i3 = llvm.mlir.constant(3 : i32) : i32
  %p = llvm.mlir.poison : vector<4xf32>
  // CHECK: %"v0" = insertelement <4 x float> poison, float %"a", i32 0
  %v0 = llvm.insertelement %a, %p[%i0 : i32] : vector<4xf32>
  %v1 = llvm.insertelement %b, %v0[%i1 : i32] : vector<4xf32>
  %v2 = llvm.insertelement %a, %v1[%i2 : i32] : vector<4xf32>
  %v3 = llvm.insertelement %b, %v2[%i3 : i32] : vector<4xf32>
  // CHECK: %"pick" = extractelement <4 x float> %"v3", i32 %"i"
  %pick = llvm.extractelement %v3[%i : i32] : vector<4xf32>
  %twice = llvm.fadd %pick, %pick : f32
  // CHECK: %"v4" = insertelement <4 x float> %"v3", float %"twice", i32 %"j"
  %v4 = llvm.insertelement %twice, %v3[%j : i32] : vector<4xf32>
  // PTX: .local .align 4 .b8 __local_depot{{[0-9]+}}[32];
  // PTX: add.rn.f32
  // PTX: st.global.v4.b32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
  llvm.store %v4, %q {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
  llvm.return
}

// 16 bytes whatever the lanes: two f64, eight bf16.
// CHECK-LABEL: define ptx_kernel void @"widths"
// PTX-LABEL: .entry widths(
llvm.func @widths(%p: !llvm.ptr<1>, %q: !llvm.ptr<1>) attributes {nvvm.kernel} {
  // CHECK: load <2 x double>, ptr addrspace(1) %"p", align 16
  // PTX: ld.global.v2.b64 {%rd[[D0:[0-9]+]], %rd[[D1:[0-9]+]]}, [%rd{{[0-9]+}}];
  %d = llvm.load %p {alignment = 16 : i64} : !llvm.ptr<1> -> vector<2xf64>
  // CHECK-NEXT: store <2 x double> %"d", ptr addrspace(1) %"q", align 16
  // PTX: st.global.v2.b64 [%rd{{[0-9]+}}], {%rd[[D0]], %rd[[D1]]};
  llvm.store %d, %q {alignment = 16 : i64} : vector<2xf64>, !llvm.ptr<1>
  %p1 = llvm.getelementptr %p[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, vector<8xbf16>
  %q1 = llvm.getelementptr %q[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, vector<8xbf16>
  // CHECK: load <8 x bfloat>, ptr addrspace(1) %"p1", align 16
  // PTX: ld.global.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}+16];
  %h = llvm.load %p1 {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
  // CHECK-NEXT: store <8 x bfloat> %"h", ptr addrspace(1) %"q1", align 16
  // PTX: st.global.v4.b32 [%rd{{[0-9]+}}+16], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
  llvm.store %h, %q1 {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
  llvm.return
}

// The alignment is what makes a vector access one instruction: at 4 bytes, LLVM must split it.
// CHECK-LABEL: define ptx_kernel void @"underaligned"
// PTX-LABEL: .entry underaligned(
llvm.func @underaligned(%p: !llvm.ptr<1>, %q: !llvm.ptr<1>) attributes {nvvm.kernel} {
  // CHECK: load <4 x float>, ptr addrspace(1) %"p", align 4
  // PTX-NOT: .v4
  // PTX-COUNT-4: ld.global.b32
  %u = llvm.load %p {alignment = 4 : i64} : !llvm.ptr<1> -> vector<4xf32>
  // CHECK-NEXT: store <4 x float> %"u", ptr addrspace(1) %"q", align 4
  // PTX-COUNT-4: st.global.b32
  // PTX-NOT: .v4
  llvm.store %u, %q {alignment = 4 : i64} : vector<4xf32>, !llvm.ptr<1>
  llvm.return
}

// Read-only inputs take the non-coherent path at full width; shared memory is vectorised too.
// CHECK-LABEL: define ptx_kernel void @"staged"
// PTX-LABEL: .entry staged(
llvm.func @staged(%p: !llvm.ptr<1> {llvm.noalias, llvm.readonly}, %q: !llvm.ptr<1> {llvm.noalias}) attributes {nvvm.kernel} {
  // PTX: ld.global.nc.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}];
  %x = llvm.load %p {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
  %tid = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
  %one = llvm.mlir.constant(1 : i32) : i32
  %partner = llvm.xor %tid, %one : i32
  %stage = llvm.mlir.addressof @stage : !llvm.ptr<3>
  // CHECK: %"mine" = getelementptr <4 x float>, ptr addrspace(3) @"stage", i32 %"tid"
  %mine = llvm.getelementptr %stage[%tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, vector<4xf32>
  // CHECK-NEXT: store <4 x float> %"x", ptr addrspace(3) %"mine", align 16
  // PTX: st.shared.v4.b32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
  llvm.store %x, %mine {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
  %i0 = llvm.mlir.constant(0 : i32) : i32
  // PTX: bar.sync 0;
  llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.all"(%i0) : (i32) -> ()
  %theirs = llvm.getelementptr %stage[%partner] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, vector<4xf32>
  // PTX: ld.shared.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}];
  %y = llvm.load %theirs {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
  // PTX: st.global.v4.b32
  llvm.store %y, %q {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
  llvm.return
}

// A masked store is mangled with its value and pointer types; NVPTX on sm_90 splits it into
// one guarded store a lane.
// CHECK-LABEL: define ptx_kernel void @"masked"
// PTX-LABEL: .entry masked(
llvm.func @masked(%q: !llvm.ptr<1>, %v: !llvm.ptr<1>, %i: i32, %n: i32) attributes {nvvm.kernel} {
  %x = llvm.load %v {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
  %in = llvm.icmp "slt" %i, %n : i32
  %t = llvm.mlir.constant(true) : i1
  %i0 = llvm.mlir.constant(0 : i32) : i32
  %i1 = llvm.mlir.constant(1 : i32) : i32
  %i2 = llvm.mlir.constant(2 : i32) : i32
  %i3 = llvm.mlir.constant(3 : i32) : i32
  %p = llvm.mlir.poison : vector<4xi1>
  %m0 = llvm.insertelement %t, %p[%i0 : i32] : vector<4xi1>
  %m1 = llvm.insertelement %in, %m0[%i1 : i32] : vector<4xi1>
  %m2 = llvm.insertelement %t, %m1[%i2 : i32] : vector<4xi1>
  %m = llvm.insertelement %in, %m2[%i3 : i32] : vector<4xi1>
  // CHECK: call void @"llvm.masked.store.v4f32.p1"(<4 x float> %"x", ptr addrspace(1) %"q", i32 16, <4 x i1> %"m")
  // Lanes 0 and 2 are always stored, lanes 1 and 3 only where %i < %n.
  // PTX: st.global.b32 [%rd[[Q:[0-9]+]]], %r{{[0-9]+}};
  // PTX-NEXT: @%p{{[0-9]+}} bra
  // PTX-NEXT: st.global.b32 [%rd[[Q]]+4], %r{{[0-9]+}};
  // PTX: st.global.b32 [%rd[[Q]]+8], %r{{[0-9]+}};
  // PTX-NEXT: @%p{{[0-9]+}} bra
  // PTX-NEXT: st.global.b32 [%rd[[Q]]+12], %r{{[0-9]+}};
  "llvm.intr.masked.store"(%x, %q, %m) <{alignment = 16 : i32}> : (vector<4xf32>, !llvm.ptr<1>, vector<4xi1>) -> ()
  llvm.return
}
