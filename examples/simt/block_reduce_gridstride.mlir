// block_reduce_gridstride: sum[0] += the sum of `in`, at memory speed. A fixed grid (a few blocks
// per SM) walks the whole array: each thread adds two 16-byte chunks per step into four
// registers (`simt.load_chunk`, padded with 0 past the end), then the block sums its threads'
// values with warp shuffles (xor 16 .. 1), one shared slot per warp, one barrier, and the first
// warp's shuffles; thread 0 adds the block's total to sum[0] with one atomic. Any grid is correct.
builtin.module {
  // doc:begin block_reduce_gridstride
  simt.kernel @block_reduce_gridstride(%in: !simt.slice<f32>, %sum: !simt.atomic_slice<f32>) contract<domain = 1, block = [256], requires = [len(arg1) >= 1]> {
    %warps = simt.shared_alloc : !simt.shared<f32, [8]>
    %zero = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c8 = arith.constant 8 : index
    %c31 = arith.constant 31 : index
    %c1024 = arith.constant 1024 : index
    %c2048 = arith.constant 2048 : index
    %tid = simt.thread_id x
    %bid = simt.block_id x
    %blocks = simt.grid_dim x
    %n = simt.len %in : !simt.slice<f32>
    // Block b starts at b * 2048; thread t's chunks are at + 4t and + 4t + 1024.
    %bstart = arith.muli %bid, %c2048 : index
    %t4 = arith.shli %tid, %c2 : index
    %start = arith.addi %bstart, %t4 : index
    %step = arith.muli %blocks, %c2048 : index
    %a0, %a1, %a2, %a3 = scf.for %i = %start to %n step %step iter_args(%s0 = %zero, %s1 = %zero, %s2 = %zero, %s3 = %zero) -> (f32, f32, f32, f32) {
      %left = arith.subi %n, %i : index
      %count = arith.minui %left, %c4 : index
      %x0, %x1, %x2, %x3 = simt.load_chunk %in[%i], %count, %zero : !simt.slice<f32> -> f32, f32, f32, f32
      %j = arith.addi %i, %c1024 : index
      %inside = arith.cmpi ult, %j, %n : index
      %rest = arith.subi %n, %j : index
      %upto4 = arith.minui %rest, %c4 : index
      %count2 = arith.select %inside, %upto4, %c0 : index
      %y0, %y1, %y2, %y3 = simt.load_chunk %in[%j], %count2, %zero : !simt.slice<f32> -> f32, f32, f32, f32
      %u0 = arith.addf %x0, %y0 : f32
      %u1 = arith.addf %x1, %y1 : f32
      %u2 = arith.addf %x2, %y2 : f32
      %u3 = arith.addf %x3, %y3 : f32
      %n0 = arith.addf %s0, %u0 : f32
      %n1 = arith.addf %s1, %u1 : f32
      %n2 = arith.addf %s2, %u2 : f32
      %n3 = arith.addf %s3, %u3 : f32
      scf.yield %n0, %n1, %n2, %n3 : f32, f32, f32, f32
    }
    %b01 = arith.addf %a0, %a1 : f32
    %b23 = arith.addf %a2, %a3 : f32
    %v = arith.addf %b01, %b23 : f32
    %o16 = arith.constant 16 : i32
    %o8 = arith.constant 8 : i32
    %o4 = arith.constant 4 : i32
    %o2 = arith.constant 2 : i32
    %o1 = arith.constant 1 : i32
    %h16 = simt.shuffle xor %v, %o16 : f32
    %v16 = arith.addf %v, %h16 : f32
    %h8 = simt.shuffle xor %v16, %o8 : f32
    %v8 = arith.addf %v16, %h8 : f32
    %h4 = simt.shuffle xor %v8, %o4 : f32
    %v4 = arith.addf %v8, %h4 : f32
    %h2 = simt.shuffle xor %v4, %o2 : f32
    %v2 = arith.addf %v4, %h2 : f32
    %h1 = simt.shuffle xor %v2, %o1 : f32
    %warp_total = arith.addf %v2, %h1 : f32
    // Lane 0 of each warp writes its warp's slot; after the barrier the first warp sums them.
    %lane = arith.andi %tid, %c31 : index
    %warp = arith.shrui %tid, %c5 : index
    %first_lane = arith.cmpi eq, %lane, %c0 : index
    scf.if %first_lane {
      simt.unsafe {
        simt.shared_store %warp_total, %warps[%warp] : !simt.shared<f32, [8]>
        simt.yield
      }
    }
    simt.sync_threads
    %first_warp = arith.cmpi eq, %warp, %c0 : index
    scf.if %first_warp {
      %has = arith.cmpi ult, %lane, %c8 : index
      %w = scf.if %has -> (f32) {
        %x = simt.unsafe -> f32 {
          %y = simt.shared_load %warps[%lane] : !simt.shared<f32, [8]>
          simt.yield %y : f32
        }
        scf.yield %x : f32
      } else {
        scf.yield %zero : f32
      }
      %g4 = simt.shuffle xor %w, %o4 : f32
      %w4 = arith.addf %w, %g4 : f32
      %g2 = simt.shuffle xor %w4, %o2 : f32
      %w2 = arith.addf %w4, %g2 : f32
      %g1 = simt.shuffle xor %w2, %o1 : f32
      %total = arith.addf %w2, %g1 : f32
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %old = simt.atomic_add %sum[%c0], %total : !simt.atomic_slice<f32>
      }
    }
    simt.return
  }
  // doc:end

  // The host program: a grid smaller than the array (the kernel strides over it). The kernel
  // adds into sum[0], so the output starts at zero instead of NaN; inputs are positive so that
  // the relative error of f32 sums taken in any order stays small.
  func.func @main() -> !host.tensor<f32, [1]> {
    %n = host.param "n" = 20000 : index
    %x = host.random uniform(0.0, 1.0) seed 1 (%n) : !host.tensor<f32, [?]>
    %sum = host.zeros : !host.tensor<f32, [1]>
    %s = host.stream
    %blocks = arith.constant 4 : index
    %threads = arith.constant 256 : index
    %p = host.prepare @block_reduce_gridstride grid(%blocks) block(%threads) args(%x, %sum : !host.tensor<f32, [?]>, !host.tensor<f32, [1]>)
    %sum2 = host.launch @block_reduce_gridstride with %p on %s ins(%x : !host.tensor<f32, [?]>) outs(%sum : !host.tensor<f32, [1]>) -> !host.tensor<f32, [1]>
    host.sync_on %s
    host.check %sum2, "np.sum(x, dtype=np.float64).reshape(1)" (x = %x : !host.tensor<f32, [?]>) rtol 1.0e-05 : !host.tensor<f32, [1]>
    func.return %sum2 : !host.tensor<f32, [1]>
  }
}
