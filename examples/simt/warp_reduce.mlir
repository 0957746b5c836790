// warp_reduce: out[w] = in[32w] + ... + in[32w + 31], one warp per output element, summed with a
// butterfly of xor shuffles (offsets 16, 8, 4, 2, 1); lane 0 holds the warp's witness and writes.
// Elements past the end of `in` count as 0.
builtin.module {
  // doc:begin warp_reduce
  simt.kernel @warp_reduce(%in: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, warp>) contract<domain = 1, block = [256]> {
    %zero = arith.constant 0.0 : f32
    %bid = simt.block_id x
    %bdim = simt.block_dim x
    %tid = simt.thread_id x
    %base = arith.muli %bid, %bdim : index
    %i = arith.addi %base, %tid : index
    %n = simt.len %in : !simt.slice<f32>
    %inb = arith.cmpi ult, %i, %n : index
    %v = scf.if %inb -> (f32) {
      %x = simt.load %in[%i] : !simt.slice<f32>
      scf.yield %x : f32
    } else {
      scf.yield %zero : f32
    }
    %o16 = arith.constant 16 : i32
    %o8 = arith.constant 8 : i32
    %o4 = arith.constant 4 : i32
    %o2 = arith.constant 2 : i32
    %o1 = arith.constant 1 : i32
    %s16 = simt.shuffle xor %v, %o16 : f32
    %v16 = arith.addf %v, %s16 : f32
    %s8 = simt.shuffle xor %v16, %o8 : f32
    %v8 = arith.addf %v16, %s8 : f32
    %s4 = simt.shuffle xor %v8, %o4 : f32
    %v4 = arith.addf %v8, %s4 : f32
    %s2 = simt.shuffle xor %v4, %o2 : f32
    %v2 = arith.addf %v4, %s2 : f32
    %s1 = simt.shuffle xor %v2, %o1 : f32
    %total = arith.addf %v2, %s1 : f32
    %w = simt.warp_index
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, warp>, !simt.thread_index<warp> {
    ^bb0(%old: f32):
      simt.yield %total : f32
    }
    simt.return
  }
  // doc:end

  // The host program: one output per 32 inputs, the last warp partly past the end of `in`.
  // The contract states no `requires`; prepare still checks that the grid has a warp for every
  // output. The tolerance allows for the butterfly's order of additions.
  func.func @main() -> !host.tensor<f32, [?]> {
    %n = host.param "n" = 1000 : index
    %x = host.random uniform(-1.0, 1.0) seed 1 (%n) : !host.tensor<f32, [?]>
    %c32 = arith.constant 32 : index
    %warps = arith.ceildivui %n, %c32 : index
    %out = host.poison(%warps) : !host.tensor<f32, [?]>
    %s = host.stream
    %threads = arith.constant 256 : index
    %blocks = arith.ceildivui %n, %threads : index
    %p = host.prepare @warp_reduce grid(%blocks) block(%threads) args(%x, %out : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>)
    %out2 = host.launch @warp_reduce with %p on %s ins(%x : !host.tensor<f32, [?]>) outs(%out : !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>
    host.sync_on %s
    host.check %out2, "np.add.reduceat(x, np.arange(0, x.size, 32))" (x = %x : !host.tensor<f32, [?]>) rtol 1.0e-05 atol 1.0e-04 : !host.tensor<f32, [?]>
    func.return %out2 : !host.tensor<f32, [?]>
  }
}
