// RUN: ferrox-opt %s -p verify-ownership --split-input-file --verify-diagnostics

// Every rule of `verify-ownership`, each with its exact diagnostic and notes.

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// Rule 1: a launch moves its outputs; the old value is gone.
// doc:begin e0382
func.func @f(%x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %one = arith.constant 1 : index
  // expected-note@+1 {{value moved here}}
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  host.sync_on %s
  // expected-error@+2 {{use of moved value: %c}}
  // expected-note@+1 {{value used here after move}}
  host.print %c : !host.tensor<f32, [64]>
  func.return
}
// doc:end

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// Rule 1: a moved value may not be borrowed either.
func.func @f(%x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>, %d: !host.tensor<f32, [64]>) {
  %s = host.stream
  %one = arith.constant 1 : index
  // expected-note@+1 {{value moved here}}
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  // expected-error@+2 {{use of moved value: %c}}
  // expected-note@+1 {{value used here after move}}
  %d2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%c : !host.tensor<f32, [64]>) outs(%d : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  func.return
}

// -----

// Rule 1: partitioning moves the tensor, unpartitioning moves the partition.
func.func @f(%t: !host.tensor<f32, [1024]>) {
  // expected-note@+1 {{value moved here}}
  %p = host.partition %t : !host.tensor<f32, [1024]> -> !host.partition<f32, [1024], [128]>
  // expected-note@+1 {{value moved here}}
  %t2 = host.unpartition %p : !host.partition<f32, [1024], [128]> -> !host.tensor<f32, [1024]>
  // expected-error@+2 {{use of moved value: %t}}
  // expected-note@+1 {{value used here after move}}
  host.print %t : !host.tensor<f32, [1024]>
  // expected-error@+2 {{use of moved value: %p}}
  // expected-note@+1 {{value used here after move}}
  %t3 = host.unpartition %p : !host.partition<f32, [1024], [128]> -> !host.tensor<f32, [1024]>
  func.return
}

// -----

