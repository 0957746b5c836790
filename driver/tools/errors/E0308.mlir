// E0308: mismatched types
//
// A value is used where another type is needed: an operand of one type where the op wants
// another, or two operands that the op needs to agree (`arith.addf %x, %y : f32` takes two f32)
// of different types. xDSL's parser reports the use; ferrox points at the definition too.
//
// Convert the value (`arith.sitofp`, `arith.extf`, `arith.index_cast`, ...) or correct the type
// written after `:`.
// doc:begin example
simt.kernel @k(%a: !simt.slice<i32>, %out: !simt.disjoint_slice<f32, 1d>) {
  %w = simt.thread_index_1d
  %i = simt.witness_value %w : !simt.thread_index<1d>
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    %x = simt.load %a[%i] : !simt.slice<i32>
    simt.yield %x : f32
  }
  simt.return
}
// doc:end
// doc:begin output
// error[E0308]: mismatched types: %x is `i32`, used here as `f32`
//  --> E0308.mlir:7:16
//   |
// 6 |     %x = simt.load %a[%i] : !simt.slice<i32>
//   |     -- %x is defined here, as `i32`
// 7 |     simt.yield %x : f32
//   |                ^^ expected `f32`, found `i32`
//   |
//   = help: convert %x to `f32` with `arith.sitofp`, or change one of the two types
// doc:end
