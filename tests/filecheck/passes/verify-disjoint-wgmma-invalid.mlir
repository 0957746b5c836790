// RUN: ferrox-opt %s -p verify-disjoint --split-input-file --verify-diagnostics

// The warpgroup tensor-core ops under verify-disjoint: a warpgroup collective is held to
// block-uniform control flow (as a barrier is: there is no warpgroup level), and the ops that
// touch shared arrays belong in unsafe code.

// A warpgroup-uniform condition (thread id x / 128) is not block-uniform: refused.
simt.kernel @fence_under_warpgroup_id(%n: index) contract<domain = 1, block = [256]> {
  %t = simt.thread_id x
  %c128 = arith.constant 128 : index
  %wg = arith.divui %t, %c128 : index
  %c = arith.cmpi ult, %wg, %n : index
  // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%c` is not uniform across the block)}}
  scf.if %c {
    // expected-error@+1 {{warpgroup collective under divergent control flow: 'simt.wgmma_fence' must be reached by every thread of the block}}
    simt.wgmma_fence
  }
  simt.return
}

// -----

simt.kernel @wgmma_outside_unsafe() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.wgmma_fence
  // expected-error@+1 {{access to shared memory is unsafe and requires an unsafe region or kernel}}
  %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
  simt.wgmma_commit
  %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
  simt.return
}
