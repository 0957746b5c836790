// RUN: ferrox-opt %s -p convert-simt-to-nvvm | filecheck %s

// A tile space with a grid reversal (issue 13): `tile<[4, 64], 4, arg1, order [1, 0], reverse
// [1]>` names the tile of b = (ctaid.y, n_1 - 1 - ctaid.x), n_1 = ceildiv(S_1, 64) the tile count
// of axis 1 (ragged last tile included), computed without wrapping (S >> 6 + (S & 63 != 0)); the
// witness is in bounds only where ctaid.x < n_1, so block -> tile stays one to one on 0 .. n_1 - 1
// and a block past the count names nothing. Axis 0 (not reversed) keeps ctaid.y as it was.
simt.kernel @reversed(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, order [1, 0], reverse [1]>>, %m: index, %n: index) contract<domain = 2, block = [64]> {
  %k = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  %w = simt.tile_index %k dims(%m, %n) : !simt.thread_index<tile<[4, 64], 4, arg1, order [1, 0], reverse [1]>>
  simt.store_chunk %out[%w], %v, %v, %v, %v : !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, order [1, 0], reverse [1]>>, !simt.thread_index<tile<[4, 64], 4, arg1, order [1, 0], reverse [1]>>
  simt.return
}

// CHECK-LABEL: func.func @reversed(
// CHECK:         %[[C64:.*]] = arith.constant 64 : i64
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : i64
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[C63:.*]] = arith.constant 63 : i64
// CHECK-NEXT:    %[[C6:.*]] = arith.constant 6 : i64
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : i64
// CHECK:         %[[N:.*]] = arith.index_cast %n : index to i64
// CHECK:         nvvm.read.ptx.sreg.ctaid.x
// CHECK-NEXT:    %[[X:.*]] = arith.extui
// CHECK-NEXT:    %[[WHOLE:.*]] = arith.shrui %[[N]], %[[C6]] : i64
// CHECK-NEXT:    %[[PART:.*]] = arith.andi %[[N]], %[[C63]] : i64
// CHECK-NEXT:    %[[RAGGED:.*]] = arith.cmpi ne, %[[PART]], %[[C0]] : i64
// CHECK-NEXT:    %[[EXTRA:.*]] = arith.extui %[[RAGGED]] : i1 to i64
// CHECK-NEXT:    %[[COUNT:.*]] = arith.addi %[[WHOLE]], %[[EXTRA]] : i64
// CHECK-NEXT:    %[[INSIDE:.*]] = arith.cmpi ult, %[[X]], %[[COUNT]] : i64
// CHECK-NEXT:    %[[LAST:.*]] = arith.subi %[[COUNT]], %[[C1]] : i64
// CHECK-NEXT:    %[[B1:.*]] = arith.subi %[[LAST]], %[[X]] : i64
// CHECK-NEXT:    %[[COL0:.*]] = arith.muli %[[B1]], %[[C64]] : i64
// CHECK-NEXT:    %[[COL:.*]] = arith.addi %[[COL0]], %{{.*}} : i64
// CHECK-NEXT:    arith.cmpi ult, %[[COL]], %[[N]] : i64
// CHECK:         nvvm.read.ptx.sreg.ctaid.y
// CHECK-NEXT:    %[[Y:.*]] = arith.extui
// CHECK-NEXT:    arith.muli %[[Y]], %[[C4]] : i64
// CHECK:         arith.andi %{{.*}}, %[[INSIDE]] : i1

// Without the reversal the same space computes no tile count: b_1 is ctaid.x itself (the
// product follows its read).
simt.kernel @forward(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, order [1, 0]>>, %m: index, %n: index) contract<domain = 2, block = [64]> {
  %k = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  %w = simt.tile_index %k dims(%m, %n) : !simt.thread_index<tile<[4, 64], 4, arg1, order [1, 0]>>
  simt.store_chunk %out[%w], %v, %v, %v, %v : !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, order [1, 0]>>, !simt.thread_index<tile<[4, 64], 4, arg1, order [1, 0]>>
  simt.return
}

// CHECK-LABEL: func.func @forward(
// CHECK:         nvvm.read.ptx.sreg.ctaid.x
// CHECK-NEXT:    %[[FX:.*]] = arith.extui
// CHECK-NEXT:    arith.muli %[[FX]], %{{.*}} : i64
