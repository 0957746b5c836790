// RUN: ferrox-opt %s -p convert-to-llvm --split-input-file --verify-diagnostics

// Every op the conversion cannot lower is reported at its location, all in one run.
func.func @libdevice_only(%d: f64, %v: vector<4xf32>, %x: f32) {
  // expected-error@+1 {{cannot lower 'math.exp' to llvm: math.exp on f64 needs libdevice, which ferrox does not link; NVPTX approximates it only for f32 (and f16/bf16 through f32)}}
  %0 = math.exp %d : f64
  // expected-error@+1 {{cannot lower 'math.sin' to llvm: math.sin on vectors has no NVPTX expansion here; apply it to each element}}
  %1 = math.sin %v : vector<4xf32>
  // expected-error@+1 {{cannot lower 'math.atan' to llvm: math.atan has no NVPTX lowering in ferrox (see docs/lowering-math.md)}}
  %2 = math.atan %x : f32
  func.return
}

// -----

// expected-error@+1 {{cannot lower 'func.func' to llvm: function @pair returns 2 values; llvm functions return at most one}}
func.func @pair(%x: f32) -> (f32, f32) {
  // expected-error@+1 {{cannot lower 'func.return' to llvm: func.return returns 2 values; llvm functions return at most one}}
  func.return %x, %x : f32, f32
}

// -----

// expected-error@+1 {{cannot lower 'func.func' to llvm: only statically shaped memrefs with the identity layout lower to llvm, got memref<?xf32>}}
func.func @dynamic(%m: memref<?xf32>) {
  func.return
}

// -----

func.func @shared_alloca() {
  // expected-error@+1 {{cannot lower 'memref.alloca' to llvm: memref.alloca allocates thread-private memory; memory space 3 cannot be allocated on the stack}}
  %0 = memref.alloca() : memref<4xf32, 3>
  func.return
}

// -----

func.func @vector_cmpf(%v: vector<4xf32>) {
  // expected-error@+1 {{cannot lower 'arith.cmpf' to llvm: xDSL's llvm.fcmp takes scalars only}}
  %0 = arith.cmpf olt, %v, %v : vector<4xf32>
  func.return
}

// -----

// expected-error@+1 {{cannot lower 'func.func' to llvm: 'llvm.linkage' must be an #llvm.linkage attribute, got "internal"}}
func.func @bad_linkage() attributes {llvm.linkage = "internal"} {
  func.return
}

// -----

// A cast no pattern accounts for stays, and is reported at its user.
func.func @stray(%x: f32) -> i32 {
  // expected-note@+1 {{the value comes from here}}
  %y = builtin.unrealized_conversion_cast %x : f32 to i32
  // expected-error@+1 {{'llvm.return' still uses a value of type i32 where the lowered value has type f32: no conversion pattern rewrote this use}}
  func.return %y : i32
}
