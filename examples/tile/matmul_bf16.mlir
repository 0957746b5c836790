// matmul_bf16: C = A @ B with bf16 inputs and an f32 accumulator and result (the tensor-core
// case). Each product of two bf16 values is exact in f32; only the order of the f32 sums is
// the kernel's. On an H100/H200 (sm_90) the loop lowers to TMA loads and wgmma on 128 x 256
// tiles; tensors whose rows are not a multiple of 16 bytes (as the 100 x 150 here) run the
// same kernel's portable twin (cp.async + mma.sync), compiled when a launch first needs it.
builtin.module {
  // doc:begin matmul_bf16
  tile.kernel @matmul_bf16(%c: !tile.partition<f32, [128, 256]>, %a: !tile.tensor<bf16, [?, ?]>, %b: !tile.tensor<bf16, [?, ?]>) {
    %i = tile.block_id 0
    %j = tile.block_id 1
    %k = tile.dim %a, 1 : !tile.tensor<bf16, [?, ?]>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %ktiles = arith.ceildivui %k, %c64 : index
    %zero = tile.constant dense<0.0> : !tile.tile<f32, [128, 256]>
    %acc = scf.for %kk = %c0 to %ktiles step %c1 iter_args(%sum = %zero) -> (!tile.tile<f32, [128, 256]>) {
      %x = tile.load %a[%i, %kk] : !tile.tensor<bf16, [?, ?]> -> !tile.tile<bf16, [128, 64]>
      %y = tile.load %b[%kk, %j] : !tile.tensor<bf16, [?, ?]> -> !tile.tile<bf16, [64, 256]>
      %next = tile.mma %x, %y, %sum : !tile.tile<bf16, [128, 64]>, !tile.tile<bf16, [64, 256]>, !tile.tile<f32, [128, 256]>
      scf.yield %next : !tile.tile<f32, [128, 256]>
    }
    tile.store %acc, %c : !tile.tile<f32, [128, 256]>, !tile.partition<f32, [128, 256]>
    tile.return
  }
  // doc:end

  func.func @main() {
    %m = host.param "m" = 200 : index
    %n = host.param "n" = 150 : index
    %k = host.param "k" = 100 : index
    %s = host.stream
    %a = host.random uniform(-1.0, 1.0) seed 71 (%m, %k) : !host.tensor<bf16, [?, ?]>
    %b = host.random uniform(-1.0, 1.0) seed 72 (%k, %n) : !host.tensor<bf16, [?, ?]>
    %c = host.poison(%m, %n) : !host.tensor<f32, [?, ?]>
    %p = host.partition %c : !host.tensor<f32, [?, ?]> -> !host.partition<f32, [?, ?], [128, 256]>
    %p2 = host.tile_launch @matmul_bf16 on %s ins(%a, %b : !host.tensor<bf16, [?, ?]>, !host.tensor<bf16, [?, ?]>) outs(%p : !host.partition<f32, [?, ?], [128, 256]>) -> !host.partition<f32, [?, ?], [128, 256]>
    %c2 = host.unpartition %p2 : !host.partition<f32, [?, ?], [128, 256]> -> !host.tensor<f32, [?, ?]>
    host.sync_on %s
    host.check %c2, "a.astype(np.float64) @ b.astype(np.float64)" (a = %a : !host.tensor<bf16, [?, ?]>, b = %b : !host.tensor<bf16, [?, ?]>) rtol 1.0e-04 atol 1.0e-03 : !host.tensor<f32, [?, ?]>
    func.return
  }
}
