// RUN: ferrox-opt %s -p verify-disjoint --split-input-file --verify-diagnostics

// One case per DESIGN.md SIMT rule (and each way to break it), pinned to the exact wording.

// Rule 1: only the trusted index ops produce a witness.
// expected-error@+1 {{witness not produced by a trusted index op: !simt.thread_index<1d> comes from a kernel parameter}}
simt.kernel @param_witness(%w: !simt.thread_index<1d>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// -----

simt.func @make() -> !simt.thread_index<1d> {
  %w = simt.thread_index_1d
  // expected-error@+1 {{cannot return a witness}}
  simt.return %w : !simt.thread_index<1d>
}
simt.kernel @call_witness(%out: !simt.disjoint_slice<f32, 1d>) {
  // expected-error@+1 {{witness not produced by a trusted index op: !simt.thread_index<1d> comes from 'simt.call'}}
  %w = simt.call @make() : () -> !simt.thread_index<1d>
  simt.return
}

// -----

simt.kernel @if_witness(%c: i1) {
  // expected-error@+1 {{witness not produced by a trusted index op: !simt.thread_index<1d> comes from 'scf.if'}}
  %w = scf.if %c -> (!simt.thread_index<1d>) {
    %a = simt.thread_index_1d
    // expected-error@+1 {{cannot yield a witness out of its region}}
    scf.yield %a : !simt.thread_index<1d>
  } else {
    %b = simt.thread_index_1d
    // expected-error@+1 {{cannot yield a witness out of its region}}
    scf.yield %b : !simt.thread_index<1d>
  }
  simt.return
}

// -----

// Rule 2: a witness is linear.
simt.kernel @twice(%out: !simt.disjoint_slice<f32, 1d>, %v: f32) {
  %w = simt.thread_index_1d
  // expected-note@+1 {{value moved here}}
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  // expected-error@+2 {{use of moved value: witness}}
  // expected-note@+1 {{value used here after move}}
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  simt.return
}

// -----

simt.kernel @in_loop(%out: !simt.disjoint_slice<f32, 1d>, %v: f32, %n: index) {
  %w = simt.thread_index_1d
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error@+2 {{use of moved value: witness}}
    // expected-note@+1 {{value moved here, in previous iteration of loop}}
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      simt.yield %v : f32
    }
  }
  simt.return
}

// -----

simt.kernel @read_after_move(%out: !simt.disjoint_slice<f32, 1d>, %v: f32) {
  %w = simt.thread_index_1d
  // expected-note@+1 {{value moved here}}
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  // expected-error@+2 {{borrow of moved value: witness}}
  // expected-note@+1 {{value borrowed here after move}}
  %i = simt.witness_value %w : !simt.thread_index<1d>
  simt.return
}

// -----

simt.kernel @store_witness(%p: !simt.ptr<!simt.thread_index<1d>>) unsafe {
  %w = simt.thread_index_1d
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{cannot store a witness to memory}}
  simt.ptr_store %w, %p[%c0] : !simt.ptr<!simt.thread_index<1d>>
  simt.return
}

// -----

// expected-error@+1 {{witness not produced by a trusted index op: !simt.thread_index<1d> comes from a function parameter}}
simt.func @take(%w: !simt.thread_index<1d>) {
  simt.return
}
simt.kernel @pass_witness() {
  %w = simt.thread_index_1d
  // expected-error@+1 {{cannot pass a witness to a call}}
  simt.call @take(%w) : (!simt.thread_index<1d>) -> ()
  simt.return
}

// -----

simt.kernel @cast_witness() {
  %w = simt.thread_index_1d
  // expected-error@+1 {{witness used by 'builtin.unrealized_conversion_cast': a witness may only index simt.get_mut or be read by simt.witness_value}}
  %x = builtin.unrealized_conversion_cast %w : !simt.thread_index<1d> to index
  simt.return
}

// -----

// Rule 3: the witness's space equals the slice's.
simt.kernel @mismatch(%out: !simt.disjoint_slice<f32, 1d>, %v: f32) {
  %w = simt.index_2d : !simt.thread_index<2d<32>>
  // expected-error@+1 {{index space mismatch: expected 1d, found 2d<32>}}
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<2d<32>> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  simt.return
}

// -----

