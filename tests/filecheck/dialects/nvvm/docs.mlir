// RUN: ferrox-opt %s | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s -p convert-nvvm-to-llvm | filecheck %s --check-prefix=LLVM

// The examples of docs/dialects/nvvm.md: each snippet round-trips and lowers; its CHECK lines
// follow its doc:end marker.

func.func @examples(%mask: i32, %v: i32, %f: f32, %p: i1, %n: i32, %g: !llvm.ptr<1>,
                    %s: !llvm.ptr<3>, %r: i32, %c: f32) {
  // doc:begin special_registers
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %lane = nvvm.read.ptx.sreg.laneid : i32
  // doc:end
  // CHECK: %tid = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK-NEXT: %lane = nvvm.read.ptx.sreg.laneid : i32
  // LLVM: %tid = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32

  // doc:begin barriers
  nvvm.barrier0
  nvvm.barrier id = %v number_of_threads = %n
  nvvm.bar.warp.sync %mask : i32
  // doc:end
  // CHECK: nvvm.barrier0
  // CHECK-NEXT: nvvm.barrier id = %v number_of_threads = %n
  // CHECK-NEXT: nvvm.bar.warp.sync %mask : i32
  // LLVM: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.count"(%v, %n) {convergent} : (i32, i32) -> ()

  // doc:begin warp
  %sum = nvvm.shfl.sync bfly %mask, %f, %v, %n : f32 -> f32
  %pair = nvvm.shfl.sync idx %mask, %v, %v, %n {return_value_and_is_valid} : i32 -> !llvm.struct<(i32, i1)>
  %bits = nvvm.vote.sync ballot %mask, %p -> i32
  %all = nvvm.vote.sync all %mask, %p -> i1
  %max = nvvm.redux.sync umax %v, %mask : i32 -> i32
  // doc:end
  // CHECK: %sum = nvvm.shfl.sync bfly %mask, %f, %v, %n : f32 -> f32
  // CHECK-NEXT: %pair = nvvm.shfl.sync idx %mask, %v, %v, %n {return_value_and_is_valid} : i32 -> !llvm.struct<(i32, i1)>
  // CHECK-NEXT: %bits = nvvm.vote.sync ballot %mask, %p -> i32
  // CHECK-NEXT: %all = nvvm.vote.sync all %mask, %p -> i1
  // CHECK-NEXT: %max = nvvm.redux.sync umax %v, %mask : i32 -> i32
  // LLVM: %sum = llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.f32"(%mask, %f, %v, %n) {convergent}
  // LLVM: %pair = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32p"(%mask, %v, %v, %n) {convergent}

  // doc:begin fences
  nvvm.memory_barrier #nvvm.mem_scope<gpu>
  nvvm.fence.sc #nvvm.mem_scope<cta>
  nvvm.fence.acq_rel #nvvm.mem_scope<sys>
  // doc:end
  // CHECK: nvvm.memory_barrier #nvvm.mem_scope<gpu>
  // CHECK-NEXT: nvvm.fence.sc #nvvm.mem_scope<cta>
  // CHECK-NEXT: nvvm.fence.acq_rel #nvvm.mem_scope<sys>
  // LLVM: llvm.call_intrinsic "llvm.nvvm.membar.gl"() : () -> ()
  // LLVM-NEXT: llvm.inline_asm has_side_effects "fence.sc.cta;", "~{memory}" : () -> ()

  // doc:begin atomics
  %old = nvvm.atomic.rmw fadd %g, %f : !llvm.ptr<1>, f32
  %sys = nvvm.atomic.rmw add %g, %v scope = #nvvm.mem_scope<sys> ordering = acq_rel : !llvm.ptr<1>, i32
  %was = nvvm.atomic.cas %s, %v, %n scope = #nvvm.mem_scope<cta> : !llvm.ptr<3>, i32
  // doc:end
  // CHECK: %old = nvvm.atomic.rmw fadd %g, %f : !llvm.ptr<1>, f32
  // CHECK-NEXT: %sys = nvvm.atomic.rmw add %g, %v scope = #nvvm.mem_scope<sys> ordering = acq_rel : !llvm.ptr<1>, i32
  // CHECK-NEXT: %was = nvvm.atomic.cas %s, %v, %n scope = #nvvm.mem_scope<cta> : !llvm.ptr<3>, i32
  // LLVM: %old = llvm.inline_asm has_side_effects "atom.global.add.f32 $0, [$1], $2;", "=f,l,f,~{memory}" %g, %f : (!llvm.ptr<1>, f32) -> f32
  // LLVM-NEXT: %sys = llvm.inline_asm has_side_effects "atom.acq_rel.sys.global.add.u32 $0, [$1], $2;"
  // LLVM-NEXT: %was = llvm.inline_asm has_side_effects "atom.relaxed.cta.shared.cas.b32 $0, [$1], $2, $3;"

  // doc:begin matrix
  %d = nvvm.mma.sync A[%r, %r, %r, %r] B[%r, %r] C[%c, %c, %c, %c]
    {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
     multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>,
     shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  %frag = nvvm.ldmatrix %s {num = 4 : i32, layout = #nvvm.mma_layout<row>}
    : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
  // doc:end
  // CHECK: %d = nvvm.mma.sync A[%r, %r, %r, %r] B[%r, %r] C[%c, %c, %c, %c] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  // CHECK-NEXT: %frag = nvvm.ldmatrix %s {num = 4 : i32, layout = #nvvm.mma_layout<row>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
  // LLVM: %d = llvm.call_intrinsic "llvm.nvvm.mma.m16n8k16.row.col.bf16"(%r, %r, %r, %r, %r, %r, %c, %c, %c, %c) {convergent}
  // LLVM-NEXT: %frag = llvm.call_intrinsic "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3"(%s) {convergent}

  // doc:begin cp_async
  nvvm.cp.async.shared.global %s, %g, %n {size = 16 : i32} : !llvm.ptr<3>, !llvm.ptr<1>
  nvvm.cp.async.commit.group
  nvvm.cp.async.wait.group 1
  // doc:end
  // CHECK: nvvm.cp.async.shared.global %s, %g, %n {size = 16 : i32} : !llvm.ptr<3>, !llvm.ptr<1>
  // CHECK-NEXT: nvvm.cp.async.commit.group
  // CHECK-NEXT: nvvm.cp.async.wait.group 1
  // LLVM: llvm.call_intrinsic "llvm.nvvm.cp.async.cg.shared.global.16.s"(%s, %g, %n) : (!llvm.ptr<3>, !llvm.ptr<1>, i32) -> ()
  // LLVM-NEXT: llvm.call_intrinsic "llvm.nvvm.cp.async.commit.group"() : () -> ()
  // LLVM-NEXT: %{{.*}} = llvm.mlir.constant(1 : i32) : i32
  // LLVM-NEXT: llvm.call_intrinsic "llvm.nvvm.cp.async.wait.group"(%{{.*}}) : (i32) -> ()
  func.return
}
