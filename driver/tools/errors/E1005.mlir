// E1005: a launch contract that does not fit the kernel or the hardware
//
// A kernel's `contract<domain = ..., block = [...]>` says how it may be launched: a block of
// at most 1024 threads, with no more dimensions than the domain, and a domain for every index
// space the kernel uses. The block is written into the PTX (`.reqntid`). The rule is
// docs/safety.md#simt-5.
// doc:begin example
simt.kernel @k() contract<domain = 1, block = [2048]> {
  simt.return
}
// doc:end
// doc:begin output
// error[E1005]: launch contract block [2048] has 2048 threads, more than the 1024 a block can hold
//  --> E1005.mlir:1:1
//   |
// 1 | simt.kernel @k() contract<domain = 1, block = [2048]> {
//   | ^^^^^^^^^^^
//   |
//   = help: change the kernel's `contract<...>`: at most 1024 threads a block, a domain for each index space the kernel uses
// doc:end
