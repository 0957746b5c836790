// E1004: a slice used as its kind forbids
//
// A disjoint slice (an exclusive output) is only written, through `simt.get_mut` or
// `simt.store_chunk`: reading it would read another thread's element while it is written. A
// shared slice is only read; an atomic slice only updated by atomics. The rule is
// docs/safety.md#simt-4.
// doc:begin example
simt.kernel @k(%out: !simt.disjoint_slice<f32, 1d>, %i: index) {
  %v = simt.load %out[%i] : !simt.disjoint_slice<f32, 1d>
  simt.return
}
// doc:end
// doc:begin output
// error[E1004]: cannot read disjoint slice `%out`: it is written only through simt.get_mut, never read
//  --> E1004.mlir:2:3
//   |
// 2 |   %v = simt.load %out[%i] : !simt.disjoint_slice<f32, 1d>
//   |                  ^^^^
//   |
//   = help: read shared slices (`simt.load`), write disjoint slices through `simt.get_mut`, update atomic slices with atomics
// doc:end