simt.kernel @stride_mismatch(%out: !simt.disjoint_slice<f32, 2d<64>>, %v: f32) {
  %w = simt.index_2d : !simt.thread_index<2d<32>>
  // expected-error@+1 {{index space mismatch: expected 2d<64>, found 2d<32>}}
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 2d<64>>, !simt.thread_index<2d<32>> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  simt.return
}

// -----

simt.kernel @width_not_param(%n: index) {
  %c2 = arith.constant 2 : index
  %w2 = arith.muli %n, %c2 : index
  // expected-error@+1 {{runtime row width must be a kernel parameter, so that every thread uses the same width}}
  %w = simt.index_2d_runtime %w2
  simt.return
}

// -----

// Each 2d_runtime slice has one row width: a witness made with the width of another slice may
// not write it.
simt.kernel @width_of_the_other(%a: !simt.disjoint_slice<f32, 2d_runtime>, %wa: index, %b: !simt.disjoint_slice<f32, 2d_runtime>, %wb: index, %v: f32) contract<domain = 2, block = [16, 16]> {
  %xa = simt.index_2d_runtime %wa
  // expected-note@+1 {{`%a` first written here, with row width `%wa`}}
  simt.get_mut %a[%xa] : !simt.disjoint_slice<f32, 2d_runtime>, !simt.thread_index<2d_runtime> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  %xb = simt.index_2d_runtime %wb
  simt.get_mut %b[%xb] : !simt.disjoint_slice<f32, 2d_runtime>, !simt.thread_index<2d_runtime> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  %xb2 = simt.index_2d_runtime %wb
  // expected-error@+1 {{conflicting runtime row widths for `%a`: this witness has row width `%wb`, but `%a` is written with row width `%wa`; every witness that writes one slice must use the same width parameter}}
  simt.get_mut %a[%xb2] : !simt.disjoint_slice<f32, 2d_runtime>, !simt.thread_index<2d_runtime> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  simt.return
}

// -----

// The same in alternative branches: threads that take different branches would index `%a`
// with different widths, so two of them could write one element.
simt.kernel @widths_in_branches(%a: !simt.disjoint_slice<f32, 2d_runtime>, %wa: index, %wb: index, %k: index, %v: f32) contract<domain = 2, block = [16, 16]> {
  %t = simt.thread_id x
  %c = arith.cmpi ult, %t, %k : index
  scf.if %c {
    %x = simt.index_2d_runtime %wa
    // expected-note@+1 {{`%a` first written here, with row width `%wa`}}
    simt.get_mut %a[%x] : !simt.disjoint_slice<f32, 2d_runtime>, !simt.thread_index<2d_runtime> {
    ^bb0(%old: f32):
      simt.yield %v : f32
    }
  } else {
    %y = simt.index_2d_runtime %wb
    // expected-error@+1 {{conflicting runtime row widths for `%a`: this witness has row width `%wb`, but `%a` is written with row width `%wa`}}
    simt.get_mut %a[%y] : !simt.disjoint_slice<f32, 2d_runtime>, !simt.thread_index<2d_runtime> {
    ^bb0(%old: f32):
      simt.yield %v : f32
    }
  }
  simt.return
}

// -----

// Rule 4: a disjoint slice is never read nor passed as a shared slice; a shared slice is read-only.
simt.kernel @read_disjoint(%out: !simt.disjoint_slice<f32, 1d>, %i: index) {
  // expected-error@+1 {{cannot read disjoint slice `%out`: it is written only through simt.get_mut, never read}}
  %v = simt.load %out[%i] : !simt.disjoint_slice<f32, 1d>
  simt.return
}

// -----

simt.func @reader(%a: !simt.slice<f32>) {
  simt.return
}
simt.kernel @pass_disjoint(%out: !simt.disjoint_slice<f32, 1d>) {
  // expected-error@+1 {{mismatched types: expected !simt.slice<f32>, found !simt.disjoint_slice<f32, 1d>: a disjoint slice is never passed where a shared slice is expected}}
  simt.call @reader(%out) : (!simt.disjoint_slice<f32, 1d>) -> ()
  simt.return
}

// -----

simt.kernel @atomic_on_shared_slice(%a: !simt.slice<i32>, %i: index, %v: i32) {
  // expected-error@+1 {{cannot update shared slice `%a` atomically: a shared slice is read-only; take an !simt.atomic_slice instead}}
  %o = simt.atomic_add %a[%i], %v : !simt.slice<i32>
  simt.return
}

