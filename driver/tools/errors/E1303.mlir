// E1303: launch arguments that do not match the parameters
//
// Every launch passes one argument per kernel parameter, of the parameter's kind and element
// type: an array for a slice, contiguous (not a strided view), writable for an exclusive
// output; a slice's length is the buffer's real length, so the bounds checks hold. The launch
// checker refuses a launch that breaks any of these, naming the parameter and both types. The
// rule is docs/safety.md#launch-args.
