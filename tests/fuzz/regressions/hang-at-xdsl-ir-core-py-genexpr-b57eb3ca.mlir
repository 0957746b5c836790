// fuzz-signature: hang at xdsl/ir/core.py:<genexpr>
// fuzz-config: compile
// fuzz-status: fixed
// found by giving every 128 of examples/tile/row_sum.mlir's kernel the value 2^31 (by hand)
tile.kernel @row_sum(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?, ?]>) {
  %i = tile.block_id 0
  %t = tile.load %x[%i, %i] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [16, 2147483648]>
  %s = tile.reduce_sum %t axis = 1 : !tile.tile<f32, [16, 2147483648]> -> !tile.tile<f32, [16]>
  tile.store %s, %out : !tile.tile<f32, [16]>, !tile.partition<f32, [16]>
  tile.return
}
