// RUN: ferrox-opt %s | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s --print-op-generic | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @special_registers
func.func @special_registers() {
  // CHECK: nvvm.read.ptx.sreg.tid.x : i32
  // GENERIC: "nvvm.read.ptx.sreg.tid.x"() : () -> i32
  %0 = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK: nvvm.read.ptx.sreg.tid.y : i32
  %1 = nvvm.read.ptx.sreg.tid.y : i32
  // CHECK: nvvm.read.ptx.sreg.tid.z : i32
  %2 = nvvm.read.ptx.sreg.tid.z : i32
  // CHECK: nvvm.read.ptx.sreg.ntid.x : i32
  %3 = nvvm.read.ptx.sreg.ntid.x : i32
  // CHECK: nvvm.read.ptx.sreg.ntid.y : i32
  %4 = nvvm.read.ptx.sreg.ntid.y : i32
  // CHECK: nvvm.read.ptx.sreg.ntid.z : i32
  %5 = nvvm.read.ptx.sreg.ntid.z : i32
  // CHECK: nvvm.read.ptx.sreg.ctaid.x : i32
  %6 = nvvm.read.ptx.sreg.ctaid.x : i32
  // CHECK: nvvm.read.ptx.sreg.ctaid.y : i32
  %7 = nvvm.read.ptx.sreg.ctaid.y : i32
  // CHECK: nvvm.read.ptx.sreg.ctaid.z : i32
  %8 = nvvm.read.ptx.sreg.ctaid.z : i32
  // CHECK: nvvm.read.ptx.sreg.nctaid.x : i32
  %9 = nvvm.read.ptx.sreg.nctaid.x : i32
  // CHECK: nvvm.read.ptx.sreg.nctaid.y : i32
  %10 = nvvm.read.ptx.sreg.nctaid.y : i32
  // CHECK: nvvm.read.ptx.sreg.nctaid.z : i32
  %11 = nvvm.read.ptx.sreg.nctaid.z : i32
  // CHECK: nvvm.read.ptx.sreg.laneid : i32
  %12 = nvvm.read.ptx.sreg.laneid : i32
  // CHECK: nvvm.read.ptx.sreg.warpsize : i32
  %13 = nvvm.read.ptx.sreg.warpsize : i32
  func.return
}

// CHECK-LABEL: func.func @barriers
func.func @barriers(%id: i32, %n: i32, %mask: i32) {
  // CHECK: nvvm.barrier0
  // GENERIC: "nvvm.barrier0"() : () -> ()
  nvvm.barrier0
  // CHECK-NEXT: nvvm.barrier{{$}}
  nvvm.barrier
  // CHECK-NEXT: nvvm.barrier id = %{{.*}}{{$}}
  // GENERIC: "nvvm.barrier"(%{{.*}}) <{operandSegmentSizes = array<i32: 1, 0>}> : (i32) -> ()
  nvvm.barrier id = %id
  // CHECK-NEXT: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}{{$}}
  nvvm.barrier id = %id number_of_threads = %n
  // CHECK-NEXT: nvvm.bar.warp.sync %{{.*}} : i32
  nvvm.bar.warp.sync %mask : i32
  func.return
}

// CHECK-LABEL: func.func @warp
func.func @warp(%mask: i32, %v: i32, %f: f32, %p: i1) {
  // CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : i32 -> i32
  // GENERIC: "nvvm.shfl.sync"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{kind = #nvvm<shfl_kind bfly>}> : (i32, i32, i32, i32) -> i32
  %0 = nvvm.shfl.sync bfly %mask, %v, %v, %v : i32 -> i32
  // CHECK: nvvm.shfl.sync up %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32 -> f32
  %1 = nvvm.shfl.sync up %mask, %f, %v, %v : f32 -> f32
  // CHECK: nvvm.shfl.sync down %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : i32 -> i32
  %2 = nvvm.shfl.sync down %mask, %v, %v, %v : i32 -> i32
  // CHECK: nvvm.shfl.sync idx %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {return_value_and_is_valid} : f32 -> !llvm.struct<(f32, i1)>
  // GENERIC: <{kind = #nvvm<shfl_kind idx>, return_value_and_is_valid}>
  %3 = nvvm.shfl.sync idx %mask, %f, %v, %v {return_value_and_is_valid} : f32 -> !llvm.struct<(f32, i1)>
  // CHECK: nvvm.vote.sync ballot %{{.*}}, %{{.*}} -> i32
  // GENERIC: "nvvm.vote.sync"(%{{.*}}, %{{.*}}) <{kind = #nvvm<vote_sync_kind ballot>}> : (i32, i1) -> i32
  %4 = nvvm.vote.sync ballot %mask, %p -> i32
  // CHECK: nvvm.vote.sync all %{{.*}}, %{{.*}} -> i1
  %5 = nvvm.vote.sync all %mask, %p -> i1
  // CHECK: nvvm.vote.sync any %{{.*}}, %{{.*}} -> i1
  %6 = nvvm.vote.sync any %mask, %p -> i1
  // CHECK: nvvm.vote.sync uni %{{.*}}, %{{.*}} -> i1
  %7 = nvvm.vote.sync uni %mask, %p -> i1
  // CHECK: nvvm.redux.sync add %{{.*}}, %{{.*}} : i32 -> i32
  // GENERIC: "nvvm.redux.sync"(%{{.*}}, %{{.*}}) <{kind = #nvvm<redux_kind add>}> : (i32, i32) -> i32
  %8 = nvvm.redux.sync add %v, %mask : i32 -> i32
  // CHECK: nvvm.redux.sync umin %{{.*}}, %{{.*}} : i32 -> i32
  %9 = nvvm.redux.sync umin %v, %mask : i32 -> i32
  // CHECK: nvvm.redux.sync xor %{{.*}}, %{{.*}} : i32 -> i32
  %10 = nvvm.redux.sync xor %v, %mask : i32 -> i32
  func.return
}

