// transpose: an M x N matrix into N x M. Output tile (i, j) is input tile (j, i), transposed;
// the tiles are not square, so the swap of indices and shapes shows, and M, N are not
// multiples of them.
builtin.module {
  // doc:begin transpose
  tile.kernel @transpose(%out: !tile.partition<f32, [32, 64]>, %x: !tile.tensor<f32, [?, ?]>) {
    %i = tile.block_id 0
    %j = tile.block_id 1
    %t = tile.load %x[%j, %i] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [64, 32]>
    %r = tile.transpose %t : !tile.tile<f32, [64, 32]> -> !tile.tile<f32, [32, 64]>
    tile.store %r, %out : !tile.tile<f32, [32, 64]>, !tile.partition<f32, [32, 64]>
    tile.return
  }
  // doc:end

  func.func @main() {
    %m = host.param "m" = 200 : index
    %n = host.param "n" = 300 : index
    %s = host.stream
    %x = host.random uniform(-1.0, 1.0) seed 51 (%m, %n) : !host.tensor<f32, [?, ?]>
    %out = host.poison(%n, %m) : !host.tensor<f32, [?, ?]>
    %p = host.partition %out : !host.tensor<f32, [?, ?]> -> !host.partition<f32, [?, ?], [32, 64]>
    %p2 = host.tile_launch @transpose on %s ins(%x : !host.tensor<f32, [?, ?]>) outs(%p : !host.partition<f32, [?, ?], [32, 64]>) -> !host.partition<f32, [?, ?], [32, 64]>
    %out2 = host.unpartition %p2 : !host.partition<f32, [?, ?], [32, 64]> -> !host.tensor<f32, [?, ?]>
    host.sync_on %s
    host.check %out2, "x.T" (x = %x : !host.tensor<f32, [?, ?]>) : !host.tensor<f32, [?, ?]>
    func.return
  }
}
