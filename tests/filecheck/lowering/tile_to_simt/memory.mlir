// RUN: ferrox-opt %s -p 'convert-tile-to-simt{threads=32}' | filecheck %s

// tile.load: per chunk of 4, tensor coordinates g = index * tile + e and the row-major index,
// computed once for both paths. Then one test a tile (memory.py; docs/safety.md, the whole-tile
// fast path): the tile index below S >> log2(T) in each dimension, the dimensions below 2^32,
// the tile's last element below len, the slice 16-byte aligned and S1 a multiple of 4. If it
// holds, one simt.unchecked_load_chunk a chunk in unsafe code; else the masked path: count =
// min(4, S1 - g1) where the tile index is in [0, ceildiv(S, T)) and g0 < S0 and g1 < S1, else
// 0, and simt.load_chunk with the padding, through the module's one function for f32 chunks of
// 4 (a chunk read called from every masked chunk: helpers.py). A [8, 32] tile over 32 threads is two chunks a
// thread, rows e0 = tid / 8 and tid / 8 + 4. tile.store: the same test on the block's own tile
// (and block id z = 0), then unchecked stores at the chunks the witnesses name; else one
// witness and chunk store per chunk, k = 0, 1. tile.dim is the dimension parameter;
// tile.num_blocks the first partition's tile count.

tile.kernel @copy(%out: !tile.partition<f32, [8, 32]>, %x: !tile.tensor<f32, [?, ?]>) {
  %i = tile.block_id 0
  %j = tile.block_id 1
  %t = tile.load %x[%j, %i] padding = neg_inf : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [8, 32]>
  %n = tile.dim %x, 1 : !tile.tensor<f32, [?, ?]>
  %g = tile.num_blocks 1
  %sum = arith.addi %n, %g : index
  tile.store %t, %out : !tile.tile<f32, [8, 32]>, !tile.partition<f32, [8, 32]>
  tile.return
}

// CHECK-LABEL: simt.func @__ferrox_load_chunk_slice_f32_x4(%slice: !simt.slice<f32>, %index: index, %count: index, %padding: f32) -> (f32, f32, f32, f32) attributes {passthrough = ["noinline", "ferrox-inline-late"]} {
// CHECK-NEXT:    %{{.*}} = simt.load_chunk %slice[%index], %count, %padding : !simt.slice<f32> -> f32, f32, f32, f32
// CHECK-NEXT:    simt.return