// CHECK-LABEL: func.func @fences
func.func @fences() {
  // CHECK: nvvm.memory_barrier #nvvm.mem_scope<cta>
  // GENERIC: "nvvm.memory_barrier"() <{scope = #nvvm.mem_scope<cta>}> : () -> ()
  nvvm.memory_barrier #nvvm.mem_scope<cta>
  // CHECK: nvvm.memory_barrier #nvvm.mem_scope<gpu>
  nvvm.memory_barrier #nvvm.mem_scope<gpu>
  // CHECK: nvvm.memory_barrier #nvvm.mem_scope<sys>
  nvvm.memory_barrier #nvvm.mem_scope<sys>
  // CHECK: nvvm.memory_barrier #nvvm.mem_scope<cluster>
  nvvm.memory_barrier #nvvm.mem_scope<cluster>
  // CHECK: nvvm.fence.sc #nvvm.mem_scope<gpu>
  // GENERIC: "nvvm.fence.sc"() <{scope = #nvvm.mem_scope<gpu>}> : () -> ()
  nvvm.fence.sc #nvvm.mem_scope<gpu>
  // CHECK: nvvm.fence.acq_rel #nvvm.mem_scope<cta>
  nvvm.fence.acq_rel #nvvm.mem_scope<cta>
  func.return
}

