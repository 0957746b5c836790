// RUN: ferrox-opt %s -p verify-ownership | filecheck %s

// Safe host programs the stream/sync dataflow of `verify-ownership` accepts
// (docs/ownership-analysis.md): syncs on every path, in loops with a known non-zero trip count,
// through loop and branch results; streams made in loops, in scf.while, in helpers.

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

tile.kernel @add(%z: !tile.partition<f32, [128]>, %x: !tile.tensor<f32, [?]>) {
  tile.return
}

// A sync in both branches of an scf.if counts after it.
// CHECK-LABEL: func.func @sync_both_branches
func.func @sync_both_branches(%cond: i1, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %one = arith.constant 1 : index
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  scf.if %cond {
    host.sync_on %s
  } else {
    host.print "else" %x : !host.tensor<f32, [64]>
    host.sync_on %s
  }
  host.print %c2 : !host.tensor<f32, [64]>
  func.return
}

// Nested branches: every path syncs.
// CHECK-LABEL: func.func @sync_nested_branches
func.func @sync_nested_branches(%a: i1, %b: i1, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %one = arith.constant 1 : index
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  scf.if %a {
    scf.if %b {
      host.sync_on %s
    } else {
      host.sync_on %s
    }
  } else {
    host.sync_on %s
  }
  host.print %c2 : !host.tensor<f32, [64]>
  func.return
}

// Every case of an scf.index_switch syncs, and so does an scf.execute_region.
// CHECK-LABEL: func.func @sync_switch_and_region
func.func @sync_switch_and_region(%k: index, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>, %d: !host.tensor<f32, [64]>) {
  %s = host.stream
  %one = arith.constant 1 : index
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  scf.index_switch %k
  case 0 {
    host.sync_on %s
    scf.yield
  }
  case 1 {
    host.sync_on %s
    scf.yield
  }
  default {
    host.sync_on %s
    scf.yield
  }
  host.print %c2 : !host.tensor<f32, [64]>
  %d2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%d : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  scf.execute_region {
    host.sync_on %s
    scf.yield
  }
  host.print %d2 : !host.tensor<f32, [64]>
  func.return
}

// Unstructured control flow: both paths to the join sync.
// CHECK-LABEL: func.func @sync_cf_paths
func.func @sync_cf_paths(%cond: i1, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %one = arith.constant 1 : index
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  cf.cond_br %cond, ^left, ^right
^left:
  host.sync_on %s
  cf.br ^join
^right:
  host.sync_on %s
  cf.br ^join
^join:
  host.print %c2 : !host.tensor<f32, [64]>
  func.return
}

// A loop of 3 trips runs its sync at least once.
// CHECK-LABEL: func.func @sync_constant_trips
func.func @sync_constant_trips(%x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %lo = arith.constant 0 : index
  %three = arith.constant 3 : index
  %one = arith.constant 1 : index
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  scf.for %i = %lo to %three step %one {
    host.sync_on %s
  }
  host.print %c2 : !host.tensor<f32, [64]>
  func.return
}

