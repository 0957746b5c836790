// E1003: a witness of another index space
//
// A witness is unique only in its own index space (`1d`, `2d<S>`, `2d_runtime`, `warp`,
// `tile<...>`): a `2d<32>` witness indexing a `2d<64>` slice would give two threads one element.
// The witness's space must be the slice's. The rule is docs/safety.md#simt-3.
// doc:begin example
simt.kernel @k(%out: !simt.disjoint_slice<f32, 2d<64>>, %v: f32) {
  %w = simt.index_2d : !simt.thread_index<2d<32>>
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 2d<64>>, !simt.thread_index<2d<32>> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  simt.return
}
// doc:end
// doc:begin output
// error[E1003]: index space mismatch: expected 2d<64>, found 2d<32>
//  --> E1003.mlir:3:3
//   |
// 3 |   simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 2d<64>>, !simt.thread_index<2d<32>> {
//   |   ^^^^^^^^^^^^
//   |
//   = help: index a slice with a witness of the slice's own space
// doc:end
