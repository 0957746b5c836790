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
