// RUN: ferrox-opt %s -p convert-nvvm-to-llvm | filecheck %s
// RUN: ferrox-opt %s -p convert-nvvm-to-llvm | filecheck %s --check-prefix=GONE

// No nvvm op survives the conversion. Calls lowered from convergent ops (barriers, warp
// collectives, mma, ldmatrix) carry `convergent`; the others do not.
// GONE-NOT: {{^ *(%[0-9a-z_]+ = )?"?nvvm\.}}

// CHECK-LABEL: func.func @special_registers
func.func @special_registers() {
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
  %0 = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.y"() : () -> i32
  %1 = nvvm.read.ptx.sreg.tid.y : i32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.z"() : () -> i32
  %2 = nvvm.read.ptx.sreg.tid.z : i32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ntid.x"() : () -> i32
  %3 = nvvm.read.ptx.sreg.ntid.x : i32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ntid.y"() : () -> i32
  %4 = nvvm.read.ptx.sreg.ntid.y : i32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ntid.z"() : () -> i32
  %5 = nvvm.read.ptx.sreg.ntid.z : i32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ctaid.x"() : () -> i32
  %6 = nvvm.read.ptx.sreg.ctaid.x : i32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ctaid.y"() : () -> i32
  %7 = nvvm.read.ptx.sreg.ctaid.y : i32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ctaid.z"() : () -> i32
  %8 = nvvm.read.ptx.sreg.ctaid.z : i32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.nctaid.x"() : () -> i32
  %9 = nvvm.read.ptx.sreg.nctaid.x : i32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.nctaid.y"() : () -> i32
  %10 = nvvm.read.ptx.sreg.nctaid.y : i32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.nctaid.z"() : () -> i32
  %11 = nvvm.read.ptx.sreg.nctaid.z : i32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.laneid"() : () -> i32
  %12 = nvvm.read.ptx.sreg.laneid : i32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.warpsize"() : () -> i32
  %13 = nvvm.read.ptx.sreg.warpsize : i32
  func.return
}

// CHECK-LABEL: func.func @barriers
// CHECK-SAME: (%[[ID:.*]]: i32, %[[N:.*]]: i32, %[[MASK:.*]]: i32)
func.func @barriers(%id: i32, %n: i32, %mask: i32) {
  // CHECK-NEXT: %[[Z0:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.all"(%[[Z0]]) {convergent} : (i32) -> ()
  nvvm.barrier0
  // CHECK-NEXT: %[[Z1:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.all"(%[[Z1]]) {convergent} : (i32) -> ()
  nvvm.barrier
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.all"(%[[ID]]) {convergent} : (i32) -> ()
  nvvm.barrier id = %id
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.count"(%[[ID]], %[[N]]) {convergent} : (i32, i32) -> ()
  nvvm.barrier id = %id number_of_threads = %n
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.bar.warp.sync"(%[[MASK]]) {convergent} : (i32) -> ()
  nvvm.bar.warp.sync %mask : i32
  func.return
}

// CHECK-LABEL: func.func @shuffles
// CHECK-SAME: (%[[M:.*]]: i32, %[[V:.*]]: i32, %[[F:.*]]: f32, %[[O:.*]]: i32, %[[C:.*]]: i32)
func.func @shuffles(%m: i32, %v: i32, %f: f32, %o: i32, %c: i32) {
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.i32"(%[[M]], %[[V]], %[[O]], %[[C]]) {convergent} : (i32, i32, i32, i32) -> i32
  %0 = nvvm.shfl.sync bfly %m, %v, %o, %c : i32 -> i32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.f32"(%[[M]], %[[F]], %[[O]], %[[C]]) {convergent} : (i32, f32, i32, i32) -> f32
  %1 = nvvm.shfl.sync bfly %m, %f, %o, %c : f32 -> f32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.shfl.sync.up.i32"({{.*}}) {convergent} :
  %2 = nvvm.shfl.sync up %m, %v, %o, %c : i32 -> i32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.shfl.sync.up.f32"({{.*}}) {convergent} :
  %3 = nvvm.shfl.sync up %m, %f, %o, %c : f32 -> f32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.shfl.sync.down.i32"({{.*}}) {convergent} :
  %4 = nvvm.shfl.sync down %m, %v, %o, %c : i32 -> i32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.shfl.sync.down.f32"({{.*}}) {convergent} :
  %5 = nvvm.shfl.sync down %m, %f, %o, %c : f32 -> f32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"({{.*}}) {convergent} :
  %6 = nvvm.shfl.sync idx %m, %v, %o, %c : i32 -> i32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.f32"({{.*}}) {convergent} :
  %7 = nvvm.shfl.sync idx %m, %f, %o, %c : f32 -> f32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.shfl.sync.down.i32p"(%[[M]], %[[V]], %[[O]], %[[C]]) {convergent} : (i32, i32, i32, i32) -> !llvm.struct<(i32, i1)>
  %8 = nvvm.shfl.sync down %m, %v, %o, %c {return_value_and_is_valid} : i32 -> !llvm.struct<(i32, i1)>
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.f32p"(%[[M]], %[[F]], %[[O]], %[[C]]) {convergent} : (i32, f32, i32, i32) -> !llvm.struct<(f32, i1)>
  %9 = nvvm.shfl.sync idx %m, %f, %o, %c {return_value_and_is_valid} : f32 -> !llvm.struct<(f32, i1)>
  func.return
}

