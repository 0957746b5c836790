// RUN: ferrox-opt %s -p 'convert-tile-to-simt{threads=64}' | filecheck %s

// A row max of a [2, 256] tile over 64 threads (two warps): each thread holds two chunks of 4,
// one per row. In each thread a tree over its 4 registers of a row, then xor shuffles over the
// five lane bits (offsets 1, 2, 4, 8, 16), then across the two warps through a shared array
// [register][thread]: a barrier, each lane reads one partial per row, the one of the thread in
// the warp its lane bit 0 names (`partner`, computed once at the start), and one more xor
// shuffle (offset 1) combines the two warps' values, the same bits in every lane. The [2, 1]
// result is replicated, which is the layout its broadcast over the row needs: the subtraction
// uses it in place. The constants (the shuffle offsets among them) are made once, at the
// kernel's start.

tile.kernel @rowmax(%out: !tile.partition<f32, [2, 256]>, %x: !tile.tensor<f32, [?, ?]>) {
  %t = tile.load_like %x, %out padding = neg_inf : !tile.tensor<f32, [?, ?]>, !tile.partition<f32, [2, 256]> -> !tile.tile<f32, [2, 256]>
  %m = tile.reduce_max %t axis = 1 keepdims : !tile.tile<f32, [2, 256]> -> !tile.tile<f32, [2, 1]>
  %mb = tile.broadcast %m : !tile.tile<f32, [2, 1]> -> !tile.tile<f32, [2, 256]>
  %r = tile.sub %t, %mb : !tile.tile<f32, [2, 256]>
  tile.store %r, %out : !tile.tile<f32, [2, 256]>, !tile.partition<f32, [2, 256]>
  tile.return
}

// CHECK-LABEL: simt.kernel @rowmax(
// CHECK:         %[[C1:.*]] = arith.constant 1 : index
// CHECK:         %[[OFF1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[OFF2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[OFF4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:    %[[OFF8:.*]] = arith.constant 8 : i32
// CHECK-NEXT:    %[[OFF16:.*]] = arith.constant 16 : i32
// CHECK:         %[[C31:.*]] = arith.constant 31 : index
// CHECK-NEXT:    %[[C5:.*]] = arith.constant 5 : index
// CHECK:         %partials = simt.shared_alloc : !simt.shared<f32, [128]>
// CHECK-NEXT:    %[[OWN:.*]] = arith.andi %tid, %[[C31]] : index
// CHECK-NEXT:    %[[BIT0:.*]] = arith.andi %tid, %[[C1]] : index
// CHECK-NEXT:    %[[WARP:.*]] = arith.shli %[[BIT0]], %[[C5]] : index
// CHECK-NEXT:    %partner = arith.ori %[[OWN]], %[[WARP]] : index
// CHECK:         %[[A0:.*]], %[[A1:.*]], %[[A2:.*]], %[[A3:.*]], %[[B0:.*]], %[[B1:.*]], %[[B2:.*]], %[[B3:.*]] = scf.if %{{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-COUNT-2:   simt.unchecked_load_chunk %x
// CHECK:         } else {
// CHECK-COUNT-2:   simt.call @__ferrox_load_chunk_slice_f32_x4(%x,
// CHECK:         }
// CHECK-NEXT:    %[[T0:.*]] = arith.maximumf %[[A0]], %[[A1]] : f32
// CHECK-NEXT:    %[[T1:.*]] = arith.maximumf %[[A2]], %[[A3]] : f32
// CHECK-NEXT:    %[[ROW0:.*]] = arith.maximumf %[[T0]], %[[T1]] : f32
// CHECK-NEXT:    arith.maximumf %[[B0]], %[[B1]] : f32
// CHECK-NEXT:    arith.maximumf %[[B2]], %[[B3]] : f32
// CHECK-NEXT:    %[[ROW1:.*]] = arith.maximumf
// CHECK-NEXT:    %[[S1:.*]] = simt.shuffle xor %[[ROW0]], %[[OFF1]] : f32
// CHECK-NEXT:    %[[R01:.*]] = arith.maximumf %[[ROW0]], %[[S1]] : f32
// CHECK:         simt.shuffle xor %{{.*}}, %[[OFF2]] : f32
// CHECK:         simt.shuffle xor %{{.*}}, %[[OFF4]] : f32
// CHECK:         simt.shuffle xor %{{.*}}, %[[OFF8]] : f32
// CHECK:         %[[S16:.*]] = simt.shuffle xor %[[X:.*]], %[[OFF16]] : f32
// CHECK-NEXT:    %[[W0:.*]] = arith.maximumf %[[X]], %[[S16]] : f32
// CHECK:         %[[W1:.*]] = arith.maximumf
// CHECK-NEXT:    simt.unsafe {
// CHECK-NEXT:      simt.shared_store %[[W0]], %partials[%tid] : !simt.shared<f32, [128]>
// CHECK:           simt.shared_store %[[W1]], %partials[%{{.*}}] : !simt.shared<f32, [128]>
// CHECK-NEXT:      simt.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    simt.sync_threads
// CHECK-NEXT:    %[[P0:.*]], %[[P1:.*]] = simt.unsafe -> f32, f32 {
// CHECK-NEXT:      simt.shared_load %partials[%partner] : !simt.shared<f32, [128]>
// CHECK-COUNT-1:   simt.shared_load %partials
// CHECK:         }
// CHECK-NEXT:    %[[Q0:.*]] = simt.shuffle xor %[[P0]], %[[OFF1]] : f32
// CHECK-NEXT:    %[[MAX0:.*]] = arith.maximumf %[[P0]], %[[Q0]] : f32
// CHECK-NEXT:    %[[Q1:.*]] = simt.shuffle xor %[[P1]], %[[OFF1]] : f32
// CHECK-NEXT:    %[[MAX1:.*]] = arith.maximumf %[[P1]], %[[Q1]] : f32
// CHECK-NEXT:    arith.subf %[[A0]], %[[MAX0]] : f32
// CHECK-COUNT-3: arith.subf %{{.*}}, %[[MAX0]] : f32
// CHECK-NEXT:    arith.subf %[[B0]], %[[MAX1]] : f32
// CHECK-NOT:     simt.sync_threads
// CHECK:         simt.return

// Within one warp, no shared memory for the reduction: the result is replicated over the
// lanes (only the store, which wants each element in its chunk's thread, stages it).
tile.kernel @sum32(%out: !tile.partition<f32, [2]>, %x: !tile.tensor<f32, [?, ?]>) {
  %i = tile.block_id 0
  %z = arith.constant 0 : index
  %t = tile.load %x[%i, %z] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [2, 128]>
  %s = tile.reduce_sum %t axis = 1 : !tile.tile<f32, [2, 128]> -> !tile.tile<f32, [2]>
  tile.store %s, %out : !tile.tile<f32, [2]>, !tile.partition<f32, [2]>
  tile.return
}

// CHECK-LABEL: simt.kernel @sum32(
// CHECK-NOT:     %partials
// CHECK:         %stage = simt.shared_alloc : !simt.shared<f32, [2]>
// CHECK-NOT:     %partials
// CHECK-COUNT-5: simt.shuffle xor
// CHECK-NOT:     %partials
// CHECK:         simt.store_chunk
