// RUN: ferrox-opt %s --split-input-file --verify-diagnostics -p convert-simt-to-nvvm

// What convert-simt-to-nvvm refuses, each as a located diagnostic (never a traceback).

// expected-error@+1 {{cannot lower 'simt.kernel' to nvvm: a kernel parameter of type i1 cannot be passed by the launcher (scalars: f32, f64, i32, i64, index); widen it to i32}}
simt.kernel @flag(%b: i1) unsafe {
  simt.return
}

// -----

// expected-error@+1 {{cannot lower 'simt.kernel' to nvvm: memory of vector<4xf32> elements cannot be lowered; use integer or float elements}}
simt.kernel @vector_slice(%a: !simt.slice<vector<4xf32>>) unsafe {
  simt.return
}

// -----

// expected-error@+1 {{cannot lower 'simt.kernel' to nvvm: slices of i128 cannot be passed to a kernel (elements: i1, i8 to i64, f16, bf16, f32, f64)}}
simt.kernel @wide_slice(%a: !simt.slice<i128>) unsafe {
  simt.return
}

// -----

// expected-error@+1 {{cannot lower 'simt.kernel' to nvvm: a value of type !simt.shared<f32, [4]> cannot be passed to or from a function: shared memory is a global of the kernel, never a parameter}}
simt.kernel @shared_param(%t: !simt.shared<f32, [4]>) unsafe {
  simt.return
}

// -----

// The pass checks the verify-disjoint rules first: a witness never leaves its function.
simt.func @leak() -> !simt.thread_index<1d> {
  %w = simt.thread_index_1d
  // expected-error@+1 {{cannot return a witness}}
  simt.return %w : !simt.thread_index<1d>
}


// -----

// Every unsupported op is reported, not only the first.
simt.kernel @atomics(%f: !simt.atomic_slice<f32>, %i: index, %x: f32, %y: i32) unsafe {
  %s = simt.shared_alloc : !simt.shared<i16, [4]>
  %y16 = arith.trunci %y : i32 to i16
  // expected-error@+1 {{cannot lower 'simt.atomic_min' to nvvm: atomic min/max needs an i32 or i64 element, not f32}}
  %a = simt.atomic_min %f[%i], %x : !simt.atomic_slice<f32>
  // expected-error@+1 {{cannot lower 'simt.atomic_add' to nvvm: PTX atomics are 32 or 64 bits wide; i16 is not}}
  %b = simt.atomic_add %s[%i], %y16 : !simt.shared<i16, [4]>
  simt.return
}
