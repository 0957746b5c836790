// RUN: ferrox-opt %s -p verify-ownership --split-input-file --verify-diagnostics

// Racy host programs the stream/sync dataflow of `verify-ownership` refuses
// (docs/ownership-analysis.md), each with its exact diagnostic.

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// A stream made in a loop body is a new stream each iteration: the launch of iteration i+1 is
// not ordered after the one still pending from iteration i.
func.func @f(%n: index, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  %r = scf.for %i = %lo to %n step %one iter_args(%ci = %c) -> (!host.tensor<f32, [64]>) {
    %t = host.stream
    // expected-error@+2 {{launch of @scale cannot use %ci on stream %t: a launch of @scale on the %t of an earlier run of its `host.stream` (an earlier iteration or call) may still be writing it}}
    // expected-note@+1 {{launched here, on the %t of an earlier run}}
    %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %t ins(%x : !host.tensor<f32, [64]>) outs(%ci : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
    scf.yield %c2 : !host.tensor<f32, [64]>
  }
  func.return
}

// -----

tile.kernel @add(%z: !tile.partition<f32, [128]>, %x: !tile.tensor<f32, [?]>) {
  tile.return
}

// The same race on the tile track.
func.func @f(%n: index, %x: !host.tensor<f32, [1024]>, %z: !host.tensor<f32, [1024]>) {
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  %r = scf.for %i = %lo to %n step %one iter_args(%zi = %z) -> (!host.tensor<f32, [1024]>) {
    %t = host.stream
    %pz = host.partition %zi : !host.tensor<f32, [1024]> -> !host.partition<f32, [1024], [128]>
    // expected-error@+2 {{launch of @add cannot use %pz on stream %t: a launch of @add on the %t of an earlier run of its `host.stream` (an earlier iteration or call) may still be writing it}}
    // expected-note@+1 {{launched here, on the %t of an earlier run}}
    %pz2 = host.tile_launch @add on %t ins(%x : !host.tensor<f32, [1024]>) outs(%pz : !host.partition<f32, [1024], [128]>) -> !host.partition<f32, [1024], [128]>
    %z2 = host.unpartition %pz2 : !host.partition<f32, [1024], [128]> -> !host.tensor<f32, [1024]>
    scf.yield %z2 : !host.tensor<f32, [1024]>
  }
  func.return
}

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// Reads pending on the streams of every earlier iteration are never synced: writing the tensor
// after the loop races with all of them, the last iteration's and the earlier ones.
func.func @f(%n: index, %x: !host.tensor<f32, [64]>, %d: !host.tensor<f32, [64]>) {
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  scf.for %i = %lo to %n step %one {
    %t = host.stream
    %c = host.poison : !host.tensor<f32, [64]>
    // expected-note@+2 {{launched here}}
    // expected-note@+1 {{launched here, on the %t of an earlier run}}
    %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %t ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  }
  %s = host.stream
  // expected-error@+2 {{cannot use %x on stream %s before `host.sync_on %t`: a launch on %t may still be reading it}}
  // expected-error@+1 {{launch of @scale cannot use %x on stream %s: a launch of @scale on the %t of an earlier run of its `host.stream` (an earlier iteration or call) may still be reading it}}
  %x2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%d : !host.tensor<f32, [64]>) outs(%x : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  func.return
}

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// A sync in only one branch of an scf.if does not count after it.
func.func @f(%cond: i1, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %one = arith.constant 1 : index
  // expected-note@+1 {{launched here}}
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  scf.if %cond {
    host.sync_on %s
  }
  // expected-error@+1 {{cannot read %c2 before `host.sync_on %s`: a launch on %s may still be writing it}}
  host.print %c2 : !host.tensor<f32, [64]>
  func.return
}

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// Nested branches: one inner path does not sync.
func.func @f(%a: i1, %b: i1, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %one = arith.constant 1 : index
  // expected-note@+1 {{launched here}}
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  scf.if %a {
    scf.if %b {
      host.sync_on %s
    } else {
      host.print %x : !host.tensor<f32, [64]>
    }
  } else {
    host.sync_on %s
  }
  // expected-error@+1 {{cannot read %c2 before `host.sync_on %s`: a launch on %s may still be writing it}}
  host.print %c2 : !host.tensor<f32, [64]>
  func.return
}

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// A loop of 0 trips never runs its sync.
func.func @f(%x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %zero = arith.constant 0 : index
  %one = arith.constant 1 : index
  // expected-note@+1 {{launched here}}
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  scf.for %i = %zero to %zero step %one {
    host.sync_on %s
  }
  // expected-error@+1 {{cannot read %c2 before `host.sync_on %s`: a launch on %s may still be writing it}}
  host.print %c2 : !host.tensor<f32, [64]>
  func.return
}

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// A loop whose trip count is not known may not run its sync.
func.func @f(%n: index, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %zero = arith.constant 0 : index
  %one = arith.constant 1 : index
  // expected-note@+1 {{launched here}}
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  scf.for %i = %zero to %n step %one {
    host.sync_on %s
  }
  // expected-error@+1 {{cannot read %c2 before `host.sync_on %s`: a launch on %s may still be writing it}}
  host.print %c2 : !host.tensor<f32, [64]>
  func.return
}

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// Nested loops: the stream made in the outer body is new on each outer iteration, and the
// inner loop's last launch is still pending on the old one.
func.func @f(%n: index, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  %r = scf.for %i = %lo to %n step %one iter_args(%ci = %c) -> (!host.tensor<f32, [64]>) {
    %t = host.stream
    %inner = scf.for %j = %lo to %n step %one iter_args(%cj = %ci) -> (!host.tensor<f32, [64]>) {
      // expected-error@+2 {{launch of @scale cannot use %cj on stream %t: a launch of @scale on the %t of an earlier run of its `host.stream` (an earlier iteration or call) may still be writing it}}
      // expected-note@+1 {{launched here, on the %t of an earlier run}}
      %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %t ins(%x : !host.tensor<f32, [64]>) outs(%cj : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
      scf.yield %c2 : !host.tensor<f32, [64]>
    }
    scf.yield %inner : !host.tensor<f32, [64]>
  }
  func.return
}

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// scf.while: a stream made in the body is new on each iteration.
func.func @f(%go: i1, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %one = arith.constant 1 : index
  %r = scf.while (%ci = %c) : (!host.tensor<f32, [64]>) -> !host.tensor<f32, [64]> {
    scf.condition(%go) %ci : !host.tensor<f32, [64]>
  } do {
  ^bb0(%cj: !host.tensor<f32, [64]>):
    %t = host.stream
    // expected-error@+2 {{launch of @scale cannot use %cj on stream %t: a launch of @scale on the %t of an earlier run of its `host.stream` (an earlier iteration or call) may still be writing it}}
    // expected-note@+1 {{launched here, on the %t of an earlier run}}
    %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %t ins(%x : !host.tensor<f32, [64]>) outs(%cj : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
    scf.yield %c2 : !host.tensor<f32, [64]>
  }
  func.return
}

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// A loop of blocks: the stream made in the loop block is new on each trip.
func.func @f(%b: i1, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %one = arith.constant 1 : index
  cf.br ^loop(%c : !host.tensor<f32, [64]>)
^loop(%ci: !host.tensor<f32, [64]>):
  %t = host.stream
  // expected-error@+2 {{launch of @scale cannot use %ci on stream %t: a launch of @scale on the %t of an earlier run of its `host.stream` (an earlier iteration or call) may still be writing it}}
  // expected-note@+1 {{launched here, on the %t of an earlier run}}
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %t ins(%x : !host.tensor<f32, [64]>) outs(%ci : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  cf.cond_br %b, ^loop(%c2 : !host.tensor<f32, [64]>), ^exit
^exit:
  func.return
}

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// A helper that makes a stream and leaves a read pending on it, called in a loop: the reads of
// every call are pending after the loop.
func.func @peek(%x: !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]> {
  %one = arith.constant 1 : index
  %t = host.stream
  %c = host.poison : !host.tensor<f32, [64]>
  // expected-note@+2 {{launched here}}
  // expected-note@+1 {{launched here, on the %t of an earlier run}}
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %t ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  func.return %x : !host.tensor<f32, [64]>
}

func.func @f(%n: index, %x: !host.tensor<f32, [64]>, %d: !host.tensor<f32, [64]>) {
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  %r = scf.for %i = %lo to %n step %one iter_args(%xi = %x) -> (!host.tensor<f32, [64]>) {
    %x2 = func.call @peek(%xi) : (!host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
    scf.yield %x2 : !host.tensor<f32, [64]>
  }
  %s = host.stream
  // expected-error@+2 {{cannot use %r on stream %s before `host.sync_on %t`: a launch on %t may still be reading it}}
  // expected-error@+1 {{launch of @scale cannot use %r on stream %s: a launch of @scale on the %t of an earlier run of its `host.stream` (an earlier iteration or call) may still be reading it}}
  %r2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%d : !host.tensor<f32, [64]>) outs(%r : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  func.return
}

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// A helper is checked at its call site: the tensor it overwrites is still read by the caller's
// pending launch.
func.func @overwrite(%y: !host.tensor<f32, [64]>, %z: !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]> {
  %one = arith.constant 1 : index
  %t = host.stream
  // expected-error@+1 {{cannot use %y on stream %t before `host.sync_on %s`: a launch on %s may still be reading it}}
  %y2 = host.unsafe_launch @scale grid(%one) block(%one) on %t ins(%z : !host.tensor<f32, [64]>) outs(%y : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  host.sync_on %t
  func.return %y2 : !host.tensor<f32, [64]>
}

func.func @f(%x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>, %z: !host.tensor<f32, [64]>) {
  %s = host.stream
  %one = arith.constant 1 : index
  // expected-note@+1 {{launched here}}
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  // expected-note@+1 {{in this call of @overwrite}}
  %x2 = func.call @overwrite(%x, %z) : (!host.tensor<f32, [64]>, !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  func.return
}

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// A branch result that may be either of two streams: syncing it syncs neither for sure.
func.func @f(%cond: i1, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s1 = host.stream
  %s2 = host.stream
  %one = arith.constant 1 : index
  // expected-note@+1 {{launched here}}
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s1 ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  %s = scf.if %cond -> (!host.stream) {
    scf.yield %s1 : !host.stream
  } else {
    scf.yield %s2 : !host.stream
  }
  host.sync_on %s
  // expected-error@+1 {{cannot read %c2 before `host.sync_on %s1`: a launch on %s1 may still be writing it}}
  host.print %c2 : !host.tensor<f32, [64]>
  func.return
}

// -----

// A branch moves a value once per successor it may take: %t passed to two successors is one
// move, but %u passed twice to one successor is moved twice.
func.func @f(%k: i32, %t: !host.tensor<f32, [64]>, %u: !host.tensor<f32, [64]>) {
  // expected-error@+3 {{use of moved value: %u}}
  // expected-note@+2 {{value moved here}}
  // expected-note@+1 {{value used here after move}}
  cf.switch %k : i32, [
    default: ^a(%t : !host.tensor<f32, [64]>),
    0: ^b(%t, %u : !host.tensor<f32, [64]>, !host.tensor<f32, [64]>),
    1: ^b(%u, %u : !host.tensor<f32, [64]>, !host.tensor<f32, [64]>)
  ]
^a(%x: !host.tensor<f32, [64]>):
  host.print %x : !host.tensor<f32, [64]>
  func.return
^b(%y: !host.tensor<f32, [64]>, %z: !host.tensor<f32, [64]>):
  host.print %y : !host.tensor<f32, [64]>
  func.return
}
