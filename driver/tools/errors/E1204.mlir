// E1204: a tile op that cannot be lowered safely
//
// `convert-tile-to-simt` turns a reduction, an `mma` or an exchange into warp shuffles,
// barriers and shared memory, which every thread of the tile block must reach together. Under
// a branch or loop whose condition is computed from a tile's data (`tile.extract`), the lowered
// threads cannot be proven to agree, so the op is refused at the tile op; the notes name the
// deciding branch and where its condition came from. Branch on block coordinates or kernel
// scalars instead. A tile op that needs more shared memory than a block has is refused too.
// The rule is docs/safety.md#tile-4.
// doc:begin example
tile.kernel @gate(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?, ?]>) {
  %i = tile.block_id 0
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%i, %c0] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [16, 128]>
  %all = tile.reduce_sum %t axis = 1 : !tile.tile<f32, [16, 128]> -> !tile.tile<f32, [16]>
  %s = tile.reduce_sum %all axis = 0 : !tile.tile<f32, [16]> -> !tile.tile<f32, []>
  %v = tile.extract %s : !tile.tile<f32, []> -> f32
  %zero = arith.constant 0.0 : f32
  %pos = arith.cmpf ogt, %v, %zero : f32
  %r = scf.if %pos -> (!tile.tile<f32, [16]>) {
    %m = tile.reduce_max %t axis = 1 : !tile.tile<f32, [16, 128]> -> !tile.tile<f32, [16]>
    scf.yield %m : !tile.tile<f32, [16]>
  } else {
    scf.yield %all : !tile.tile<f32, [16]>
  }
  tile.store %r, %out : !tile.tile<f32, [16]>, !tile.partition<f32, [16]>
  tile.return
}
// doc:end
// doc:begin output
// error[E1204]: 'tile.reduce_max' under divergent control flow: it lowers to warp collectives, which every lane of a warp must reach together
//   --> E1204.mlir:11:5
//    |
//  7 |   %v = tile.extract %s : !tile.tile<f32, []> -> f32
//    |        ------------ it is computed from a value read out of a tile here, which is the same on every thread but is not proven uniform once lowered (it comes out of shuffles and shared memory)
// ...
// 10 |   %r = scf.if %pos -> (!tile.tile<f32, [16]>) {
//    |               ---- control flow diverges here: not every thread may take this branch (`%pos` is not uniform across the warp)
// 11 |     %m = tile.reduce_max %t axis = 1 : !tile.tile<f32, [16, 128]> -> !tile.tile<f32, [16]>
//    |          ^^^^^^^^^^^^^^^
//    |
//    = help: branch on block coordinates or kernel scalars only, not on a tile's data
// doc:end