// CHECK-LABEL: simt.kernel @copy(
// CHECK:         %[[NEGINF:.*]] = arith.constant 0xff800000 : f32
// CHECK:         %[[K0:.*]] = arith.constant 0 : index
// CHECK:         %[[K1:.*]] = arith.constant 1 : index
// CHECK:         %tid = simt.thread_id x
// CHECK:         %[[LOW:.*]] = arith.andi %tid, %{{.*}} : index
// CHECK:         %[[COL:.*]] = arith.shli %[[LOW]], %{{.*}} : index
// CHECK:         %[[ROW:.*]] = arith.shrui %tid, %{{.*}} : index
// CHECK:         %i = simt.block_id x
// CHECK-NEXT:    %j = simt.block_id y
// CHECK:         %[[BASE0:.*]] = arith.muli %j, %{{.*}} : index
// CHECK:         %[[BASE1:.*]] = arith.muli %i, %{{.*}} : index
// CHECK-NEXT:    %[[G0:.*]] = arith.addi %[[BASE0]], %[[ROW]] : index
// CHECK-NEXT:    %[[G1:.*]] = arith.addi %[[BASE1]], %[[COL]] : index
// CHECK-NEXT:    %[[ROWSTART:.*]] = arith.muli %[[G0]], %x_d1 : index
// CHECK-NEXT:    %[[FLAT:.*]] = arith.addi %[[ROWSTART]], %[[G1]] : index
// CHECK-NEXT:    %[[ROW2:.*]] = arith.addi %[[ROW]], %{{.*}} : index
// CHECK-NEXT:    %[[G0B:.*]] = arith.addi %[[BASE0]], %[[ROW2]] : index
// CHECK-NEXT:    %[[ROWSTART2:.*]] = arith.muli %[[G0B]], %x_d1 : index
// CHECK-NEXT:    %[[FLAT2:.*]] = arith.addi %[[ROWSTART2]], %[[G1]] : index
// CHECK-NEXT:    %[[FIT0:.*]] = arith.shrui %x_d0, %{{.*}} : index
// CHECK-NEXT:    %{{.*}} = arith.cmpi ult, %j, %[[FIT0]] : index
// CHECK:         %[[FIT1:.*]] = arith.shrui %x_d1, %{{.*}} : index
// CHECK-NEXT:    %{{.*}} = arith.cmpi ult, %i, %[[FIT1]] : index
// CHECK:         %[[WIDE:.*]] = arith.ori %x_d0, %x_d1 : index
// CHECK:         %[[LEN:.*]] = simt.len %x : !simt.slice<f32>
// CHECK:         %[[LAST:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %{{.*}} = arith.cmpi ult, %[[LAST]], %[[LEN]] : index
// CHECK-NEXT:    %{{.*}} = simt.slice_aligned %x {bytes = 16 : i64} : !simt.slice<f32>
// CHECK-NEXT:    %{{.*}} = arith.andi %x_d1, %{{.*}} : index
// CHECK:         %[[A:.*]], %[[B:.*]], %[[C:.*]], %[[D:.*]], %[[E:.*]], %[[F:.*]], %[[G:.*]], %[[H:.*]] = scf.if %{{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-NEXT:      %{{.*}} = simt.unsafe -> f32, f32, f32, f32, f32, f32, f32, f32 {
// CHECK-NEXT:        %{{.*}} = simt.unchecked_load_chunk %x[%[[FLAT]]] : !simt.slice<f32> -> f32, f32, f32, f32
// CHECK-NEXT:        %{{.*}} = simt.unchecked_load_chunk %x[%[[FLAT2]]] : !simt.slice<f32> -> f32, f32, f32, f32
// CHECK:         } else {
// CHECK-NEXT:      %[[TILES0:.*]] = arith.ceildivui %x_d0, %{{.*}} : index
// CHECK-NEXT:      %{{.*}} = arith.cmpi ult, %j, %[[TILES0]] : index
// CHECK:           %[[IN0:.*]] = arith.cmpi ult, %[[G0]], %x_d0 : index
// CHECK-NEXT:      %[[IN1:.*]] = arith.cmpi ult, %[[G1]], %x_d1 : index
// CHECK-NEXT:      %[[REST:.*]] = arith.subi %x_d1, %[[G1]] : index
// CHECK-NEXT:      %[[MIN:.*]] = arith.minui %[[REST]], %{{.*}} : index
// CHECK:           %count = arith.select %{{.*}}, %[[MIN]], %{{.*}} : index
// CHECK-NEXT:      %{{.*}} = simt.call @__ferrox_load_chunk_slice_f32_x4(%x, %[[FLAT]], %count, %[[NEGINF]]) : (!simt.slice<f32>, index, index, f32) -> (f32, f32, f32, f32)
// CHECK:           %count_1 = arith.select %{{.*}}, %[[MIN]], %{{.*}} : index
// CHECK-NEXT:      %{{.*}} = simt.call @__ferrox_load_chunk_slice_f32_x4(%x, %[[FLAT2]], %count_1, %[[NEGINF]]) : (!simt.slice<f32>, index, index, f32) -> (f32, f32, f32, f32)
// CHECK:         }
// CHECK-NEXT:    %g = arith.ceildivui %out_d1, %{{.*}} : index
// CHECK-NEXT:    %sum = arith.addi %x_d1, %g : index
// CHECK-NEXT:    %[[BZ:.*]] = simt.block_id z
// CHECK:         %{{.*}} = simt.slice_aligned %out {bytes = 16 : i64}
// CHECK:         %[[Z0:.*]] = arith.cmpi eq, %[[BZ]], %{{.*}} : index
// CHECK-NEXT:    %[[STOREWHOLE:.*]] = arith.andi %{{.*}}, %[[Z0]] : i1
// CHECK-NEXT:    scf.if %[[STOREWHOLE]] {
// CHECK-NEXT:      simt.unsafe {
// CHECK:             simt.unchecked_store_chunk %out[%{{.*}}], %[[A]], %[[B]], %[[C]], %[[D]] : !simt.disjoint_slice<f32, tile<[8, 32], 4, arg1>>
// CHECK:             simt.unchecked_store_chunk %out[%{{.*}}], %[[E]], %[[F]], %[[G]], %[[H]] : !simt.disjoint_slice<f32, tile<[8, 32], 4, arg1>>
// CHECK-NEXT:        simt.yield
// CHECK-NEXT:      }
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %w = simt.tile_index %[[K0]] dims(%out_d0, %out_d1) : !simt.thread_index<tile<[8, 32], 4, arg1>>
// CHECK-NEXT:      simt.store_chunk %out[%w], %[[A]], %[[B]], %[[C]], %[[D]] : !simt.disjoint_slice<f32, tile<[8, 32], 4, arg1>>, !simt.thread_index<tile<[8, 32], 4, arg1>>
// CHECK-NEXT:      %w_1 = simt.tile_index %[[K1]] dims(%out_d0, %out_d1) : !simt.thread_index<tile<[8, 32], 4, arg1>>
// CHECK-NEXT:      simt.store_chunk %out[%w_1], %[[E]], %[[F]], %[[G]], %[[H]] : !simt.disjoint_slice<f32, tile<[8, 32], 4, arg1>>, !simt.thread_index<tile<[8, 32], 4, arg1>>
// CHECK-NEXT:    }
// CHECK-NEXT:    simt.return

// load_like reads at the block's own tile index.
tile.kernel @like(%out: !tile.partition<f32, [128]>, %x: !tile.tensor<f32, [?]>) {
  %t = tile.load_like %x, %out : !tile.tensor<f32, [?]>, !tile.partition<f32, [128]> -> !tile.tile<f32, [128]>
  tile.store %t, %out : !tile.tile<f32, [128]>, !tile.partition<f32, [128]>
  tile.return
}

// CHECK-LABEL: simt.kernel @like(
// CHECK:         %[[BX:.*]] = simt.block_id x
// CHECK:         arith.muli %[[BX]], %{{.*}} : index
// CHECK:         simt.call @__ferrox_load_chunk_slice_f32_x4(%x, %{{.*}}, %count, %{{.*}})
// CHECK:         simt.store_chunk %out[%w]
