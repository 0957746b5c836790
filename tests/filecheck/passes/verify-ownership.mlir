// RUN: ferrox-opt %s -p verify-ownership | filecheck %s

// Host programs that follow the ownership rules pass `verify-ownership` unchanged.

simt.kernel @vecadd(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>, %n: index) contract<domain = 1, block = [256]> {
  simt.return
}

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

tile.kernel @add(%z: !tile.partition<f32, [128]>, %x: !tile.tensor<f32, [?]>, %y: !tile.tensor<f32, [?]>) {
  tile.return
}

// The canonical program: inputs, a poisoned output, prepare, launch, sync, check.
// CHECK-LABEL: func.func @vecadd_main
func.func @vecadd_main() {
  %n = host.param "n" = 1024 : index
  %a = host.random uniform(-1.0, 1.0) seed 1 (%n) : !host.tensor<f32, [?]>
  %b = host.random uniform(-1.0, 1.0) seed 2 (%n) : !host.tensor<f32, [?]>
  %c = host.poison(%n) : !host.tensor<f32, [?]>
  %s = host.stream
  %g = arith.constant 4 : index
  %bl = arith.constant 256 : index
  // Preparing only inspects shapes: %c can still be moved into the launch.
  %p = host.prepare @vecadd grid(%g) block(%bl) args(%a, %b, %c, %n : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, index)
  // CHECK: %c2 = host.launch @vecadd with %p on %s
  %c2 = host.launch @vecadd with %p on %s ins(%a, %b, %n : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, index) outs(%c : !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>
  // Inputs are only borrowed: the host may read them while the launch runs.
  host.print "a = " %a : !host.tensor<f32, [?]>
  // CHECK: host.sync_on %s
  host.sync_on %s
  // CHECK: host.check %c2, "a + b"
  host.check %c2, "a + b" (a = %a : !host.tensor<f32, [?]>, b = %b : !host.tensor<f32, [?]>) : !host.tensor<f32, [?]>
  func.return
}

// One tensor may be borrowed twice; a prepared launch may be launched again; results feed the
// next launch on the same stream without a sync (the stream orders them).
// CHECK-LABEL: func.func @chain
func.func @chain(%n: index) {
  %a = host.arange (%n) : !host.tensor<f32, [?]>
  %c = host.poison(%n) : !host.tensor<f32, [?]>
  %d = host.poison(%n) : !host.tensor<f32, [?]>
  %s = host.stream
  %g = arith.constant 4 : index
  %p = host.prepare @vecadd grid(%g) block(%g) args(%a, %a, %c, %n : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, index)
  %c2 = host.launch @vecadd with %p on %s ins(%a, %a, %n : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, index) outs(%c : !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>
  %d2 = host.launch @vecadd with %p on %s ins(%c2, %a, %n : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, index) outs(%d : !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>
  // An unsafe launch needs no prepared value.
  %e = host.unsafe_launch @scale grid(%g) block(%g) on %s ins(%d2 : !host.tensor<f32, [?]>) outs(%c2 : !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>
  host.sync_on %s
  host.check %e, "4 * a" (a = %a : !host.tensor<f32, [?]>) : !host.tensor<f32, [?]>
  func.return
}

// A tensor written in a loop is threaded through iter_args: each iteration moves the current
// value and yields the new one. Borrowing an outer tensor in the body is fine.
// CHECK-LABEL: func.func @loop
func.func @loop(%x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]> {
  %s = host.stream
  %lo = arith.constant 0 : index
  %hi = arith.constant 10 : index
  %one = arith.constant 1 : index
  // CHECK: scf.for
  %r = scf.for %i = %lo to %hi step %one iter_args(%ci = %c) -> (!host.tensor<f32, [64]>) {
    %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%ci : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
    scf.yield %c2 : !host.tensor<f32, [64]>
  }
  host.sync_on %s
  func.return %r : !host.tensor<f32, [64]>
}

// A sync inside the loop makes each iteration's result readable there.
// CHECK-LABEL: func.func @loop_sync
func.func @loop_sync(%x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  %r = scf.for %i = %lo to %one step %one iter_args(%ci = %c) -> (!host.tensor<f32, [64]>) {
    %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%ci : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
    host.sync_on %s
    host.print %c2 : !host.tensor<f32, [64]>
    scf.yield %c2 : !host.tensor<f32, [64]>
  }
  host.print %r : !host.tensor<f32, [64]>
  func.return
}

// Each branch of an scf.if may move the same tensor: only one of them runs.
// CHECK-LABEL: func.func @branches
func.func @branches(%cond: i1, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %one = arith.constant 1 : index
  %r = scf.if %cond -> (!host.tensor<f32, [64]>) {
    %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
    scf.yield %c2 : !host.tensor<f32, [64]>
  } else {
    scf.yield %c : !host.tensor<f32, [64]>
  }
  host.sync_on %s
  host.check %r, %x : !host.tensor<f32, [64]>, !host.tensor<f32, [64]>
  func.return
}

// The tile track: partition the output (moving it), launch over the partition, take it back.
// CHECK-LABEL: func.func @tile_add
func.func @tile_add() {
  %n = host.param "n" = 1000 : index
  %x = host.from_array 0 : !host.tensor<f32, [?]>
  %y = host.from_array 1 : !host.tensor<f32, [?]>
  %z = host.poison(%n) : !host.tensor<f32, [?]>
  %s = host.stream
  // CHECK: %pz = host.partition %z
  %pz = host.partition %z : !host.tensor<f32, [?]> -> !host.partition<f32, [?], [128]>
  %pz2 = host.tile_launch @add on %s ins(%x, %y : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>) outs(%pz : !host.partition<f32, [?], [128]>) -> !host.partition<f32, [?], [128]>
  %z2 = host.unpartition %pz2 : !host.partition<f32, [?], [128]> -> !host.tensor<f32, [?]>
  host.sync_on %s
  host.check %z2, "x + y" (x = %x : !host.tensor<f32, [?]>, y = %y : !host.tensor<f32, [?]>) : !host.tensor<f32, [?]>
  func.return
}

// Two streams: a result moves to the other stream after a sync of the one that wrote it.
// CHECK-LABEL: func.func @two_streams
func.func @two_streams(%x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>, %d: !host.tensor<f32, [64]>) {
  %s1 = host.stream
  %s2 = host.stream
  %one = arith.constant 1 : index
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s1 ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  // Two streams may read one tensor at once.
  %d2 = host.unsafe_launch @scale grid(%one) block(%one) on %s2 ins(%x : !host.tensor<f32, [64]>) outs(%d : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  host.sync_on %s1
  %c3 = host.unsafe_launch @scale grid(%one) block(%one) on %s2 ins(%d2 : !host.tensor<f32, [64]>) outs(%c2 : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  host.sync_on %s2
  host.check %c3, "2 * x" (x = %x : !host.tensor<f32, [64]>) : !host.tensor<f32, [64]>
  func.return
}
