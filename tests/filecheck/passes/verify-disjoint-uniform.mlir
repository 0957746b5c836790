// RUN: ferrox-opt %s -p verify-disjoint | filecheck %s

// Barriers and warp collectives under control flow that the uniformity analysis proves uniform
// enough (docs/uniformity-analysis.md) are accepted; verify-disjoint leaves the IR unchanged.

// A barrier under a condition on a kernel scalar (uniform across the grid).
// CHECK-LABEL: simt.kernel @sync_under_scalar
simt.kernel @sync_under_scalar(%k: index, %n: index) contract<domain = 1, block = [128]> {
  %c = arith.cmpi ult, %k, %n : index
  scf.if %c {
    // CHECK: simt.sync_threads
    simt.sync_threads
  }
  simt.return
}

// A barrier under a condition on a function of the block ids (uniform across the block), in
// both branches, and a result of a block-uniform scf.if used as a further condition.
// CHECK-LABEL: simt.kernel @sync_under_block_id
simt.kernel @sync_under_block_id(%n: index) contract<domain = 2, block = [16, 16]> {
  %bx = simt.block_id x
  %by = simt.block_id y
  %gx = simt.grid_dim x
  %lin = arith.muli %by, %gx : index
  %id = arith.addi %lin, %bx : index
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %r = arith.remui %id, %c2 : index
  %even = arith.cmpi eq, %r, %c0 : index
  %m = scf.if %even -> (index) {
    simt.sync_threads
    scf.yield %id : index
  } else {
    simt.sync_threads
    scf.yield %n : index
  }
  %more = arith.cmpi ult, %m, %n : index
  scf.if %more {
    // CHECK: simt.sync_threads
    simt.sync_threads
  }
  simt.return
}

// Barriers in loops whose trip counts are uniform: scf.for bounds from a kernel scalar and the
// block dimension, an scf.while counting to a kernel scalar, and a barrier under a condition
// on the induction variable.
// CHECK-LABEL: simt.kernel @sync_in_uniform_loops
simt.kernel @sync_in_uniform_loops(%n: index) contract<domain = 1, block = [64]> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bd = simt.block_dim x
  %ub = arith.muli %n, %bd : index
  %sum = scf.for %i = %c0 to %ub step %c1 iter_args(%acc = %c0) -> (index) {
    simt.sync_threads
    %odd = arith.andi %i, %c1 : index
    %is_odd = arith.cmpi ne, %odd, %c0 : index
    scf.if %is_odd {
      simt.sync_threads
    }
    %next = arith.addi %acc, %i : index
    scf.yield %next : index
  }
  %last = scf.while (%j = %c0) : (index) -> index {
    %go = arith.cmpi ult, %j, %sum : index
    scf.condition(%go) %j : index
  } do {
  ^bb0(%j2: index):
    // CHECK: simt.sync_threads
    simt.sync_threads
    %j3 = arith.addi %j2, %c1 : index
    scf.yield %j3 : index
  }
  simt.return
}

// Unstructured control flow with block-uniform branches: an early exit on a kernel scalar, a
// cf loop whose exit compares a loop-carried counter with a kernel scalar, and a barrier in an
// scf.execute_region of several blocks.
// CHECK-LABEL: simt.kernel @sync_in_uniform_cfg
simt.kernel @sync_in_uniform_cfg(%n: index, %stop: i1) contract<domain = 1, block = [256]> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.cond_br %stop, ^exit, ^loop(%c0 : index)
^loop(%i: index):
  simt.sync_threads
  %next = arith.addi %i, %c1 : index
  %again = arith.cmpi ult, %next, %n : index
  cf.cond_br %again, ^loop(%next : index), ^after
^after:
  %bx = simt.block_id x
  %first = arith.cmpi eq, %bx, %c0 : index
  scf.execute_region {
    cf.cond_br %first, ^a, ^b
  ^a:
    // CHECK: simt.sync_threads
    simt.sync_threads
    cf.br ^b
  ^b:
    scf.yield
  }
  cf.br ^exit
