// fuzz-signature: internal error KeyError at lowering/tile_to_simt/context.py:tile
// fuzz-config: opt-ptx
// fuzz-status: fixed
// found by mutating tests/filecheck/dialects/tile/kernels.mlir (name)
tile.kernel @saxpy(%out: !tile.partition<f32, [1024]>, %alpha: f32, %x: !tile.tensor<f32, [?]>, %y: !tile.tensor<f32, [?]>) {
  %a = tile.full %alpha : f32 -> !tile.tile<f32, [1024]>
  %xt = tile.load_like %x, %out : !tile.tensor<f32, [?]>, !tile.partition<f32, [1024]> -> !tile.tile<f32, [1024]>
  %ax = tile.mul %a, %xt : !tile.tile<f32, [1024]>
  %r = tile.add %ax, %r : !tile.tile<f32, [1024]>
  tile.return
}
// doc:begin row_sum
tile.kernel @row_sum(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?, ?]>) {
  %i = tile.block_id 0
  %n = tile.dim %x, 1 : !tile.tensor<f32, [?, ?]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %tiles = arith.ceildivui %n, %c128 : index
  %zero = tile.constant dense<0.0> : !tile.tile<f32, [16]>
  %sum = scf.for %j = %c0 to %tiles step %c1 iter_args(%acc = %zero) -> (!tile.tile<f32, [16]>) {
    %t = tile.load %x[%i, %j] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [16, 128]>
    %s = tile.reduce_sum %t axis = 1 : !tile.tile<f32, [16, 128]> -> !tile.tile<f32, [16]>
    %next = tile.add %acc, %s : !tile.tile<f32, [16]>
    scf.yield %next : !tile.tile<f32, [16]>
  }
  tile.store %sum, %out : !tile.tile<f32, [16]>, !tile.partition<f32, [16]>
  tile.return
}
