// vecadd_vec4: out[i] = a[i] + b[i] with four consecutive elements per thread, so that every
// global access is one 16-byte vector load or store (`ld.global.nc.v4`, `st.global.v4`).
// The witness is a chunk witness of the `tile<[1024], 4, arg3>` index space: thread t of block b
// owns out[b*1024 + 4t .. b*1024 + 4t + 4), masked at the ragged end, so threads stay disjoint.
// The loads are padded chunk loads: lanes past the end read the padding, never memory.
builtin.module {
  // doc:begin vecadd_vec4
  simt.kernel @vecadd_vec4(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, tile<[1024], 4, arg3>>, %n: index) contract<domain = 1, block = [256], requires = [len(arg0) >= arg3, len(arg1) >= arg3, len(arg2) == arg3]> {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %tile = arith.constant 1024 : index
    %zero = arith.constant 0.000000e+00 : f32
    %t = simt.thread_id x
    %blk = simt.block_id x
    %base = arith.muli %blk, %tile : index
    %lane4 = arith.shli %t, %c2 : index
    %start = arith.addi %base, %lane4 : index
    %inside = arith.cmpi ult, %start, %n : index
    %left = arith.subi %n, %start : index
    %upto4 = arith.minui %left, %c4 : index
    %count = arith.select %inside, %upto4, %c0 : index
    %x0, %x1, %x2, %x3 = simt.load_chunk %a[%start], %count, %zero : !simt.slice<f32> -> f32, f32, f32, f32
    %y0, %y1, %y2, %y3 = simt.load_chunk %b[%start], %count, %zero : !simt.slice<f32> -> f32, f32, f32, f32
    %s0 = arith.addf %x0, %y0 : f32
    %s1 = arith.addf %x1, %y1 : f32
    %s2 = arith.addf %x2, %y2 : f32
    %s3 = arith.addf %x3, %y3 : f32
    %w = simt.tile_index %c0 dims(%n) : !simt.thread_index<tile<[1024], 4, arg3>>
    simt.store_chunk %out[%w], %s0, %s1, %s2, %s3 : !simt.disjoint_slice<f32, tile<[1024], 4, arg3>>, !simt.thread_index<tile<[1024], 4, arg3>>
    simt.return
  }
  // doc:end

  // The host program: `ferrox run examples/simt/vecadd_vec4.mlir [--param n=268435456]`.
  func.func @main() -> !host.tensor<f32, [?]> {
    %n = host.param "n" = 1000 : index
    %a = host.random uniform(-1.0, 1.0) seed 1 (%n) : !host.tensor<f32, [?]>
    %b = host.random uniform(-1.0, 1.0) seed 2 (%n) : !host.tensor<f32, [?]>
    %out = host.poison(%n) : !host.tensor<f32, [?]>
    %s = host.stream
    %threads = arith.constant 256 : index
    %per_block = arith.constant 1024 : index
    %blocks = arith.ceildivui %n, %per_block : index
    %p = host.prepare @vecadd_vec4 grid(%blocks) block(%threads) args(%a, %b, %out, %n : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, index)
    %out2 = host.launch @vecadd_vec4 with %p on %s ins(%a, %b, %n : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, index) outs(%out : !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>
    host.sync_on %s
    host.check %out2, "a + b" (a = %a : !host.tensor<f32, [?]>, b = %b : !host.tensor<f32, [?]>) : !host.tensor<f32, [?]>
    func.return %out2 : !host.tensor<f32, [?]>
  }
}
