// RUN: ferrox-opt %s -p convert-tile-to-simt | filecheck %s
// RUN: ferrox-opt %s -p convert-tile-to-simt,verify-disjoint | filecheck %s

// A grid reversal (issue 13): tile-grid axis d in `grid_reverse` is walked last tile first, so
// `tile.block_id d` is n_d - 1 - blockIdx (n_d = ceildiv(S_d, T_d), `tile.num_blocks d`, the
// ragged last tile included: block 0 takes it). The output's tile space carries the reversal,
// so its witnesses name the same tile; the host reads it from tile.grid (the launch grid is the
// same). Only the block -> tile map changes; a tile's index still places its data.

tile.kernel @reversed(%out: !tile.partition<f32, [4, 64]>, %x: !tile.tensor<f32, [?, ?]>) grid_order [1, 0] grid_reverse [1] {
  %i = tile.block_id 0
  %j = tile.block_id 1
  %t = tile.load %x[%i, %j] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [4, 64]>
  tile.store %t, %out : !tile.tile<f32, [4, 64]>, !tile.partition<f32, [4, 64]>
  tile.return
}

// CHECK-LABEL: simt.kernel @reversed(
// CHECK-SAME:    %out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, order [1, 0], reverse [1]>>, %out_d0: index, %out_d1: index,
// CHECK-SAME:    tile.grid = {partition = 0 : i64, tile = array<i64: 4, 64>, order = array<i64: 1, 0>, reverse = array<i64: 1>}
// CHECK:         %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK:         %[[I:.*]] = simt.block_id y
// CHECK-NEXT:    %[[BX:.*]] = simt.block_id x
// CHECK-NEXT:    %[[N1:.*]] = arith.ceildivui %out_d1, %[[C64]] : index
// CHECK-NEXT:    %[[LAST:.*]] = arith.subi %[[N1]], %[[C1]] : index
// CHECK-NEXT:    %[[J:.*]] = arith.subi %[[LAST]], %[[BX]] : index
// CHECK:         arith.muli %[[J]], %[[C64]] : index
// CHECK:         simt.tile_index {{.*}} : !simt.thread_index<tile<[4, 64], 4, arg1, order [1, 0], reverse [1]>>

// Reversed alone, on a 3-D grid with axes 0 and 2 reversed: each reversed block id is computed
// once from its own axis's tile count; axis 1 is blockIdx.y itself.
tile.kernel @reversed_3d(%out: !tile.partition<f32, [2, 2, 32]>) grid_reverse [0, 2] {
  %a = tile.block_id 0
  %b = tile.block_id 1
  %c = tile.block_id 2
  tile.return
}

// CHECK-LABEL: simt.kernel @reversed_3d(
// CHECK-SAME:    tile<[2, 2, 32], 4, arg1, reverse [0, 2]>
// CHECK-SAME:    tile.grid = {partition = 0 : i64, tile = array<i64: 2, 2, 32>, reverse = array<i64: 0, 2>}
// CHECK:         %[[AX:.*]] = simt.block_id x
// CHECK-NEXT:    %[[N0:.*]] = arith.ceildivui %out_d0, %{{.*}} : index
// CHECK-NEXT:    %[[L0:.*]] = arith.subi %[[N0]], %{{.*}} : index
// CHECK-NEXT:    %a = arith.subi %[[L0]], %[[AX]] : index
// CHECK-NEXT:    %b = simt.block_id y
// CHECK-NEXT:    %[[CZ:.*]] = simt.block_id z
// CHECK-NEXT:    %[[N2:.*]] = arith.ceildivui %out_d2, %{{.*}} : index
// CHECK-NEXT:    %[[L2:.*]] = arith.subi %[[N2]], %{{.*}} : index
// CHECK-NEXT:    %c = arith.subi %[[L2]], %[[CZ]] : index

// No reversal, no change: block_id 1 is blockIdx.y and the space and tile.grid say nothing.
tile.kernel @forward(%out: !tile.partition<f32, [4, 64]>) {
  %j = tile.block_id 1
  tile.return
}

// CHECK-LABEL: simt.kernel @forward(
// CHECK-SAME:    %out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1>>
// CHECK-SAME:    tile.grid = {partition = 0 : i64, tile = array<i64: 4, 64>}}
// CHECK-NEXT:    %j = simt.block_id y