^exit:
  simt.return
}

// A barrier where divergent paths have joined again (it post-dominates the divergent branch)
// is reached by every thread of the block.
// CHECK-LABEL: simt.kernel @sync_after_reconvergence
simt.kernel @sync_after_reconvergence(%x: !simt.slice<f32>, %out: !simt.atomic_slice<f32>) contract<domain = 1, block = [128]> {
  %t = simt.thread_id x
  %v = simt.load %x[%t] : !simt.slice<f32>
  %zero = arith.constant 0.0 : f32
  %pos = arith.cmpf ogt, %v, %zero : f32
  cf.cond_br %pos, ^a, ^b
^a:
  %o = simt.atomic_add %out[%t], %v : !simt.atomic_slice<f32>
  cf.br ^join
^b:
  cf.br ^join
^join:
  // CHECK: simt.sync_threads
  simt.sync_threads
  simt.return
}

// Warp collectives under control flow that is uniform across each warp: thread id x / 32 and
// thread id x >> 5 when the block's x is a multiple of 32, the global warp index, thread id y
// in a block whose rows are whole warps, and values every lane shares (a vote, a ballot, an
// idx shuffle from a warp-uniform lane).
// CHECK-LABEL: simt.kernel @warp_uniform
simt.kernel @warp_uniform(%v: f32, %out: !simt.disjoint_slice<f32, warp>) contract<domain = 1, block = [128]> {
  %t = simt.thread_id x
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %c5 = arith.constant 5 : index
  %one_idx = arith.constant 1 : index
  %warp = arith.divui %t, %c32 : index
  %even = arith.andi %warp, %one_idx : index
  %is_even = arith.cmpi eq, %even, %c0 : index
  scf.if %is_even {
    // CHECK: simt.shuffle xor %v, %one : f32
    %s = simt.shuffle xor %v, %one : f32
  }
  %w2 = arith.shrui %t, %c5 : index
  %low = arith.cmpi ult, %w2, %c5 : index
  scf.if %low {
    %b = simt.ballot %low
  }
  %w = simt.warp_index
  %gw = simt.witness_value %w : !simt.thread_index<warp>
  %first = arith.cmpi eq, %gw, %c0 : index
  %zero = arith.constant 0.0 : f32
  %big = arith.cmpf ogt, %v, %zero : f32
  %any = simt.vote_any %big
  scf.if %any {
    %m = simt.ballot %big
    %lane0 = arith.constant 0 : i32
    %x = simt.shuffle idx %v, %lane0 : f32
    %xp = arith.cmpf ogt, %x, %zero : f32
    scf.if %xp {
      // CHECK: simt.vote_all %big
      %all = simt.vote_all %big
    }
  }
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, warp>, !simt.thread_index<warp> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  simt.return
}

// CHECK-LABEL: simt.kernel @warp_rows
simt.kernel @warp_rows(%v: f32) contract<domain = 2, block = [32, 8]> {
  %ty = simt.thread_id y
  %c4 = arith.constant 4 : index
  %top = arith.cmpi ult, %ty, %c4 : index
  %one = arith.constant 1 : i32
  scf.if %top {
    // CHECK: simt.shuffle down %v, %one : f32
    %s = simt.shuffle down %v, %one : f32
  }
  simt.return
}

// A device function with a barrier, called under a block-uniform condition; one with only warp
// collectives, called under a warp-uniform one.
simt.func @barrier_fn() {
  simt.sync_threads
  simt.return
}
simt.func @shuffle_fn(%v: f32) -> f32 {
  %one = arith.constant 1 : i32
  %s = simt.shuffle xor %v, %one : f32
  simt.return %s : f32
}
// CHECK-LABEL: simt.kernel @calls_under_uniform
simt.kernel @calls_under_uniform(%n: index, %v: f32) contract<domain = 1, block = [64]> {
  %bx = simt.block_id x
  %c = arith.cmpi ult, %bx, %n : index
  scf.if %c {
    // CHECK: simt.call @barrier_fn()
    simt.call @barrier_fn() : () -> ()
  }
  %t = simt.thread_id x
  %c32 = arith.constant 32 : index
  %warp = arith.divui %t, %c32 : index
  %w0 = arith.cmpi eq, %warp, %n : index
  scf.if %w0 {
    // CHECK: simt.call @shuffle_fn(%v)
    %s = simt.call @shuffle_fn(%v) : (f32) -> f32
  }
  simt.return
}

