// A host program stays valid while its tile kernels are lowered to SIMT.
// RUN: ferrox-opt %s -p convert-tile-to-simt | filecheck %s

// CHECK: simt.kernel @add(
// CHECK-SAME: tile.params
// CHECK: host.tile_launch @add

tile.kernel @add(%z: !tile.partition<f32, [128]>, %x: !tile.tensor<f32, [?]>, %y: !tile.tensor<f32, [?]>) {
  %a = tile.load_like %x, %z : !tile.tensor<f32, [?]>, !tile.partition<f32, [128]> -> !tile.tile<f32, [128]>
  %b = tile.load_like %y, %z : !tile.tensor<f32, [?]>, !tile.partition<f32, [128]> -> !tile.tile<f32, [128]>
  %c = tile.add %a, %b : !tile.tile<f32, [128]>
  tile.store %c, %z : !tile.tile<f32, [128]>, !tile.partition<f32, [128]>
  tile.return
}

func.func @main() {
  %n = host.param "n" = 1000 : index
  %x = host.random uniform(0.0, 1.0) seed 3 (%n) : !host.tensor<f32, [?]>
  %y = host.random uniform(0.0, 1.0) seed 4 (%n) : !host.tensor<f32, [?]>
  %z = host.poison(%n) : !host.tensor<f32, [?]>
  %s = host.stream
  %pz = host.partition %z : !host.tensor<f32, [?]> -> !host.partition<f32, [?], [128]>
  %pz2 = host.tile_launch @add on %s ins(%x, %y : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>) outs(%pz : !host.partition<f32, [?], [128]>) -> !host.partition<f32, [?], [128]>
  %z2 = host.unpartition %pz2 : !host.partition<f32, [?], [128]> -> !host.tensor<f32, [?]>
  host.sync_on %s
  host.check %z2, "x + y" (x = %x : !host.tensor<f32, [?]>, y = %y : !host.tensor<f32, [?]>) : !host.tensor<f32, [?]>
  func.return
}
