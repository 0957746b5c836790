// RUN: ferrox-opt %s --split-input-file --verify-diagnostics

// Every op-local rule of the simt dialect (the safety rules are verify-disjoint's; see
// tests/filecheck/passes/verify-disjoint-invalid.mlir).

// expected-error@+1 {{2d index space needs a positive stride, got 0}}
simt.func @f(%w: !simt.thread_index<2d<0>>) {
  simt.return
}

// -----

// expected-error@+1 {{unknown index space '3d', expected 1d, 2d<stride>, 2d_runtime or warp}}
simt.func @f(%w: !simt.thread_index<3d>) {
  simt.return
}

// -----

// expected-error@+1 {{shared array dimensions must be positive, got [16, 0]}}
simt.func @f(%s: !simt.shared<f32, [16, 0]>) {
  simt.return
}

// -----

// expected-error@+1 {{shared array rank must be 1 to 3, got 4}}
simt.func @f(%s: !simt.shared<f32, [2, 2, 2, 2]>) {
  simt.return
}

// -----

// expected-error@+1 {{launch contract domain must be 1, 2 or 3, got 4}}
simt.kernel @k() contract<domain = 4, block = [32]> {
  simt.return
}

// -----

// expected-error@+1 {{launch contract block must have 1 to 3 dimensions, got 4}}
simt.kernel @k() contract<domain = 3, block = [2, 2, 2, 2]> {
  simt.return
}

// -----

// expected-error@+1 {{launch contract block dimensions must be positive, got [32, 0]}}
simt.kernel @k() contract<domain = 2, block = [32, 0]> {
  simt.return
}

// -----

// expected-error@+1 {{launch contract shared_bytes must be non-negative}}
simt.kernel @k() contract<domain = 1, block = [32], shared_bytes = -4> {
  simt.return
}

// -----

// expected-error@+1 {{launch contract needs 'block = ...'}}
simt.kernel @k() contract<domain = 1> {
  simt.return
}

// -----

// expected-error@+1 {{unknown launch contract field 'grid', expected domain, block, shared_bytes, min_cc or requires}}
simt.kernel @k() contract<domain = 1, grid = [4]> {
  simt.return
}

// -----

// expected-error@+1 {{duplicate launch contract field 'domain'}}
simt.kernel @k() contract<domain = 1, domain = 2, block = [4]> {
  simt.return
}

// -----

// expected-error@+1 {{expected a size expression: an integer, argN or len(argN)}}
simt.kernel @k(%n: index) contract<domain = 1, block = [32], requires = [n >= 1]> {
  simt.return
}

// -----

// expected-error@+1 {{expected a relation: >=, <=, ==, > or <}}
simt.kernel @k(%n: index) contract<domain = 1, block = [32], requires = [arg0 + 1]> {
  simt.return
}

// -----

// expected-error@+1 {{launch contract relation 'arg1 >= 1' names arg1, but the kernel has 1 parameters}}
simt.kernel @k(%n: index) contract<domain = 1, block = [32], requires = [arg1 >= 1]> {
  simt.return
}

// -----

// expected-error@+1 {{launch contract relation 'len(arg0) >= 1': len(arg0) needs a slice parameter, found index}}
simt.kernel @k(%n: index) contract<domain = 1, block = [32], requires = [len(arg0) >= 1]> {
  simt.return
}

// -----

// expected-error@+1 {{launch contract relation 'arg0 >= 1': arg0 needs an integer or index parameter, found !simt.slice<f32>}}
simt.kernel @k(%a: !simt.slice<f32>) contract<domain = 1, block = [32], requires = [arg0 >= 1]> {
  simt.return
}

// -----

// expected-error@+1 {{'simt.kernel' returns nothing; write outputs to disjoint slices}}
"simt.kernel"() <{sym_name = "k", function_type = () -> f32}> ({
  %x = arith.constant 1.0 : f32
  "simt.return"(%x) : (f32) -> ()
}) : () -> ()

// -----

// expected-error@+1 {{'simt.kernel' entry block arguments do not match its function type}}
"simt.kernel"() <{sym_name = "k", function_type = (f32) -> ()}> ({
^bb0(%x: i32):
  simt.return
}) : () -> ()

// -----

simt.kernel @k(%x: f32) {
  // expected-error@+1 {{'simt.return' types (f32) do not match the kernel results ()}}
  simt.return %x : f32
}

// -----

simt.func @f(%x: f32) -> i32 {
  // expected-error@+1 {{'simt.return' types (f32) do not match the function results (i32)}}
  simt.return %x : f32
}

// -----

simt.kernel @k() {
  // expected-error@+1 {{'@nope' does not name a 'simt.func' in this module}}
  simt.call @nope() : () -> ()
  simt.return
}

// -----

simt.kernel @other() {
  simt.return
}
simt.kernel @k() {
  // expected-error@+1 {{'@other' is a kernel; kernels are launched, not called}}
  simt.call @other() : () -> ()
  simt.return
}

// -----

simt.func @f(%x: f32) {
  simt.return
}
simt.kernel @k() {
  // expected-error@+1 {{'@f' takes 1 arguments, 0 given}}
  simt.call @f() : () -> ()
  simt.return
}

// -----

simt.func @f(%x: f32) {
  simt.return
}
simt.kernel @k(%y: i32) {
  // expected-error@+1 {{argument 0 of '@f' has type i32, expected f32}}
  simt.call @f(%y) : (i32) -> ()
  simt.return
}

// -----

