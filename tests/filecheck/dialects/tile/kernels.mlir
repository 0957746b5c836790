// The tile kernels of the tile track's examples (issue 5): each parses, verifies and round-trips.
// RUN: ferrox-opt %s | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s --print-op-generic | ferrox-opt | filecheck %s

// Vector add. Each tile block adds one 1024-element tile; a length that is not a multiple of
// 1024 needs nothing more: the loads of the last tile pad with zeros and its store is masked.
// doc:begin vector_add
tile.kernel @vector_add(%z: !tile.partition<f32, [1024]>, %x: !tile.tensor<f32, [?]>, %y: !tile.tensor<f32, [?]>) {
  %a = tile.load_like %x, %z : !tile.tensor<f32, [?]>, !tile.partition<f32, [1024]> -> !tile.tile<f32, [1024]>
  %b = tile.load_like %y, %z : !tile.tensor<f32, [?]>, !tile.partition<f32, [1024]> -> !tile.tile<f32, [1024]>
  %sum = tile.add %a, %b : !tile.tile<f32, [1024]>
  tile.store %sum, %z : !tile.tile<f32, [1024]>, !tile.partition<f32, [1024]>
  tile.return
}
// doc:end

// CHECK-LABEL: tile.kernel @vector_add(%z: !tile.partition<f32, [1024]>, %x: !tile.tensor<f32, [?]>, %y: !tile.tensor<f32, [?]>) {
// CHECK-NEXT:    %a = tile.load_like %x, %z : !tile.tensor<f32, [?]>, !tile.partition<f32, [1024]> -> !tile.tile<f32, [1024]>
// CHECK-NEXT:    %b = tile.load_like %y, %z : !tile.tensor<f32, [?]>, !tile.partition<f32, [1024]> -> !tile.tile<f32, [1024]>
// CHECK-NEXT:    %sum = tile.add %a, %b : !tile.tile<f32, [1024]>
// CHECK-NEXT:    tile.store %sum, %z : !tile.tile<f32, [1024]>, !tile.partition<f32, [1024]>
// CHECK-NEXT:    tile.return

// SAXPY, out = alpha * x + y: the scalar becomes a tile with tile.full.
// doc:begin saxpy
tile.kernel @saxpy(%out: !tile.partition<f32, [1024]>, %alpha: f32, %x: !tile.tensor<f32, [?]>, %y: !tile.tensor<f32, [?]>) {
  %a = tile.full %alpha : f32 -> !tile.tile<f32, [1024]>
  %xt = tile.load_like %x, %out : !tile.tensor<f32, [?]>, !tile.partition<f32, [1024]> -> !tile.tile<f32, [1024]>
  %yt = tile.load_like %y, %out : !tile.tensor<f32, [?]>, !tile.partition<f32, [1024]> -> !tile.tile<f32, [1024]>
  %ax = tile.mul %a, %xt : !tile.tile<f32, [1024]>
  %r = tile.add %ax, %yt : !tile.tile<f32, [1024]>
  tile.store %r, %out : !tile.tile<f32, [1024]>, !tile.partition<f32, [1024]>
  tile.return
}
// doc:end

// CHECK-LABEL: tile.kernel @saxpy(%out: !tile.partition<f32, [1024]>, %alpha: f32, %x: !tile.tensor<f32, [?]>, %y: !tile.tensor<f32, [?]>) {
// CHECK-NEXT:    %a = tile.full %alpha : f32 -> !tile.tile<f32, [1024]>
// CHECK:         %ax = tile.mul %a, %xt : !tile.tile<f32, [1024]>
// CHECK-NEXT:    %r = tile.add %ax, %yt : !tile.tile<f32, [1024]>
// CHECK-NEXT:    tile.store %r, %out : !tile.tile<f32, [1024]>, !tile.partition<f32, [1024]>

// Row sum of an M x N matrix into a vector of M: each tile block owns 16 rows and walks the
// row in 128-wide tiles. Zero padding makes the ragged last column tile add nothing.
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

