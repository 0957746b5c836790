// RUN: ferrox-opt %s -t llvm --split-input-file --verify-diagnostics

// expected-error@+1 {{function declaration @decl has 'internal' linkage; a declaration must be 'external' or 'extern_weak' (give it a body or drop the linkage)}}
llvm.func internal @decl(i32) -> i32

// -----

// expected-error@+1 {{kernel @k must return void, not i32}}
llvm.func @k() -> i32 attributes {nvvm.kernel} {
  %0 = llvm.mlir.constant(0 : i32) : i32
  llvm.return %0 : i32
}

// -----

// xDSL's FuncOp builder defaults to internal linkage; an internal kernel would silently vanish.
// expected-error@+1 {{kernel @k has 'internal' linkage, so LLVM may delete it and the driver could not find it; a kernel must be external}}
llvm.func internal ptx_kernel @k() {
  llvm.return
}

// -----

// expected-error@+1 {{'nvvm.reqntid' is only meaningful on a kernel; @f is not one}}
llvm.func @f() attributes {nvvm.reqntid = array<i32: 32>} {
  llvm.return
}

// -----

// expected-error@+1 {{kernel @k has both nvvm.reqntid and nvvm.maxntid; ptxas rejects .reqntid together with .maxntid, keep one}}
llvm.func @k() attributes {nvvm.kernel, nvvm.reqntid = array<i32: 32>, nvvm.maxntid = array<i32: 64>} {
  llvm.return
}

// -----

// expected-error@+1 {{'nvvm.reqntid' asks for 2048 threads per block; a block has at most 1024}}
llvm.func @k() attributes {nvvm.kernel, nvvm.reqntid = array<i32: 64, 32>} {
  llvm.return
}

// -----

// expected-error@+1 {{'nvvm.reqntid' must be array<i32: x[, y[, z]]> of positive values, got array<i32: 0, 4>}}
llvm.func @k() attributes {nvvm.kernel, nvvm.reqntid = array<i32: 0, 4>} {
  llvm.return
}

// -----

// expected-error@+1 {{'nvvm.minctasm' must be a positive integer, got "two"}}
llvm.func @k() attributes {nvvm.kernel, nvvm.minctasm = "two"} {
  llvm.return
}

// -----

// expected-error@+1 {{argument #0 of @f: unsupported attribute 'llvm.restrict'}}
llvm.func @f(%p: !llvm.ptr<1> {llvm.restrict}) {
  llvm.return
}

// -----

// expected-error@+1 {{passthrough entry 3 : i64 is neither "name" nor ["key", "value"]}}
llvm.func @f() attributes {passthrough = [3]} {
  llvm.return
}

// -----

// expected-error@+1 {{shared-memory global @tile has an initial value; NVPTX cannot initialise .shared variables, store the values from the kernel instead}}
llvm.mlir.global internal @tile(dense<0.0> : tensor<4xf32>) {addr_space = 3 : i32} : !llvm.array<4 x f32>

// -----

llvm.func @f(%a: i32) {
  // expected-error@+1 {{'arith.addi' has no LLVM IR form: lower it to the llvm dialect first (the lower-to-llvm pipeline)}}
  %0 = arith.addi %a, %a : i32
  llvm.return
}

// -----

// expected-error@+1 {{'func.func' cannot appear at the top level of a module exported to LLVM IR (only llvm.func and llvm.mlir.global can)}}
func.func @f() {
  func.return
}

// -----

// Every problem is reported, not only the first.
// expected-error@+1 {{kernel @a must return void, not f32}}
llvm.func @a(%x: f32) -> f32 attributes {nvvm.kernel} {
  llvm.return %x : f32
}
// expected-error@+1 {{'nvvm.maxntid' is only meaningful on a kernel; @b is not one}}
llvm.func @b() attributes {nvvm.maxntid = array<i32: 32>} {
  llvm.return
}
