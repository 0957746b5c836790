// saxpy: out = alpha * x + y; the scalar becomes a tile with tile.full.
builtin.module {
  // doc:begin saxpy
  tile.kernel @saxpy(%out: !tile.partition<f32, [1024]>, %alpha: f32, %x: !tile.tensor<f32, [?]>, %y: !tile.tensor<f32, [?]>) {
    %a = tile.full %alpha : f32 -> !tile.tile<f32, [1024]>
    %xt = tile.load_like %x, %out : !tile.tensor<f32, [?]>, !tile.partition<f32, [1024]> -> !tile.tile<f32, [1024]>
    %yt = tile.load_like %y, %out : !tile.tensor<f32, [?]>, !tile.partition<f32, [1024]> -> !tile.tile<f32, [1024]>
    %ax = tile.mul %a, %xt : !tile.tile<f32, [1024]>
    %r = tile.add %ax, %yt : !tile.tile<f32, [1024]>
    tile.store %r, %out : !tile.tile<f32, [1024]>, !tile.partition<f32, [1024]>
    tile.return
  }
  // doc:end

  func.func @main() {
    %n = host.param "n" = 5000 : index
    %alpha = host.param "alpha" = 2.5 : f32
    %s = host.stream
    %x = host.random uniform(-1.0, 1.0) seed 11 (%n) : !host.tensor<f32, [?]>
    %y = host.random uniform(-1.0, 1.0) seed 12 (%n) : !host.tensor<f32, [?]>
    %out = host.poison(%n) : !host.tensor<f32, [?]>
    %p = host.partition %out : !host.tensor<f32, [?]> -> !host.partition<f32, [?], [1024]>
    %p2 = host.tile_launch @saxpy on %s ins(%alpha, %x, %y : f32, !host.tensor<f32, [?]>, !host.tensor<f32, [?]>) outs(%p : !host.partition<f32, [?], [1024]>) -> !host.partition<f32, [?], [1024]>
    %out2 = host.unpartition %p2 : !host.partition<f32, [?], [1024]> -> !host.tensor<f32, [?]>
    host.sync_on %s
    host.check %out2, "alpha * x + y" (alpha = %alpha : f32, x = %x : !host.tensor<f32, [?]>, y = %y : !host.tensor<f32, [?]>) : !host.tensor<f32, [?]>
    func.return
  }
}
