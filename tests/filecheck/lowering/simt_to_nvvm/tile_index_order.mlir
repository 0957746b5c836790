// RUN: ferrox-opt %s -p convert-simt-to-nvvm | filecheck %s

// A tile space with a grid order (issue 13): `tile<[4, 64], 4, arg1, order [1, 0]>` names the
// tile of b = (ctaid.y, ctaid.x), so tile dimension 1 (64 wide, computed first) takes ctaid.x
// and tile dimension 0 (4 high) ctaid.y; the unused ctaid.z must be 0.
simt.kernel @ordered(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, order [1, 0]>>, %m: index, %n: index) contract<domain = 2, block = [64]> {
  %k = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  %w = simt.tile_index %k dims(%m, %n) : !simt.thread_index<tile<[4, 64], 4, arg1, order [1, 0]>>
  simt.store_chunk %out[%w], %v, %v, %v, %v : !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, order [1, 0]>>, !simt.thread_index<tile<[4, 64], 4, arg1, order [1, 0]>>
  simt.return
}

// CHECK-LABEL: func.func @ordered(
// CHECK:         %[[C64:.*]] = arith.constant 64 : i64
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : i64
// CHECK:         %[[N:.*]] = arith.index_cast %n : index to i64
// CHECK:         nvvm.read.ptx.sreg.ctaid.x
// CHECK-NEXT:    %[[X:.*]] = arith.extui
// CHECK-NEXT:    %[[COL0:.*]] = arith.muli %[[X]], %[[C64]] : i64
// CHECK-NEXT:    %[[COL:.*]] = arith.addi %[[COL0]], %{{.*}} : i64
// CHECK-NEXT:    arith.cmpi ult, %[[COL]], %[[N]] : i64
// CHECK:         nvvm.read.ptx.sreg.ctaid.y
// CHECK-NEXT:    %[[Y:.*]] = arith.extui
// CHECK-NEXT:    arith.muli %[[Y]], %[[C4]] : i64
// CHECK:         %[[Z:.*]] = nvvm.read.ptx.sreg.ctaid.z
