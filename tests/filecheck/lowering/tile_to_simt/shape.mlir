// RUN: ferrox-opt %s -p 'convert-tile-to-simt{threads=256}' | filecheck %s

// A transpose renames bits: the loaded registers are the transposed tile's, held by the "wrong"
// threads for a chunked store, so the store stages them through shared memory (rows padded to
// 33, 32 x 33 = 1056 elements): each thread writes its four elements down a column, a barrier,
// each thread reads four consecutive elements of a row. Constants are made once, at the
// kernel's start, and so is each thread's offset in the array: an element adds a constant to it.

tile.kernel @transpose(%out: !tile.partition<f32, [32, 32]>, %x: !tile.tensor<f32, [?, ?]>) {
  %i = tile.block_id 0
  %j = tile.block_id 1
  %t = tile.load %x[%j, %i] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [32, 32]>
  %r = tile.transpose %t : !tile.tile<f32, [32, 32]> -> !tile.tile<f32, [32, 32]>
  tile.store %r, %out : !tile.tile<f32, [32, 32]>, !tile.partition<f32, [32, 32]>
  tile.return
}

// CHECK-LABEL: simt.kernel @transpose(
// CHECK:         %[[PITCH:.*]] = arith.constant 33 : index
// CHECK:         %stage = simt.shared_alloc : !simt.shared<f32, [1056]>
// CHECK-NEXT:    %[[ROW:.*]] = arith.muli %{{.*}}, %[[PITCH]] : index
// CHECK-NEXT:    %[[AT:.*]] = arith.addi %[[ROW]], %{{.*}} : index
// CHECK:         %[[A:.*]], %[[B:.*]], %[[C:.*]], %[[D:.*]] = scf.if %{{.*}} -> (f32, f32, f32, f32) {
// CHECK:           simt.unchecked_load_chunk %x
// CHECK:           simt.call @__ferrox_load_chunk_slice_f32_x4(%x,
// CHECK:         }
// CHECK-NEXT:    simt.unsafe {
// CHECK-NEXT:      simt.shared_store %[[A]], %stage[%[[AT]]] : !simt.shared<f32, [1056]>
// CHECK-NEXT:      %[[AT1:.*]] = arith.addi %[[AT]], %[[PITCH]] : index
// CHECK-NEXT:      simt.shared_store %[[B]], %stage[%[[AT1]]]
// CHECK:           simt.shared_store %[[C]], %stage
// CHECK:           simt.shared_store %[[D]], %stage
// CHECK-NEXT:      simt.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    simt.sync_threads
// CHECK-NEXT:    %[[E:.*]], %[[F:.*]], %[[G:.*]], %[[H:.*]] = simt.unsafe -> f32, f32, f32, f32 {
// CHECK-COUNT-4:   simt.shared_load %stage
// CHECK:         }
// CHECK-NOT:     simt.sync_threads
// CHECK:         simt.store_chunk %out[%w], %[[E]], %[[F]], %[[G]], %[[H]]

// Broadcasts that leave every element where it is: a row vector over the rows of a chunked tile
// and a scalar tile. No shared memory, no barrier; the four rows repeat the same four products,
// which are computed once.
tile.kernel @rows(%out: !tile.partition<f32, [4, 1024]>, %v: !tile.tensor<f32, [?]>, %s: f32) {
  %z = arith.constant 0 : index
  %row = tile.load %v[%z] : !tile.tensor<f32, [?]> -> !tile.tile<f32, [1024]>
  %b = tile.broadcast %row : !tile.tile<f32, [1024]> -> !tile.tile<f32, [4, 1024]>
  %one = tile.full %s : f32 -> !tile.tile<f32, []>
  %ones = tile.broadcast %one : !tile.tile<f32, []> -> !tile.tile<f32, [4, 1024]>
  %r = tile.mul %b, %ones : !tile.tile<f32, [4, 1024]>
  tile.store %r, %out : !tile.tile<f32, [4, 1024]>, !tile.partition<f32, [4, 1024]>
  tile.return
}

// CHECK-LABEL: simt.kernel @rows(
// CHECK-NOT:     simt.shared_alloc
// CHECK:         %[[V0:.*]], %[[V1:.*]], %[[V2:.*]], %[[V3:.*]] = scf.if %{{.*}} -> (f32, f32, f32, f32) {
// CHECK:           simt.unchecked_load_chunk %v
// CHECK:           simt.call @__ferrox_load_chunk_slice_f32_x4(%v,
// CHECK:         }
// CHECK-NEXT:    %[[M0:.*]] = arith.mulf %[[V0]], %s : f32
// CHECK-NEXT:    %[[M1:.*]] = arith.mulf %[[V1]], %s : f32
// CHECK-NEXT:    %[[M2:.*]] = arith.mulf %[[V2]], %s : f32
// CHECK-NEXT:    %[[M3:.*]] = arith.mulf %[[V3]], %s : f32
// CHECK-NOT:     arith.mulf
// CHECK-NOT:     simt.sync_threads
// CHECK:         simt.store_chunk %out[%w], %[[M0]], %[[M1]], %[[M2]], %[[M3]]
// CHECK:         simt.store_chunk %out[%w_1], %[[M0]], %[[M1]], %[[M2]], %[[M3]]
