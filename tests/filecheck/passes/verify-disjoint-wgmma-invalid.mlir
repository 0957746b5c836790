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

// -----

// SIMT 8's flow half (passes/disjoint/in_flight.py). A store into a tile the wgmma reads, while
// its group is in flight (a store into another allocation is fine: tests/filecheck/dialects/
// simt/wgmma.mlir).
simt.kernel @store_into_tile_in_flight() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %y = arith.constant 1.0 : bf16
  simt.unsafe {
    simt.wgmma_fence
    %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
    simt.wgmma_commit
    // expected-error@+1 {{'simt.shared_store' writes %bs while a wgmma that reads it may be in flight: retire that wgmma's group first ('simt.wgmma_wait' with a smaller pending), or write another allocation}}
    simt.shared_store %y, %bs[%c0] : !simt.shared<bf16, [1024]>
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

// A copy into a tile the wgmma reads, issued before the group is even committed.
simt.kernel @copy_into_open_tile(%x: !simt.slice<bf16>) contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    simt.wgmma_fence
    %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
    // expected-error@+1 {{'simt.async_copy' writes %bs while a wgmma that reads it may be in flight: retire that wgmma's group first ('simt.wgmma_wait' with a smaller pending), or write another allocation}}
    simt.async_copy %x[%c0], %c8, %bs[%c0] {width = 8} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>
    simt.async_commit
    simt.wgmma_commit
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

// A wait before the commit: wait_group waits only for committed groups.
simt.kernel @wait_before_commit() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    simt.wgmma_fence
    %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
    // expected-error@+1 {{'simt.wgmma_wait' waits only for committed groups: commit the wgmma ops issued before it with 'simt.wgmma_commit' first}}
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.wgmma_commit
    simt.wgmma_wait {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

// The pipelined K loop with its refill one stage too early: in step kt the copy refills the
// stage that step kt's own group (committed just before) reads. The group of step kt - 1 is
// retired by the wait, but the new one is in flight.
simt.kernel @refill_the_stage_in_flight(%x: !simt.slice<bf16>, %tiles: index) contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  %acc:8 = scf.for %kt = %c0 to %tiles step %c1 iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
    %p:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
      simt.wgmma_fence
      %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
      simt.wgmma_commit
      %w:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 1}
      // expected-error@+1 {{'simt.async_copy' writes %as while a wgmma that reads it may be in flight: retire that wgmma's group first ('simt.wgmma_wait' with a smaller pending), or write another allocation}}
      simt.async_copy %x[%c0], %c8, %as[%c0] {width = 8} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>
      simt.async_commit
      simt.yield %w#0, %w#1, %w#2, %w#3, %w#4, %w#5, %w#6, %w#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    scf.yield %p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7 : f32, f32, f32, f32, f32, f32, f32, f32
  }
  %f:8 = simt.wgmma_wait %acc#0, %acc#1, %acc#2, %acc#3, %acc#4, %acc#5, %acc#6, %acc#7 {pending = 0}
  simt.return
}

// -----

// Two stages, each its own allocation, and a wait with pending = 1 in each step: the copy at
// the top of the next loop iteration refills stage 0 while the group of stage 1 is in flight,
// but also the group of stage 0 from the step before (waits keep one group pending): seen only
// across the back edge.
simt.kernel @refill_across_the_back_edge(%x: !simt.slice<bf16>, %tiles: index) contract<domain = 1, block = [128], shared_bytes = 20480> {
  %a0 = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %a1 = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  %acc:8 = scf.for %kt = %c0 to %tiles step %c1 iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
    %p:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
      // expected-error@+1 {{'simt.async_copy' writes %a0 while a wgmma that reads it may be in flight: retire that wgmma's group first ('simt.wgmma_wait' with a smaller pending), or write another allocation}}
      simt.async_copy %x[%c0], %c8, %a0[%c0] {width = 8} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>
      simt.async_commit
      simt.async_wait {pending = 0}
      simt.wgmma_fence
      %d:8 = simt.wgmma %a0[%c0], %bs[%c0], acc(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
      simt.wgmma_commit
      %w:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 1}
      simt.wgmma_fence
      %e:8 = simt.wgmma %a1[%c0], %bs[%c0], acc(%w#0, %w#1, %w#2, %w#3, %w#4, %w#5, %w#6, %w#7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
      simt.wgmma_commit
      %v:8 = simt.wgmma_wait %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 {pending = 2}
      simt.yield %v#0, %v#1, %v#2, %v#3, %v#4, %v#5, %v#6, %v#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    scf.yield %p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7 : f32, f32, f32, f32, f32, f32, f32, f32
  }
  %f:8 = simt.wgmma_wait %acc#0, %acc#1, %acc#2, %acc#3, %acc#4, %acc#5, %acc#6, %acc#7 {pending = 0}
  simt.return
}

