// tma_copy_f32: a 2-D f32 array copied through shared memory by Hopper's tensor memory
// accelerator (`simt.tma_load`, PTX cp.async.bulk.tensor; sm_90), two 32 x 32 boxes a block
// through one tile, the refill ordered by mbarrier phases (examples/simt/tma_copy.mlir reads its
// boxes swizzled, as wgmma does). Each block of 128 threads owns a 64 x 32 part of the rows x
// cols array. Thread 0 initialises two shared barriers: `full` (one arrival a phase, plus the
// bytes of a box) and `empty` (128 arrivals: every thread done reading the tile). It loads the
// upper box into the tile; every thread waits on phase 0 of `full`, stores its chunks through
// tile witnesses, and arrives on `empty`; thread 0 waits on phase 0 of `empty` before it loads
// the lower box into the same tile, and every thread waits on phase 1 of `full` before storing
// it. The hardware zero-fills the part of a box past the array (ragged edges) and the witnesses
// store only inside it. The runtime builds the tensor map from the launch's x, rows and cols at
// each launch, refusing rows * cols > len(x) (docs/safety.md, "TMA loads").
builtin.module {
  // doc:begin tma_copy_f32
  simt.kernel @tma_copy_f32(%x: !simt.slice<f32>, %rows: index, %cols: index, %out: !simt.disjoint_slice<f32, tile<[64, 32], 4, arg1>>) contract<domain = 2, block = [128], shared_bytes = 4112, requires = [len(arg3) == arg1 * arg2]> {
    %tile = simt.shared_alloc {dynamic} : !simt.shared<f32, [1024]>
    %bars = simt.shared_alloc {dynamic} : !simt.shared<i64, [2]>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %bytes = arith.constant 4096 : index
    %t = simt.thread_id x
    %bx = simt.block_id x
    %by = simt.block_id y
    %row0 = arith.muli %bx, %c64 : index
    %row1 = arith.addi %row0, %c32 : index
    %col0 = arith.muli %by, %c32 : index
    %first = arith.cmpi eq, %t, %c0 : index
    simt.unsafe {
      scf.if %first {
        simt.mbarrier_init %bars[%c0], %c1 : !simt.shared<i64, [2]>
        simt.mbarrier_init %bars[%c1], %c128 : !simt.shared<i64, [2]>
      }
      simt.yield
    }
    simt.sync_threads
    simt.unsafe {
      scf.if %first {
        simt.mbarrier_arrive_expect_tx %bars[%c0], %bytes : !simt.shared<i64, [2]>
        simt.tma_load %x[%row0, %col0] shape(%rows, %cols), %tile[%c0], %bars[%c0] {box = array<i64: 32, 32>, swizzle = 0} : !simt.slice<f32>, !simt.shared<f32, [1024]>, !simt.shared<i64, [2]>
      }
      simt.mbarrier_wait %bars[%c0], %c0 : !simt.shared<i64, [2]>
      simt.yield
    }
    // Chunk k * 128 + t of the block's 64 x 32 part is row (k * 128 + t) / 8, columns 4 ((k *
    // 128 + t) % 8) ..: rows 0 .. 31 (k = 0, 1) come from the upper box, 32 .. 63 from the lower.
    scf.for %k = %c0 to %c4 step %c1 {
      %lower = arith.cmpi eq, %k, %c2 : index
      scf.if %lower {
        simt.unsafe {
          simt.mbarrier_arrive %bars[%c1] : !simt.shared<i64, [2]>
          scf.if %first {
            simt.mbarrier_wait %bars[%c1], %c0 : !simt.shared<i64, [2]>
            simt.mbarrier_arrive_expect_tx %bars[%c0], %bytes : !simt.shared<i64, [2]>
            simt.tma_load %x[%row1, %col0] shape(%rows, %cols), %tile[%c0], %bars[%c0] {box = array<i64: 32, 32>, swizzle = 0} : !simt.slice<f32>, !simt.shared<f32, [1024]>, !simt.shared<i64, [2]>
          }
          simt.mbarrier_wait %bars[%c0], %c1 : !simt.shared<i64, [2]>
          simt.yield
        }
      }
      %wit = simt.tile_index %k dims(%rows, %cols) : !simt.thread_index<tile<[64, 32], 4, arg1>>
      %kp = arith.muli %k, %c128 : index
      %ch = arith.addi %kp, %t : index
      %r = arith.divui %ch, %c8 : index
      %rb = arith.remui %r, %c32 : index
      %q = arith.remui %ch, %c8 : index
      %c = arith.muli %q, %c4 : index
      %rr = arith.muli %rb, %c32 : index
      %i = arith.addi %rr, %c : index
      %v:4 = simt.unsafe -> f32, f32, f32, f32 {
        %v0, %v1, %v2, %v3 = simt.shared_load_vector %tile[%i] {width = 4} : !simt.shared<f32, [1024]> -> f32, f32, f32, f32
        simt.yield %v0, %v1, %v2, %v3 : f32, f32, f32, f32
      }
      simt.store_chunk %out[%wit], %v#0, %v#1, %v#2, %v#3 : !simt.disjoint_slice<f32, tile<[64, 32], 4, arg1>>, !simt.thread_index<tile<[64, 32], 4, arg1>>
    }
    simt.return
  }
  // doc:end

  // The host program: a ragged array (`ferrox run examples/simt/tma_copy_f32.mlir [--param
  // rows=R --param cols=C]`; cols a multiple of 4, rows of 16 bytes).
  func.func @main() -> !host.tensor<f32, [?]> {
    %rows = host.param "rows" = 100 : index
    %cols = host.param "cols" = 68 : index
    %n = arith.muli %rows, %cols : index
    %x = host.random uniform(-1.0, 1.0) seed 1 (%n) : !host.tensor<f32, [?]>
    %out = host.poison(%n) : !host.tensor<f32, [?]>
    %s = host.stream
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %gx = arith.ceildivui %rows, %c64 : index
    %gy = arith.ceildivui %cols, %c32 : index
    %p = host.prepare @tma_copy_f32 grid(%gx, %gy) block(%c128) args(%x, %rows, %cols, %out : !host.tensor<f32, [?]>, index, index, !host.tensor<f32, [?]>)
    %out2 = host.launch @tma_copy_f32 with %p on %s ins(%x, %rows, %cols : !host.tensor<f32, [?]>, index, index) outs(%out : !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>
    host.sync_on %s
    host.check %out2, "x" (x = %x : !host.tensor<f32, [?]>) : !host.tensor<f32, [?]>
    func.return %out2 : !host.tensor<f32, [?]>
  }
}
