// E1002: a witness that escapes
//
// A witness stays in the kernel that made it, in the region it was made in: it is never stored
// to memory, returned, yielded out of its region or passed to a call, where it could be used a
// second time or by another thread. The rule is docs/safety.md#simt-2.
//
// Pass or store the witness's index (`simt.witness_value`) instead.
// doc:begin example
simt.func @make() -> !simt.thread_index<1d> {
  %w = simt.thread_index_1d
  simt.return %w : !simt.thread_index<1d>
}
// doc:end
// doc:begin output
// error[E1002]: cannot return a witness
//  --> E1002.mlir:3:3
//   |
// 3 |   simt.return %w : !simt.thread_index<1d>
//   |   ^^^^^^^^^^^
//   |
//   = help: pass or store its index (`simt.witness_value`) instead; a witness stays in the kernel that made it
// doc:end
