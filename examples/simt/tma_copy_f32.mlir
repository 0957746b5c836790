// tma_copy_f32: a 2-D f32 array copied through shared memory by Hopper's tensor memory
// accelerator (`simt.tma_load`, PTX cp.async.bulk.tensor), in 32 x 32 boxes kept dense in
// shared memory (examples/simt/tma_copy.mlir reads them swizzled, as wgmma does).
// (sm_90; the tensor map is built by the runtime at each launch from the launch's x, rows and
// cols, refusing rows * cols > len(x): docs/safety.md, "TMA loads".) Each block of 128 threads
// owns one box of the rows x cols array: thread 0 initialises a shared barrier, then (after the
// block meets) says how many bytes the phase expects and issues the load; every thread waits on
// the barrier's phase 0, then stores its chunks of the box through tile witnesses. The hardware
// zero-fills the part of a box past the array (ragged edges) and the witnesses store only inside
// it.
builtin.module {
  simt.kernel @tma_copy_f32(%x: !simt.slice<f32>, %rows: index, %cols: index, %out: !simt.disjoint_slice<f32, tile<[32, 32], 4, arg1>>) contract<domain = 2, block = [128], shared_bytes = 4112, requires = [len(arg3) == arg1 * arg2]> {
    %tile = simt.shared_alloc {dynamic} : !simt.shared<f32, [1024]>
    %bar = simt.shared_alloc {dynamic} : !simt.shared<i64, [1]>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %bytes = arith.constant 4096 : index
    %t = simt.thread_id x
    %bx = simt.block_id x
    %by = simt.block_id y
    %row0 = arith.muli %bx, %c32 : index
    %col0 = arith.muli %by, %c32 : index
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
        simt.tma_load %x[%row0, %col0] shape(%rows, %cols), %tile[%c0], %bar[%c0] {box = array<i64: 32, 32>, swizzle = 0} : !simt.slice<f32>, !simt.shared<f32, [1024]>, !simt.shared<i64, [1]>
      }
      simt.mbarrier_wait %bar[%c0], %c0 : !simt.shared<i64, [1]>
      simt.yield
    }
    scf.for %k = %c0 to %c2 step %c1 {
      %wit = simt.tile_index %k dims(%rows, %cols) : !simt.thread_index<tile<[32, 32], 4, arg1>>
      %kp = arith.muli %k, %c128 : index
      %ch = arith.addi %kp, %t : index
      %r = arith.divui %ch, %c8 : index
      %q = arith.remui %ch, %c8 : index
      %c = arith.muli %q, %c4 : index
      %rr = arith.muli %r, %c32 : index
      %i = arith.addi %rr, %c : index
      %v:4 = simt.unsafe -> f32, f32, f32, f32 {
        %v0, %v1, %v2, %v3 = simt.shared_load_vector %tile[%i] {width = 4} : !simt.shared<f32, [1024]> -> f32, f32, f32, f32
        simt.yield %v0, %v1, %v2, %v3 : f32, f32, f32, f32
      }
      simt.store_chunk %out[%wit], %v#0, %v#1, %v#2, %v#3 : !simt.disjoint_slice<f32, tile<[32, 32], 4, arg1>>, !simt.thread_index<tile<[32, 32], 4, arg1>>
    }
    simt.return
  }
}
