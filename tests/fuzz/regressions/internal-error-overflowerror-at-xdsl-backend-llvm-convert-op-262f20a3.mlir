// fuzz-signature: internal error OverflowError at xdsl/backend/llvm/convert_op.py:create_constant
// fuzz-config: opt-ptx
// fuzz-status: fixed
// found by mutating tests/filecheck/lowering/llvm-export-bf16.mlir (number); terminators added by hand, so that it gets past the verifier
// PTX: .const .align 8 .b8 table[8] = {128, 63, 0, 64, 0, 191, 141, 63};
llvm.mlir.global internal constant @table(dense<[1.0, 2.0, -0.5, 1.1]> : tensor<4xbf16>) {addr_space = 4 : i32, alignment = 8 : i64} : !llvm.array<10000000000000000000000000000000000000000 x bf16>
// CHECK: @"scale" = internal addrspace(1) global bfloat 0xR3E80
llvm.mlir.global internal @scale(0.25 : bf16) {addr_space = 1 : i32} : bf16

// CHECK-LABEL: define ptx_kernel void @"lookup"
// PTX-LABEL: .entry lookup(
llvm.func @lookup(%p: !llvm.ptr<1>, %i: i32) attributes {nvvm.kernel} {
  llvm.return
}

// CHECK-LABEL: define ptx_kernel void @"convert"
// PTX-LABEL: .entry convert(
llvm.func @convert(%p: !llvm.ptr<1>, %q: !llvm.ptr<1>, %s: f32) attributes {nvvm.kernel} {
  // CHECK: %"x" = load bfloat, ptr addrspace(1) %"p", align 2
  // PTX: ld.global.b16 %[[X:rs[0-9]+]], [%rd{{[0-9]+}}];
  %x = llvm.load %p {alignment = 2 : i64} : !llvm.ptr<1> -> bf16
  llvm.return
}

