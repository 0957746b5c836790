// E1302: a launch beyond the device's limits
//
// The device has limits the IR cannot know: threads per block, block and grid dimensions,
// shared memory per block, and its compute capability against the contract's `min_cc`. The
// launch checker compares the launch with the device it is about to run on (the CPU
// interpreter models an sm_90 device, so what it accepts the GPU accepts too) and refuses it
// before anything runs. The rule is docs/safety.md#launch-limits.
