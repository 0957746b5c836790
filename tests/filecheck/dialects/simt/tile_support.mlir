// RUN: ferrox-opt %s | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s --print-op-generic | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s -p verify-disjoint | filecheck %s

// The tile track's SIMT ops (dialects/simt/tile_support.py) round-trip and pass verify-disjoint.

builtin.module {
  // doc:begin tile_copy
  simt.kernel @tile_copy(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1>>, %m: index, %n: index, %x: !simt.slice<f32>) contract<domain = 2, block = [64], requires = [len(arg0) == arg1 * arg2, len(arg3) == arg1 * arg2]> {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %w = simt.tile_index %c0 dims(%m, %n) : !simt.thread_index<tile<[4, 64], 4, arg1>>
    %i = simt.witness_value %w : !simt.thread_index<tile<[4, 64], 4, arg1>>
    %len = simt.len %x : !simt.slice<f32>
    %left = arith.subi %len, %i : index
    %a, %b, %c, %d = simt.load_chunk %x[%i], %left, %zero : !simt.slice<f32> -> f32, f32, f32, f32
    simt.store_chunk %out[%w], %a, %b, %c, %d : !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1>>, !simt.thread_index<tile<[4, 64], 4, arg1>>
    simt.return
  }
  // doc:end
  // CHECK:      simt.kernel @tile_copy(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1>>, %m: index, %n: index, %x: !simt.slice<f32>) contract<domain = 2, block = [64], requires = [len(arg0) == arg1 * arg2, len(arg3) == arg1 * arg2]> {
  // CHECK:        %w = simt.tile_index %c0 dims(%m, %n) : !simt.thread_index<tile<[4, 64], 4, arg1>>
  // CHECK-NEXT:   %i = simt.witness_value %w : !simt.thread_index<tile<[4, 64], 4, arg1>>
  // CHECK:        %a, %b, %c, %d = simt.load_chunk %x[%i], %left, %zero : !simt.slice<f32> -> f32, f32, f32, f32
  // CHECK-NEXT:   simt.store_chunk %out[%w], %a, %b, %c, %d : !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1>>, !simt.thread_index<tile<[4, 64], 4, arg1>>

  // A rank-1 and a rank-3 space, a chunk of 1, and i8 elements (16 a chunk).
  simt.kernel @spaces(%o1: !simt.disjoint_slice<i8, tile<[64], 16, arg1>>, %n: index, %o3: !simt.disjoint_slice<f32, tile<[2, 2, 8], 1, arg3>>, %a: index, %b: index, %c: index) contract<domain = 1, block = [32]> {
    %k = arith.constant 0 : index
    %v = arith.constant 7 : i8
    %w = simt.tile_index %k dims(%n) : !simt.thread_index<tile<[64], 16, arg1>>
    simt.store_chunk %o1[%w], %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v : !simt.disjoint_slice<i8, tile<[64], 16, arg1>>, !simt.thread_index<tile<[64], 16, arg1>>
    simt.return
  }
  // CHECK: simt.kernel @spaces(%o1: !simt.disjoint_slice<i8, tile<[64], 16, arg1>>, %n: index, %o3: !simt.disjoint_slice<f32, tile<[2, 2, 8], 1, arg3>>, %a: index, %b: index, %c: index)
  // CHECK: %w = simt.tile_index %k dims(%n) : !simt.thread_index<tile<[64], 16, arg1>>

  // A grid order: blockIdx.x walks tile-grid axis 1, blockIdx.y axis 0 (a permutation, so
  // block -> tile stays one to one and verify-disjoint accepts the witness).
  simt.kernel @ordered(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, order [1, 0]>>, %m: index, %n: index) contract<domain = 2, block = [64]> {
    %k = arith.constant 0 : index
    %v = arith.constant 1.0 : f32
    %w = simt.tile_index %k dims(%m, %n) : !simt.thread_index<tile<[4, 64], 4, arg1, order [1, 0]>>
    simt.store_chunk %out[%w], %v, %v, %v, %v : !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, order [1, 0]>>, !simt.thread_index<tile<[4, 64], 4, arg1, order [1, 0]>>
    simt.return
  }
  // CHECK: simt.kernel @ordered(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, order [1, 0]>>, %m: index, %n: index)
  // CHECK: %w = simt.tile_index %k dims(%m, %n) : !simt.thread_index<tile<[4, 64], 4, arg1, order [1, 0]>>

  // A grid reversal: tile-grid axis 1 walked last tile first (the block on ctaid.x = b takes
  // tile n_1 - 1 - b, a bijection on 0 .. n_1 - 1), with the order and without.
  simt.kernel @reversed(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, order [1, 0], reverse [1]>>, %m: index, %n: index) contract<domain = 2, block = [64]> {
    %k = arith.constant 0 : index
    %v = arith.constant 1.0 : f32
    %w = simt.tile_index %k dims(%m, %n) : !simt.thread_index<tile<[4, 64], 4, arg1, order [1, 0], reverse [1]>>
    simt.store_chunk %out[%w], %v, %v, %v, %v : !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, order [1, 0], reverse [1]>>, !simt.thread_index<tile<[4, 64], 4, arg1, order [1, 0], reverse [1]>>
    simt.return
  }
  // CHECK: simt.kernel @reversed(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, order [1, 0], reverse [1]>>, %m: index, %n: index)
  // CHECK: %w = simt.tile_index %k dims(%m, %n) : !simt.thread_index<tile<[4, 64], 4, arg1, order [1, 0], reverse [1]>>
  simt.kernel @reversed_1d(%out: !simt.disjoint_slice<f32, tile<[64], 4, arg1, reverse [0]>>, %n: index) contract<domain = 1, block = [16]> {
    %k = arith.constant 0 : index
    %v = arith.constant 1.0 : f32
    %w = simt.tile_index %k dims(%n) : !simt.thread_index<tile<[64], 4, arg1, reverse [0]>>
    simt.store_chunk %out[%w], %v, %v, %v, %v : !simt.disjoint_slice<f32, tile<[64], 4, arg1, reverse [0]>>, !simt.thread_index<tile<[64], 4, arg1, reverse [0]>>
    simt.return
  }
  // CHECK: simt.kernel @reversed_1d(%out: !simt.disjoint_slice<f32, tile<[64], 4, arg1, reverse [0]>>, %n: index)

  // One warp's 16 x 16 by 16 x 8 tensor-core product (bf16 pairs packed in i32, f32 accumulators).
  // doc:begin mma_sync
  simt.kernel @warp_mma(%out: !simt.disjoint_slice<f32, tile<[128], 4, arg1>>, %n: index, %a: i32, %b: i32) contract<domain = 1, block = [32]> {
    %zero = arith.constant 0.0 : f32
    %d0, %d1, %d2, %d3 = simt.mma_sync bf16 A[%a, %a, %a, %a] B[%b, %b] C[%zero, %zero, %zero, %zero]
    %k = arith.constant 0 : index
    %w = simt.tile_index %k dims(%n) : !simt.thread_index<tile<[128], 4, arg1>>
    simt.store_chunk %out[%w], %d0, %d1, %d2, %d3 : !simt.disjoint_slice<f32, tile<[128], 4, arg1>>, !simt.thread_index<tile<[128], 4, arg1>>
    simt.return
  }
  // doc:end
  // CHECK: %d0, %d1, %d2, %d3 = simt.mma_sync bf16 A[%a, %a, %a, %a] B[%b, %b] C[%zero, %zero, %zero, %zero]
  // The whole-tile fast path's ops: one alignment test, then unchecked chunk accesses in unsafe
  // code (the tile lowering emits them only where a tile is whole, in range and aligned).
  // doc:begin unchecked_chunks
  simt.kernel @whole_copy(%out: !simt.disjoint_slice<f32, tile<[256], 4, arg1>>, %n: index, %x: !simt.slice<f32>) contract<domain = 1, block = [64], requires = [len(arg0) == arg1, len(arg2) == arg1]> {
    %ok = simt.slice_aligned %x {bytes = 16} : !simt.slice<f32>
    scf.if %ok {
      %c0 = arith.constant 0 : index
      %w = simt.tile_index %c0 dims(%n) : !simt.thread_index<tile<[256], 4, arg1>>
      %i = simt.witness_value %w : !simt.thread_index<tile<[256], 4, arg1>>
      simt.unsafe {
        %a, %b, %c, %d = simt.unchecked_load_chunk %x[%i] : !simt.slice<f32> -> f32, f32, f32, f32
        simt.unchecked_store_chunk %out[%i], %a, %b, %c, %d : !simt.disjoint_slice<f32, tile<[256], 4, arg1>>
        simt.yield
      }
    }
    simt.return
  }
  // doc:end
  // CHECK:      %ok = simt.slice_aligned %x {bytes = 16 : i64} : !simt.slice<f32>
  // CHECK:        %a, %b, %c, %d = simt.unchecked_load_chunk %x[%i] : !simt.slice<f32> -> f32, f32, f32, f32
  // CHECK-NEXT:   simt.unchecked_store_chunk %out[%i], %a, %b, %c, %d : !simt.disjoint_slice<f32, tile<[256], 4, arg1>>

  // A persistent space (docs/safety.md#simt-1-persistent): a loop over the tiles of 'simt.tile_schedule',
  // each witness naming the loop's tile; the grid may be any 1-D size.
  // doc:begin persistent
  simt.kernel @persistent(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, persistent>>, %m: index, %n: index) contract<domain = 1, block = [64]> {
    %k = arith.constant 0 : index
    %v = arith.constant 1.0 : f32
    %first, %count, %step = simt.tile_schedule dims(%m, %n) <tile<[4, 64], 4, arg1, persistent>>
    scf.for %t = %first to %count step %step {
      simt.sync_threads
      %w = simt.tile_index %k dims(%m, %n) tile(%t) : !simt.thread_index<tile<[4, 64], 4, arg1, persistent>>
      simt.store_chunk %out[%w], %v, %v, %v, %v : !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, persistent>>, !simt.thread_index<tile<[4, 64], 4, arg1, persistent>>
    }
    simt.return
  }
  // doc:end
  // CHECK:      simt.kernel @persistent(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, persistent>>, %m: index, %n: index) contract<domain = 1, block = [64]> {
  // CHECK:        %first, %count, %step = simt.tile_schedule dims(%m, %n) <tile<[4, 64], 4, arg1, persistent>>
  // CHECK-NEXT:   scf.for %t = %first to %count step %step {
  // CHECK:          %w = simt.tile_index %k dims(%m, %n) tile(%t) : !simt.thread_index<tile<[4, 64], 4, arg1, persistent>>
}