// A device function's parameters are as uniform as what every call passes: here a function of
// the block id and a kernel scalar, through two levels of calls.
simt.func @sync_when(%c: i1) {
  scf.if %c {
    // CHECK: simt.sync_threads
    simt.sync_threads
  }
  simt.return
}
simt.func @sync_below(%i: index, %n: index) {
  %c = arith.cmpi ult, %i, %n : index
  simt.call @sync_when(%c) : (i1) -> ()
  simt.return
}
// CHECK-LABEL: simt.kernel @uniform_arguments
simt.kernel @uniform_arguments(%n: index) contract<domain = 1, block = [64]> {
  %b = simt.block_id x
  simt.call @sync_below(%b, %n) : (index, index) -> ()
  %true = arith.constant true
  simt.call @sync_when(%true) : (i1) -> ()
  simt.return
}

// Two 2d_runtime outputs with different row widths: each witness resolves against the width
// of the slice it writes.
// CHECK-LABEL: simt.kernel @two_widths
simt.kernel @two_widths(%a: !simt.disjoint_slice<f32, 2d_runtime>, %wa: index, %b: !simt.disjoint_slice<f32, 2d_runtime>, %wb: index, %v: f32) contract<domain = 2, block = [16, 16]> {
  // CHECK: %xa = simt.index_2d_runtime %wa
  %xa = simt.index_2d_runtime %wa
  simt.get_mut %a[%xa] : !simt.disjoint_slice<f32, 2d_runtime>, !simt.thread_index<2d_runtime> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  // CHECK: %xb = simt.index_2d_runtime %wb
  %xb = simt.index_2d_runtime %wb
  simt.get_mut %b[%xb] : !simt.disjoint_slice<f32, 2d_runtime>, !simt.thread_index<2d_runtime> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  %xa2 = simt.index_2d_runtime %wa
  simt.get_mut %a[%xa2] : !simt.disjoint_slice<f32, 2d_runtime>, !simt.thread_index<2d_runtime> {
  ^bb0(%old: f32):
    simt.yield %old : f32
  }
  simt.return
}

// A witness made and moved in each trip of a cf loop is a fresh witness every trip.
// CHECK-LABEL: simt.kernel @witness_per_trip
simt.kernel @witness_per_trip(%out: !simt.disjoint_slice<f32, 1d>, %n: index, %v: f32) contract<domain = 1, block = [64]> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^loop(%c0 : index)
^loop(%i: index):
  %w = simt.thread_index_1d
  // CHECK: simt.get_mut %out[%w]
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  %next = arith.addi %i, %c1 : index
  %again = arith.cmpi ult, %next, %n : index
  cf.cond_br %again, ^loop(%next : index), ^exit
^exit:
  simt.return
}

// Alternatives in a cf loop whose head makes the witness: each trip moves a fresh witness once,
// in one branch or the other.
// CHECK-LABEL: simt.kernel @alternatives_per_trip
simt.kernel @alternatives_per_trip(%out: !simt.disjoint_slice<f32, 1d>, %p: i1, %q: i1, %v: f32) contract<domain = 1, block = [64]> {
  cf.br ^head
^head:
  %w = simt.thread_index_1d
  %i = simt.witness_value %w : !simt.thread_index<1d>
  cf.cond_br %p, ^a, ^b
^a:
  // CHECK: simt.get_mut %out[%w]
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  cf.cond_br %q, ^head, ^exit
^b:
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.yield %old : f32
  }
  cf.cond_br %q, ^head, ^exit
^exit:
  simt.return
}
