// RUN: ferrox-opt %s -p verify-disjoint --split-input-file --verify-diagnostics

// Rule 6 and rule 4 for the whole-tile fast path's ops: the unchecked chunk accesses only in
// unsafe code; inside it, a shared slice is read and a disjoint slice written by them. A named
// barrier only in unsafe code.

simt.kernel @outside(%out: !simt.disjoint_slice<f32, tile<[256], 4, arg1>>, %n: index, %x: !simt.slice<f32>, %i: index) {
  // expected-error@+1 {{'simt.unchecked_load_chunk' checks neither range nor alignment: it is unsafe and requires an unsafe region or kernel}}
  %a, %b, %c, %d = simt.unchecked_load_chunk %x[%i] : !simt.slice<f32> -> f32, f32, f32, f32
  // expected-error@+1 {{'simt.unchecked_store_chunk' checks neither range nor alignment: it is unsafe and requires an unsafe region or kernel}}
  simt.unchecked_store_chunk %out[%i], %a, %b, %c, %d : !simt.disjoint_slice<f32, tile<[256], 4, arg1>>
  simt.return
}

// -----

simt.kernel @inside(%out: !simt.disjoint_slice<f32, tile<[256], 4, arg1>>, %n: index, %x: !simt.slice<f32>, %i: index) {
  %ok = simt.slice_aligned %out {bytes = 16} : !simt.disjoint_slice<f32, tile<[256], 4, arg1>>
  scf.if %ok {
    simt.unsafe {
      %a, %b, %c, %d = simt.unchecked_load_chunk %x[%i] : !simt.slice<f32> -> f32, f32, f32, f32
      simt.unchecked_store_chunk %out[%i], %a, %b, %c, %d : !simt.disjoint_slice<f32, tile<[256], 4, arg1>>
      simt.yield
    }
  }
  simt.return
}

// -----

// The GEMM pipeline's unchecked copy: a shared access, so only in unsafe code, where it reads a
// shared slice (its type takes no other).

simt.kernel @copy_outside(%x: !simt.slice<f32>, %i: index) contract<domain = 1, block = [32]> {
  %s = simt.shared_alloc : !simt.shared<f32, [128]>
  // expected-error@+1 {{access to shared memory is unsafe and requires an unsafe region or kernel}}
  simt.unchecked_async_copy %x[%i], %s[%i] {width = 4} : !simt.slice<f32>, !simt.shared<f32, [128]>
  simt.return
}

// -----

simt.kernel @copy_inside(%x: !simt.slice<f32>, %i: index) contract<domain = 1, block = [32]> {
  %s = simt.shared_alloc : !simt.shared<f32, [128]>
  simt.unsafe {
    simt.unchecked_async_copy %x[%i], %s[%i] {width = 4} : !simt.slice<f32>, !simt.shared<f32, [128]>
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @turns() contract<domain = 1, block = [256]> {
  // expected-error@+1 {{'simt.named_barrier' waits for a count of threads that nothing checks (a wrong count hangs the block): it is unsafe and requires an unsafe region or kernel}}
  simt.named_barrier {id = 1, threads = 256}
  simt.unsafe {
    simt.named_barrier {id = 1, threads = 256, arrive}
    simt.yield
  }
  simt.return
}