// -----

// The kernel ends with a group still pending: committed after the only wait.
simt.kernel @return_in_flight() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  simt.unsafe {
    simt.wgmma_fence
    %d:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
    // expected-error@+1 {{'simt.wgmma_wait' waits only for committed groups: commit the wgmma ops issued before it with 'simt.wgmma_commit' first}}
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.wgmma_commit
    simt.yield
  }
  // expected-error@+1 {{'simt.return' while wgmma ops may be in flight: retire them first with 'simt.wgmma_commit' then 'simt.wgmma_wait' with pending = 0}}
  simt.return
}

// -----

// The B tile chosen at run time between two allocations: the rule cannot tell which one the
// wgmma reads, so it refuses a write to either while the group is in flight.
simt.kernel @tile_chosen_at_run_time(%p: index) contract<domain = 1, block = [128], shared_bytes = 12288> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %cs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %y = arith.constant 1.0 : bf16
  %odd = arith.cmpi ne, %p, %c0 : index
  %t = scf.if %odd -> (!simt.shared<bf16, [1024]>) {
    scf.yield %bs : !simt.shared<bf16, [1024]>
  } else {
    scf.yield %cs : !simt.shared<bf16, [1024]>
  }
  simt.unsafe {
    simt.wgmma_fence
    %d:8 = simt.wgmma %as[%c0], %t[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
    simt.wgmma_commit
    // expected-error@+1 {{'simt.shared_store' writes shared memory that a wgmma in flight may read (the rule tells tiles apart only by their 'simt.shared_alloc'): retire the wgmma's group first with 'simt.wgmma_wait'}}
    simt.shared_store %y, %cs[%c0] : !simt.shared<bf16, [1024]>
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

// The register-A form (simt.wgmma_reg_a) is held to the same rules: a warpgroup collective
// under block-uniform control flow only, its B array read in unsafe code, and B not written
// while its group may be in flight.
simt.kernel @reg_a_under_warpgroup_id(%q: !simt.slice<i32>, %n: index) contract<domain = 1, block = [256], shared_bytes = 8192> {
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %r = simt.load %q[%c0] : !simt.slice<i32>
  %t = simt.thread_id x
  %c128 = arith.constant 128 : index
  %wg = arith.divui %t, %c128 : index
  %c = arith.cmpi ult, %wg, %n : index
  simt.unsafe {
    // expected-note@+4 {{control flow diverges here: not every thread may take this branch (`%c` is not uniform across the block)}}
    // expected-note@+3 {{control flow diverges here: not every thread may take this branch (`%c` is not uniform across the block)}}
    // expected-note@+2 {{control flow diverges here: not every thread may take this branch (`%c` is not uniform across the block)}}
    // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%c` is not uniform across the block)}}
    scf.if %c {
      // expected-error@+1 {{warpgroup collective under divergent control flow: 'simt.wgmma_fence' must be reached by every thread of the block}}
      simt.wgmma_fence
      // expected-error@+1 {{warpgroup collective under divergent control flow: 'simt.wgmma_reg_a' must be reached by every thread of the block}}
      %d:8 = simt.wgmma_reg_a (%r, %r, %r, %r), %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>
      // expected-error@+1 {{warpgroup collective under divergent control flow: 'simt.wgmma_commit' must be reached by every thread of the block}}
      simt.wgmma_commit
      // expected-error@+1 {{warpgroup collective under divergent control flow: 'simt.wgmma_wait' must be reached by every thread of the block}}
      %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    }
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @reg_a_outside_unsafe(%q: !simt.slice<i32>) contract<domain = 1, block = [128], shared_bytes = 8192> {
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %r = simt.load %q[%c0] : !simt.slice<i32>
  simt.wgmma_fence
  // expected-error@+1 {{access to shared memory is unsafe and requires an unsafe region or kernel}}
  %d:8 = simt.wgmma_reg_a (%r, %r, %r, %r), %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>
  simt.wgmma_commit
  %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
  simt.return
}

// -----

simt.kernel @reg_a_store_into_b_in_flight(%q: !simt.slice<i32>) contract<domain = 1, block = [128], shared_bytes = 8192> {
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %y = arith.constant 1.0 : bf16
  %r = simt.load %q[%c0] : !simt.slice<i32>
  simt.unsafe {
    simt.wgmma_fence
    %d:8 = simt.wgmma_reg_a (%r, %r, %r, %r), %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>
    simt.wgmma_commit
    // expected-error@+1 {{'simt.shared_store' writes %bs while a wgmma that reads it may be in flight: retire that wgmma's group first ('simt.wgmma_wait' with a smaller pending), or write another allocation}}
    simt.shared_store %y, %bs[%c0] : !simt.shared<bf16, [4096]>
    %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

// A partial wait's `retired` claim is checked: here the scores' group is the newer one, so
// `pending = 1` leaves it in flight and its values may not be named retired.
simt.kernel @retired_but_newest() contract<domain = 1, block = [128], shared_bytes = 10240> {
  %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %a = arith.constant 0 : i32
  simt.unsafe {
    simt.wgmma_fence
    %o:8 = simt.wgmma_reg_a (%a, %a, %a, %a), %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [1024]>
    simt.wgmma_commit
    simt.wgmma_fence
    %s:8 = simt.wgmma %as[%c0], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
    simt.wgmma_commit
    // expected-error@+1 {{operand 0 of 'simt.wgmma_wait' is named retired (retired = 8) but may come from a wgmma of a group the wait leaves pending (pending = 1): commit that group before the ones left pending, or wait with a smaller pending}}
    %w:16 = simt.wgmma_wait %s#0, %s#1, %s#2, %s#3, %s#4, %s#5, %s#6, %s#7, %o#0, %o#1, %o#2, %o#3, %o#4, %o#5, %o#6, %o#7 {pending = 1, retired = 8}
    %sum = arith.addf %w#0, %w#7 : f32
    %f:8 = simt.wgmma_wait %w#8, %w#9, %w#10, %w#11, %w#12, %w#13, %w#14, %w#15 {pending = 0}
    simt.yield
  }
  simt.return
}

// -----

// A persistent loop (docs/safety.md#simt-1-persistent) carries a group across its back edge: the next
// tile's copy into stage %a0 comes while the group that reads %a0, left pending by the wait
// with pending = 1 at the end of the previous tile, may still be in flight. The ring's reuse
// across tiles is checked as within one tile's loop.
simt.kernel @refill_across_tiles(%out: !simt.disjoint_slice<f32, tile<[64, 16], 4, arg1, persistent>>, %m: index, %n: index, %x: !simt.slice<bf16>) contract<domain = 1, block = [128], shared_bytes = 10240> {
  %a0 = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
  %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  %first, %count, %step = simt.tile_schedule dims(%m, %n) <tile<[64, 16], 4, arg1, persistent>>
  %acc:8 = scf.for %t = %first to %count step %step iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z, %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
    %p:8 = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
      // expected-error@+1 {{'simt.async_copy' writes %a0 while a wgmma that reads it may be in flight}}
      simt.async_copy %x[%c0], %c8, %a0[%c0] {width = 8} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>
      simt.async_commit
      simt.async_wait {pending = 0}
      simt.wgmma_fence
      %d:8 = simt.wgmma %a0[%c0], %bs[%c0], acc(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
      simt.wgmma_commit
      %w:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 1}
      simt.yield %w#0, %w#1, %w#2, %w#3, %w#4, %w#5, %w#6, %w#7 : f32, f32, f32, f32, f32, f32, f32, f32
    }
    scf.yield %p#0, %p#1, %p#2, %p#3, %p#4, %p#5, %p#6, %p#7 : f32, f32, f32, f32, f32, f32, f32, f32
  }
  %f:8 = simt.wgmma_wait %acc#0, %acc#1, %acc#2, %acc#3, %acc#4, %acc#5, %acc#6, %acc#7 {pending = 0}
  simt.return
}
