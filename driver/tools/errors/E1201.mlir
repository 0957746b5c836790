// E1201: a tile kernel that writes outside its own partition
//
// A tile kernel is one logical thread per tile block, and `tile.store` writes the block's own
// tile of an output partition (`!tile.partition`), nothing else: storing to an input tensor
// would race with the other blocks reading it. The rule is docs/safety.md#tile-1.
// doc:begin example
tile.kernel @k(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?]>) {
  %t = tile.load_like %x, %out : !tile.tensor<f32, [?]>, !tile.partition<f32, [16]> -> !tile.tile<f32, [16]>
  tile.store %t, %x : !tile.tile<f32, [16]>, !tile.tensor<f32, [?]>
  tile.return
}
// doc:end
// doc:begin output
// error[E1201]: cannot store to an input tensor (!tile.tensor<f32, [?]>); a kernel writes only its own output partition (!tile.partition)
//  --> E1201.mlir:3:3
//   |
// 3 |   tile.store %t, %x : !tile.tile<f32, [16]>, !tile.tensor<f32, [?]>
//   |   ^^^^^^^^^^
//   |
//   = help: store to an output partition (`!tile.partition`), once per block
// doc:end
