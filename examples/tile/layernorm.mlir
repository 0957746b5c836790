// layernorm over rows up to 1024 wide: y = (x - mean) / sqrt(var + eps) * gamma + beta, 4 rows a
// tile block. The padded columns are zero, right for the mean but not for the variance: a mask
// from iota < N zeroes x - mean there.
builtin.module {
  // doc:begin layernorm
  tile.kernel @layernorm(%out: !tile.partition<f32, [4, 1024]>, %x: !tile.tensor<f32, [?, ?]>, %gamma: !tile.tensor<f32, [?]>, %beta: !tile.tensor<f32, [?]>, %eps: f32) {
    %t = tile.load_like %x, %out : !tile.tensor<f32, [?, ?]>, !tile.partition<f32, [4, 1024]> -> !tile.tile<f32, [4, 1024]>
    %n = tile.dim %x, 1 : !tile.tensor<f32, [?, ?]>
    %n32 = arith.index_cast %n : index to i32
    %nf = arith.sitofp %n32 : i32 to f32
    %count = tile.full %nf : f32 -> !tile.tile<f32, [4, 1]>
    %sum = tile.reduce_sum %t axis = 1 keepdims : !tile.tile<f32, [4, 1024]> -> !tile.tile<f32, [4, 1]>
    %mean = tile.div %sum, %count : !tile.tile<f32, [4, 1]>
    %meanb = tile.broadcast %mean : !tile.tile<f32, [4, 1]> -> !tile.tile<f32, [4, 1024]>
    %diff = tile.sub %t, %meanb : !tile.tile<f32, [4, 1024]>
    %cols = tile.iota : !tile.tile<i32, [1024]>
    %limit = tile.full %n32 : i32 -> !tile.tile<i32, [1024]>
    %inside = tile.cmp lt, %cols, %limit : !tile.tile<i32, [1024]> -> !tile.tile<i1, [1024]>
    %mask = tile.broadcast %inside : !tile.tile<i1, [1024]> -> !tile.tile<i1, [4, 1024]>
    %zeros = tile.constant dense<0.0> : !tile.tile<f32, [4, 1024]>
    %centered = tile.select %mask, %diff, %zeros : !tile.tile<i1, [4, 1024]>, !tile.tile<f32, [4, 1024]>
    %sq = tile.mul %centered, %centered : !tile.tile<f32, [4, 1024]>
    %sqsum = tile.reduce_sum %sq axis = 1 keepdims : !tile.tile<f32, [4, 1024]> -> !tile.tile<f32, [4, 1]>
    %var = tile.div %sqsum, %count : !tile.tile<f32, [4, 1]>
    %epst = tile.full %eps : f32 -> !tile.tile<f32, [4, 1]>
    %vareps = tile.add %var, %epst : !tile.tile<f32, [4, 1]>
    %rstd = tile.rsqrt %vareps : !tile.tile<f32, [4, 1]>
    %rstdb = tile.broadcast %rstd : !tile.tile<f32, [4, 1]> -> !tile.tile<f32, [4, 1024]>
    %normed = tile.mul %centered, %rstdb : !tile.tile<f32, [4, 1024]>
    %j = tile.block_id 1
    %g = tile.load %gamma[%j] : !tile.tensor<f32, [?]> -> !tile.tile<f32, [1024]>
    %b = tile.load %beta[%j] : !tile.tensor<f32, [?]> -> !tile.tile<f32, [1024]>
    %gb = tile.broadcast %g : !tile.tile<f32, [1024]> -> !tile.tile<f32, [4, 1024]>
    %bb = tile.broadcast %b : !tile.tile<f32, [1024]> -> !tile.tile<f32, [4, 1024]>
    %scaled = tile.mul %normed, %gb : !tile.tile<f32, [4, 1024]>
    %y = tile.add %scaled, %bb : !tile.tile<f32, [4, 1024]>
    tile.store %y, %out : !tile.tile<f32, [4, 1024]>, !tile.partition<f32, [4, 1024]>
    tile.return
  }
  // doc:end

  func.func @main() {
    %m = host.param "m" = 30 : index
    %n = host.param "n" = 1000 : index
    %eps = host.param "eps" = 1.0e-05 : f32
    %s = host.stream
    %x = host.random normal(1.0, 2.0) seed 41 (%m, %n) : !host.tensor<f32, [?, ?]>
    %gamma = host.random uniform(0.5, 1.5) seed 42 (%n) : !host.tensor<f32, [?]>
    %beta = host.random uniform(-0.5, 0.5) seed 43 (%n) : !host.tensor<f32, [?]>
    %out = host.poison(%m, %n) : !host.tensor<f32, [?, ?]>
    %p = host.partition %out : !host.tensor<f32, [?, ?]> -> !host.partition<f32, [?, ?], [4, 1024]>
    %p2 = host.tile_launch @layernorm on %s ins(%x, %gamma, %beta, %eps : !host.tensor<f32, [?, ?]>, !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, f32) outs(%p : !host.partition<f32, [?, ?], [4, 1024]>) -> !host.partition<f32, [?, ?], [4, 1024]>
    %out2 = host.unpartition %p2 : !host.partition<f32, [?, ?], [4, 1024]> -> !host.tensor<f32, [?, ?]>
    host.sync_on %s
    host.check %out2, "(x - np.mean(x, axis=1, keepdims=True)) / np.sqrt(np.var(x, axis=1, keepdims=True) + eps) * gamma + beta" (x = %x : !host.tensor<f32, [?, ?]>, gamma = %gamma : !host.tensor<f32, [?]>, beta = %beta : !host.tensor<f32, [?]>, eps = %eps : f32) rtol 1.0e-04 atol 1.0e-04 : !host.tensor<f32, [?, ?]>
    func.return
  }
}
