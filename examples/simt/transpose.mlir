// transpose: out = in^T for a rows x cols matrix `in` (row-major), through a 32x32 shared tile
// (33 wide, against bank conflicts). The grid covers the output (cols x rows): the thread at
// output (r, c) = (by*32 + ty, bx*32 + tx) owns out[r * rows + c], a 2d_runtime witness of width
// `rows`. Each block reads its input tile with tx along a row of `in` (coalesced), then writes the
// transposed tile with tx along a row of `out` (coalesced).
builtin.module {
  // doc:begin transpose
  simt.kernel @transpose(%in: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 2d_runtime>, %rows: index, %cols: index) contract<domain = 2, block = [32, 32], requires = [len(arg0) >= arg2 * arg3, len(arg1) == arg2 * arg3]> {
    %tile = simt.shared_alloc : !simt.shared<f32, [32, 33]>
    %zero = arith.constant 0.0 : f32
    %c32 = arith.constant 32 : index
    %tx = simt.thread_id x
    %ty = simt.thread_id y
    %bx = simt.block_id x
    %by = simt.block_id y
    // Load in[bx*32 + ty][by*32 + tx] into tile[ty][tx].
    %bx32 = arith.muli %bx, %c32 : index
    %by32 = arith.muli %by, %c32 : index
    %in_row = arith.addi %bx32, %ty : index
    %in_col = arith.addi %by32, %tx : index
    %row_ok = arith.cmpi ult, %in_row, %rows : index
    %col_ok = arith.cmpi ult, %in_col, %cols : index
    %ok = arith.andi %row_ok, %col_ok : i1
    %v = scf.if %ok -> (f32) {
      %base = arith.muli %in_row, %cols : index
      %idx = arith.addi %base, %in_col : index
      %x = simt.load %in[%idx] : !simt.slice<f32>
      scf.yield %x : f32
    } else {
      scf.yield %zero : f32
    }
    simt.unsafe {
      simt.shared_store %v, %tile[%ty, %tx] : !simt.shared<f32, [32, 33]>
      simt.yield
    }
    simt.sync_threads
    // out[by*32 + ty][bx*32 + tx] = in[bx*32 + tx][by*32 + ty] = tile[tx][ty].
    %t = simt.unsafe -> f32 {
      %x = simt.shared_load %tile[%tx, %ty] : !simt.shared<f32, [32, 33]>
      simt.yield %x : f32
    }
    %w = simt.index_2d_runtime %rows
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 2d_runtime>, !simt.thread_index<2d_runtime> {
    ^bb0(%old: f32):
      simt.yield %t : f32
    }
    simt.return
  }
  // doc:end

  // The host program: a rows x cols matrix, both ragged against the 32 x 32 tile. The grid
  // covers the output, cols x rows: x along its rows' width `rows`, y down its `cols` rows.
  func.func @main() -> !host.tensor<f32, [?, ?]> {
    %rows = host.param "rows" = 70 : index
    %cols = host.param "cols" = 45 : index
    %x = host.random uniform(-1.0, 1.0) seed 1 (%rows, %cols) : !host.tensor<f32, [?, ?]>
    %out = host.poison(%cols, %rows) : !host.tensor<f32, [?, ?]>
    %s = host.stream
    %c32 = arith.constant 32 : index
    %gx = arith.ceildivui %rows, %c32 : index
    %gy = arith.ceildivui %cols, %c32 : index
    %p = host.prepare @transpose grid(%gx, %gy) block(%c32, %c32) args(%x, %out, %rows, %cols : !host.tensor<f32, [?, ?]>, !host.tensor<f32, [?, ?]>, index, index)
    %out2 = host.launch @transpose with %p on %s ins(%x, %rows, %cols : !host.tensor<f32, [?, ?]>, index, index) outs(%out : !host.tensor<f32, [?, ?]>) -> !host.tensor<f32, [?, ?]>
    host.sync_on %s
    host.check %out2, "x.T" (x = %x : !host.tensor<f32, [?, ?]>) : !host.tensor<f32, [?, ?]>
    func.return %out2 : !host.tensor<f32, [?, ?]>
  }
}