// -----

simt.kernel @atomic_on_disjoint(%out: !simt.disjoint_slice<i32, 1d>, %i: index, %v: i32) {
  // expected-error@+1 {{cannot update disjoint slice `%out` atomically: it is written only through simt.get_mut; take an !simt.atomic_slice for shared updates}}
  %o = simt.atomic_add %out[%i], %v : !simt.disjoint_slice<i32, 1d>
  simt.return
}

// -----

simt.kernel @read_atomic(%bins: !simt.atomic_slice<i32>, %i: index) {
  // expected-error@+1 {{cannot read atomic slice `%bins` with simt.load: other threads update it; use an atomic}}
  %v = simt.load %bins[%i] : !simt.atomic_slice<i32>
  simt.return
}

// -----

simt.kernel @cast_disjoint(%out: !simt.disjoint_slice<f32, 1d>) {
  // expected-error@+1 {{disjoint slice `%out` cannot be used by 'builtin.unrealized_conversion_cast': it is written only through simt.get_mut}}
  %s = builtin.unrealized_conversion_cast %out : !simt.disjoint_slice<f32, 1d> to !simt.slice<f32>
  simt.return
}

// -----

// Rule 5: the contract fits the hardware and the index spaces.
// expected-error@+1 {{launch contract block [32, 64] has 2048 threads, more than the 1024 a block can hold}}
simt.kernel @too_big() contract<domain = 2, block = [32, 64]> {
  simt.return
}

// -----

// expected-error@+1 {{launch contract block [16, 16] has rank 2, more than its domain 1}}
simt.kernel @rank_over_domain() contract<domain = 1, block = [16, 16]> {
  simt.return
}

// -----

// expected-note@+1 {{launch contract declared here}}
simt.kernel @domain_mismatch(%out: !simt.disjoint_slice<f32, 1d>) contract<domain = 2, block = [16, 16]> {
  // expected-error@+1 {{index space 1d needs a launch contract of domain 1, found domain 2}}
  %w = simt.thread_index_1d
  simt.return
}

// -----

simt.func @helper() {
  // expected-error@+1 {{index space 2d<32> needs a launch contract of domain 2, found domain 1}}
  %w = simt.index_2d : !simt.thread_index<2d<32>>
  simt.return
}
// expected-note@+1 {{launch contract declared here}}
simt.kernel @domain_via_call() contract<domain = 1, block = [256]> {
  simt.call @helper() : () -> ()
  simt.return
}

// -----

// expected-note@+1 {{launch contract declared here}}
simt.kernel @warp_block(%out: !simt.disjoint_slice<f32, warp>) contract<domain = 1, block = [48]> {
  // expected-error@+1 {{index space warp needs a block x that is a multiple of 32, found 48}}
  %w = simt.warp_index
  simt.return
}

// -----

// Rule 6: no raw mutable buffer in a contracted kernel; raw pointers and shared memory only in unsafe code.
// expected-error@+1 {{contracted kernels cannot take a raw mutable buffer: parameter `%p` is !simt.ptr<f32>; take a !simt.disjoint_slice or !simt.atomic_slice, or drop the contract and launch unsafely}}
simt.kernel @raw_param(%p: !simt.ptr<f32>) contract<domain = 1, block = [256]> {
  simt.return
}

// -----

simt.kernel @raw_deref(%p: !simt.ptr<f32>, %i: index, %v: f32) {
  // expected-error@+1 {{dereference of raw pointer is unsafe and requires an unsafe region or kernel}}
  %x = simt.ptr_load %p[%i] : !simt.ptr<f32>
  // expected-error@+1 {{dereference of raw pointer is unsafe and requires an unsafe region or kernel}}
  simt.ptr_store %v, %p[%i] : !simt.ptr<f32>
  simt.return
}

// -----

simt.kernel @shared_outside_unsafe(%i: index, %v: f32) {
  %s = simt.shared_alloc : !simt.shared<f32, [256]>
  // expected-error@+1 {{access to shared memory is unsafe and requires an unsafe region or kernel}}
  simt.shared_store %v, %s[%i] : !simt.shared<f32, [256]>
  // expected-error@+1 {{access to shared memory is unsafe and requires an unsafe region or kernel}}
  %x = simt.shared_load %s[%i] : !simt.shared<f32, [256]>
  simt.return
}

