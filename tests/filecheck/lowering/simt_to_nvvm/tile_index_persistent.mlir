// RUN: ferrox-opt %s -p convert-simt-to-nvvm | filecheck %s

// A persistent tile space (docs/safety.md#simt-1-persistent): 'simt.tile_schedule' is ctaid.x, the tile
// count (0 where ctaid.y or ctaid.z is not 0) and nctaid.x; the witness's tile is the loop's %t decomposed
// (axis 0 fastest: b0 = t mod n0, b1 = (t div n0) mod n1), and no ctaid enters it.
simt.kernel @persistent(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, persistent>>, %m: index, %n: index) contract<domain = 1, block = [64]> {
  %k = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  %first, %count, %step = simt.tile_schedule dims(%m, %n) <tile<[4, 64], 4, arg1, persistent>>
  scf.for %t = %first to %count step %step {
    %w = simt.tile_index %k dims(%m, %n) tile(%t) : !simt.thread_index<tile<[4, 64], 4, arg1, persistent>>
    simt.store_chunk %out[%w], %v, %v, %v, %v : !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, persistent>>, !simt.thread_index<tile<[4, 64], 4, arg1, persistent>>
  }
  simt.return
}

// CHECK-LABEL: func.func @persistent(
// CHECK:         %[[X:ctaid_x]] = arith.extui
// CHECK:         %[[GX:nctaid_x]] = arith.extui
// CHECK:         nvvm.read.ptx.sreg.ctaid.y
// CHECK-NEXT:    %[[Y:ctaid_y]] = arith.extui
// CHECK:         %[[Z:ctaid_z]] = arith.extui
// CHECK-NEXT:    %[[YZ:.*]] = arith.ori %[[Y]], %[[Z]] : i64
// CHECK-NEXT:    %[[PLANE:.*]] = arith.cmpi eq, %[[YZ]], %{{.*}} : i64
// CHECK-NEXT:    %[[COUNT:.*]] = arith.select %[[PLANE]], %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:    %first = arith.index_cast %[[X]] : i64 to index
// CHECK-NEXT:    %count = arith.index_cast %[[COUNT]] : i64 to index
// CHECK-NEXT:    %step = arith.index_cast %[[GX]] : i64 to index
// CHECK-NEXT:    scf.for %t = %first to %count step %step {
// CHECK-NOT:       ctaid
// CHECK:           %[[T:.*]] = arith.index_cast %t : index to i64
// CHECK:           %[[N0:.*]] = arith.maxui
// CHECK-NEXT:      %[[B0:.*]] = arith.remui %[[T]], %[[N0]] : i64
// CHECK-NEXT:      %[[Q:.*]] = arith.divui %[[T]], %[[N0]] : i64
// CHECK-NEXT:      %[[N1:.*]] = arith.maxui
// CHECK-NEXT:      %[[B1:.*]] = arith.remui %[[Q]], %[[N1]] : i64
// CHECK-NOT:       ctaid
// CHECK:           arith.muli %[[B1]], %{{.*}} : i64
// CHECK-NOT:       ctaid
// CHECK:           arith.muli %[[B0]], %{{.*}} : i64
// CHECK-NOT:       ctaid
// CHECK:         }
