// vector_add: z = x + y, one 1024-element tile per tile block. Two launches: a length that is
// a multiple of the tile, and one that is not, where the last tile block's loads pad with
// zeros and its store is masked (nothing else is needed for a ragged edge).
builtin.module {
  // doc:begin vector_add
  tile.kernel @vector_add(%z: !tile.partition<f32, [1024]>, %x: !tile.tensor<f32, [?]>, %y: !tile.tensor<f32, [?]>) {
    %a = tile.load_like %x, %z : !tile.tensor<f32, [?]>, !tile.partition<f32, [1024]> -> !tile.tile<f32, [1024]>
    %b = tile.load_like %y, %z : !tile.tensor<f32, [?]>, !tile.partition<f32, [1024]> -> !tile.tile<f32, [1024]>
    %sum = tile.add %a, %b : !tile.tile<f32, [1024]>
    tile.store %sum, %z : !tile.tile<f32, [1024]>, !tile.partition<f32, [1024]>
    tile.return
  }
  // doc:end

  func.func @main() {
    %n = host.param "n" = 8192 : index
    %r = host.param "ragged_n" = 3001 : index
    %s = host.stream
    %x = host.random uniform(-1.0, 1.0) seed 1 (%n) : !host.tensor<f32, [?]>
    %y = host.random uniform(-1.0, 1.0) seed 2 (%n) : !host.tensor<f32, [?]>
    %z = host.poison(%n) : !host.tensor<f32, [?]>
    %pz = host.partition %z : !host.tensor<f32, [?]> -> !host.partition<f32, [?], [1024]>
    %pz2 = host.tile_launch @vector_add on %s ins(%x, %y : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>) outs(%pz : !host.partition<f32, [?], [1024]>) -> !host.partition<f32, [?], [1024]>
    %z2 = host.unpartition %pz2 : !host.partition<f32, [?], [1024]> -> !host.tensor<f32, [?]>
    %rx = host.random normal(0.0, 1.0) seed 3 (%r) : !host.tensor<f32, [?]>
    %ry = host.random normal(0.0, 1.0) seed 4 (%r) : !host.tensor<f32, [?]>
    %rz = host.poison(%r) : !host.tensor<f32, [?]>
    %prz = host.partition %rz : !host.tensor<f32, [?]> -> !host.partition<f32, [?], [1024]>
    %prz2 = host.tile_launch @vector_add on %s ins(%rx, %ry : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>) outs(%prz : !host.partition<f32, [?], [1024]>) -> !host.partition<f32, [?], [1024]>
    %rz2 = host.unpartition %prz2 : !host.partition<f32, [?], [1024]> -> !host.tensor<f32, [?]>
    host.sync_on %s
    host.check %z2, "x + y" (x = %x : !host.tensor<f32, [?]>, y = %y : !host.tensor<f32, [?]>) : !host.tensor<f32, [?]>
    host.check %rz2, "x + y" (x = %rx : !host.tensor<f32, [?]>, y = %ry : !host.tensor<f32, [?]>) : !host.tensor<f32, [?]>
    func.return
  }
}
