// RUN: ferrox-opt %s --split-input-file --verify-diagnostics

// Every op-local rule of the host dialect, each with its exact diagnostic.

func.func @f() {
  // expected-error@+1 {{tensor element type must be an integer or float type, got index}}
  %z = host.zeros : !host.tensor<index, [4]>
  func.return
}

// -----

func.func @f() {
  // expected-error@+1 {{tensor must have at least one dimension}}
  %z = host.zeros : !host.tensor<f32, []>
  func.return
}

// -----

func.func @f() {
  // expected-error@+1 {{tile dimensions must be static powers of two, got 100 in [100]}}
  %z = "host.zeros"() : () -> !host.partition<f32, [1000], [100]>
  func.return
}

// -----

func.func @f() {
  // expected-error@+1 {{tile shape [128] must have the rank of the tensor shape [64, 64]}}
  %z = "host.zeros"() : () -> !host.partition<f32, [64, 64], [128]>
  func.return
}

// -----

func.func @f() {
  // expected-error@+1 {{Unexpected dynamic dimension!}}
  %z = "host.zeros"() : () -> !host.partition<f32, [64], [?]>
  func.return
}

// -----

func.func @f() {
  // expected-error@+1 {{expected a kernel symbol such as @vecadd, got 1 : i64}}
  %z = "host.zeros"() : () -> !host.prepared<1>
  func.return
}

// -----

func.func @f(%n: index) {
  // expected-error@+1 {{!host.tensor<f32, [?, ?]> has 2 dynamic dimension(s), but 1 size operand(s) were given}}
  %z = host.zeros(%n) : !host.tensor<f32, [?, ?]>
  func.return
}

// -----

func.func @f(%n: index) {
  // expected-error@+1 {{!host.tensor<f32, [8]> has 0 dynamic dimension(s), but 1 size operand(s) were given}}
  %z = host.poison(%n) : !host.tensor<f32, [8]>
  func.return
}

// -----

func.func @f(%v: f64) {
  // expected-error@+1 {{fill value has type f64, but the tensor's element type is f32}}
  %z = host.full %v : f64 -> !host.tensor<f32, [8]>
  func.return
}

// -----

func.func @f() {
  // expected-error@+1 {{uniform range needs low < high, got (1.0, 1.0)}}
  %z = host.random uniform(1.0, 1.0) seed 1 : !host.tensor<f32, [8]>
  func.return
}

// -----

func.func @f() {
  // expected-error@+1 {{normal distribution needs a positive stddev, got -1.0}}
  %z = host.random normal(0.0, -1.0) seed 1 : !host.tensor<f32, [8]>
  func.return
}

// -----

func.func @f() {
  // expected-error@+1 {{array index must be non-negative, got -1}}
  %z = host.from_array -1 : !host.tensor<f32, [8]>
  func.return
}

// -----

func.func @f() {
  // expected-error@+1 {{parameter name must be an identifier, got "n m"}}
  %n = host.param "n m" = 3 : index
  func.return
}

// -----

func.func @f() {
  // The default's type is the result type.
  // expected-error@+1 {{attribute index expected from variable 'T', but got i32}}
  %n = "host.param"() <{name = "n", default = 3 : i32}> : () -> index
  func.return
}

// -----

simt.kernel @k(%out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256]> {
  simt.return
}

func.func @f(%c: !host.tensor<f32, [8]>) {
  %g = arith.constant 1 : index
  // expected-error@+1 {{block needs 1 to 3 dimensions, got 4}}
  %p = host.prepare @k grid(%g) block(%g, %g, %g, %g) args(%c : !host.tensor<f32, [8]>)
  func.return
}

// -----

func.func @f(%c: !host.tensor<f32, [8]>) {
  %g = arith.constant 1 : index
  // expected-error@+1 {{'@missing' does not reference a kernel in this module}}
  %p = host.prepare @missing grid(%g) block(%g) args(%c : !host.tensor<f32, [8]>)
  func.return
}

// -----