// CHECK-LABEL: func.func @votes_and_reductions
// CHECK-SAME: (%[[M:.*]]: i32, %[[P:.*]]: i1, %[[V:.*]]: i32)
func.func @votes_and_reductions(%m: i32, %p: i1, %v: i32) {
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.vote.ballot.sync"(%[[M]], %[[P]]) {convergent} : (i32, i1) -> i32
  %0 = nvvm.vote.sync ballot %m, %p -> i32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.vote.all.sync"(%[[M]], %[[P]]) {convergent} : (i32, i1) -> i1
  %1 = nvvm.vote.sync all %m, %p -> i1
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.vote.any.sync"(%[[M]], %[[P]]) {convergent} : (i32, i1) -> i1
  %2 = nvvm.vote.sync any %m, %p -> i1
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.vote.uni.sync"(%[[M]], %[[P]]) {convergent} : (i32, i1) -> i1
  %3 = nvvm.vote.sync uni %m, %p -> i1
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.redux.sync.add"(%[[V]], %[[M]]) {convergent} : (i32, i32) -> i32
  %4 = nvvm.redux.sync add %v, %m : i32 -> i32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.redux.sync.and"(%[[V]], %[[M]]) {convergent} :
  %5 = nvvm.redux.sync and %v, %m : i32 -> i32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.redux.sync.or"(%[[V]], %[[M]]) {convergent} :
  %6 = nvvm.redux.sync or %v, %m : i32 -> i32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.redux.sync.xor"(%[[V]], %[[M]]) {convergent} :
  %7 = nvvm.redux.sync xor %v, %m : i32 -> i32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.redux.sync.min"(%[[V]], %[[M]]) {convergent} :
  %8 = nvvm.redux.sync min %v, %m : i32 -> i32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.redux.sync.max"(%[[V]], %[[M]]) {convergent} :
  %9 = nvvm.redux.sync max %v, %m : i32 -> i32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.redux.sync.umin"(%[[V]], %[[M]]) {convergent} :
  %10 = nvvm.redux.sync umin %v, %m : i32 -> i32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.redux.sync.umax"(%[[V]], %[[M]]) {convergent} :
  %11 = nvvm.redux.sync umax %v, %m : i32 -> i32
  func.return
}