simt.kernel @two(%a: !simt.disjoint_slice<f32, 1d>, %b: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// Rule 1: one tensor bound to two exclusive outputs is moved twice by the same launch.
func.func @f(%c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %one = arith.constant 1 : index
  // expected-error@+3 {{use of moved value: %c}}
  // expected-note@+2 {{value moved here}}
  // expected-note@+1 {{value used here after move}}
  %c2, %c3 = host.unsafe_launch @two grid(%one) block(%one) on %s outs(%c, %c : !host.tensor<f32, [64]>, !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>, !host.tensor<f32, [64]>
  func.return
}

// -----

simt.kernel @vecadd(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [64]> {
  simt.return
}

// Rule 2: a tensor passed as an exclusive output may not also be an input of the same launch.
// doc:begin e0502
func.func @f(%a: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %one = arith.constant 1 : index
  %p = host.prepare @vecadd grid(%one) block(%one) args(%a, %c, %c : !host.tensor<f32, [64]>, !host.tensor<f32, [64]>, !host.tensor<f32, [64]>)
  // expected-error@+3 {{cannot borrow %c as immutable because it is also borrowed as mutable}}
  // expected-note@+2 {{mutable borrow occurs here}}
  // expected-note@+1 {{immutable borrow occurs here}}
  %c2 = host.launch @vecadd with %p on %s ins(%a, %c : !host.tensor<f32, [64]>, !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  func.return
}
// doc:end

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// Rule 2 holds for unsafe launches too.
func.func @f(%c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %one = arith.constant 1 : index
  // expected-error@+3 {{cannot borrow %c as immutable because it is also borrowed as mutable}}
  // expected-note@+2 {{mutable borrow occurs here}}
  // expected-note@+1 {{immutable borrow occurs here}}
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%c : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  func.return
}

// -----

tile.kernel @add(%z: !tile.partition<f32, [128]>, %x: !tile.tensor<f32, [?]>) {
  tile.return
}

// Rules 1-2 for tile launches, as in cutile-rs: the output was moved into its partition, so
// passing it as an input too is a use of a moved value.
// doc:begin tile-moved
func.func @f(%z: !host.tensor<f32, [1024]>) {
  %s = host.stream
  // expected-note@+1 {{value moved here}}
  %pz = host.partition %z : !host.tensor<f32, [1024]> -> !host.partition<f32, [1024], [128]>
  // expected-error@+2 {{use of moved value: %z}}
  // expected-note@+1 {{value used here after move}}
  %pz2 = host.tile_launch @add on %s ins(%z : !host.tensor<f32, [1024]>) outs(%pz : !host.partition<f32, [1024], [128]>) -> !host.partition<f32, [1024], [128]>
  func.return
}
// doc:end

// -----

tile.kernel @add(%z: !tile.partition<f32, [128]>, %x: !tile.tensor<f32, [?]>) {
  tile.return
}

// A tile launch moves its partitions.
func.func @f(%x: !host.tensor<f32, [1024]>, %pz: !host.partition<f32, [1024], [128]>) {
  %s = host.stream
  // expected-note@+1 {{value moved here}}
  %pz2 = host.tile_launch @add on %s ins(%x : !host.tensor<f32, [1024]>) outs(%pz : !host.partition<f32, [1024], [128]>) -> !host.partition<f32, [1024], [128]>
  // expected-error@+2 {{use of moved value: %pz}}
  // expected-note@+1 {{value used here after move}}
  %z = host.unpartition %pz : !host.partition<f32, [1024], [128]> -> !host.tensor<f32, [1024]>
  func.return
}

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// Loops: a tensor defined outside a loop and moved inside it is moved again on the next iteration.
func.func @f(%x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  scf.for %i = %lo to %one step %one {
    // expected-error@+3 {{use of moved value: %c}}
    // expected-note@+2 {{value moved here, in previous iteration of loop}}
    // expected-note@+1 {{value used here after move}}
    %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  }
  func.return
}

// -----

// Loops: a borrow early in the body meets the move later in the body of the previous iteration.
func.func @f(%t: !host.tensor<f32, [64]>) {
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  scf.for %i = %lo to %one step %one {
    // expected-error@+2 {{use of moved value: %t}}
    // expected-note@+1 {{value used here after move}}
    host.print %t : !host.tensor<f32, [64]>
    // The move itself is a second use on the next iteration, reported too.
    // expected-error@+4 {{use of moved value: %t}}
    // expected-note@+3 {{value moved here, in previous iteration of loop}}
    // expected-note@+2 {{value moved here, in previous iteration of loop}}
    // expected-note@+1 {{value used here after move}}
    %p = host.partition %t : !host.tensor<f32, [64]> -> !host.partition<f32, [64], [64]>
  }
  func.return
}

// -----

// A value moved in one branch of an scf.if may have been moved after it.
func.func @f(%cond: i1, %t: !host.tensor<f32, [64]>) {
  scf.if %cond {
    // expected-note@+1 {{value moved here}}
    %p = host.partition %t : !host.tensor<f32, [64]> -> !host.partition<f32, [64], [64]>
  }
  // expected-error@+2 {{use of moved value: %t}}
  // expected-note@+1 {{value used here after move}}
  host.print %t : !host.tensor<f32, [64]>
  func.return
}

// -----

// Yielding a tensor moves it into the scf.if's result.
func.func @f(%cond: i1, %t: !host.tensor<f32, [64]>, %u: !host.tensor<f32, [64]>) {
  %r = scf.if %cond -> (!host.tensor<f32, [64]>) {
    // expected-note@+1 {{value moved here}}
    scf.yield %t : !host.tensor<f32, [64]>
  } else {
    scf.yield %u : !host.tensor<f32, [64]>
  }
  // expected-error@+2 {{use of moved value: %t}}
  // expected-note@+1 {{value used here after move}}
  host.print %t : !host.tensor<f32, [64]>
  func.return
}

// -----

// Unstructured control flow: a move on one path reaches the join.
func.func @f(%cond: i1, %t: !host.tensor<f32, [64]>) {
  cf.cond_br %cond, ^move, ^join
^move:
  // expected-note@+1 {{value moved here}}
  %p = host.partition %t : !host.tensor<f32, [64]> -> !host.partition<f32, [64], [64]>
  cf.br ^join
^join:
  // expected-error@+2 {{use of moved value: %t}}
  // expected-note@+1 {{value used here after move}}
  host.print %t : !host.tensor<f32, [64]>
  func.return
}

// -----

// A loop in unstructured control flow: the move comes back around the back edge.
func.func @f(%b: i1, %t: !host.tensor<f32, [64]>) {
  cf.br ^loop
^loop:
  // expected-error@+3 {{use of moved value: %t}}
  // expected-note@+2 {{value moved here, in previous iteration of loop}}
  // expected-note@+1 {{value used here after move}}
  %p = host.partition %t : !host.tensor<f32, [64]> -> !host.partition<f32, [64], [64]>
  cf.cond_br %b, ^loop, ^exit
^exit:
  func.return
}

// -----

// Each caller array is bound once, so two tensors never alias one array.
func.func @f() {
  // expected-note@+1 {{first bound here}}
  %a = host.from_array 0 : !host.tensor<f32, [?]>
  %b = host.from_array 1 : !host.tensor<f32, [?]>
  // expected-error@+1 {{caller array 0 is already bound to a tensor; binding it again would alias it}}
  %c = host.from_array 0 : !host.tensor<f32, [?]>
  func.return
}

// -----

func.func @f() {
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  scf.for %i = %lo to %one step %one {
    // expected-error@+2 {{caller array 0 is already bound to a tensor; binding it again would alias it}}
    // expected-note@+1 {{first bound here, in previous iteration of loop}}
    %a = host.from_array 0 : !host.tensor<f32, [?]>
  }
  func.return
}

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [64]> {
  simt.return
}

// Rule 5: a safe launch needs a proof made by host.prepare, not one handed in from outside.
// expected-note@+1 {{this prepared value does not come from host.prepare}}
func.func @f(%p: !host.prepared<@scale>, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  // expected-error@+1 {{safe launch of @scale needs a launch prepared by host.prepare @scale}}
  %c2 = host.launch @scale with %p on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  func.return
}

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [64]> {
  simt.return
}

func.func @f(%x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  // expected-note@+1 {{this prepared value does not come from host.prepare}}
  %p = builtin.unrealized_conversion_cast to !host.prepared<@scale>
  // expected-error@+1 {{safe launch of @scale needs a launch prepared by host.prepare @scale}}
  %c2 = host.launch @scale with %p on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  func.return
}

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// Launches are asynchronous: results are readable on the host only after a sync of their stream.
// doc:begin sync
func.func @f(%x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]> {
  %s = host.stream
  %one = arith.constant 1 : index
  // expected-note@+3 {{launched here}}
  // expected-note@+2 {{launched here}}
  // expected-note@+1 {{launched here}}
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  // expected-error@+1 {{cannot read %c2 before `host.sync_on %s`: a launch on %s may still be writing it}}
  host.check %c2, %x : !host.tensor<f32, [64]>, !host.tensor<f32, [64]>
  // expected-error@+1 {{cannot read %c2 before `host.sync_on %s`: a launch on %s may still be writing it}}
  host.print %c2 : !host.tensor<f32, [64]>
  // expected-error@+1 {{cannot return %c2 before `host.sync_on %s`: a launch on %s may still be writing it}}
  func.return %c2 : !host.tensor<f32, [64]>
}
// doc:end

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// A result is still pending after a loop that launched without syncing.
func.func @f(%x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  %r = scf.for %i = %lo to %one step %one iter_args(%ci = %c) -> (!host.tensor<f32, [64]>) {
    // expected-note@+1 {{launched here}}
    %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%ci : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
    scf.yield %c2 : !host.tensor<f32, [64]>
  }
  // expected-error@+1 {{cannot read %r before `host.sync_on %s`: a launch on %s may still be writing it}}
  host.print %r : !host.tensor<f32, [64]>
  func.return
}

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// Another stream must wait for the sync of the stream that writes, or reads, the tensor.
func.func @f(%x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>, %d: !host.tensor<f32, [64]>, %e: !host.tensor<f32, [64]>) {
  %s1 = host.stream
  %s2 = host.stream
  %one = arith.constant 1 : index
  // expected-note@+2 {{launched here}}
  // expected-note@+1 {{launched here}}
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s1 ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  // expected-error@+1 {{cannot use %c2 on stream %s2 before `host.sync_on %s1`: a launch on %s1 may still be writing it}}
  %d2 = host.unsafe_launch @scale grid(%one) block(%one) on %s2 ins(%c2 : !host.tensor<f32, [64]>) outs(%d : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  // expected-error@+1 {{cannot use %x on stream %s2 before `host.sync_on %s1`: a launch on %s1 may still be reading it}}
  %x2 = host.unsafe_launch @scale grid(%one) block(%one) on %s2 ins(%e : !host.tensor<f32, [64]>) outs(%x : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  func.return
}

// -----

simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

// Every violation is reported, not only the first.
func.func @f(%x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %one = arith.constant 1 : index
  // expected-note@+2 {{value moved here}}
  // expected-note@+1 {{launched here}}
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  // expected-error@+1 {{cannot read %c2 before `host.sync_on %s`: a launch on %s may still be writing it}}
  host.print %c2 : !host.tensor<f32, [64]>
  // expected-error@+2 {{use of moved value: %c}}
  // expected-note@+1 {{value used here after move}}
  host.print %c : !host.tensor<f32, [64]>
  // expected-error@+3 {{cannot borrow %x as immutable because it is also borrowed as mutable}}
  // expected-note@+2 {{mutable borrow occurs here}}
  // expected-note@+1 {{immutable borrow occurs here}}
  %x2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%x : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  func.return
}
