// matmul_f32: C = A @ B in f32, one 128 x 128 tile of C per tile block, with a loop over K in
// 16-wide steps; zero padding makes a ragged K tile contribute nothing. f32 inputs are not
// rounded to tf32. (128 x 128 x 16, which the lowering gives 128 threads of 16 x 8 accumulators
// and two stages, is the f32 tile that measured best on the H100: docs/performance.md, "Tile
// f32 GEMM, eighth session".)
builtin.module {
  // doc:begin matmul_f32
  tile.kernel @matmul_f32(%c: !tile.partition<f32, [128, 128]>, %a: !tile.tensor<f32, [?, ?]>, %b: !tile.tensor<f32, [?, ?]>) {
    %i = tile.block_id 0
    %j = tile.block_id 1
    %k = tile.dim %a, 1 : !tile.tensor<f32, [?, ?]>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %ktiles = arith.ceildivui %k, %c16 : index
    %zero = tile.constant dense<0.0> : !tile.tile<f32, [128, 128]>
    %acc = scf.for %kk = %c0 to %ktiles step %c1 iter_args(%sum = %zero) -> (!tile.tile<f32, [128, 128]>) {
      %x = tile.load %a[%i, %kk] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [128, 16]>
      %y = tile.load %b[%kk, %j] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [16, 128]>
      %next = tile.mma %x, %y, %sum : !tile.tile<f32, [128, 16]>, !tile.tile<f32, [16, 128]>, !tile.tile<f32, [128, 128]>
      scf.yield %next : !tile.tile<f32, [128, 128]>
    }
    tile.store %acc, %c : !tile.tile<f32, [128, 128]>, !tile.partition<f32, [128, 128]>
    tile.return
  }
  // doc:end

  func.func @main() {
    %m = host.param "m" = 200 : index
    %n = host.param "n" = 150 : index
    %k = host.param "k" = 100 : index
    %s = host.stream
    %a = host.random uniform(-1.0, 1.0) seed 61 (%m, %k) : !host.tensor<f32, [?, ?]>
    %b = host.random uniform(-1.0, 1.0) seed 62 (%k, %n) : !host.tensor<f32, [?, ?]>
    %c = host.poison(%m, %n) : !host.tensor<f32, [?, ?]>
    %p = host.partition %c : !host.tensor<f32, [?, ?]> -> !host.partition<f32, [?, ?], [128, 128]>
    %p2 = host.tile_launch @matmul_f32 on %s ins(%a, %b : !host.tensor<f32, [?, ?]>, !host.tensor<f32, [?, ?]>) outs(%p : !host.partition<f32, [?, ?], [128, 128]>) -> !host.partition<f32, [?, ?], [128, 128]>
    %c2 = host.unpartition %p2 : !host.partition<f32, [?, ?], [128, 128]> -> !host.tensor<f32, [?, ?]>
    host.sync_on %s
    // f32 sums in an unspecified order: compared with the f64 product under a tolerance.
    host.check %c2, "a.astype(np.float64) @ b.astype(np.float64)" (a = %a : !host.tensor<f32, [?, ?]>, b = %b : !host.tensor<f32, [?, ?]>) rtol 1.0e-04 atol 1.0e-03 : !host.tensor<f32, [?, ?]>
    func.return
  }
}
