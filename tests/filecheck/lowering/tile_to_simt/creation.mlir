// RUN: ferrox-opt %s -p 'convert-tile-to-simt{threads=32}' | filecheck %s

// Constants, tile.full and tile.iota are made where they are used, in the layout used there:
// iota is each register's column coordinate cast to i32, full the scalar itself, a splat one
// constant; a constant that lists its elements is written once (by thread 0) to shared memory
// and read back in the layout. tile.extract of a rank-0 tile is its one register. The
// constants themselves (here the table's elements) are made once, at the kernel's start.

tile.kernel @make(%out: !tile.partition<i32, [4, 8]>, %n: i32) {
  %i = tile.iota : !tile.tile<i32, [8]>
  %ib = tile.broadcast %i : !tile.tile<i32, [8]> -> !tile.tile<i32, [4, 8]>
  %full = tile.full %n : i32 -> !tile.tile<i32, [4, 8]>
  %c = tile.constant dense<[[1, 2, 3, 4, 5, 6, 7, 8], [9, 10, 11, 12, 13, 14, 15, 16], [17, 18, 19, 20, 21, 22, 23, 24], [25, 26, 27, 28, 29, 30, 31, 32]]> : !tile.tile<i32, [4, 8]>
  %a = tile.add %ib, %full : !tile.tile<i32, [4, 8]>
  %r = tile.add %a, %c : !tile.tile<i32, [4, 8]>
  %s = tile.reduce_sum %r axis = 1 : !tile.tile<i32, [4, 8]> -> !tile.tile<i32, [4]>
  %t = tile.reduce_max %s axis = 0 : !tile.tile<i32, [4]> -> !tile.tile<i32, []>
  %x = tile.extract %t : !tile.tile<i32, []> -> i32
  %xt = tile.full %x : i32 -> !tile.tile<i32, [4, 8]>
  %y = tile.sub %r, %xt : !tile.tile<i32, [4, 8]>
  tile.store %y, %out : !tile.tile<i32, [4, 8]>, !tile.partition<i32, [4, 8]>
  tile.return
}

// CHECK-LABEL: simt.kernel @make(
// CHECK:         %[[ONE:.*]] = arith.constant 1 : i32
// CHECK:         %[[LAST:.*]] = arith.constant 32 : i32
// CHECK-NEXT:    %[[MASK:.*]] = arith.constant 31 : index
// CHECK:         %[[COL:.*]] = arith.shli
// CHECK:         %stage = simt.shared_alloc : !simt.shared<i32, [32]>
// CHECK:         %[[I0:.*]] = arith.index_cast %[[COL]] : index to i32
// CHECK:         %[[A0:.*]] = arith.addi %[[I0]], %n : i32
// CHECK:         %[[BITS:.*]] = arith.andi %tid, %[[MASK]] : index
// CHECK:         %[[FIRST:.*]] = arith.cmpi eq, %[[BITS]], %{{.*}} : index
// CHECK-NEXT:    scf.if %[[FIRST]] {
// CHECK-NEXT:      simt.unsafe {
// CHECK:             simt.shared_store %[[ONE]], %stage
// CHECK:             simt.shared_store %[[LAST]], %stage
// CHECK:         simt.sync_threads
// CHECK:         %[[C0:.*]], %{{.*}}, %{{.*}}, %{{.*}} = simt.unsafe -> i32, i32, i32, i32 {
// CHECK:         %[[R0:.*]] = arith.addi %[[A0]], %[[C0]] : i32
// CHECK:         simt.shuffle xor
// CHECK:         %x = arith.maxsi
// CHECK-NOT:     simt.shuffle
// CHECK:         arith.subi %{{.*}}, %x : i32
// CHECK:         simt.store_chunk %out[%w]