simt.kernel @raw(%out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

func.func @f(%c: !host.tensor<f32, [8]>) {
  %g = arith.constant 1 : index
  // expected-error@+1 {{@raw has no launch contract, so it cannot be prepared; give it a contract or launch it with host.unsafe_launch}}
  %p = host.prepare @raw grid(%g) block(%g) args(%c : !host.tensor<f32, [8]>)
  func.return
}

// -----

simt.kernel @k(%a: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256]> {
  simt.return
}

func.func @f(%c: !host.tensor<f32, [8]>) {
  %g = arith.constant 1 : index
  // expected-error@+1 {{@k takes 2 arguments, but args(...) has 1}}
  %p = host.prepare @k grid(%g) block(%g) args(%c : !host.tensor<f32, [8]>)
  func.return
}

// -----

simt.kernel @k(%a: !simt.slice<f32>, %n: index) contract<domain = 1, block = [256]> {
  simt.return
}

func.func @f(%a: !host.tensor<f16, [8]>, %n: index) {
  %g = arith.constant 1 : index
  // expected-error@+1 {{argument #0 has element type f16, but parameter #0 of @k (!simt.slice<f32>) has element type f32}}
  %p = host.prepare @k grid(%g) block(%g) args(%a, %n : !host.tensor<f16, [8]>, index)
  func.return
}

// -----

simt.kernel @k(%a: !simt.slice<f32>, %n: index) contract<domain = 1, block = [256]> {
  simt.return
}

func.func @f(%a: !host.tensor<f32, [8]>, %n: i32) {
  %g = arith.constant 1 : index
  // expected-error@+1 {{argument #1 has type i32, but parameter #1 of @k (index) is a scalar of that type}}
  %p = host.prepare @k grid(%g) block(%g) args(%a, %n : !host.tensor<f32, [8]>, i32)
  func.return
}

// -----

simt.kernel @k(%a: !simt.slice<f32>) contract<domain = 1, block = [256]> {
  simt.return
}

func.func @f(%a: !host.tensor<f32, [8]>) {
  %g = arith.constant 1 : index
  // expected-error@+1 {{prepares @k but its result is !host.prepared<@other>}}
  %p = "host.prepare"(%g, %g, %a) <{kernel = @k, operandSegmentSizes = array<i32: 1, 1, 0, 1>}> : (index, index, !host.tensor<f32, [8]>) -> !host.prepared<@other>
  func.return
}

// -----

simt.kernel @k(%out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256]> {
  simt.return
}

func.func @f(%p: !host.prepared<@other>, %s: !host.stream, %c: !host.tensor<f32, [8]>) {
  // expected-error@+1 {{launch of @k needs a prepared launch of @k, but got !host.prepared<@other>}}
  %c2 = "host.launch"(%p, %s, %c) <{kernel = @k, operandSegmentSizes = array<i32: 1, 1, 0, 1>}> : (!host.prepared<@other>, !host.stream, !host.tensor<f32, [8]>) -> !host.tensor<f32, [8]>
  func.return
}

// -----

simt.kernel @k(%out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256]> {
  simt.return
}

func.func @f(%p: !host.prepared<@other>, %s: !host.stream, %c: !host.tensor<f32, [8]>) {
  // In the custom form the prepared value's type follows from the kernel, so a mismatch is a type error.
  // expected-error@+1 {{operand is used with type !host.prepared<@k>, but has been previously used or defined with type !host.prepared<@other>}}
  %c2 = host.launch @k with %p on %s outs(%c : !host.tensor<f32, [8]>) -> !host.tensor<f32, [8]>
  func.return
}

// -----

simt.kernel @k(%out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256]> {
  simt.return
}

func.func @f(%p: !host.prepared<@k>, %s: !host.stream, %c: !host.tensor<f32, [8]>) {
  // expected-error@+1 {{a launch gives back every tensor it takes: expected results (!host.tensor<f32, [8]>), got ()}}
  "host.launch"(%p, %s, %c) <{kernel = @k, operandSegmentSizes = array<i32: 1, 1, 0, 1>}> : (!host.prepared<@k>, !host.stream, !host.tensor<f32, [8]>) -> ()
  func.return
}

// -----

simt.kernel @k(%a: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256]> {
  simt.return
}

func.func @f(%p: !host.prepared<@k>, %s: !host.stream, %a: !host.tensor<f32, [8]>, %c: !host.tensor<f32, [8]>) {
  // An exclusive output passed in ins: the counts do not match the kernel's roles.
  // expected-error@+1 {{@k takes 1 input and 1 exclusive output, but this launch passes 2 inputs and 0 outputs}}
  host.launch @k with %p on %s ins(%a, %c : !host.tensor<f32, [8]>, !host.tensor<f32, [8]>)
  func.return
}

// -----

simt.kernel @k(%a: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256]> {
  simt.return
}

func.func @f(%p: !host.prepared<@k>, %s: !host.stream, %a: !host.tensor<f32, [8]>, %c: !host.tensor<i32, [8]>) {
  // expected-error@+1 {{outs operand #0 has element type i32, but parameter #1 of @k (!simt.disjoint_slice<f32, 1d>) has element type f32}}
  %c2 = host.launch @k with %p on %s ins(%a : !host.tensor<f32, [8]>) outs(%c : !host.tensor<i32, [8]>) -> !host.tensor<i32, [8]>
  func.return
}

// -----

simt.kernel @k(%a: !simt.slice<f32>) contract<domain = 1, block = [256]> {
  simt.return
}

func.func @f(%p: !host.prepared<@k>, %s: !host.stream) {
  // expected-error@+1 {{ins operand #0 has type !host.stream; a launch takes tensors and scalars}}
  host.launch @k with %p on %s ins(%s : !host.stream)
  func.return
}

// -----

simt.kernel @k(%a: !simt.shared<f32, [4]>) unsafe {
  simt.return
}

func.func @f(%s: !host.stream, %a: !host.tensor<f32, [4]>) {
  %g = arith.constant 1 : index
  // expected-error@+1 {{parameter #0 of @k (!simt.shared<f32, [4]>) has a type no host launch can bind}}
  host.unsafe_launch @k grid(%g) block(%g) on %s ins(%a : !host.tensor<f32, [4]>)
  func.return
}

// -----

simt.kernel @k(%a: !simt.slice<f32>) {
  simt.return
}

func.func @f(%s: !host.stream, %a: !host.tensor<f32, [4]>) {
  %g = arith.constant 1 : index
  // expected-error@+1 {{grid needs 1 to 3 dimensions, got 0}}
  "host.unsafe_launch"(%g, %s, %a) <{kernel = @k, operandSegmentSizes = array<i32: 0, 1, 0, 1, 1, 0>}> : (index, !host.stream, !host.tensor<f32, [4]>) -> ()
  func.return
}

// -----

func.func @f(%t: !host.tensor<f32, [1000]>) {
  // expected-error@+1 {{partition !host.partition<f32, [1024], [128]> does not cover tensor !host.tensor<f32, [1000]>: element type and shape must match}}
  %p = host.partition %t : !host.tensor<f32, [1000]> -> !host.partition<f32, [1024], [128]>
  func.return
}

// -----

func.func @f(%p: !host.partition<f32, [1024], [128]>) {
  // expected-error@+1 {{partition !host.partition<f32, [1024], [128]> does not cover tensor !host.tensor<i32, [1024]>: element type and shape must match}}
  %t = host.unpartition %p : !host.partition<f32, [1024], [128]> -> !host.tensor<i32, [1024]>
  func.return
}

// -----

tile.kernel @add(%z: !tile.partition<f32, [128]>, %x: !tile.tensor<f32, [?]>) {
  tile.return
}

func.func @f(%s: !host.stream, %x: !host.tensor<f32, [1024]>) {
  // expected-error@+1 {{a tile launch needs an output partition to take its grid from}}
  host.tile_launch @add on %s ins(%x : !host.tensor<f32, [1024]>)
  func.return
}

// -----

tile.kernel @two(%z: !tile.partition<f32, [128]>, %w: !tile.partition<f32, [128]>) {
  tile.return
}

func.func @f(%s: !host.stream, %z: !host.partition<f32, [1024], [128]>, %w: !host.partition<f32, [512], [128]>) {
  // expected-error@+1 {{output partitions disagree on the grid: outs operand #0 has [8] tiles, outs operand #1 has [4]}}
  %z2, %w2 = host.tile_launch @two on %s outs(%z, %w : !host.partition<f32, [1024], [128]>, !host.partition<f32, [512], [128]>) -> !host.partition<f32, [1024], [128]>, !host.partition<f32, [512], [128]>
  func.return
}

// -----

tile.kernel @add(%z: !tile.partition<f32, [128]>, %x: !tile.tensor<f32, [?]>) {
  tile.return
}

func.func @f(%s: !host.stream, %z: !host.partition<f32, [1024], [256]>, %x: !host.tensor<f32, [1024]>) {
  // expected-error@+1 {{outs operand #0 has type !host.partition<f32, [1024], [256]>, but parameter #0 of @add (!tile.partition<f32, [128]>) expects tiles of [128], not [256]}}
  %z2 = host.tile_launch @add on %s ins(%x : !host.tensor<f32, [1024]>) outs(%z : !host.partition<f32, [1024], [256]>) -> !host.partition<f32, [1024], [256]>
  func.return
}

// -----

tile.kernel @rows(%z: !tile.partition<f32, [1, 128]>, %x: !tile.tensor<f32, [?, 128]>) {
  tile.return
}

func.func @f(%s: !host.stream, %z: !host.partition<f32, [64, 128], [1, 128]>, %x: !host.tensor<f32, [64, 256]>) {
  // expected-error@+1 {{ins operand #0 has type !host.tensor<f32, [64, 256]>, but parameter #1 of @rows (!tile.tensor<f32, [?, 128]>) expects a tensor of shape [?, 128]}}
  %z2 = host.tile_launch @rows on %s ins(%x : !host.tensor<f32, [64, 256]>) outs(%z : !host.partition<f32, [64, 128], [1, 128]>) -> !host.partition<f32, [64, 128], [1, 128]>
  func.return
}

// -----

tile.kernel @add(%z: !tile.partition<f32, [128]>) {
  tile.return
}

func.func @f(%p: !host.prepared<@add>, %s: !host.stream, %c: !host.tensor<f32, [1024]>) {
  // expected-error@+1 {{@add is a tile.kernel; launch it with host.tile_launch}}
  %c2 = host.launch @add with %p on %s outs(%c : !host.tensor<f32, [1024]>) -> !host.tensor<f32, [1024]>
  func.return
}

// -----

func.func @f(%c: !host.tensor<f32, [8]>) {
  // expected-error@+1 {{host.check needs exactly one of a reference tensor or a formula}}
  "host.check"(%c) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (!host.tensor<f32, [8]>) -> ()
  func.return
}

// -----

func.func @f(%c: !host.tensor<f32, [8]>, %r: !host.tensor<f32, [8]>) {
  // expected-error@+1 {{host.check needs exactly one of a reference tensor or a formula}}
  "host.check"(%c, %r) <{formula = "r", operandSegmentSizes = array<i32: 1, 1, 0>}> : (!host.tensor<f32, [8]>, !host.tensor<f32, [8]>) -> ()
  func.return
}

// -----

func.func @f(%c: !host.tensor<f32, [8]>, %r: !host.tensor<f64, [8]>) {
  // expected-error@+1 {{result has element type f32, reference has f64}}
  host.check %c, %r : !host.tensor<f32, [8]>, !host.tensor<f64, [8]>
  func.return
}

// -----

func.func @f(%c: !host.tensor<f32, [8]>, %r: !host.tensor<f32, [?, 8]>) {
  // expected-error@+1 {{result shape [8] and reference shape [?, 8] differ}}
  host.check %c, %r : !host.tensor<f32, [8]>, !host.tensor<f32, [?, 8]>
  func.return
}

// -----

func.func @f(%c: !host.tensor<f32, [8]>, %r: !host.tensor<f32, [8]>) {
  // expected-error@+1 {{rtol must be non-negative, got -1.0}}
  host.check %c, %r rtol -1.0 : !host.tensor<f32, [8]>, !host.tensor<f32, [8]>
  func.return
}

// -----

func.func @f(%c: !host.tensor<f32, [8]>, %a: !host.tensor<f32, [8]>) {
  // expected-error@+1 {{formula "a +" is not a Python expression: invalid syntax}}
  host.check %c, "a +" (a = %a : !host.tensor<f32, [8]>) : !host.tensor<f32, [8]>
  func.return
}

// -----

func.func @f(%c: !host.tensor<f32, [8]>, %a: !host.tensor<f32, [8]>) {
  // expected-error@+1 {{formula uses 'b', which is not bound (bound names: a)}}
  host.check %c, "a + b" (a = %a : !host.tensor<f32, [8]>) : !host.tensor<f32, [8]>
  func.return
}

// -----

func.func @f(%c: !host.tensor<f32, [8]>, %a: !host.tensor<f32, [8]>) {
  // expected-error@+1 {{formula name 'a' is bound twice}}
  host.check %c, "a + a" (a = %a : !host.tensor<f32, [8]>, a = %a : !host.tensor<f32, [8]>) : !host.tensor<f32, [8]>
  func.return
}

// -----

func.func @f(%c: !host.tensor<f32, [8]>, %a: !host.tensor<f32, [8]>) {
  // expected-error@+1 {{'np' cannot name a formula input}}
  host.check %c, "np" (np = %a : !host.tensor<f32, [8]>) : !host.tensor<f32, [8]>
  func.return
}

// -----

func.func @f(%c: !host.tensor<f32, [8]>, %s: !host.stream) {
  // expected-error@+1 {{formula name 's' is bound to a !host.stream}}
  host.check %c, "s" (s = %s : !host.stream) : !host.tensor<f32, [8]>
  func.return
}

// -----

func.func @f(%s: !host.stream) {
  // expected-error@+1 {{host.print prints tensors and scalars, not !host.stream}}
  host.print %s : !host.stream
  func.return
}

// -----

tile.kernel @add(%z: !tile.partition<f32, [128]>) {
  tile.return
}

func.func @f(%z: !host.partition<f32, [1024], [128]>) {
  %g = arith.constant 1 : index
  // expected-error@+1 {{@add is a tile.kernel; launch it with host.tile_launch}}
  %p = host.prepare @add grid(%g) block(%g) args(%z : !host.partition<f32, [1024], [128]>)
  func.return
}

// -----

simt.kernel @k(%out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

func.func @f(%s: !host.stream, %z: !host.partition<f32, [1024], [128]>) {
  // expected-error@+1 {{@k is a simt.kernel; launch it with host.launch or host.unsafe_launch}}
  %z2 = host.tile_launch @k on %s outs(%z : !host.partition<f32, [1024], [128]>) -> !host.partition<f32, [1024], [128]>
  func.return
}

// -----

tile.kernel @add(%z: !tile.partition<f32, [128]>, %x: !tile.tensor<f32, [?]>) {
  tile.return
}

func.func @f(%s: !host.stream, %z: !host.partition<f32, [1024], [128]>, %x: !host.partition<f32, [1024], [128]>) {
  // expected-error@+1 {{ins operand #0 has type !host.partition<f32, [1024], [128]>; a launch takes tensors and scalars}}
  %z2 = host.tile_launch @add on %s ins(%x : !host.partition<f32, [1024], [128]>) outs(%z : !host.partition<f32, [1024], [128]>) -> !host.partition<f32, [1024], [128]>
  func.return
}

// -----

simt.kernel @atomic(%h: !simt.atomic_slice<i32>) {
  simt.return
}

func.func @f(%s: !host.stream, %h: !host.tensor<i32, [256]>) {
  %g = arith.constant 1 : index
  // An atomic slice is written by every thread: it is an exclusive output, bound in outs.
  // expected-error@+1 {{@atomic takes 0 inputs and 1 exclusive output, but this launch passes 1 input and 0 outputs}}
  host.unsafe_launch @atomic grid(%g) block(%g) on %s ins(%h : !host.tensor<i32, [256]>)
  func.return
}

// -----

func.func @f() {
  // expected-error@+1 {{tensor dimensions must be non-negative or '?', got 9223372036854775808}}
  %z = host.zeros : !host.tensor<f32, [9223372036854775808]>
  func.return
}

// -----

func.func @g(%t: !host.tensor<f32, [8]>) {
  func.return
}

func.func @f(%t: !host.tensor<f32, [8]>) {
  %g = arith.constant 1 : index
  // expected-error@+1 {{@g is a func.func, not a kernel}}
  %p = host.prepare @g grid(%g) block(%g) args(%t : !host.tensor<f32, [8]>)
  func.return
}
