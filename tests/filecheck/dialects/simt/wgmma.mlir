// RUN: ferrox-opt %s | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s --print-op-generic | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s -p verify-disjoint | filecheck %s

// The warpgroup tensor-core ops (dialects/simt/wgmma.py) round-trip and pass verify-disjoint
// inside `simt.unsafe`: a fence, two chained m64n16k16 products (K = 0 and 16 of one 64-wide
// swizzled row), a commit, a wait, and the fragment stored to shared memory.

builtin.module {
  // doc:begin wgmma
  simt.kernel @mma(%out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [128], shared_bytes = 10240> {
    %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
    %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
    %cs = simt.shared_alloc : !simt.shared<f32, [1024]>
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %z = arith.constant 0.0 : f32
    %r:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
      simt.wgmma_fence
      %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
      %e:8 = simt.wgmma %as[%c16], %bs[%c16], acc(%d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
      simt.wgmma_commit
      %f:8 = simt.wgmma_wait %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 {pending = 0}
      simt.wgmma_store %cs[%c0], %f#0, %f#1, %f#2, %f#3, %f#4, %f#5, %f#6, %f#7 {n = 16, stride = 16} : !simt.shared<f32, [1024]>
      simt.yield %f#0, %f#1, %f#2, %f#3, %f#4, %f#5, %f#6, %f#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    simt.return
  }
  // doc:end
  // CHECK:      simt.wgmma_fence
  // CHECK-NEXT: %d, %d_1, %d_2, %d_3, %d_4, %d_5, %d_6, %d_7 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
  // CHECK-NEXT: %e, %e_1, %e_2, %e_3, %e_4, %e_5, %e_6, %e_7 = simt.wgmma %as[%c16], %bs[%c16], acc(%d, %d_1, %d_2, %d_3, %d_4, %d_5, %d_6, %d_7) {n = 16}
  // CHECK-NEXT: simt.wgmma_commit
  // CHECK-NEXT: %f, %f_1, %f_2, %f_3, %f_4, %f_5, %f_6, %f_7 = simt.wgmma_wait %e, %e_1, %e_2, %e_3, %e_4, %e_5, %e_6, %e_7 {pending = 0}
  // CHECK-NEXT: simt.wgmma_store %cs[%c0], %f, %f_1, %f_2, %f_3, %f_4, %f_5, %f_6, %f_7 {n = 16 : i64, stride = 16 : i64} : !simt.shared<f32, [1024]>

  // A copy into another array (the next stage) may be issued while the wgmma runs.
  // doc:begin wgmma_overlap
  simt.kernel @overlap(%x: !simt.slice<bf16>) contract<domain = 1, block = [128], shared_bytes = 12288> {
    %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
    %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
    %next = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %z = arith.constant 0.0 : f32
    simt.unsafe {
      simt.wgmma_fence
      %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
      simt.async_copy %x[%c0], %c8, %next[%c0] {width = 8} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>
      simt.async_commit
      simt.wgmma_commit
      %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
      simt.yield
    }
    simt.return
  }
  // doc:end
  // CHECK:      simt.async_copy %x[%c0], %c8, %next[%c0] {width = 8 : i64} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>
  // CHECK-NEXT: simt.async_commit
  // CHECK-NEXT: simt.wgmma_commit
}
