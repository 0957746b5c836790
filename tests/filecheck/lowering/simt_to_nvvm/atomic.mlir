// RUN: ferrox-opt %s -p convert-simt-to-nvvm | filecheck %s
// RUN: ferrox-opt %s -p convert-simt-to-nvvm,convert-to-llvm -t ptx | filecheck %s --check-prefix=PTX

// Scoped atomics (lowering/simt_to_nvvm/atomic.py): an atomic slice's element after a trapping
// range check; a raw pointer's or shared array's element unchecked; scope and ordering kept.

builtin.module {
  // The function's integer constants are made once, at its entry (constants.py).
  // CHECK-LABEL: func.func @atomics(
  // CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i64
  simt.kernel @atomics(%h: !simt.atomic_slice<i32>, %f: !simt.atomic_slice<f32>, %g: !simt.atomic_slice<i64>, %p: !simt.ptr<f64>, %i: index, %x: i32, %y: f32, %z: i64, %d: f64) unsafe {
    // CHECK-NEXT: %[[T:.*]] = llvm.mlir.addressof @atomics_t : !llvm.ptr<3>
    %t = simt.shared_alloc : !simt.shared<i32, [4, 8]>
    // CHECK-NEXT: %[[I0:.*]] = arith.index_cast %i : index to i64
    // CHECK-NEXT: %out_of_range = arith.cmpi uge, %[[I0]], %h_len : i64
    // CHECK-NEXT: scf.if %out_of_range {
    // CHECK-NEXT: llvm.call_intrinsic "llvm.trap"() : () -> ()
    // CHECK-NEXT: }
    // CHECK-NEXT: %[[P0:.*]] = llvm.getelementptr inbounds %h[%[[I0]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
    // CHECK-NEXT: %a0 = nvvm.atomic.rmw add %[[P0]], %x : !llvm.ptr<1>, i32
    // PTX: atom.global.add.u32
    %a0 = simt.atomic_add %h[%i], %x : !simt.atomic_slice<i32>
    // CHECK: %[[P1:.*]] = llvm.getelementptr inbounds %f[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    // CHECK-NEXT: %a1 = nvvm.atomic.rmw fadd %[[P1]], %y scope = #nvvm.mem_scope<cta> ordering = acq_rel : !llvm.ptr<1>, f32
    // PTX: atom.acq_rel.cta.global.add.f32
    %a1 = simt.atomic_add %f[%i], %y scope cta ordering acq_rel : !simt.atomic_slice<f32>
    // sub is add of the negated value.
    // CHECK: %[[P2:.*]] = llvm.getelementptr inbounds %g[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64
    // CHECK-NEXT: %[[NEG:.*]] = arith.subi %[[ZERO]], %z : i64
    // CHECK-NEXT: %a2 = nvvm.atomic.rmw add %[[P2]], %[[NEG]] scope = #nvvm.mem_scope<sys> ordering = seq_cst : !llvm.ptr<1>, i64
    // PTX: fence.sc.sys;
    // PTX-NEXT: atom.acq_rel.sys.global.add.u64
    %a2 = simt.atomic_sub %g[%i], %z scope sys ordering seq_cst : !simt.atomic_slice<i64>
    // CHECK: %a3 = nvvm.atomic.rmw min %{{.*}}, %x ordering = acquire : !llvm.ptr<1>, i32
    // PTX: atom.acquire.gpu.global.min.s32
    %a3 = simt.atomic_min %h[%i], %x ordering acquire : !simt.atomic_slice<i32>
    // CHECK: %a4 = nvvm.atomic.rmw max %{{.*}}, %x ordering = release : !llvm.ptr<1>, i32
    // PTX: atom.release.gpu.global.max.s32
    %a4 = simt.atomic_max %h[%i], %x ordering release : !simt.atomic_slice<i32>
    // CHECK: %a5 = nvvm.atomic.rmw and %{{.*}}, %x : !llvm.ptr<1>, i32
    // PTX: atom.global.and.b32
    %a5 = simt.atomic_and %h[%i], %x : !simt.atomic_slice<i32>
    // CHECK: %a6 = nvvm.atomic.rmw or %{{.*}}, %x : !llvm.ptr<1>, i32
    // PTX: atom.global.or.b32
    %a6 = simt.atomic_or %h[%i], %x : !simt.atomic_slice<i32>
    // CHECK: %a7 = nvvm.atomic.rmw xor %{{.*}}, %x : !llvm.ptr<1>, i32
    // PTX: atom.global.xor.b32
    %a7 = simt.atomic_xor %h[%i], %x : !simt.atomic_slice<i32>
    // CHECK: %a8 = nvvm.atomic.rmw xchg %{{.*}}, %x : !llvm.ptr<1>, i32
    // PTX: atom.global.exch.b32
    %a8 = simt.atomic_exch %h[%i], %x : !simt.atomic_slice<i32>
    // A float exchange exchanges its bits.
    // CHECK: %[[P9:.*]] = llvm.getelementptr inbounds %f[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    // CHECK-NEXT: %[[BITS:.*]] = arith.bitcast %y : f32 to i32
    // CHECK-NEXT: %[[OLD:.*]] = nvvm.atomic.rmw xchg %[[P9]], %[[BITS]] : !llvm.ptr<1>, i32
    // CHECK-NEXT: %a9 = arith.bitcast %[[OLD]] : i32 to f32
    // PTX: atom.global.exch.b32
    %a9 = simt.atomic_exch %f[%i], %y : !simt.atomic_slice<f32>
    // CHECK: %a10 = nvvm.atomic.cas %{{.*}}, %x, %a0 : !llvm.ptr<1>, i32
    // PTX: atom.global.cas.b32
    %a10 = simt.atomic_cas %h[%i], %x, %a0 scope gpu ordering relaxed : !simt.atomic_slice<i32>
    // A raw pointer: no range check (`%i` as i64 is the cast made for the first atomic).
    // CHECK-NEXT: %[[P11:.*]] = llvm.getelementptr %p[%[[I0]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f64
    // CHECK-NEXT: %a11 = nvvm.atomic.rmw fadd %[[P11]], %d : !llvm.ptr<1>, f64
    // PTX: atom.global.add.f64
    %a11 = simt.atomic_add %p[%i], %d : !simt.ptr<f64>
    // A shared array: row-major, unchecked, in the shared state space.
    // CHECK-NEXT: %[[P12:.*]] = llvm.getelementptr %[[T]][0, %[[I0]], %[[I0]]] : (!llvm.ptr<3>, i64, i64) -> !llvm.ptr<3>, !llvm.array<4 x !llvm.array<8 x i32>>
    // CHECK-NEXT: %a12 = nvvm.atomic.rmw add %[[P12]], %x scope = #nvvm.mem_scope<cta> : !llvm.ptr<3>, i32
    // PTX: atom.relaxed.cta.shared.add.u32
    %a12 = simt.atomic_add %t[%i, %i], %x scope cta : !simt.shared<i32, [4, 8]>
    // CHECK-NEXT: func.return
    simt.return
  }
}
