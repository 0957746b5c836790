// RUN: ferrox-opt %s -p convert-tile-to-simt | filecheck %s
// RUN: ferrox-opt %s -p 'convert-tile-to-simt{threads=64 elems=2}' | filecheck %s --check-prefix=OPT
// RUN: ferrox-opt %s -p convert-tile-to-simt,verify-disjoint | filecheck %s

// The signature: a partition becomes a disjoint slice of a tile space whose dimensions are the
// parameters after it, a tensor a shared slice and its dimensions, a scalar stays. The contract
// has the grid's rank as domain, the chosen block, and len == product of dims per tensor; the
// host attributes say where each parameter comes from and how the grid is derived.

tile.kernel @sig(%out: !tile.partition<f32, [16, 64]>, %alpha: f32, %x: !tile.tensor<f32, [?, 4096]>, %n: i32) {
  tile.return
}

// CHECK-LABEL: simt.kernel @sig(
// CHECK-SAME:    %out: !simt.disjoint_slice<f32, tile<[16, 64], 4, arg1>>, %out_d0: index, %out_d1: index,
// CHECK-SAME:    %alpha: f32, %x: !simt.slice<f32>, %x_d0: index, %x_d1: index, %n: i32)
// CHECK-SAME:    contract<domain = 2, block = [256], requires = [len(arg0) == arg1 * arg2, len(arg4) == arg5 * arg6]>
// CHECK-SAME:    attributes {tile.lowering = {threads = 256 : i64, elems_per_thread = 4 : i64},
// CHECK-SAME:    tile.params = ["arg0", "arg0.dim0", "arg0.dim1", "arg1", "arg2", "arg2.dim0", "arg2.dim1", "arg3"],
// CHECK-SAME:    tile.grid = {partition = 0 : i64, tile = array<i64: 16, 64>}}
// CHECK-NEXT:    simt.return

// OPT-LABEL: simt.kernel @sig(
// OPT-SAME:    %out: !simt.disjoint_slice<f32, tile<[16, 64], 2, arg1>>
// OPT-SAME:    contract<domain = 2, block = [64],
// OPT-SAME:    tile.lowering = {threads = 64 : i64, elems_per_thread = 2 : i64}

// Two outputs: the first fixes the grid; each has its own space over its own dimensions.
tile.kernel @two(%a: !tile.partition<f32, [128]>, %b: !tile.partition<i32, [64]>) {
  tile.return
}

// CHECK-LABEL: simt.kernel @two(
// CHECK-SAME:    %a: !simt.disjoint_slice<f32, tile<[128], 4, arg1>>, %a_d0: index, %b: !simt.disjoint_slice<i32, tile<[64], 4, arg3>>, %b_d0: index)
// CHECK-SAME:    contract<domain = 1, block = [32], requires = [len(arg0) == arg1, len(arg2) == arg3]>
// CHECK-SAME:    tile.grid = {partition = 0 : i64, tile = array<i64: 128>}
