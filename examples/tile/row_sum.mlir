// row_sum: out[i] = sum of row i of an M x N matrix. Each tile block owns 16 rows and walks them
// in 128-wide tiles; zero padding makes the ragged last column tile (and rows past M) add nothing.
builtin.module {
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
  // doc:end

  func.func @main() {
    %m = host.param "m" = 100 : index
    %n = host.param "n" = 300 : index
    %s = host.stream
    %x = host.random uniform(-1.0, 1.0) seed 21 (%m, %n) : !host.tensor<f32, [?, ?]>
    %out = host.poison(%m) : !host.tensor<f32, [?]>
    %p = host.partition %out : !host.tensor<f32, [?]> -> !host.partition<f32, [?], [16]>
    %p2 = host.tile_launch @row_sum on %s ins(%x : !host.tensor<f32, [?, ?]>) outs(%p : !host.partition<f32, [?], [16]>) -> !host.partition<f32, [?], [16]>
    %out2 = host.unpartition %p2 : !host.partition<f32, [?], [16]> -> !host.tensor<f32, [?]>
    host.sync_on %s
    // The order of summation is the kernel's (tiles of 128, then a tree): the error grows with
    // sqrt(n), hence an absolute tolerance that holds up to the GPU sizes (--param n=16384).
    host.check %out2, "np.sum(x.astype(np.float64), axis=1)" (x = %x : !host.tensor<f32, [?, ?]>) rtol 1.0e-04 atol 1.0e-03 : !host.tensor<f32, [?]>
    func.return
  }
}
