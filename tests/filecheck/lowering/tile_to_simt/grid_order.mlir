// RUN: ferrox-opt %s -p convert-tile-to-simt | filecheck %s
// RUN: ferrox-opt %s -p convert-tile-to-simt,verify-disjoint | filecheck %s

// A grid order (issue 13): CUDA grid axis i walks tile-grid axis order[i]. With [1, 0],
// `tile.block_id 0` is blockIdx.y and `tile.block_id 1` blockIdx.x; the output's tile space
// carries the order, so its witnesses name the tile of b = (ctaid.y, ctaid.x); the host reads
// the order from tile.grid. The identity prints as nothing (the IR and PTX of every kernel
// without an order are unchanged).

tile.kernel @swapped(%out: !tile.partition<f32, [4, 64]>, %x: !tile.tensor<f32, [?, ?]>) grid_order [1, 0] {
  %i = tile.block_id 0
  %j = tile.block_id 1
  %t = tile.load %x[%i, %j] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [4, 64]>
  tile.store %t, %out : !tile.tile<f32, [4, 64]>, !tile.partition<f32, [4, 64]>
  tile.return
}

// CHECK-LABEL: simt.kernel @swapped(
// CHECK-SAME:    %out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, order [1, 0]>>, %out_d0: index, %out_d1: index,
// CHECK-SAME:    tile.grid = {partition = 0 : i64, tile = array<i64: 4, 64>, order = array<i64: 1, 0>}
// CHECK:         %[[I:.*]] = simt.block_id y
// CHECK-NEXT:    %[[J:.*]] = simt.block_id x
// CHECK:         simt.tile_index {{.*}} : !simt.thread_index<tile<[4, 64], 4, arg1, order [1, 0]>>

// A 3-D grid walked z, x, y: block_id d is the CUDA axis i with order[i] = d.
tile.kernel @rotated(%out: !tile.partition<f32, [1, 2, 32]>) grid_order [2, 0, 1] {
  %a = tile.block_id 0
  %b = tile.block_id 1
  %c = tile.block_id 2
  %n = tile.num_blocks 2
  tile.return
}

// CHECK-LABEL: simt.kernel @rotated(
// CHECK-SAME:    tile<[1, 2, 32], 4, arg1, order [2, 0, 1]>
// CHECK-SAME:    tile.grid = {partition = 0 : i64, tile = array<i64: 1, 2, 32>, order = array<i64: 2, 0, 1>}
// CHECK:         simt.block_id y
// CHECK-NEXT:    simt.block_id z
// CHECK-NEXT:    simt.block_id x

// No order, no change: the same kernel without one keeps blockIdx.x for block_id 0.
tile.kernel @plain(%out: !tile.partition<f32, [4, 64]>) {
  %i = tile.block_id 0
  tile.return
}

// CHECK-LABEL: simt.kernel @plain(
// CHECK-SAME:    %out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1>>
// CHECK-SAME:    tile.grid = {partition = 0 : i64, tile = array<i64: 4, 64>}}
// CHECK-NEXT:    simt.block_id x