// A stream carried through iter_args is synced through the loop's result.
// CHECK-LABEL: func.func @sync_loop_result
func.func @sync_loop_result(%n: index, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s0 = host.stream
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  %s, %r = scf.for %i = %lo to %n step %one iter_args(%si = %s0, %ci = %c) -> (!host.stream, !host.tensor<f32, [64]>) {
    %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %si ins(%x : !host.tensor<f32, [64]>) outs(%ci : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
    scf.yield %si, %c2 : !host.stream, !host.tensor<f32, [64]>
  }
  // CHECK: host.sync_on %s
  host.sync_on %s
  host.print %r : !host.tensor<f32, [64]>
  func.return
}

// A stream passed through an scf.if's result (the same stream on both branches) is synced
// through it.
// CHECK-LABEL: func.func @sync_branch_result
func.func @sync_branch_result(%cond: i1, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s0 = host.stream
  %one = arith.constant 1 : index
  %s, %r = scf.if %cond -> (!host.stream, !host.tensor<f32, [64]>) {
    %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s0 ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
    scf.yield %s0, %c2 : !host.stream, !host.tensor<f32, [64]>
  } else {
    scf.yield %s0, %c : !host.stream, !host.tensor<f32, [64]>
  }
  host.sync_on %s
  host.print %r : !host.tensor<f32, [64]>
  func.return
}

// A stream made in a loop body and synced in the same iteration.
// CHECK-LABEL: func.func @stream_per_iteration
func.func @stream_per_iteration(%n: index, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  %r = scf.for %i = %lo to %n step %one iter_args(%ci = %c) -> (!host.tensor<f32, [64]>) {
    %t = host.stream
    %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %t ins(%x : !host.tensor<f32, [64]>) outs(%ci : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
    %c3 = host.unsafe_launch @scale grid(%one) block(%one) on %t ins(%x : !host.tensor<f32, [64]>) outs(%c2 : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
    host.sync_on %t
    scf.yield %c3 : !host.tensor<f32, [64]>
  }
  host.print %r : !host.tensor<f32, [64]>
  func.return
}

// Nested loops: a stream made in the outer body serves every inner iteration (one stream
// orders them) and is synced before the outer iteration ends.
// CHECK-LABEL: func.func @stream_nested_loops
func.func @stream_nested_loops(%n: index, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  %r = scf.for %i = %lo to %n step %one iter_args(%ci = %c) -> (!host.tensor<f32, [64]>) {
    %t = host.stream
    %inner = scf.for %j = %lo to %n step %one iter_args(%cj = %ci) -> (!host.tensor<f32, [64]>) {
      %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %t ins(%x : !host.tensor<f32, [64]>) outs(%cj : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
      scf.yield %c2 : !host.tensor<f32, [64]>
    }
    host.sync_on %t
    scf.yield %inner : !host.tensor<f32, [64]>
  }
  host.print %r : !host.tensor<f32, [64]>
  func.return
}

// A stream made in the inner loop and synced there.
// CHECK-LABEL: func.func @stream_inner_loop
func.func @stream_inner_loop(%n: index, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  %r = scf.for %i = %lo to %n step %one iter_args(%ci = %c) -> (!host.tensor<f32, [64]>) {
    %inner = scf.for %j = %lo to %n step %one iter_args(%cj = %ci) -> (!host.tensor<f32, [64]>) {
      %t = host.stream
      %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %t ins(%x : !host.tensor<f32, [64]>) outs(%cj : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
      host.sync_on %t
      scf.yield %c2 : !host.tensor<f32, [64]>
    }
    scf.yield %inner : !host.tensor<f32, [64]>
  }
  host.print %r : !host.tensor<f32, [64]>
  func.return
}

// A stream made in the body of an scf.while, synced there; the result is read after the loop.
// CHECK-LABEL: func.func @stream_in_while
func.func @stream_in_while(%go: i1, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %one = arith.constant 1 : index
  %r = scf.while (%ci = %c) : (!host.tensor<f32, [64]>) -> !host.tensor<f32, [64]> {
    scf.condition(%go) %ci : !host.tensor<f32, [64]>
  } do {
  ^bb0(%cj: !host.tensor<f32, [64]>):
    %t = host.stream
    %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %t ins(%x : !host.tensor<f32, [64]>) outs(%cj : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
    host.sync_on %t
    scf.yield %c2 : !host.tensor<f32, [64]>
  }
  host.print %r : !host.tensor<f32, [64]>
  func.return
}

// The tile track: a stream per iteration, synced before the iteration ends.
// CHECK-LABEL: func.func @tile_stream_per_iteration
func.func @tile_stream_per_iteration(%n: index, %x: !host.tensor<f32, [1024]>, %z: !host.tensor<f32, [1024]>) {
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  %r = scf.for %i = %lo to %n step %one iter_args(%zi = %z) -> (!host.tensor<f32, [1024]>) {
    %t = host.stream
    %pz = host.partition %zi : !host.tensor<f32, [1024]> -> !host.partition<f32, [1024], [128]>
    %pz2 = host.tile_launch @add on %t ins(%x : !host.tensor<f32, [1024]>) outs(%pz : !host.partition<f32, [1024], [128]>) -> !host.partition<f32, [1024], [128]>
    %z2 = host.unpartition %pz2 : !host.partition<f32, [1024], [128]> -> !host.tensor<f32, [1024]>
    host.sync_on %t
    scf.yield %z2 : !host.tensor<f32, [1024]>
  }
  host.print %r : !host.tensor<f32, [1024]>
  func.return
}

// A helper that makes its own stream and syncs it, called from a loop. A call moves its
// arguments, so the helper gives back the input too.
func.func @scale_once(%x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) -> (!host.tensor<f32, [64]>, !host.tensor<f32, [64]>) {
  %one = arith.constant 1 : index
  %t = host.stream
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %t ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  host.sync_on %t
  func.return %x, %c2 : !host.tensor<f32, [64]>, !host.tensor<f32, [64]>
}

// CHECK-LABEL: func.func @helper_in_loop
func.func @helper_in_loop(%n: index, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  %rx, %r = scf.for %i = %lo to %n step %one iter_args(%xi = %x, %ci = %c) -> (!host.tensor<f32, [64]>, !host.tensor<f32, [64]>) {
    %x2, %c2 = func.call @scale_once(%xi, %ci) : (!host.tensor<f32, [64]>, !host.tensor<f32, [64]>) -> (!host.tensor<f32, [64]>, !host.tensor<f32, [64]>)
    scf.yield %x2, %c2 : !host.tensor<f32, [64]>, !host.tensor<f32, [64]>
  }
  host.print %r : !host.tensor<f32, [64]>
  func.return
}

// A helper that syncs the stream it is given: the sync counts at the call site.
func.func @wait(%s: !host.stream) {
  host.sync_on %s
  func.return
}

// CHECK-LABEL: func.func @helper_syncs
func.func @helper_syncs(%x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %one = arith.constant 1 : index
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  func.call @wait(%s) : (!host.stream) -> ()
  host.print %c2 : !host.tensor<f32, [64]>
  func.return
}

// A stream carried through an scf.while is synced through the loop's result.
// CHECK-LABEL: func.func @sync_while_result
func.func @sync_while_result(%go: i1, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s0 = host.stream
  %one = arith.constant 1 : index
  %s, %r = scf.while (%si = %s0, %ci = %c) : (!host.stream, !host.tensor<f32, [64]>) -> (!host.stream, !host.tensor<f32, [64]>) {
    scf.condition(%go) %si, %ci : !host.stream, !host.tensor<f32, [64]>
  } do {
  ^bb0(%sj: !host.stream, %cj: !host.tensor<f32, [64]>):
    %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %sj ins(%x : !host.tensor<f32, [64]>) outs(%cj : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
    scf.yield %sj, %c2 : !host.stream, !host.tensor<f32, [64]>
  }
  host.sync_on %s
  host.print %r : !host.tensor<f32, [64]>
  func.return
}

// A loop of blocks that makes a stream on each trip and syncs it before branching back.
// CHECK-LABEL: func.func @stream_per_block_trip
func.func @stream_per_block_trip(%b: i1, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %one = arith.constant 1 : index
  cf.br ^loop(%c : !host.tensor<f32, [64]>)
^loop(%ci: !host.tensor<f32, [64]>):
  %t = host.stream
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %t ins(%x : !host.tensor<f32, [64]>) outs(%ci : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  host.sync_on %t
  cf.cond_br %b, ^loop(%c2 : !host.tensor<f32, [64]>), ^exit(%c2 : !host.tensor<f32, [64]>)
^exit(%done: !host.tensor<f32, [64]>):
  host.print %done : !host.tensor<f32, [64]>
  func.return
}

// A helper that makes a stream and gives it back: the caller syncs it through the call's result.
func.func @start(%x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) -> (!host.stream, !host.tensor<f32, [64]>, !host.tensor<f32, [64]>) {
  %one = arith.constant 1 : index
  %t = host.stream
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %t ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  %c3 = host.unsafe_launch @scale grid(%one) block(%one) on %t ins(%x : !host.tensor<f32, [64]>) outs(%c2 : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  host.sync_on %t
  func.return %t, %x, %c3 : !host.stream, !host.tensor<f32, [64]>, !host.tensor<f32, [64]>
}

// CHECK-LABEL: func.func @helper_stream_result
func.func @helper_stream_result(%x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>, %d: !host.tensor<f32, [64]>) {
  %one = arith.constant 1 : index
  %t, %x2, %c2 = func.call @start(%x, %c) : (!host.tensor<f32, [64]>, !host.tensor<f32, [64]>) -> (!host.stream, !host.tensor<f32, [64]>, !host.tensor<f32, [64]>)
  %d2 = host.unsafe_launch @scale grid(%one) block(%one) on %t ins(%c2 : !host.tensor<f32, [64]>) outs(%d : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  host.sync_on %t
  host.print %d2 : !host.tensor<f32, [64]>
  func.return
}