// CHECK-LABEL: func.func @fences
func.func @fences() {
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.membar.cta"() : () -> ()
  nvvm.memory_barrier #nvvm.mem_scope<cta>
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.membar.gl"() : () -> ()
  nvvm.memory_barrier #nvvm.mem_scope<gpu>
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.membar.sys"() : () -> ()
  nvvm.memory_barrier #nvvm.mem_scope<sys>
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.fence.sc.cluster"() : () -> ()
  nvvm.memory_barrier #nvvm.mem_scope<cluster>
  // CHECK-NEXT: llvm.inline_asm has_side_effects "fence.sc.cta;", "~{memory}" : () -> ()
  nvvm.fence.sc #nvvm.mem_scope<cta>
  // CHECK-NEXT: llvm.inline_asm has_side_effects "fence.sc.gpu;", "~{memory}" : () -> ()
  nvvm.fence.sc #nvvm.mem_scope<gpu>
  // CHECK-NEXT: llvm.inline_asm has_side_effects "fence.sc.sys;", "~{memory}" : () -> ()
  nvvm.fence.sc #nvvm.mem_scope<sys>
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.fence.sc.cluster"() : () -> ()
  nvvm.fence.sc #nvvm.mem_scope<cluster>
  // CHECK-NEXT: llvm.inline_asm has_side_effects "fence.acq_rel.cta;", "~{memory}" : () -> ()
  nvvm.fence.acq_rel #nvvm.mem_scope<cta>
  // CHECK-NEXT: llvm.inline_asm has_side_effects "fence.acq_rel.cluster;", "~{memory}" : () -> ()
  nvvm.fence.acq_rel #nvvm.mem_scope<cluster>
  // CHECK-NEXT: llvm.inline_asm has_side_effects "fence.acq_rel.gpu;", "~{memory}" : () -> ()
  nvvm.fence.acq_rel #nvvm.mem_scope<gpu>
  // CHECK-NEXT: llvm.inline_asm has_side_effects "fence.acq_rel.sys;", "~{memory}" : () -> ()
  nvvm.fence.acq_rel #nvvm.mem_scope<sys>
  func.return
}

// CHECK-LABEL: func.func @atomics
// CHECK-SAME: (%[[G:.*]]: !llvm.ptr<1>, %[[S:.*]]: !llvm.ptr<3>, %[[P:.*]]: !llvm.ptr, %[[I:.*]]: i32, %[[L:.*]]: i64, %[[F:.*]]: f32, %[[D:.*]]: f64)
func.func @atomics(%g: !llvm.ptr<1>, %s: !llvm.ptr<3>, %p: !llvm.ptr, %i: i32, %l: i64, %f: f32, %d: f64) {
  // CHECK-NEXT: llvm.inline_asm has_side_effects "atom.global.add.u32 $0, [$1], $2;", "=r,l,r,~{memory}" %[[G]], %[[I]] : (!llvm.ptr<1>, i32) -> i32
  %0 = nvvm.atomic.rmw add %g, %i : !llvm.ptr<1>, i32
  // CHECK-NEXT: "atom.global.add.u64 $0, [$1], $2;", "=l,l,l,~{memory}" %[[G]], %[[L]] : (!llvm.ptr<1>, i64) -> i64
  %1 = nvvm.atomic.rmw add %g, %l : !llvm.ptr<1>, i64
  // CHECK-NEXT: "atom.global.add.f32 $0, [$1], $2;", "=f,l,f,~{memory}" %[[G]], %[[F]] : (!llvm.ptr<1>, f32) -> f32
  %2 = nvvm.atomic.rmw fadd %g, %f : !llvm.ptr<1>, f32
  // CHECK-NEXT: "atom.relaxed.cta.shared.add.f64 $0, [$1], $2;", "=d,l,d,~{memory}" %[[S]], %[[D]] : (!llvm.ptr<3>, f64) -> f64
  %3 = nvvm.atomic.rmw fadd %s, %d scope = #nvvm.mem_scope<cta> : !llvm.ptr<3>, f64
  // CHECK-NEXT: "atom.acq_rel.sys.global.add.f32 $0, [$1], $2;"
  %4 = nvvm.atomic.rmw fadd %g, %f scope = #nvvm.mem_scope<sys> ordering = acq_rel : !llvm.ptr<1>, f32
  // CHECK-NEXT: "atom.acquire.gpu.min.s32 $0, [$1], $2;", "=r,l,r,~{memory}" %[[P]], %[[I]] : (!llvm.ptr, i32) -> i32
  %5 = nvvm.atomic.rmw min %p, %i ordering = acquire : !llvm.ptr, i32
  // CHECK-NEXT: "atom.release.cluster.global.max.s64 $0, [$1], $2;"
  %6 = nvvm.atomic.rmw max %g, %l scope = #nvvm.mem_scope<cluster> ordering = release : !llvm.ptr<1>, i64
  // CHECK-NEXT: "atom.shared.min.u32 $0, [$1], $2;"
  %7 = nvvm.atomic.rmw umin %s, %i : !llvm.ptr<3>, i32
  // CHECK-NEXT: "atom.global.max.u32 $0, [$1], $2;"
  %8 = nvvm.atomic.rmw umax %g, %i : !llvm.ptr<1>, i32
  // CHECK-NEXT: "atom.global.exch.b64 $0, [$1], $2;"
  %9 = nvvm.atomic.rmw xchg %g, %l : !llvm.ptr<1>, i64
  // CHECK-NEXT: "atom.global.and.b32 $0, [$1], $2;"
  %10 = nvvm.atomic.rmw and %g, %i : !llvm.ptr<1>, i32
  // CHECK-NEXT: "atom.global.or.b32 $0, [$1], $2;"
  %11 = nvvm.atomic.rmw or %g, %i : !llvm.ptr<1>, i32
  // CHECK-NEXT: "atom.global.xor.b32 $0, [$1], $2;"
  %12 = nvvm.atomic.rmw xor %g, %i : !llvm.ptr<1>, i32
  // seq_cst is a fence.sc of the same scope before an acq_rel atom.
  // CHECK-NEXT: "fence.sc.sys;\0A\09atom.acq_rel.sys.global.add.u32 $0, [$1], $2;"
  %13 = nvvm.atomic.rmw add %g, %i scope = #nvvm.mem_scope<sys> ordering = seq_cst : !llvm.ptr<1>, i32
  // CHECK-NEXT: llvm.inline_asm has_side_effects "atom.global.cas.b32 $0, [$1], $2, $3;", "=r,l,r,r,~{memory}" %[[G]], %[[I]], %[[I]] : (!llvm.ptr<1>, i32, i32) -> i32
  %14 = nvvm.atomic.cas %g, %i, %i : !llvm.ptr<1>, i32
  // CHECK-NEXT: "atom.acq_rel.cta.shared.cas.b64 $0, [$1], $2, $3;", "=l,l,l,l,~{memory}" %[[S]], %[[L]], %[[L]] : (!llvm.ptr<3>, i64, i64) -> i64
  %15 = nvvm.atomic.cas %s, %l, %l scope = #nvvm.mem_scope<cta> ordering = acq_rel : !llvm.ptr<3>, i64
  func.return
}

