// E1307: an exclusive output that aliases another argument
//
// An exclusive output may share no memory with any other argument of the same launch: its
// threads write it while others read the inputs through the non-coherent cache, which assumes
// nothing writes them. The launch checker compares byte ranges, not base pointers, so two
// overlapping views of one buffer are refused too; disjoint slices of one buffer are fine.
// Pass the output a buffer of its own. The rule is docs/safety.md#launch-aliasing.
