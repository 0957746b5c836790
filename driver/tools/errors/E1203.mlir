// E1203: a chunk access outside its tile
//
// `simt.store_chunk` and `simt.load_chunk` move a small power-of-two chunk (at most 16
// elements) of a tile: a store writes a slice of a `tile<...>` index space, inside the
// block's own tile, and masks at the edges. The rule is docs/safety.md#tile-3.
// doc:begin example
simt.kernel @k(%out: !simt.disjoint_slice<f32, 1d>, %v: f32) {
  %w = simt.thread_index_1d
  simt.store_chunk %out[%w], %v : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d>
  simt.return
}
// doc:end
// doc:begin output
// error[E1203]: 'simt.store_chunk' writes a slice of a tile<...> space, found 1d
//  --> E1203.mlir:3:3
//   |
// 3 |   simt.store_chunk %out[%w], %v : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d>
//   |   ^^^^^^^^^^^^^^^^
// doc:end