// Constants print in LLVM's exact bfloat form, rounded to nearest even: LLVM rejects a decimal
// bfloat constant that is not exactly representable (`bfloat 1.1`).
// CHECK-LABEL: define ptx_kernel void @"constants"
// PTX-LABEL: .entry constants(
llvm.func @constants(%q: !llvm.ptr<1>, %v: !llvm.ptr<1>) attributes {nvvm.kernel} {
  %one = llvm.mlir.constant(1.0 : bf16) : bf16
  %neg = llvm.mlir.constant(-2.5 : bf16) : bf16
  %inexact = llvm.mlir.constant(1.1 : bf16) : bf16
  %tie_down = llvm.mlir.constant(1.00390625 : bf16) : bf16
  %tie_up = llvm.mlir.constant(1.01171875 : bf16) : bf16
  %minus_zero = llvm.mlir.constant(-0.0 : bf16) : bf16
  %pair = llvm.mlir.constant(dense<[1.0, 2.0]> : vector<2xbf16>) : vector<2xbf16>
  %splat = llvm.mlir.constant(dense<0.5> : vector<2xbf16>) : vector<2xbf16>
  %q5 = llvm.getelementptr %q[5] : (!llvm.ptr<1>) -> !llvm.ptr<1>, bf16
  // CHECK: store bfloat 0xR3F80, ptr addrspace(1) %"q"
  // PTX: st.global.b16 [%rd[[Q:[0-9]+]]], 0x3F80;
  llvm.store %one, %q : bf16, !llvm.ptr<1>
  llvm.store %minus_zero, %q5 : bf16, !llvm.ptr<1>
  %v1 = llvm.getelementptr %v[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, vector<2xbf16>
  // Lane 0 is the low half of the 32-bit word: 0x4000_3F80 = 1073758080.
  // CHECK: store <2 x bfloat> <bfloat 0xR3F80, bfloat 0xR4000>, ptr addrspace(1) %"v", align 4
  llvm.store %splat, %v1 {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
  llvm.return
}

// Pairs: one 32-bit access and the sm_90 bf16x2 instructions; widening splits the register.
// CHECK-LABEL: define ptx_kernel void @"pairs"
// PTX-LABEL: .entry pairs(
llvm.func @pairs(%p: !llvm.ptr<1>, %q: !llvm.ptr<1>, %r: !llvm.ptr<1>) attributes {nvvm.kernel} {
  // CHECK: %"v" = load <2 x bfloat>, ptr addrspace(1) %"p", align 4
  // PTX: ld.global.b32 %[[V:r[0-9]+]], [%rd{{[0-9]+}}];
  %v = llvm.load %p {alignment = 4 : i64} : !llvm.ptr<1> -> vector<2xbf16>
  // CHECK-NEXT: %"w" = call <2 x bfloat> @"llvm.fma.v2bf16"(<2 x bfloat> %"v", <2 x bfloat> %"v", <2 x bfloat> %"v")
  // PTX: fma.rn.bf16x2 %[[W:r[0-9]+]], %[[V]], %[[V]], %[[V]];
  %w = llvm.intr.fma(%v, %v, %v) : (vector<2xbf16>, vector<2xbf16>, vector<2xbf16>) -> vector<2xbf16>
  // CHECK-NEXT: %"a" = call <2 x bfloat> @"llvm.fabs.v2bf16"(<2 x bfloat> %"w")
  // PTX: abs.bf16x2 %[[A:r[0-9]+]], %[[W]];
  %a = llvm.intr.fabs(%w) : (vector<2xbf16>) -> vector<2xbf16>
  // CHECK-NEXT: %"mx" = call <2 x bfloat> @"llvm.maxnum.v2bf16"(<2 x bfloat> %"a", <2 x bfloat> %"v")
  // PTX: max.bf16x2 %[[MX:r[0-9]+]], %[[A]], %[[V]];
  %mx = llvm.intr.maxnum(%a, %v) : (vector<2xbf16>, vector<2xbf16>) -> vector<2xbf16>
  // CHECK-NEXT: store <2 x bfloat> %"mx", ptr addrspace(1) %"q", align 4
  // PTX: st.global.b32 [%rd{{[0-9]+}}], %[[MX]];
  llvm.store %mx, %q {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
  // CHECK-NEXT: %"wide" = fpext <2 x bfloat> %"mx" to <2 x float>
  // PTX: mov.b32 {%[[LO:rs[0-9]+]], %[[HI:rs[0-9]+]]}, %[[MX]];
  // PTX-DAG: cvt.f32.bf16 %[[WLO:r[0-9]+]], %[[LO]];
  // PTX-DAG: cvt.f32.bf16 %[[WHI:r[0-9]+]], %[[HI]];
  %wide = llvm.fpext %mx : vector<2xbf16> to vector<2xf32>
  // CHECK-NEXT: store <2 x float> %"wide", ptr addrspace(1) %"r", align 8
  // PTX: st.global.v2.b32 [%rd{{[0-9]+}}], {%[[WLO]], %[[WHI]]};
  llvm.store %wide, %r {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
  %p1 = llvm.getelementptr %p[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, vector<2xf32>
  // PTX: ld.global.v2.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}+8];
  %other = llvm.load %p1 {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
  // CHECK: %"sum" = fadd <2 x float> %"wide", %"other"
  // PTX-DAG: add.rn.f32 %[[SLO:r[0-9]+]], %r{{[0-9]+}}, %[[WLO]];
  // PTX-DAG: add.rn.f32 %[[SHI:r[0-9]+]], %r{{[0-9]+}}, %[[WHI]];
  %sum = llvm.fadd %wide, %other : vector<2xf32>
  // CHECK-NEXT: %"narrow" = fptrunc <2 x float> %"sum" to <2 x bfloat>
  // The high lane is the first source of the packed conversion.
  // PTX: cvt.rn.bf16x2.f32 %[[N:r[0-9]+]], %[[SHI]], %[[SLO]];
  %narrow = llvm.fptrunc %sum : vector<2xf32> to vector<2xbf16>
  %r1 = llvm.getelementptr %r[2] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
  // PTX: st.global.b32 [%rd{{[0-9]+}}+8], %[[N]];
  llvm.store %narrow, %r1 {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
  llvm.return
}

// Scalar bf16 intrinsics mangle as `.bf16` and become native sm_90 bf16 instructions.
// CHECK-LABEL: define ptx_kernel void @"scalar_intrinsics"
// PTX-LABEL: .entry scalar_intrinsics(
llvm.func @scalar_intrinsics(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {
  %x = llvm.load %p : !llvm.ptr<1> -> bf16
  // CHECK: call bfloat @"llvm.floor.bf16"(bfloat %"x")
  // PTX: cvt.rmi.bf16.bf16
  %f = llvm.intr.floor(%x) : (bf16) -> bf16
  // CHECK-NEXT: call bfloat @"llvm.fabs.bf16"(bfloat %"f")
  // PTX-NEXT: abs.bf16
  %a = llvm.intr.fabs(%f) : (bf16) -> bf16
  // CHECK-NEXT: call bfloat @"llvm.fma.bf16"(bfloat %"a", bfloat %"x", bfloat %"x")
  // PTX-NEXT: fma.rn.bf16
  %m = llvm.intr.fma(%a, %x, %x) : (bf16, bf16, bf16) -> bf16
  // CHECK-NEXT: call bfloat @"llvm.minimum.bf16"(bfloat %"m", bfloat %"x")
  // PTX-NEXT: min.NaN.bf16
  %mn = llvm.intr.minimum(%m, %x) : (bf16, bf16) -> bf16
  // CHECK-NEXT: fadd bfloat %"mn", %"x"
  // PTX-NEXT: add.rn.bf16
  %s = llvm.fadd %mn, %x : bf16
  // An atomic load needs an alignment; a bf16's natural one is 2 bytes.
  // CHECK: load atomic bfloat, ptr addrspace(1) %"p" monotonic, align 2
  // PTX: ld.relaxed.sys.global.b16
  %o = llvm.load %p atomic monotonic : !llvm.ptr<1> -> bf16
  %so = llvm.fadd %s, %o : bf16
  llvm.store %so, %p : bf16, !llvm.ptr<1>
  llvm.return
}

// A device function passing bf16 by value, and a kernel staging bf16 through shared memory.
// CHECK: define internal bfloat @"twice"(bfloat %"x")
llvm.func internal @twice(%x: bf16) -> bf16 {
  %y = llvm.fadd %x, %x : bf16
  llvm.return %y : bf16
}

// CHECK-LABEL: define ptx_kernel void @"staged"
// PTX-LABEL: .entry staged(
// PTX: .shared .align 16 .b8 tile[128];
llvm.func @staged(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {
  %tile = llvm.mlir.addressof @tile : !llvm.ptr<3>
  %tid = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
  %one = llvm.mlir.constant(1 : i32) : i32
  %partner = llvm.xor %tid, %one : i32
  %src = llvm.getelementptr %p[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, bf16
  %x = llvm.load %src : !llvm.ptr<1> -> bf16
  // CHECK: call bfloat @"twice"(bfloat %"x")
  %y = llvm.call @twice(%x) : (bf16) -> bf16
  %mine = llvm.getelementptr %tile[%tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
  // PTX: st.shared.b16 [%rd{{[0-9]+}}], %rs{{[0-9]+}};
  llvm.store %y, %mine : bf16, !llvm.ptr<3>
  %i0 = llvm.mlir.constant(0 : i32) : i32
  // PTX: bar.sync 0;
  llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.all"(%i0) : (i32) -> ()
  %theirs = llvm.getelementptr %tile[%partner] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
  // PTX: ld.shared.b16 %rs{{[0-9]+}}, [%rd{{[0-9]+}}];
  %z = llvm.load %theirs : !llvm.ptr<3> -> bf16
  llvm.store %z, %src : bf16, !llvm.ptr<1>
  llvm.return
}

// mma.sync m16n8k16 bf16: LLVM 22's intrinsic takes each A and B register as an i32 holding a
// bf16 pair (low half first), four for A and two for B, and four f32 accumulators. A 16-byte
// load gives the four A registers at once.
// CHECK-LABEL: define ptx_kernel void @"mma"
// PTX-LABEL: .entry mma(
llvm.func @mma(%a: !llvm.ptr<1>, %b: !llvm.ptr<1>, %d: !llvm.ptr<1>) attributes {nvvm.kernel} {
  // CHECK: %"av" = load <8 x bfloat>, ptr addrspace(1) %"a", align 16
  // CHECK-NEXT: %"aw" = bitcast <8 x bfloat> %"av" to <4 x i32>
  // PTX: ld.global.v4.b32 {%[[A0:r[0-9]+]], %[[A1:r[0-9]+]], %[[A2:r[0-9]+]], %[[A3:r[0-9]+]]}, [%rd{{[0-9]+}}];
  %av = llvm.load %a {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
  %aw = llvm.bitcast %av : vector<8xbf16> to vector<4xi32>
  %i0 = llvm.mlir.constant(0 : i32) : i32
  %i1 = llvm.mlir.constant(1 : i32) : i32
  %i2 = llvm.mlir.constant(2 : i32) : i32
  %i3 = llvm.mlir.constant(3 : i32) : i32
  %a0 = llvm.extractelement %aw[%i0 : i32] : vector<4xi32>
  %a1 = llvm.extractelement %aw[%i1 : i32] : vector<4xi32>
  %a2 = llvm.extractelement %aw[%i2 : i32] : vector<4xi32>
  %a3 = llvm.extractelement %aw[%i3 : i32] : vector<4xi32>
  // CHECK: %"b0" = bitcast <2 x bfloat> %"bp0" to i32
  // PTX: ld.global.v2.b32 {%[[B0:r[0-9]+]], %[[B1:r[0-9]+]]}, [%rd{{[0-9]+}}];
  %bp0 = llvm.load %b {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xbf16>
  %b0 = llvm.bitcast %bp0 : vector<2xbf16> to i32
  %b1p = llvm.getelementptr %b[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, vector<2xbf16>
  %bp1 = llvm.load %b1p {alignment = 4 : i64} : !llvm.ptr<1> -> vector<2xbf16>
  %b1 = llvm.bitcast %bp1 : vector<2xbf16> to i32
  %c = llvm.mlir.constant(0.0 : f32) : f32
  // CHECK: %"r" = call {float, float, float, float} @"llvm.nvvm.mma.m16n8k16.row.col.bf16"(i32 %"a0", i32 %"a1", i32 %"a2", i32 %"a3", i32 %"b0", i32 %"b1", float {{.*}}, float {{.*}}, float {{.*}}, float {{.*}}) convergent
  // PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
  // PTX-NEXT: {%[[D0:r[0-9]+]], %[[D1:r[0-9]+]], %[[D2:r[0-9]+]], %[[D3:r[0-9]+]]},
  // PTX-NEXT: {%[[A0]], %[[A1]], %[[A2]], %[[A3]]},
  // PTX-NEXT: {%[[B0]], %[[B1]]},
  %r = llvm.call_intrinsic "llvm.nvvm.mma.m16n8k16.row.col.bf16"(%a0, %a1, %a2, %a3, %b0, %b1, %c, %c, %c, %c) : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  %d0 = llvm.extractvalue %r[0] : !llvm.struct<(f32, f32, f32, f32)>
  %d1 = llvm.extractvalue %r[1] : !llvm.struct<(f32, f32, f32, f32)>
  %d2 = llvm.extractvalue %r[2] : !llvm.struct<(f32, f32, f32, f32)>
  %d3 = llvm.extractvalue %r[3] : !llvm.struct<(f32, f32, f32, f32)>
  %p = llvm.mlir.poison : vector<4xf32>
  %v0 = llvm.insertelement %d0, %p[%i0 : i32] : vector<4xf32>
  %v1 = llvm.insertelement %d1, %v0[%i1 : i32] : vector<4xf32>
  %v2 = llvm.insertelement %d2, %v1[%i2 : i32] : vector<4xf32>
  %v3 = llvm.insertelement %d3, %v2[%i3 : i32] : vector<4xf32>
  // PTX: st.global.v4.b32 [%rd{{[0-9]+}}], {%[[D0]], %[[D1]], %[[D2]], %[[D3]]};
  llvm.store %v3, %d {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
  llvm.return
}
