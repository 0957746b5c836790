// RUN: ferrox-opt %s --split-input-file --verify-diagnostics

// The op-local rules of the unchecked copy (dialects/simt/pipeline.py): 16 bytes, into a 1-D
// shared array of the slice's element type.

simt.kernel @width(%x: !simt.slice<f32>, %i: index) unsafe {
  %s = simt.shared_alloc : !simt.shared<f32, [128]>
  // expected-error@+1 {{'simt.unchecked_async_copy' copies 16 bytes: width must be 4 for f32, got 8}}
  simt.unchecked_async_copy %x[%i], %s[%i] {width = 8} : !simt.slice<f32>, !simt.shared<f32, [128]>
  simt.return
}

// -----

simt.kernel @element(%x: !simt.slice<f32>, %i: index) unsafe {
  %s = simt.shared_alloc : !simt.shared<bf16, [128]>
  // expected-error@+1 {{attribute f32 expected from variable 'T', but got bf16}}
  simt.unchecked_async_copy %x[%i], %s[%i] {width = 4} : !simt.slice<f32>, !simt.shared<bf16, [128]>
  simt.return
}