simt.func @f() -> f32 {
  %x = arith.constant 1.0 : f32
  simt.return %x : f32
}
simt.kernel @k() {
  // expected-error@+1 {{result types do not match the signature of '@f'}}
  %r = simt.call @f() : () -> i32
  simt.return
}

// -----

simt.kernel @k() {
  // expected-error@+1 {{'simt.index_2d' produces a 2d<stride> witness, found 2d_runtime; use simt.index_2d_runtime for 2d_runtime}}
  %w = simt.index_2d : !simt.thread_index<2d_runtime>
  simt.return
}

// -----

simt.kernel @k(%out: !simt.disjoint_slice<f32, 1d>) {
  %w = simt.thread_index_1d
  // expected-error@+1 {{'simt.get_mut' region takes one argument of the element type f32 (the current value)}}
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: i32):
    %x = arith.constant 1.0 : f32
    simt.yield %x : f32
  }
  simt.return
}

// -----

simt.kernel @k(%out: !simt.disjoint_slice<f32, 1d>) {
  %w = simt.thread_index_1d
  // expected-error@+1 {{'simt.get_mut' region must end in 'simt.yield' of one f32 (the new value)}}
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() {
  scf.execute_region {
    // expected-error@+1 {{'simt.yield' ends only a 'simt.get_mut', 'simt.unsafe' or 'simt.specialize' region}}
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k() {
  // expected-error@+1 {{'simt.yield' types do not match the 'simt.unsafe' results}}
  %r = simt.unsafe -> f32 {
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @k(%i: index) unsafe {
  %s = simt.shared_alloc : !simt.shared<f32, [16, 16]>
  // expected-error@+1 {{'simt.shared_load' needs 2 indices for !simt.shared<f32, [16, 16]>, got 1}}
  %v = simt.shared_load %s[%i] : !simt.shared<f32, [16, 16]>
  simt.return
}

// -----

simt.kernel @k(%i: index, %v: f32) unsafe {
  %s = simt.shared_alloc : !simt.shared<f32, [16]>
  // expected-error@+1 {{'simt.shared_store' needs 1 indices for !simt.shared<f32, [16]>, got 2}}
  simt.shared_store %v, %s[%i, %i] : !simt.shared<f32, [16]>
  simt.return
}

// -----

simt.kernel @k(%bins: !simt.atomic_slice<i32>, %i: index, %v: i32) {
  // expected-error@+1 {{'simt.atomic_add' needs 1 indices for !simt.atomic_slice<i32>, got 2}}
  %o = simt.atomic_add %bins[%i, %i], %v : !simt.atomic_slice<i32>
  simt.return
}

// -----

simt.kernel @k(%bins: !simt.atomic_slice<f32>, %i: index, %v: f32) {
  // expected-error@+1 {{'simt.atomic_and' needs an integer element type, found f32}}
  %o = simt.atomic_and %bins[%i], %v : !simt.atomic_slice<f32>
  simt.return
}

// -----

simt.kernel @k(%bins: !simt.atomic_slice<f32>, %i: index, %v: f32) {
  // expected-error@+1 {{'simt.atomic_cas' needs an integer element type, found f32}}
  %o = simt.atomic_cas %bins[%i], %v, %v : !simt.atomic_slice<f32>
  simt.return
}

// -----

simt.kernel @k(%bins: !simt.atomic_slice<index>, %i: index) {
  // expected-error@+1 {{'simt.atomic_add' needs an integer or float element type, found index}}
  %o = simt.atomic_add %bins[%i], %i : !simt.atomic_slice<index>
  simt.return
}

// -----

// A shared array's alignment: a power of two from 16 to 1024.
simt.kernel @k() {
  // expected-error@+1 {{a shared array's align must be a power of two from 16 to 1024, got 48}}
  %s = simt.shared_alloc {align = 48} : !simt.shared<f32, [16]>
  simt.return
}

// -----

simt.kernel @k() contract<domain = 1, block = [32], shared_bytes = 4096> {
  // expected-error@+1 {{a shared array's align must be a power of two from 16 to 1024, got 2048}}
  %s = simt.shared_alloc {dynamic, align = 2048} : !simt.shared<f32, [16]>
  simt.return
}

// -----

simt.kernel @k() {
  // expected-error@+1 {{a shared array's align must be a power of two from 16 to 1024, got 8}}
  %s = simt.shared_alloc {align = 8} : !simt.shared<f32, [16]>
  simt.return
}

// -----

// The padding before an aligned dynamic array counts: a 16-byte array, then 64 bytes at 1024
// (each dynamic array checks the kernel's layout).
simt.kernel @k() contract<domain = 1, block = [32], shared_bytes = 80> {
  // expected-error@+1 {{the kernel's dynamic shared arrays take 1088 bytes, but its launch contract provides shared_bytes = 80}}
  %small = simt.shared_alloc {dynamic} : !simt.shared<f32, [4]>
  // expected-error@+1 {{the kernel's dynamic shared arrays take 1088 bytes, but its launch contract provides shared_bytes = 80}}
  %stage = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [32]>
  simt.return
}

// -----

simt.kernel @k() {
  // expected-error@+1 {{'simt.named_barrier' id must be 1 to 15 (0 is simt.sync_threads'), got 0}}
  simt.named_barrier {id = 0, threads = 256}
  simt.return
}

// -----

simt.kernel @k() {
  // expected-error@+1 {{'simt.named_barrier' threads must be a multiple of 32 from 32 to 1024 (whole warps), got 100}}
  simt.named_barrier {id = 1, threads = 100}
  simt.return
}
