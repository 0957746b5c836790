// Causal attention forward, fused: out = softmax(mask(q @ k^T / 8)) @ v for each head, one block
// of 64 query rows per tile block, keys in blocks of 64 with the online softmax (a running row
// maximum and row sum rescale the accumulator), so the [seq, seq] scores never reach memory.
// q, k, v are bf16 [heads, seq, 64]; products are bf16 x bf16 with an f32 accumulator (tensor
// cores on the GPU). Keys past the end of the sequence (a ragged last block) and keys after the
// query are masked to -inf. examples/python/tile_attention.py is the Python form (full or causal,
// head dim 64 or 128).
builtin.module {
  // doc:begin attention
  tile.kernel @attention(%out: !tile.partition<f32, [1, 64, 64]>, %q: !tile.tensor<bf16, [?, ?, 64]>, %k: !tile.tensor<bf16, [?, ?, 64]>, %v: !tile.tensor<bf16, [?, ?, 64]>) {
    %head = tile.block_id 0
    %i = tile.block_id 1
    %seq = tile.dim %k, 1 : !tile.tensor<bf16, [?, ?, 64]>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %q3 = tile.load %q[%head, %i, %c0] : !tile.tensor<bf16, [?, ?, 64]> -> !tile.tile<bf16, [1, 64, 64]>
    %qt = tile.reshape %q3 : !tile.tile<bf16, [1, 64, 64]> -> !tile.tile<bf16, [64, 64]>
    %neg_inf = tile.constant dense<0xff800000> : !tile.tile<f32, [64, 64]>
    %zero = tile.constant dense<0.0> : !tile.tile<f32, [64, 64]>
    %scale = tile.constant dense<0.125> : !tile.tile<f32, [64, 64]>
    %max0 = tile.constant dense<0xff800000> : !tile.tile<f32, [64, 1]>
    %sum0 = tile.constant dense<0.0> : !tile.tile<f32, [64, 1]>
    %iota = tile.iota : !tile.tile<i32, [64]>
    // The query row of each score, and the sequence's length, as [64, 64] tiles.
    %row0 = arith.muli %i, %c64 : index
    %row0_i32 = arith.index_cast %row0 : index to i32
    %row0_t = tile.full %row0_i32 : i32 -> !tile.tile<i32, [64]>
    %row_ids = tile.add %iota, %row0_t : !tile.tile<i32, [64]>
    %row_col = tile.reshape %row_ids : !tile.tile<i32, [64]> -> !tile.tile<i32, [64, 1]>
    %rows = tile.broadcast %row_col : !tile.tile<i32, [64, 1]> -> !tile.tile<i32, [64, 64]>
    %seq_i32 = arith.index_cast %seq : index to i32
    %seq_t = tile.full %seq_i32 : i32 -> !tile.tile<i32, [1, 1]>
    %end = tile.broadcast %seq_t : !tile.tile<i32, [1, 1]> -> !tile.tile<i32, [64, 64]>
    // Key blocks up to the diagonal: later ones are all masked.
    %all = arith.ceildivui %seq, %c64 : index
    %diagonal = arith.addi %i, %c1 : index
    %blocks = arith.minui %all, %diagonal : index
    %acc, %max, %sum = scf.for %j = %c0 to %blocks step %c1 iter_args(%acc_in = %zero, %max_in = %max0, %sum_in = %sum0) -> (!tile.tile<f32, [64, 64]>, !tile.tile<f32, [64, 1]>, !tile.tile<f32, [64, 1]>) {
      %k3 = tile.load %k[%head, %j, %c0] : !tile.tensor<bf16, [?, ?, 64]> -> !tile.tile<bf16, [1, 64, 64]>
      %kt = tile.reshape %k3 : !tile.tile<bf16, [1, 64, 64]> -> !tile.tile<bf16, [64, 64]>
      %v3 = tile.load %v[%head, %j, %c0] : !tile.tensor<bf16, [?, ?, 64]> -> !tile.tile<bf16, [1, 64, 64]>
      %vt = tile.reshape %v3 : !tile.tile<bf16, [1, 64, 64]> -> !tile.tile<bf16, [64, 64]>
      %k_t = tile.transpose %kt : !tile.tile<bf16, [64, 64]> -> !tile.tile<bf16, [64, 64]>
      %qk = tile.mma %qt, %k_t, %zero : !tile.tile<bf16, [64, 64]>, !tile.tile<bf16, [64, 64]>, !tile.tile<f32, [64, 64]>
      %s = tile.mul %qk, %scale : !tile.tile<f32, [64, 64]>
      %col0 = arith.muli %j, %c64 : index
      %col0_i32 = arith.index_cast %col0 : index to i32
      %col0_t = tile.full %col0_i32 : i32 -> !tile.tile<i32, [64]>
      %col_ids = tile.add %iota, %col0_t : !tile.tile<i32, [64]>
      %col_row = tile.reshape %col_ids : !tile.tile<i32, [64]> -> !tile.tile<i32, [1, 64]>
      %cols = tile.broadcast %col_row : !tile.tile<i32, [1, 64]> -> !tile.tile<i32, [64, 64]>
      %in_seq = tile.cmp lt, %cols, %end : !tile.tile<i32, [64, 64]> -> !tile.tile<i1, [64, 64]>
      %s_seq = tile.select %in_seq, %s, %neg_inf : !tile.tile<i1, [64, 64]>, !tile.tile<f32, [64, 64]>
      %past = tile.cmp le, %cols, %rows : !tile.tile<i32, [64, 64]> -> !tile.tile<i1, [64, 64]>
      %s_masked = tile.select %past, %s_seq, %neg_inf : !tile.tile<i1, [64, 64]>, !tile.tile<f32, [64, 64]>
      %block_max = tile.reduce_max %s_masked axis = 1 keepdims : !tile.tile<f32, [64, 64]> -> !tile.tile<f32, [64, 1]>
      %new_max = tile.maximum %max_in, %block_max : !tile.tile<f32, [64, 1]>
      %new_max_b = tile.broadcast %new_max : !tile.tile<f32, [64, 1]> -> !tile.tile<f32, [64, 64]>
      %shifted = tile.sub %s_masked, %new_max_b : !tile.tile<f32, [64, 64]>
      %p = tile.exp %shifted : !tile.tile<f32, [64, 64]>
      %drop = tile.sub %max_in, %new_max : !tile.tile<f32, [64, 1]>
      %rescale = tile.exp %drop : !tile.tile<f32, [64, 1]>
      %old_sum = tile.mul %sum_in, %rescale : !tile.tile<f32, [64, 1]>
      %block_sum = tile.reduce_sum %p axis = 1 keepdims : !tile.tile<f32, [64, 64]> -> !tile.tile<f32, [64, 1]>
      %new_sum = tile.add %old_sum, %block_sum : !tile.tile<f32, [64, 1]>
      %rescale_b = tile.broadcast %rescale : !tile.tile<f32, [64, 1]> -> !tile.tile<f32, [64, 64]>
      %old_acc = tile.mul %acc_in, %rescale_b : !tile.tile<f32, [64, 64]>
      %p16 = tile.astype %p : !tile.tile<f32, [64, 64]> -> !tile.tile<bf16, [64, 64]>
      %new_acc = tile.mma %p16, %vt, %old_acc : !tile.tile<bf16, [64, 64]>, !tile.tile<bf16, [64, 64]>, !tile.tile<f32, [64, 64]>
      scf.yield %new_acc, %new_max, %new_sum : !tile.tile<f32, [64, 64]>, !tile.tile<f32, [64, 1]>, !tile.tile<f32, [64, 1]>
    }
    %sum_b = tile.broadcast %sum : !tile.tile<f32, [64, 1]> -> !tile.tile<f32, [64, 64]>
    %o = tile.div %acc, %sum_b : !tile.tile<f32, [64, 64]>
    %o3 = tile.reshape %o : !tile.tile<f32, [64, 64]> -> !tile.tile<f32, [1, 64, 64]>
    tile.store %o3, %out : !tile.tile<f32, [1, 64, 64]>, !tile.partition<f32, [1, 64, 64]>
    tile.return
  }
  // doc:end

  func.func @main() {
    %heads = host.param "heads" = 2 : index
    %seq = host.param "seq" = 100 : index
    %s = host.stream
    %q = host.random normal(0.0, 1.0) seed 81 (%heads, %seq) : !host.tensor<bf16, [?, ?, 64]>
    %k = host.random normal(0.0, 1.0) seed 82 (%heads, %seq) : !host.tensor<bf16, [?, ?, 64]>
    %v = host.random normal(0.0, 1.0) seed 83 (%heads, %seq) : !host.tensor<bf16, [?, ?, 64]>
    %out = host.poison(%heads, %seq) : !host.tensor<f32, [?, ?, 64]>
    %p = host.partition %out : !host.tensor<f32, [?, ?, 64]> -> !host.partition<f32, [?, ?, 64], [1, 64, 64]>
    %p2 = host.tile_launch @attention on %s ins(%q, %k, %v : !host.tensor<bf16, [?, ?, 64]>, !host.tensor<bf16, [?, ?, 64]>, !host.tensor<bf16, [?, ?, 64]>) outs(%p : !host.partition<f32, [?, ?, 64], [1, 64, 64]>) -> !host.partition<f32, [?, ?, 64], [1, 64, 64]>
    %out2 = host.unpartition %p2 : !host.partition<f32, [?, ?, 64], [1, 64, 64]> -> !host.tensor<f32, [?, ?, 64]>
    host.sync_on %s
    // Scores of N(0, 1) inputs stay far from exp's overflow, so the reference needs no shift.
    host.check %out2, "np.exp(np.where(np.tri(q.shape[1], dtype=np.bool_), (q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), 1, 2)) / 8.0, -np.inf)) @ v.astype(np.float64) / np.sum(np.exp(np.where(np.tri(q.shape[1], dtype=np.bool_), (q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), 1, 2)) / 8.0, -np.inf)), axis=-1, keepdims=True)" (q = %q : !host.tensor<bf16, [?, ?, 64]>, k = %k : !host.tensor<bf16, [?, ?, 64]>, v = %v : !host.tensor<bf16, [?, ?, 64]>) rtol 1.0e-02 atol 1.0e-02 : !host.tensor<f32, [?, ?, 64]>
    func.return
  }
}