// CHECK-LABEL: tile.kernel @row_sum(
// CHECK:         %sum = scf.for %j = %c0 to %tiles step %c1 iter_args(%acc = %zero) -> (!tile.tile<f32, [16]>) {
// CHECK-NEXT:      %t = tile.load %x[%i, %j] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [16, 128]>
// CHECK-NEXT:      %s = tile.reduce_sum %t axis = 1 : !tile.tile<f32, [16, 128]> -> !tile.tile<f32, [16]>
// CHECK-NEXT:      %next = tile.add %acc, %s : !tile.tile<f32, [16]>
// CHECK-NEXT:      scf.yield %next : !tile.tile<f32, [16]>
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.store %sum, %out : !tile.tile<f32, [16]>, !tile.partition<f32, [16]>

// Row softmax of rows up to 1024 wide, 4 rows a tile block. Padding with -inf keeps the padded
// columns out of the max, and exp(-inf) = 0 keeps them out of the sum.
// doc:begin softmax
tile.kernel @softmax(%out: !tile.partition<f32, [4, 1024]>, %x: !tile.tensor<f32, [?, ?]>) {
  %t = tile.load_like %x, %out padding = neg_inf : !tile.tensor<f32, [?, ?]>, !tile.partition<f32, [4, 1024]> -> !tile.tile<f32, [4, 1024]>
  %max = tile.reduce_max %t axis = 1 keepdims : !tile.tile<f32, [4, 1024]> -> !tile.tile<f32, [4, 1]>
  %maxb = tile.broadcast %max : !tile.tile<f32, [4, 1]> -> !tile.tile<f32, [4, 1024]>
  %shifted = tile.sub %t, %maxb : !tile.tile<f32, [4, 1024]>
  %e = tile.exp %shifted : !tile.tile<f32, [4, 1024]>
  %sum = tile.reduce_sum %e axis = 1 keepdims : !tile.tile<f32, [4, 1024]> -> !tile.tile<f32, [4, 1]>
  %sumb = tile.broadcast %sum : !tile.tile<f32, [4, 1]> -> !tile.tile<f32, [4, 1024]>
  %r = tile.div %e, %sumb : !tile.tile<f32, [4, 1024]>
  tile.store %r, %out : !tile.tile<f32, [4, 1024]>, !tile.partition<f32, [4, 1024]>
  tile.return
}
// doc:end

// CHECK-LABEL: tile.kernel @softmax(
// CHECK-NEXT:    %t = tile.load_like %x, %out padding = neg_inf : !tile.tensor<f32, [?, ?]>, !tile.partition<f32, [4, 1024]> -> !tile.tile<f32, [4, 1024]>
// CHECK-NEXT:    %max = tile.reduce_max %t axis = 1 keepdims : !tile.tile<f32, [4, 1024]> -> !tile.tile<f32, [4, 1]>
// CHECK-NEXT:    %maxb = tile.broadcast %max : !tile.tile<f32, [4, 1]> -> !tile.tile<f32, [4, 1024]>
// CHECK-NEXT:    %shifted = tile.sub %t, %maxb : !tile.tile<f32, [4, 1024]>
// CHECK-NEXT:    %e = tile.exp %shifted : !tile.tile<f32, [4, 1024]>
// CHECK-NEXT:    %sum = tile.reduce_sum %e axis = 1 keepdims : !tile.tile<f32, [4, 1024]> -> !tile.tile<f32, [4, 1]>
// CHECK-NEXT:    %sumb = tile.broadcast %sum : !tile.tile<f32, [4, 1]> -> !tile.tile<f32, [4, 1024]>
// CHECK-NEXT:    %r = tile.div %e, %sumb : !tile.tile<f32, [4, 1024]>

// Layer norm over rows up to 1024 wide: y = (x - mean) / sqrt(var + eps) * gamma + beta. The
// padded columns are zero, which is right for the mean but not for the variance: a mask from
// iota < N zeroes x - mean there.
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