// -----

simt.kernel @shared_atomic(%i: index, %v: i32) {
  %s = simt.shared_alloc : !simt.shared<i32, [256]>
  // expected-error@+1 {{access to shared memory is unsafe and requires an unsafe region or kernel}}
  %o = simt.atomic_add %s[%i], %v scope cta : !simt.shared<i32, [256]>
  simt.return
}

// -----

// Rule 7: barriers and warp collectives are convergent.
simt.kernel @sync_in_if(%n: index) {
  %t = simt.thread_id x
  %c = arith.cmpi ult, %t, %n : index
  // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%c` is not uniform across the block)}}
  scf.if %c {
    // expected-error@+1 {{barrier under divergent control flow: 'simt.sync_threads' must be reached by every thread of the block}}
    simt.sync_threads
  }
  simt.return
}

// -----

simt.kernel @sync_in_get_mut(%out: !simt.disjoint_slice<f32, 1d>) {
  %w = simt.thread_index_1d
  // expected-note@+1 {{control flow diverges here: this region runs only where the witness is in bounds}}
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    // expected-error@+1 {{barrier under divergent control flow: 'simt.sync_threads' must be reached by every thread of the block}}
    simt.sync_threads
    simt.yield %old : f32
  }
  simt.return
}

// -----

simt.kernel @shuffle_in_thread_loop(%v: f32) {
  %t = simt.thread_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  // expected-note@+1 {{control flow diverges here: the bounds of this loop depend on the thread (`%t` is not uniform across the warp)}}
  scf.for %i = %c0 to %t step %c1 {
    // expected-error@+1 {{warp collective under divergent control flow: 'simt.shuffle' must be reached by every lane of the warp}}
    %s = simt.shuffle xor %v, %one : f32
  }
  simt.return
}

// -----

simt.kernel @vote_in_while(%x: !simt.slice<i32>) {
  %i = simt.thread_id x
  %zero = arith.constant 0 : i32
  // expected-note@+1 {{control flow diverges here: the trip count of this loop may differ between threads (`%b` is not uniform across the warp)}}
  scf.while () : () -> () {
    %v = simt.load %x[%i] : !simt.slice<i32>
    %p = arith.cmpi ne, %v, %zero : i32
    // expected-error@+1 {{warp collective under divergent control flow: 'simt.vote_any' must be reached by every lane of the warp}}
    %q = simt.vote_any %p
    %b = arith.cmpi ne, %v, %zero : i32
    scf.condition(%b)
  } do {
    scf.yield
  }
  simt.return
}

// -----

simt.func @barrier() {
  simt.sync_threads
  simt.return
}
simt.kernel @call_in_if(%n: index) {
  %b = simt.block_id x
  %t = simt.thread_id x
  %s = arith.addi %b, %t : index
  %c = arith.cmpi ult, %s, %n : index
  // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%c` is not uniform across the block)}}
  scf.if %c {
    // expected-error@+1 {{call to a convergent function under divergent control flow: 'simt.call' must be reached by every thread of the block}}
    simt.call @barrier() : () -> ()
  }
  simt.return
}

// -----

simt.kernel @unstructured(%x: !simt.slice<i1>) {
  %i = simt.thread_id x
  %c = simt.load %x[%i] : !simt.slice<i1>
  // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%c` is not uniform across the block)}}
  cf.cond_br %c, ^a, ^b
^a:
  // expected-error@+1 {{barrier under divergent control flow: 'simt.sync_threads' must be reached by every thread of the block}}
  simt.sync_threads
  cf.br ^b
^b:
  simt.return
}

// -----

// Every violation is reported, not only the first.
// expected-error@+1 {{contracted kernels cannot take a raw mutable buffer}}
simt.kernel @many(%p: !simt.ptr<f32>, %out: !simt.disjoint_slice<f32, 1d>, %i: index) contract<domain = 1, block = [2048]> {
// expected-error@-1 {{launch contract block [2048] has 2048 threads, more than the 1024 a block can hold}}
  // expected-error@+1 {{cannot read disjoint slice `%out`}}
  %v = simt.load %out[%i] : !simt.disjoint_slice<f32, 1d>
  // expected-error@+1 {{dereference of raw pointer is unsafe}}
  %x = simt.ptr_load %p[%i] : !simt.ptr<f32>
  simt.return
}
