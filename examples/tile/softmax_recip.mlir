// softmax_recip: softmax.mlir with one division per row: exp(x - max) * (1 / sum(exp(x - max))).
// A correctly rounded division per element costs several instructions; a reciprocal per row and
// a multiply per element is within 1.5 ulp of it (two roundings), the trade Triton's and most
// fast softmax kernels make. Padding as in softmax.mlir: -inf stays out of the max and the sum.
builtin.module {
  // doc:begin softmax_recip
  tile.kernel @softmax(%out: !tile.partition<f32, [4, 1024]>, %x: !tile.tensor<f32, [?, ?]>) {
    %t = tile.load_like %x, %out padding = neg_inf : !tile.tensor<f32, [?, ?]>, !tile.partition<f32, [4, 1024]> -> !tile.tile<f32, [4, 1024]>
    %max = tile.reduce_max %t axis = 1 keepdims : !tile.tile<f32, [4, 1024]> -> !tile.tile<f32, [4, 1]>
    %maxb = tile.broadcast %max : !tile.tile<f32, [4, 1]> -> !tile.tile<f32, [4, 1024]>
    %shifted = tile.sub %t, %maxb : !tile.tile<f32, [4, 1024]>
    %e = tile.exp %shifted : !tile.tile<f32, [4, 1024]>
    %sum = tile.reduce_sum %e axis = 1 keepdims : !tile.tile<f32, [4, 1024]> -> !tile.tile<f32, [4, 1]>
    %one = tile.constant dense<1.0> : !tile.tile<f32, [4, 1]>
    %inv = tile.div %one, %sum : !tile.tile<f32, [4, 1]>
    %invb = tile.broadcast %inv : !tile.tile<f32, [4, 1]> -> !tile.tile<f32, [4, 1024]>
    %r = tile.mul %e, %invb : !tile.tile<f32, [4, 1024]>
    tile.store %r, %out : !tile.tile<f32, [4, 1024]>, !tile.partition<f32, [4, 1024]>
    tile.return
  }
  // doc:end

  func.func @main() {
    %m = host.param "m" = 30 : index
    %n = host.param "n" = 1000 : index
    %s = host.stream
    %x = host.random normal(0.0, 3.0) seed 31 (%m, %n) : !host.tensor<f32, [?, ?]>
    %out = host.poison(%m, %n) : !host.tensor<f32, [?, ?]>
    %p = host.partition %out : !host.tensor<f32, [?, ?]> -> !host.partition<f32, [?, ?], [4, 1024]>
    %p2 = host.tile_launch @softmax on %s ins(%x : !host.tensor<f32, [?, ?]>) outs(%p : !host.partition<f32, [?, ?], [4, 1024]>) -> !host.partition<f32, [?, ?], [4, 1024]>
    %out2 = host.unpartition %p2 : !host.partition<f32, [?, ?], [4, 1024]> -> !host.tensor<f32, [?, ?]>
    host.sync_on %s
    host.check %out2, "np.exp(x - np.max(x, axis=1, keepdims=True)) / np.sum(np.exp(x - np.max(x, axis=1, keepdims=True)), axis=1, keepdims=True)" (x = %x : !host.tensor<f32, [?, ?]>) rtol 1.0e-05 atol 1.0e-06 : !host.tensor<f32, [?, ?]>
    func.return
  }
}
