// fuzz-signature: internal error Exception at xdsl/dialects/scf.py:verify_
// fuzz-config: opt-lower
// fuzz-status: fixed
// found by mutating tests/filecheck/lowering/to_llvm/invalid.mlir (name, type); terminators added by hand, so that it gets past the verifier
func.func @while(%n: i32) {
  %c0 = arith.constant 0 : i32
  %t = arith.constant true
  %r = scf.while (%i = %c0) : (i32) -> tensor<?xf32> {
    scf.condition(%t) %i : i32
  } do {
  ^bb0(%j: i32):
    scf.yield %j : i32
  }
  func.return
}
func.func @stray(%x: f32) -> i32 {
  %y = builtin.unrealized_conversion_cast %x : f32 to i32
  func.return %y : i32
}