// CHECK-LABEL: func.func @atomics
func.func @atomics(%g: !llvm.ptr<1>, %s: !llvm.ptr<3>, %p: !llvm.ptr, %i: i32, %l: i64, %f: f32, %d: f64) {
  // CHECK: nvvm.atomic.rmw add %{{.*}}, %{{.*}} : !llvm.ptr<1>, i32
  // GENERIC: "nvvm.atomic.rmw"(%{{.*}}, %{{.*}}) <{bin_op = #nvvm<atomic_bin_op add>, scope = #nvvm.mem_scope<gpu>, ordering = #nvvm<mem_order relaxed>}> : (!llvm.ptr<1>, i32) -> i32
  %0 = nvvm.atomic.rmw add %g, %i : !llvm.ptr<1>, i32
  // CHECK: nvvm.atomic.rmw fadd %{{.*}}, %{{.*}} scope = #nvvm.mem_scope<sys> ordering = acq_rel : !llvm.ptr<1>, f32
  %1 = nvvm.atomic.rmw fadd %g, %f scope = #nvvm.mem_scope<sys> ordering = acq_rel : !llvm.ptr<1>, f32
  // CHECK: nvvm.atomic.rmw fadd %{{.*}}, %{{.*}} scope = #nvvm.mem_scope<cta> : !llvm.ptr<3>, f64
  %2 = nvvm.atomic.rmw fadd %s, %d scope = #nvvm.mem_scope<cta> : !llvm.ptr<3>, f64
  // CHECK: nvvm.atomic.rmw max %{{.*}}, %{{.*}} ordering = acquire : !llvm.ptr, i32
  %3 = nvvm.atomic.rmw max %p, %i ordering = acquire : !llvm.ptr, i32
  // CHECK: nvvm.atomic.rmw min %{{.*}}, %{{.*}} : !llvm.ptr<1>, i64
  %4 = nvvm.atomic.rmw min %g, %l : !llvm.ptr<1>, i64
  // CHECK: nvvm.atomic.rmw umax %{{.*}}, %{{.*}} ordering = release : !llvm.ptr<1>, i32
  %5 = nvvm.atomic.rmw umax %g, %i ordering = release : !llvm.ptr<1>, i32
  // CHECK: nvvm.atomic.rmw umin %{{.*}}, %{{.*}} scope = #nvvm.mem_scope<cluster> ordering = seq_cst : !llvm.ptr<3>, i32
  %6 = nvvm.atomic.rmw umin %s, %i scope = #nvvm.mem_scope<cluster> ordering = seq_cst : !llvm.ptr<3>, i32
  // CHECK: nvvm.atomic.rmw xchg %{{.*}}, %{{.*}} : !llvm.ptr<1>, i64
  %7 = nvvm.atomic.rmw xchg %g, %l : !llvm.ptr<1>, i64
  // CHECK: nvvm.atomic.rmw and %{{.*}}, %{{.*}} : !llvm.ptr<1>, i32
  %8 = nvvm.atomic.rmw and %g, %i : !llvm.ptr<1>, i32
  // CHECK: nvvm.atomic.rmw or %{{.*}}, %{{.*}} : !llvm.ptr<1>, i32
  %9 = nvvm.atomic.rmw or %g, %i : !llvm.ptr<1>, i32
  // CHECK: nvvm.atomic.rmw xor %{{.*}}, %{{.*}} : !llvm.ptr<1>, i32
  %10 = nvvm.atomic.rmw xor %g, %i : !llvm.ptr<1>, i32
  // CHECK: nvvm.atomic.cas %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<1>, i32
  // GENERIC: "nvvm.atomic.cas"(%{{.*}}, %{{.*}}, %{{.*}}) <{scope = #nvvm.mem_scope<gpu>, ordering = #nvvm<mem_order relaxed>}> : (!llvm.ptr<1>, i32, i32) -> i32
  %11 = nvvm.atomic.cas %g, %i, %i : !llvm.ptr<1>, i32
  // CHECK: nvvm.atomic.cas %{{.*}}, %{{.*}}, %{{.*}} scope = #nvvm.mem_scope<cta> ordering = acq_rel : !llvm.ptr<3>, i64
  %12 = nvvm.atomic.cas %s, %l, %l scope = #nvvm.mem_scope<cta> ordering = acq_rel : !llvm.ptr<3>, i64
  func.return
}

// CHECK-LABEL: func.func @matrix
func.func @matrix(%h: vector<2xf16>, %r: i32, %c: f32, %s: !llvm.ptr<3>, %p: !llvm.ptr) {
  // CHECK: nvvm.mma.sync A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  // GENERIC: "nvvm.mma.sync"({{.*}}) <{layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>, operandSegmentSizes = array<i32: 4, 2, 4>}> : (vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  %0 = nvvm.mma.sync A[%h, %h, %h, %h] B[%h, %h] C[%c, %c, %c, %c]
    {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
    : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  // CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  %1 = nvvm.mma.sync A[%r, %r, %r, %r] B[%r, %r] C[%c, %c, %c, %c]
    {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
     multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>,
     shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  // CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  %2 = nvvm.mma.sync A[%r, %r, %r, %r] B[%r, %r] C[%c, %c, %c, %c]
    {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
     multiplicandAPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>}
    : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  // CHECK: nvvm.ldmatrix %{{.*}} {num = 1 : i32, layout = #nvvm.mma_layout<row>} : (!llvm.ptr<3>) -> i32
  // GENERIC: "nvvm.ldmatrix"(%{{.*}}) <{num = 1 : i32, layout = #nvvm.mma_layout<row>}> : (!llvm.ptr<3>) -> i32
  %3 = nvvm.ldmatrix %s {num = 1 : i32, layout = #nvvm.mma_layout<row>} : (!llvm.ptr<3>) -> i32
  // CHECK: nvvm.ldmatrix %{{.*}} {num = 2 : i32, layout = #nvvm.mma_layout<col>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
  %4 = nvvm.ldmatrix %s {num = 2 : i32, layout = #nvvm.mma_layout<col>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
  // CHECK: nvvm.ldmatrix %{{.*}} {num = 4 : i32, layout = #nvvm.mma_layout<row>} : (!llvm.ptr) -> !llvm.struct<(i32, i32, i32, i32)>
  %5 = nvvm.ldmatrix %p {num = 4 : i32, layout = #nvvm.mma_layout<row>} : (!llvm.ptr) -> !llvm.struct<(i32, i32, i32, i32)>
  func.return
}