// CHECK-LABEL: tile.kernel @layernorm(
// CHECK:         %inside = tile.cmp lt, %cols, %limit : !tile.tile<i32, [1024]> -> !tile.tile<i1, [1024]>
// CHECK:         %centered = tile.select %mask, %diff, %zeros : !tile.tile<i1, [4, 1024]>, !tile.tile<f32, [4, 1024]>
// CHECK:         %rstd = tile.rsqrt %vareps : !tile.tile<f32, [4, 1]>
// CHECK:         %gb = tile.broadcast %g : !tile.tile<f32, [1024]> -> !tile.tile<f32, [4, 1024]>
// CHECK:         tile.store %y, %out : !tile.tile<f32, [4, 1024]>, !tile.partition<f32, [4, 1024]>

// 2-D transpose of an M x N matrix into N x M: output tile (i, j) is input tile (j, i),
// transposed. The tiles are not square, so the swap of indices and shapes shows.
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

// CHECK-LABEL: tile.kernel @transpose(
// CHECK:         %t = tile.load %x[%j, %i] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [64, 32]>
// CHECK-NEXT:    %r = tile.transpose %t : !tile.tile<f32, [64, 32]> -> !tile.tile<f32, [32, 64]>

// Matmul C = A @ B in f32, [128, 128] tiles, with a loop over K in 16-wide steps; zero padding
// makes a ragged K tile contribute nothing.
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

// CHECK-LABEL: tile.kernel @matmul_f32(
// CHECK:         %acc = scf.for %kk = %c0 to %ktiles step %c1 iter_args(%sum = %zero) -> (!tile.tile<f32, [128, 128]>) {
// CHECK-NEXT:      %x = tile.load %a[%i, %kk] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [128, 16]>
// CHECK-NEXT:      %y = tile.load %b[%kk, %j] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [16, 128]>
// CHECK-NEXT:      %next = tile.mma %x, %y, %sum : !tile.tile<f32, [128, 16]>, !tile.tile<f32, [16, 128]>, !tile.tile<f32, [128, 128]>
// CHECK-NEXT:      scf.yield %next : !tile.tile<f32, [128, 128]>

// Matmul with bf16 inputs and an f32 accumulator and result, the tensor-core case.
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

// CHECK-LABEL: tile.kernel @matmul_bf16(
// CHECK:         %x = tile.load %a[%i, %kk] : !tile.tensor<bf16, [?, ?]> -> !tile.tile<bf16, [128, 64]>
// CHECK-NEXT:    %y = tile.load %b[%kk, %j] : !tile.tensor<bf16, [?, ?]> -> !tile.tile<bf16, [64, 256]>
// CHECK-NEXT:    %next = tile.mma %x, %y, %sum : !tile.tile<bf16, [128, 64]>, !tile.tile<bf16, [64, 256]>, !tile.tile<f32, [128, 256]>

// Causal attention forward with the online softmax (examples/tile/attention.mlir): loop-carried
// tiles, masks built from iota, two mma per key block.
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

// CHECK-LABEL: tile.kernel @attention(
// CHECK:         %blocks = arith.minui %all, %diagonal : index
// CHECK:         %qk = tile.mma %qt, %k_t, %zero : !tile.tile<bf16, [64, 64]>, !tile.tile<bf16, [64, 64]>, !tile.tile<f32, [64, 64]>
// CHECK:         %s_masked = tile.select %past, %s_seq, %neg_inf : !tile.tile<i1, [64, 64]>, !tile.tile<f32, [64, 64]>
// CHECK:         %new_acc = tile.mma %p16, %vt, %old_acc : !tile.tile<bf16, [64, 64]>, !tile.tile<bf16, [64, 64]>, !tile.tile<f32, [64, 64]>
// CHECK-NEXT:    scf.yield %new_acc, %new_max, %new_sum : !tile.tile<f32, [64, 64]>, !tile.tile<f32, [64, 1]>, !tile.tile<f32, [64, 1]>
