// REQUIRES: ptxas
// RUN: ferrox-opt %s -p convert-tile-to-simt,lower-to-llvm -t 'ptx{chip=sm_90}' > %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 -v %t.ptx -o %t.cubin 2>&1 | filecheck %s --check-prefix=PTXAS
// RUN: ferrox compile %s --chip sm_90 -o %t.2.ptx --cubin

// Tile kernels all the way to PTX: 16-byte vector loads (read-only path) and stores for whole
// chunks, the contract's block as .reqntid (512 for the reduction: two chunks a thread),
// butterfly shuffles and a barrier for the row reduction; ptxas accepts it without spills.

tile.kernel @vector_add(%z: !tile.partition<f32, [1024]>, %x: !tile.tensor<f32, [?]>, %y: !tile.tensor<f32, [?]>) {
  %a = tile.load_like %x, %z : !tile.tensor<f32, [?]>, !tile.partition<f32, [1024]> -> !tile.tile<f32, [1024]>
  %b = tile.load_like %y, %z : !tile.tensor<f32, [?]>, !tile.partition<f32, [1024]> -> !tile.tile<f32, [1024]>
  %sum = tile.add %a, %b : !tile.tile<f32, [1024]>
  tile.store %sum, %z : !tile.tile<f32, [1024]>, !tile.partition<f32, [1024]>
  tile.return
}

tile.kernel @softmax(%out: !tile.partition<f32, [4, 1024]>, %x: !tile.tensor<f32, [?, ?]>) {
  %t = tile.load_like %x, %out padding = neg_inf : !tile.tensor<f32, [?, ?]>, !tile.partition<f32, [4, 1024]> -> !tile.tile<f32, [4, 1024]>
  %max = tile.reduce_max %t axis = 1 keepdims : !tile.tile<f32, [4, 1024]> -> !tile.tile<f32, [4, 1]>
  %maxb = tile.broadcast %max : !tile.tile<f32, [4, 1]> -> !tile.tile<f32, [4, 1024]>
  %shifted = tile.sub %t, %maxb : !tile.tile<f32, [4, 1024]>
  %e = tile.exp %shifted : !tile.tile<f32, [4, 1024]>
  %sum = tile.reduce_sum %e axis = 1 keepdims : !tile.tile<f32, [4, 1024]> -> !tile.tile<f32, [4, 1]>
  %sumb = tile.broadcast %sum : !tile.tile<f32, [4, 1]> -> !tile.tile<f32, [4, 1024]>
  %r = tile.div %e, %sumb : !tile.tile<f32, [4, 1024]>
  tile.store %r, %out : !tile.tile<f32, [4, 1024]>, !tile.partition<f32, [4, 1024]>
  tile.return
}

// CHECK-LABEL: .visible .entry vector_add(
// CHECK:       .reqntid 256, 1, 1
// CHECK-COUNT-2: ld.global.nc.v4.b32
// CHECK:       st.global.v4.b32
// CHECK:       trap;

// CHECK-LABEL: .visible .entry softmax(
// CHECK:       .reqntid 512, 1, 1
// CHECK:       ld.global.nc.v4.b32
// CHECK:       shfl.sync.bfly.b32
// CHECK:       bar.sync 0;
// CHECK:       st.global.v4.b32

// PTXAS:     Compiling entry function '{{vector_add|softmax}}' for 'sm_90'
// PTXAS:     0 bytes spill stores, 0 bytes spill loads
// PTXAS:     Compiling entry function '{{vector_add|softmax}}' for 'sm_90'
// PTXAS:     0 bytes spill stores, 0 bytes spill loads
