// RUN: ferrox-opt %s -p convert-tile-to-simt,verify-disjoint | filecheck %s

// The pipelined GEMM main loop (lowering/tile_to_simt/gemm.py) in two versions: one test
// before the loop that every tile it copies is whole (tile.load's whole-tile rule for x's tile
// (i, ub - 1) and y's tile (ub - 1, j): dims, slice lengths, alignment), then the loop whose
// x loads and y copies are unchecked (an iteration past the end takes the last tile again:
// arith.minui, no test; it counts in `index`: an i32 counter, gemm.NARROW_COUNTER, measured slower), or the
// loop whose loads and copies are checked (the module's shared checked functions, an iteration
// past the end reading nothing). The test is block-uniform,
// so the loops' barriers pass verify-disjoint under it. The stages of x and y are one f32
// array, which the store's round trip through shared memory takes over after the loops. The
// block has 128 threads (gemm.fma_threads: 16 x 8 accumulators each), so each copies two
// chunks of y and loads two chunks of x (one row of 8 k: one checked load of 8). Each iteration
// copies y for S - 1 iterations ahead and loads x's registers for S ahead (gemm.X_AHEAD), which
// the next iteration stores: the loop carries them.

tile.kernel @mm(%c: !tile.partition<f32, [128, 128]>, %a: !tile.tensor<f32, [?, ?]>, %b: !tile.tensor<f32, [?, ?]>) {
  %i = tile.block_id 0
  %j = tile.block_id 1
  %k = tile.dim %a, 1 : !tile.tensor<f32, [?, ?]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %ktiles = arith.ceildivui %k, %c8 : index
  %zero = tile.constant dense<0.0> : !tile.tile<f32, [128, 128]>
  %acc = scf.for %kk = %c0 to %ktiles step %c1 iter_args(%sum = %zero) -> (!tile.tile<f32, [128, 128]>) {
    %x = tile.load %a[%i, %kk] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [128, 8]>
    %y = tile.load %b[%kk, %j] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [8, 128]>
    %next = tile.mma %x, %y, %sum : !tile.tile<f32, [128, 8]>, !tile.tile<f32, [8, 128]>, !tile.tile<f32, [128, 128]>
    scf.yield %next : !tile.tile<f32, [128, 128]>
  }
  tile.store %acc, %c : !tile.tile<f32, [128, 128]>, !tile.partition<f32, [128, 128]>
  tile.return
}

// CHECK-LABEL: simt.kernel @mm(
// CHECK:         %stages = simt.shared_alloc {dynamic} : !simt.shared<f32, [16512]>
// CHECK-NOT:     simt.shared_alloc
// CHECK:         %[[LAST:.*]] = arith.subi %ktiles, %c1 : index
// CHECK:         simt.len %a : !simt.slice<f32>
// CHECK:         simt.slice_aligned %a {bytes = 16 : i64} : !simt.slice<f32>
// CHECK:         simt.len %b : !simt.slice<f32>
// CHECK:         simt.slice_aligned %b {bytes = 16 : i64} : !simt.slice<f32>
// CHECK:         = scf.if %{{[0-9]+}} -> (f32,
// CHECK-NOT:       simt.call
// CHECK:           arith.minui %c0, %[[LAST]] : index
// CHECK-NOT:       simt.call
// CHECK:           simt.unchecked_load_chunk %a[%{{.*}}] : !simt.slice<f32> -> f32, f32, f32, f32
// CHECK-NOT:       simt.call
// CHECK:           simt.unchecked_async_copy %b[%{{.*}}], %stages[%{{.*}}] {width = 4 : i64}
// CHECK-NEXT:      simt.unchecked_async_copy %b[%{{.*}}], %stages[%{{.*}}] {width = 4 : i64}
// CHECK-NEXT:      simt.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    simt.async_commit
// CHECK-NOT:       simt.call
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (index, f32,
// CHECK-NEXT:        simt.async_wait {pending = 2 : i64}
// CHECK-NEXT:        simt.sync_threads
// CHECK-NOT:         simt.call
// CHECK:             arith.minui %{{.*}}, %[[LAST]] : index
// CHECK-NOT:         simt.call
// CHECK:             simt.unchecked_async_copy %b
// CHECK-NOT:         simt.call
// CHECK:             arith.minui %{{.*}}, %[[LAST]] : index
// CHECK-NOT:         simt.call
// CHECK:             simt.unchecked_load_chunk %a
// CHECK-NOT:         simt.call
// CHECK:           simt.async_wait {pending = 0 : i64}
// CHECK-NEXT:      simt.sync_threads
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    } else {
// CHECK-NOT:       simt.unchecked
// CHECK:           simt.call @__ferrox_load_chunk_slice_f32_x8(%a,
// CHECK-NOT:       simt.unchecked
// CHECK:           simt.call @__ferrox_async_copy_slice_f32_x4(%b,
// CHECK-NOT:       simt.unchecked
// CHECK:           scf.for %{{.*}} = %c0 to %ktiles step %c1 iter_args({{.*}}) -> (index, f32,
// CHECK-NEXT:        simt.async_wait {pending = 2 : i64}
// CHECK-NEXT:        simt.sync_threads
// CHECK-NOT:         simt.unchecked
// CHECK:             simt.call @__ferrox_async_copy_slice_f32_x4(%b,
// CHECK-NOT:         simt.unchecked
// CHECK:             simt.call @__ferrox_load_chunk_slice_f32_x8(%a,
// CHECK-NOT:         simt.unchecked
// CHECK:           simt.async_wait {pending = 0 : i64}
// CHECK-NEXT:      simt.sync_threads
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NOT:     simt.shared_alloc
// CHECK:         simt.shared_store %{{.*}}, %stages[
// CHECK:         simt.sync_threads
// CHECK:         simt.shared_load %stages[
