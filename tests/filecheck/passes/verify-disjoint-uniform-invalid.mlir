// RUN: ferrox-opt %s -p verify-disjoint --split-input-file --verify-diagnostics

// Rule 7 with the uniformity analysis (docs/uniformity-analysis.md): convergent ops under
// control flow it cannot prove uniform enough are refused, with the deciding construct as a note.

// Warp-uniform is not block-uniform: a barrier under a condition on thread id x / 32.
simt.kernel @sync_under_warp_id(%n: index) contract<domain = 1, block = [128]> {
  %t = simt.thread_id x
  %c32 = arith.constant 32 : index
  %warp = arith.divui %t, %c32 : index
  %c = arith.cmpi ult, %warp, %n : index
  // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%c` is not uniform across the block)}}
  scf.if %c {
    // expected-error@+1 {{barrier under divergent control flow: 'simt.sync_threads' must be reached by every thread of the block}}
    simt.sync_threads
  }
  simt.return
}

// -----

// A divergent cf.cond_br inside an scf.execute_region (not only at the function body).
simt.kernel @sync_in_execute_region(%x: !simt.slice<i32>) contract<domain = 1, block = [64]> {
  %t = simt.thread_id x
  %v = simt.load %x[%t] : !simt.slice<i32>
  %zero = arith.constant 0 : i32
  %c = arith.cmpi sgt, %v, %zero : i32
  scf.execute_region {
    // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%c` is not uniform across the block)}}
    cf.cond_br %c, ^a, ^b
  ^a:
    // expected-error@+1 {{barrier under divergent control flow: 'simt.sync_threads' must be reached by every thread of the block}}
    simt.sync_threads
    cf.br ^b
  ^b:
    scf.yield
  }
  simt.return
}

// -----

// Behind an early exit that only some threads take.
simt.kernel @sync_after_early_exit(%n: index) contract<domain = 1, block = [64]> {
  %t = simt.thread_id x
  %done = arith.cmpi uge, %t, %n : index
  // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%done` is not uniform across the block)}}
  cf.cond_br %done, ^exit, ^work
^work:
  // expected-error@+1 {{barrier under divergent control flow: 'simt.sync_threads' must be reached by every thread of the block}}
  simt.sync_threads
  cf.br ^exit
^exit:
  simt.return
}

// -----

// In a cf loop whose exit depends on the thread: the loop-carried counter starts at the thread
// id, so the trip count differs between threads.
simt.kernel @sync_in_divergent_cf_loop(%n: index) contract<domain = 1, block = [64]> {
  %t = simt.thread_id x
  %c1 = arith.constant 1 : index
  cf.br ^loop(%t : index)
^loop(%i: index):
  // expected-error@+1 {{barrier under divergent control flow: 'simt.sync_threads' must be reached by every thread of the block}}
  simt.sync_threads
  %next = arith.addi %i, %c1 : index
  %again = arith.cmpi ult, %next, %n : index
  // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%again` is not uniform across the block)}}
  cf.cond_br %again, ^loop(%next : index), ^exit
^exit:
  simt.return
}

// -----

// A value merged after a divergent branch is divergent, though each incoming value is uniform.
simt.kernel @sync_under_divergent_phi(%x: !simt.slice<i1>, %n: index) contract<domain = 1, block = [64]> {
  %t = simt.thread_id x
  %p = simt.load %x[%t] : !simt.slice<i1>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.cond_br %p, ^a, ^b
^a:
  cf.br ^join(%c0 : index)
^b:
  cf.br ^join(%c1 : index)
^join(%k: index):
  %c = arith.cmpi eq, %k, %c0 : index
  // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%c` is not uniform across the block)}}
  scf.if %c {
    // expected-error@+1 {{barrier under divergent control flow: 'simt.sync_threads' must be reached by every thread of the block}}
    simt.sync_threads
  }
  simt.return
}

// -----

// The result of an scf.if on a divergent condition is divergent.
simt.kernel @sync_under_divergent_if_result(%n: index) contract<domain = 1, block = [64]> {
  %t = simt.thread_id x
  %lt = arith.cmpi ult, %t, %n : index
  %true = arith.constant true
  %false = arith.constant false
  %c = scf.if %lt -> (i1) {
    scf.yield %true : i1
  } else {
    scf.yield %false : i1
  }
  // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%c` is not uniform across the block)}}
  scf.if %c {
    // expected-error@+1 {{barrier under divergent control flow: 'simt.sync_threads' must be reached by every thread of the block}}
    simt.sync_threads
  }
  simt.return
}

// -----

