// E1104: a tile shape or partition that does not fit
//
// Tile shapes are static powers of two; a partition gives each tile block its own tile of a
// tensor and so fixes the grid, and the output partitions of one launch must agree on it. The
// rule is docs/safety.md#host-4.
// doc:begin example
func.func @f() {
  %z = "host.zeros"() : () -> !host.partition<f32, [1000], [100]>
  func.return
}
// doc:end
// doc:begin output
// error[E1104]: tile dimensions must be static powers of two, got 100 in [100]
//  --> E1104.mlir:2:46
//   |
// 2 |   %z = "host.zeros"() : () -> !host.partition<f32, [1000], [100]>
//   |                                              ^^^^^^^^^^^^^^^^^^^^
//   |
//   = help: use static power-of-two tile shapes that agree on one grid
// doc:end
