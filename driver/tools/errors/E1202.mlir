// E1202: a tile kernel that reads its outputs
//
// An output partition belongs to the blocks that write it; `tile.load` and `tile.load_like`
// read input tensors only. Pass the data as an input too if the kernel needs it. The rule is
// docs/safety.md#tile-2.
// doc:begin example
tile.kernel @k(%out: !tile.partition<f32, [16]>, %o2: !tile.partition<f32, [16]>) {
  %t = tile.load_like %o2, %out : !tile.partition<f32, [16]>, !tile.partition<f32, [16]> -> !tile.tile<f32, [16]>
  tile.return
}
// doc:end
// doc:begin output
// error[E1202]: tile.load_like reads an input tensor (!tile.tensor), found output partition !tile.partition<f32, [16]>; a kernel does not read its outputs
//  --> E1202.mlir:2:3
//   |
// 2 |   %t = tile.load_like %o2, %out : !tile.partition<f32, [16]>, !tile.partition<f32, [16]> -> !tile.tile<f32, [16]>
//   |        ^^^^^^^^^^^^^^
//   |
//   = help: read input tensors only; pass the data as an input too if you need it
// doc:end
