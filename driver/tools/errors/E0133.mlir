// E0133: an unsafe operation outside unsafe code
//
// Raw pointers (`!simt.ptr`), shared memory (`!simt.shared`) and atomics on raw pointers are
// not checked by ferrox: their loads and stores may sit only inside a `simt.unsafe` region or an
// `unsafe` kernel or function, where their author vouches for them. A kernel with a launch
// contract takes no raw mutable buffer at all. The rule is docs/safety.md#simt-6 (rustc's
// E0133, an unsafe operation outside an unsafe block).
//
// Use slices (`!simt.slice`, `!simt.disjoint_slice`), which ferrox checks, or mark the code
// unsafe.
// doc:begin example
simt.kernel @poke(%p: !simt.ptr<f32>, %i: index, %v: f32) {
  simt.ptr_store %v, %p[%i] : !simt.ptr<f32>
  simt.return
}
// doc:end
// doc:begin output
// error[E0133]: dereference of raw pointer is unsafe and requires an unsafe region or kernel
//  --> E0133.mlir:2:3
//   |
// 2 |   simt.ptr_store %v, %p[%i] : !simt.ptr<f32>
//   |   ^^^^^^^^^^^^^^
//   |
//   = help: use a slice, or wrap the access in `simt.unsafe { ... }` (you vouch for it: ferrox no longer checks it)
// doc:end
