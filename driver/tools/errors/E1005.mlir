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