// A while loop whose condition is read from memory.
simt.kernel @sync_in_data_loop(%x: !simt.slice<i1>) contract<domain = 1, block = [64]> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-note@+1 {{control flow diverges here: the trip count of this loop may differ between threads (`%go` is not uniform across the block)}}
  %r = scf.while (%i = %c0) : (index) -> index {
    %go = simt.load %x[%i] : !simt.slice<i1>
    scf.condition(%go) %i : index
  } do {
  ^bb0(%j: index):
    // expected-error@+1 {{barrier under divergent control flow: 'simt.sync_threads' must be reached by every thread of the block}}
    simt.sync_threads
    %k = arith.addi %j, %c1 : index
    scf.yield %k : index
  }
  simt.return
}

// -----

// A shuffle under a lane-dependent condition.
simt.kernel @shuffle_under_lane(%v: f32) contract<domain = 1, block = [64]> {
  %l = simt.lane_id
  %c16 = arith.constant 16 : index
  %low = arith.cmpi ult, %l, %c16 : index
  %one = arith.constant 1 : i32
  // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%low` is not uniform across the warp)}}
  scf.if %low {
    // expected-error@+1 {{warp collective under divergent control flow: 'simt.shuffle' must be reached by every lane of the warp}}
    %s = simt.shuffle xor %v, %one : f32
  }
  simt.return
}

// -----

// Thread id x / 16 splits a warp in two.
simt.kernel @vote_under_half_warp(%p: i1) contract<domain = 1, block = [64]> {
  %t = simt.thread_id x
  %c16 = arith.constant 16 : index
  %half = arith.divui %t, %c16 : index
  %c0 = arith.constant 0 : index
  %c = arith.cmpi eq, %half, %c0 : index
  // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%c` is not uniform across the warp)}}
  scf.if %c {
    // expected-error@+1 {{warp collective under divergent control flow: 'simt.vote_all' must be reached by every lane of the warp}}
    %b = simt.vote_all %p
  }
  simt.return
}

// -----

// Thread id x / 32 is not warp-uniform when the block's x is not a multiple of 32: a warp then
// holds threads of two rows.
simt.kernel @ballot_under_ragged_rows(%p: i1) contract<domain = 2, block = [48, 2]> {
  %t = simt.thread_id x
  %c32 = arith.constant 32 : index
  %w = arith.divui %t, %c32 : index
  %c0 = arith.constant 0 : index
  %c = arith.cmpi eq, %w, %c0 : index
  // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%c` is not uniform across the warp)}}
  scf.if %c {
    // expected-error@+1 {{warp collective under divergent control flow: 'simt.ballot' must be reached by every lane of the warp}}
    %b = simt.ballot %p
  }
  simt.return
}

// -----

// Without a launch contract the block shape is unknown, so thread id x / 32 proves nothing.
simt.kernel @shuffle_without_contract(%v: f32) {
  %t = simt.thread_id x
  %c32 = arith.constant 32 : index
  %w = arith.divui %t, %c32 : index
  %c0 = arith.constant 0 : index
  %c = arith.cmpi eq, %w, %c0 : index
  %one = arith.constant 1 : i32
  // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%c` is not uniform across the warp)}}
  scf.if %c {
    // expected-error@+1 {{warp collective under divergent control flow: 'simt.shuffle' must be reached by every lane of the warp}}
    %s = simt.shuffle xor %v, %one : f32
  }
  simt.return
}

// -----

// A call to a function that only shuffles needs warp-uniform control flow; one that reaches a
// barrier through another call needs block-uniform control flow.
simt.func @shuffle_fn(%v: f32) -> f32 {
  %one = arith.constant 1 : i32
  %s = simt.shuffle xor %v, %one : f32
  simt.return %s : f32
}
simt.func @barrier_fn() {
  simt.sync_threads
  simt.return
}
simt.func @outer_fn() {
  simt.call @barrier_fn() : () -> ()
  simt.return
}
simt.kernel @calls_under_divergence(%v: f32, %n: index) contract<domain = 1, block = [64]> {
  %l = simt.lane_id
  %c = arith.cmpi ult, %l, %n : index
  // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%c` is not uniform across the warp)}}
  scf.if %c {
    // expected-error@+1 {{call to a convergent function under divergent control flow: 'simt.call' must be reached by every lane of the warp}}
    %s = simt.call @shuffle_fn(%v) : (f32) -> f32
  }
  %t = simt.thread_id x
  %c32 = arith.constant 32 : index
  %warp = arith.divui %t, %c32 : index
  %d = arith.cmpi ult, %warp, %n : index
  // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%d` is not uniform across the block)}}
  scf.if %d {
    // expected-error@+1 {{call to a convergent function under divergent control flow: 'simt.call' must be reached by every thread of the block}}
    simt.call @outer_fn() : () -> ()
  }
  simt.return
}

// -----