// CHECK-LABEL: func.func @matrix
// CHECK-SAME: (%[[H:.*]]: vector<2xf16>, %[[R:.*]]: i32, %[[C:.*]]: f32, %[[S:.*]]: !llvm.ptr<3>, %[[P:.*]]: !llvm.ptr)
func.func @matrix(%h: vector<2xf16>, %r: i32, %c: f32, %s: !llvm.ptr<3>, %p: !llvm.ptr) {
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k16.row.col.f32.f32"(%[[H]], %[[H]], %[[H]], %[[H]], %[[H]], %[[H]], %[[C]], %[[C]], %[[C]], %[[C]]) {convergent} : (vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  %0 = nvvm.mma.sync A[%h, %h, %h, %h] B[%h, %h] C[%c, %c, %c, %c]
    {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
    : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k16.row.col.bf16"(%[[R]], %[[R]], %[[R]], %[[R]], %[[R]], %[[R]], %[[C]], %[[C]], %[[C]], %[[C]]) {convergent} : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  %1 = nvvm.mma.sync A[%r, %r, %r, %r] B[%r, %r] C[%c, %c, %c, %c]
    {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>,
     shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k8.row.col.tf32"(%[[R]], %[[R]], %[[R]], %[[R]], %[[R]], %[[R]], %[[C]], %[[C]], %[[C]], %[[C]]) {convergent} : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  %2 = nvvm.mma.sync A[%r, %r, %r, %r] B[%r, %r] C[%c, %c, %c, %c]
    {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>,
     shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x1.b16.p3"(%[[S]]) {convergent} : (!llvm.ptr<3>) -> i32
  %3 = nvvm.ldmatrix %s {num = 1 : i32, layout = #nvvm.mma_layout<row>} : (!llvm.ptr<3>) -> i32
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x2.trans.b16.p3"(%[[S]]) {convergent} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
  %4 = nvvm.ldmatrix %s {num = 2 : i32, layout = #nvvm.mma_layout<col>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p0"(%[[P]]) {convergent} : (!llvm.ptr) -> !llvm.struct<(i32, i32, i32, i32)>
  %5 = nvvm.ldmatrix %p {num = 4 : i32, layout = #nvvm.mma_layout<row>} : (!llvm.ptr) -> !llvm.struct<(i32, i32, i32, i32)>
  func.return
}
