// E0308: mismatched types
//
// A value is used where another type is needed: an operand of one type where the op wants
// another, or two operands that the op needs to agree (`arith.addf %x, %y : f32` takes two f32)
// of different types. Where an op's syntax takes the type written after `:` for its operand
// (`simt.load %a[%i] : !simt.slice<i32>`), a type that is not the operand's declared one is
// reported there, with the declaration, rather than at the first use of the result.
//
// Convert the value (`arith.sitofp`, `arith.extf`, `arith.index_cast`, ...) or correct the type
// written after `:`.
// doc:begin example
simt.kernel @k(%a: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
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
// error[E0308]: mismatched types: %a is `!simt.slice<f32>`, but this `simt.load` says `!simt.slice<i32>`
//  --> E0308.mlir:6:29
//   |
// 1 | simt.kernel @k(%a: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
//   |                -- %a is defined here, as `!simt.slice<f32>`
// ...
// 6 |     %x = simt.load %a[%i] : !simt.slice<i32>
//   |                             ^^^^^^^^^^^^^^^^ expected `!simt.slice<f32>`, found `!simt.slice<i32>`
// 7 |     simt.yield %x : f32
//   |                -- so %x has the wrong type here, where `f32` is expected
//   |
//   = help: write `!simt.slice<f32>` after the `:`, as %a is declared (or declare %a as `!simt.slice<i32>`)
// doc:end