// A vote's result is shared by the warp only where the whole warp ran the vote.
simt.kernel @vote_result_from_divergence(%v: f32, %n: index) contract<domain = 1, block = [64]> {
  %l = simt.lane_id
  %c = arith.cmpi ult, %l, %n : index
  %zero = arith.constant 0.0 : f32
  %p = arith.cmpf ogt, %v, %zero : f32
  %false = arith.constant false
  // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%c` is not uniform across the warp)}}
  %any = scf.if %c -> (i1) {
    // expected-error@+1 {{warp collective under divergent control flow: 'simt.vote_any' must be reached by every lane of the warp}}
    %b = simt.vote_any %p
    scf.yield %b : i1
  } else {
    scf.yield %false : i1
  }
  %one = arith.constant 1 : i32
  // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%any` is not uniform across the warp)}}
  scf.if %any {
    // expected-error@+1 {{warp collective under divergent control flow: 'simt.shuffle' must be reached by every lane of the warp}}
    %s = simt.shuffle xor %v, %one : f32
  }
  simt.return
}

// -----

// A barrier in a device function under a condition on its parameter: nothing calls it, so the
// parameter is divergent.
// expected-note@+1 {{a parameter of @sync_if, which nothing in this module calls}}
simt.func @sync_if(%c: i1) {
  // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%c` is not uniform across the block)}}
  scf.if %c {
    // expected-error@+1 {{barrier under divergent control flow: 'simt.sync_threads' must be reached by every thread of the block}}
    simt.sync_threads
  }
  simt.return
}

// -----

// A device function's parameter is as uniform as the least uniform argument a call passes: one
// call with a thread-dependent condition makes the barrier inside divergent.
simt.func @sync_when(%c: i1) {
  // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%c` is not uniform across the block)}}
  scf.if %c {
    // expected-error@+1 {{barrier under divergent control flow: 'simt.sync_threads' must be reached by every thread of the block}}
    simt.sync_threads
  }
  simt.return
}
simt.kernel @callers(%k: index, %n: index) contract<domain = 1, block = [64]> {
  %u = arith.cmpi ult, %k, %n : index
  simt.call @sync_when(%u) : (i1) -> ()
  %t = simt.thread_id x
  %d = arith.cmpi ult, %t, %n : index
  // expected-note@+1 {{called here with an argument that is not uniform across the block}}
  simt.call @sync_when(%d) : (i1) -> ()
  simt.return
}

// -----

// Rule 2 in unstructured loops: a witness made before a cf loop and moved in every trip is moved
// again on the next trip.
simt.kernel @witness_moved_every_trip(%out: !simt.disjoint_slice<f32, 1d>, %n: index, %v: f32) contract<domain = 1, block = [64]> {
  %w = simt.thread_index_1d
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^loop(%c0 : index)
^loop(%i: index):
  // expected-error@+2 {{use of moved value: witness}}
  // expected-note@+1 {{value moved here, in previous iteration of loop}}
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

// -----

// The same with the loop in an scf.execute_region, the witness made in the loop's preheader.
simt.kernel @witness_moved_every_trip_nested(%out: !simt.disjoint_slice<f32, 1d>, %n: index, %v: f32) contract<domain = 1, block = [64]> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.execute_region {
    %w = simt.thread_index_1d
    cf.br ^loop(%c0 : index)
  ^loop(%i: index):
    // expected-error@+2 {{use of moved value: witness}}
    // expected-note@+1 {{value moved here, in previous iteration of loop}}
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      simt.yield %v : f32
    }
    %next = arith.addi %i, %c1 : index
    %again = arith.cmpi ult, %next, %n : index
    cf.cond_br %again, ^loop(%next : index), ^exit
  ^exit:
    scf.yield
  }
  simt.return
}

// -----

// Two moves in blocks of one cf loop (the witness is made anew at the loop's head): order()
// cannot place one before the other, and "unknown" counts as "may both run".
simt.kernel @moves_in_cf_cycle(%out: !simt.disjoint_slice<f32, 1d>, %q: i1, %v: f32) contract<domain = 1, block = [64]> {
  cf.br ^a
^a:
  %w = simt.thread_index_1d
  // expected-note@+1 {{value moved here}}
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  cf.cond_br %q, ^b, ^exit
^b:
  // expected-error@+2 {{use of moved value: witness}}
  // expected-note@+1 {{value used here after move}}
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  cf.br ^a
^exit:
  simt.return
}

// -----

// A borrow in a block a cf path reaches after the move.
simt.kernel @borrow_after_cf_move(%out: !simt.disjoint_slice<f32, 1d>, %v: f32) contract<domain = 1, block = [64]> {
  %w = simt.thread_index_1d
  // expected-note@+1 {{value moved here}}
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  cf.br ^next
^next:
  // expected-error@+2 {{borrow of moved value: witness}}
  // expected-note@+1 {{value borrowed here after move}}
  %i = simt.witness_value %w : !simt.thread_index<1d>
  simt.return
}
