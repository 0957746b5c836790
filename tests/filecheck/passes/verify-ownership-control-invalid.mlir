// RUN: ferrox-opt %s -p verify-ownership --split-input-file --verify-diagnostics

// More racy host programs for verify-ownership's stream/sync dataflow, the shapes
// verify-ownership-dataflow-invalid.mlir does not cover: a sync missing from one case of an
// scf.index_switch or one path of nested branches, a sync in a while body that may not run,
// a stream made in a loop nested in an scf.while, a helper with its own stream called from an
// scf.while or through another helper. Where two launches race, the error is at the second and
// the note at the first (in a loop, the same launch on the stream of an earlier run).
// Their safe counterparts run in tests/driver/host_runner/test_control_flow.py.

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// A sync in only one case of an scf.index_switch: the second launch, on another stream, may
// overwrite what the first is still writing.
func.func @f(%k: index, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %u = host.stream
  %one = arith.constant 1 : index
  // expected-note@+1 {{launched here}}
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  scf.index_switch %k
  case 0 {
    host.sync_on %s
    scf.yield
  }
  case 1 {
    scf.yield
  }
  default {
    host.sync_on %s
    scf.yield
  }
  // expected-error@+1 {{cannot use %c2 on stream %u before `host.sync_on %s`: a launch on %s may still be writing it}}
  %c3 = host.unsafe_launch @scale grid(%one) block(%one) on %u ins(%x : !host.tensor<f32, [64]>) outs(%c2 : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  host.sync_on %u
  host.print %c3 : !host.tensor<f32, [64]>
  func.return
}

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// A sync in one branch of an scf.if nested in the other: one path does not sync before the
// launch on the other stream.
func.func @f(%a: i1, %b: i1, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %u = host.stream
  %one = arith.constant 1 : index
  // expected-note@+1 {{launched here}}
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  scf.if %a {
    host.sync_on %s
  } else {
    scf.if %b {
      host.sync_on %s
    }
  }
  // expected-error@+1 {{cannot use %c2 on stream %u before `host.sync_on %s`: a launch on %s may still be writing it}}
  %c3 = host.unsafe_launch @scale grid(%one) block(%one) on %u ins(%x : !host.tensor<f32, [64]>) outs(%c2 : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  host.sync_on %u
  host.print %c3 : !host.tensor<f32, [64]>
  func.return
}

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// An scf.while's body may not run: its sync does not count after the loop.
func.func @f(%go: i1, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %u = host.stream
  %one = arith.constant 1 : index
  // expected-note@+1 {{launched here}}
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  scf.while () : () -> () {
    scf.condition(%go)
  } do {
    host.sync_on %s
    scf.yield
  }
  // expected-error@+1 {{cannot use %c2 on stream %u before `host.sync_on %s`: a launch on %s may still be writing it}}
  %c3 = host.unsafe_launch @scale grid(%one) block(%one) on %u ins(%x : !host.tensor<f32, [64]>) outs(%c2 : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  host.sync_on %u
  host.print %c3 : !host.tensor<f32, [64]>
  func.return
}

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// A stream made in an scf.for nested in an scf.while body: new on every inner trip.
func.func @f(%go: i1, %n: index, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  %r = scf.while (%ci = %c) : (!host.tensor<f32, [64]>) -> !host.tensor<f32, [64]> {
    scf.condition(%go) %ci : !host.tensor<f32, [64]>
  } do {
  ^bb0(%cw: !host.tensor<f32, [64]>):
    %inner = scf.for %i = %lo to %n step %one iter_args(%cj = %cw) -> (!host.tensor<f32, [64]>) {
      %t = host.stream
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

// A helper that leaves a read pending on a stream of its own, called from an scf.while: the
// caller's later write races with the reads of every call.
func.func @peek(%x: !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]> {
  %one = arith.constant 1 : index
  %t = host.stream
  %c = host.poison : !host.tensor<f32, [64]>
  // expected-note@+2 {{launched here}}
  // expected-note@+1 {{launched here, on the %t of an earlier run}}
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %t ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  func.return %x : !host.tensor<f32, [64]>
}

func.func @f(%go: i1, %x: !host.tensor<f32, [64]>, %d: !host.tensor<f32, [64]>) {
  %one = arith.constant 1 : index
  %r = scf.while (%xi = %x) : (!host.tensor<f32, [64]>) -> !host.tensor<f32, [64]> {
    scf.condition(%go) %xi : !host.tensor<f32, [64]>
  } do {
  ^bb0(%xj: !host.tensor<f32, [64]>):
    %x2 = func.call @peek(%xj) : (!host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
    scf.yield %x2 : !host.tensor<f32, [64]>
  }
  %s = host.stream
  // expected-error@+2 {{cannot use %r on stream %s before `host.sync_on %t`: a launch on %t may still be reading it}}
  // expected-error@+1 {{launch of @scale cannot use %r on stream %s: a launch of @scale on the %t of an earlier run of its `host.stream` (an earlier iteration or call) may still be reading it}}
  %r2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%d : !host.tensor<f32, [64]>) outs(%r : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  host.sync_on %s
  func.return
}

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// The same helper reached through another helper, called from an scf.for: still a new stream
// per call.
func.func @peek(%x: !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]> {
  %one = arith.constant 1 : index
  %t = host.stream
  %c = host.poison : !host.tensor<f32, [64]>
  // expected-note@+2 {{launched here, on the %t of an earlier run}}
  // expected-note@+1 {{launched here}}
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %t ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  func.return %x : !host.tensor<f32, [64]>
}

func.func @peek_twice(%x: !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]> {
  %x1 = func.call @peek(%x) : (!host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  %x2 = func.call @peek(%x1) : (!host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  func.return %x2 : !host.tensor<f32, [64]>
}

func.func @f(%n: index, %x: !host.tensor<f32, [64]>, %d: !host.tensor<f32, [64]>) {
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  %r = scf.for %i = %lo to %n step %one iter_args(%xi = %x) -> (!host.tensor<f32, [64]>) {
    %x2 = func.call @peek_twice(%xi) : (!host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
    scf.yield %x2 : !host.tensor<f32, [64]>
  }
  %s = host.stream
  // expected-error@+2 {{cannot use %r on stream %s before `host.sync_on %t`: a launch on %t may still be reading it}}
  // expected-error@+1 {{launch of @scale cannot use %r on stream %s: a launch of @scale on the %t of an earlier run of its `host.stream` (an earlier iteration or call) may still be reading it}}
  %r2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%d : !host.tensor<f32, [64]>) outs(%r : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  host.sync_on %s
  func.return
}
