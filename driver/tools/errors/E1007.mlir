// E1007: a barrier or warp collective under divergent control flow
//
// `simt.sync_threads` waits for every thread of the block, and a warp collective
// (`simt.shuffle`, `simt.vote_all`, ...) for every lane of the warp. Under a branch that some
// threads take and others do not, the others never arrive: the kernel hangs or reads garbage.
// Every decision between the kernel's entry and the barrier must be uniform (the same for
// every thread): block and grid ids, kernel parameters and constants are; thread ids and
// loaded data are not. A `simt.get_mut` region runs only where its witness is in bounds, so it
// is divergent too. The rule is docs/safety.md#simt-7.
// doc:begin example
simt.kernel @k(%out: !simt.disjoint_slice<f32, 1d>) {
  %w = simt.thread_index_1d
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.sync_threads
    simt.yield %old : f32
  }
  simt.return
}
// doc:end
// doc:begin output
// error[E1007]: barrier under divergent control flow: 'simt.sync_threads' must be reached by every thread of the block
//  --> E1007.mlir:5:5
//   |
// 3 |   simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
//   |   ------------ control flow diverges here: this region runs only where the witness is in bounds
// 4 |   ^bb0(%old: f32):
// 5 |     simt.sync_threads
//   |     ^^^^^^^^^^^^^^^^^
//   |
//   = help: move it out of the branch or loop, or make the condition the same for every thread (block and grid ids, kernel parameters, constants)
// doc:end
