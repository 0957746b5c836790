// tma_copy: a 2-D bf16 array copied through shared memory by Hopper's tensor memory
// accelerator (`simt.tma_load`, PTX cp.async.bulk.tensor), in 64 x 64 boxes in the 128-byte
// swizzled layout wgmma reads (element (r, c) of a box at 64 r + (c ^ 8 (r % 8))), undone as
// the threads read the tile back (examples/simt/tma_copy_f32.mlir keeps the rows dense).
// (sm_90; the tensor map is built by the runtime at each launch from the launch's x, rows and
// cols, refusing rows * cols > len(x): docs/safety.md, "TMA loads".) Each block of 128 threads
// owns one box of the rows x cols array: thread 0 initialises a shared barrier, then (after the
// block meets) says how many bytes the phase expects and issues the load; every thread waits on
// the barrier's phase 0, then stores its chunks of the box through tile witnesses. The hardware
// zero-fills the part of a box past the array (ragged edges) and the witnesses store only inside
// it.
builtin.module {
  // doc:begin tma_copy
  simt.kernel @tma_copy(%x: !simt.slice<bf16>, %rows: index, %cols: index, %out: !simt.disjoint_slice<bf16, tile<[64, 64], 8, arg1>>) contract<domain = 2, block = [128], shared_bytes = 8208, requires = [len(arg3) == arg1 * arg2]> {
    %tile = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
    %bar = simt.shared_alloc {dynamic} : !simt.shared<i64, [1]>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %bytes = arith.constant 8192 : index
    %t = simt.thread_id x
    %bx = simt.block_id x
    %by = simt.block_id y
    %row0 = arith.muli %bx, %c64 : index
    %col0 = arith.muli %by, %c64 : index
    %first = arith.cmpi eq, %t, %c0 : index
    simt.unsafe {
      scf.if %first {
        simt.mbarrier_init %bar[%c0], %c1 : !simt.shared<i64, [1]>
      }
      simt.yield
    }
    simt.sync_threads
    simt.unsafe {
      scf.if %first {
        simt.mbarrier_arrive_expect_tx %bar[%c0], %bytes : !simt.shared<i64, [1]>
        simt.tma_load %x[%row0, %col0] shape(%rows, %cols), %tile[%c0], %bar[%c0] {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [1]>
      }
      simt.mbarrier_wait %bar[%c0], %c0 : !simt.shared<i64, [1]>
      simt.yield
    }
    scf.for %k = %c0 to %c4 step %c1 {
      %wit = simt.tile_index %k dims(%rows, %cols) : !simt.thread_index<tile<[64, 64], 8, arg1>>
      %kp = arith.muli %k, %c128 : index
      %ch = arith.addi %kp, %t : index
      %r = arith.divui %ch, %c8 : index
      %q = arith.remui %ch, %c8 : index
      %r8 = arith.remui %r, %c8 : index
      %sq = arith.xori %q, %r8 : index
      %c = arith.muli %sq, %c8 : index
      %rr = arith.muli %r, %c64 : index
      %i = arith.addi %rr, %c : index
      %v:8 = simt.unsafe -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16 {
        %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7 = simt.shared_load_vector %tile[%i] {width = 8} : !simt.shared<bf16, [4096]> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
        simt.yield %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7 : bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
      }
      simt.store_chunk %out[%wit], %v#0, %v#1, %v#2, %v#3, %v#4, %v#5, %v#6, %v#7 : !simt.disjoint_slice<bf16, tile<[64, 64], 8, arg1>>, !simt.thread_index<tile<[64, 64], 8, arg1>>
    }
    simt.return
  }
  // doc:end

  // The host program: a ragged array (`ferrox run examples/simt/tma_copy.mlir [--param rows=R
  // --param cols=C]`; cols a multiple of 8, rows of 16 bytes).
  func.func @main() -> !host.tensor<bf16, [?]> {
    %rows = host.param "rows" = 130 : index
    %cols = host.param "cols" = 136 : index
    %n = arith.muli %rows, %cols : index
    %x = host.random uniform(-1.0, 1.0) seed 1 (%n) : !host.tensor<bf16, [?]>
    %out = host.poison(%n) : !host.tensor<bf16, [?]>
    %s = host.stream
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %gx = arith.ceildivui %rows, %c64 : index
    %gy = arith.ceildivui %cols, %c64 : index
    %p = host.prepare @tma_copy grid(%gx, %gy) block(%c128) args(%x, %rows, %cols, %out : !host.tensor<bf16, [?]>, index, index, !host.tensor<bf16, [?]>)
    %out2 = host.launch @tma_copy with %p on %s ins(%x, %rows, %cols : !host.tensor<bf16, [?]>, index, index) outs(%out : !host.tensor<bf16, [?]>) -> !host.tensor<bf16, [?]>
    host.sync_on %s
    host.check %out2, "x" (x = %x : !host.tensor<bf16, [?]>) : !host.tensor<bf16, [?]>
    func.return %out2 : !host.tensor<bf16, [?]>
  }
}
