// RUN: ferrox-opt %s | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s --print-op-generic | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s -p verify-disjoint | filecheck %s

// The GEMM pipeline's SIMT ops (dialects/simt/pipeline.py) and dynamic shared arrays
// (dialects/simt/shared.py) round-trip and pass verify-disjoint inside `simt.unsafe`.

builtin.module {
  // doc:begin pipeline
  simt.kernel @stage(%out: !simt.disjoint_slice<f32, 1d>, %a: !simt.slice<bf16>, %x: !simt.slice<f32>) contract<domain = 1, block = [32], shared_bytes = 1536> {
    %sa = simt.shared_alloc {dynamic} : !simt.shared<bf16, [256]>
    %sx = simt.shared_alloc {dynamic} : !simt.shared<f32, [256]>
    %t = simt.thread_id x
    %c8 = arith.constant 8 : index
    %c4 = arith.constant 4 : index
    %i = arith.muli %t, %c8 : index
    %j = arith.muli %t, %c4 : index
    simt.unsafe {
      simt.async_copy %a[%i], %c8, %sa[%i] {width = 8} : !simt.slice<bf16>, !simt.shared<bf16, [256]>
      simt.async_copy %x[%j], %c4, %sx[%j] {width = 4} : !simt.slice<f32>, !simt.shared<f32, [256]>
      simt.yield
    }
    simt.async_commit
    simt.async_wait {pending = 0}
    simt.sync_threads
    %r:5 = simt.unsafe -> i32, f32, f32, f32, f32 {
      %a0, %a1, %a2, %a3 = simt.ldmatrix %sa[%i] {trans} : !simt.shared<bf16, [256]>
      %v0, %v1, %v2, %v3 = simt.shared_load_vector %sx[%j] {width = 4} : !simt.shared<f32, [256]> -> f32, f32, f32, f32
      simt.yield %a0, %v0, %v1, %v2, %v3 : i32, f32, f32, f32, f32
    }
    %w = simt.thread_index_1d
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      simt.yield %r#1 : f32
    }
    simt.return
  }
  // doc:end
  // CHECK: %sa = simt.shared_alloc {dynamic} : !simt.shared<bf16, [256]>
  // CHECK: simt.async_copy %a[%i], %c8, %sa[%i] {width = 8 : i64} : !simt.slice<bf16>, !simt.shared<bf16, [256]>
  // CHECK: simt.async_commit
  // CHECK-NEXT: simt.async_wait {pending = 0 : i64}
  // CHECK: simt.ldmatrix %sa[%i] {trans} : !simt.shared<bf16, [256]>
  // CHECK-NEXT: simt.shared_load_vector %sx[%j] {width = 4 : i64} : !simt.shared<f32, [256]> -> f32, f32, f32, f32

  // doc:begin unchecked_copy
  simt.kernel @unchecked(%x: !simt.slice<f32>) contract<domain = 1, block = [32]> {
    %sx = simt.shared_alloc : !simt.shared<f32, [128]>
    %t = simt.thread_id x
    %c4 = arith.constant 4 : index
    %j = arith.muli %t, %c4 : index
    simt.unsafe {
      simt.unchecked_async_copy %x[%j], %sx[%j] {width = 4} : !simt.slice<f32>, !simt.shared<f32, [128]>
      simt.yield
    }
    simt.async_commit
    simt.return
  }
  // doc:end
  // CHECK: simt.unchecked_async_copy %x[%j], %sx[%j] {width = 4 : i64} : !simt.slice<f32>, !simt.shared<f32, [128]>
}
