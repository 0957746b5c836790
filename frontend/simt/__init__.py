"""The SIMT surface of the Python frontend: `surface` (annotations, intrinsics), `builder`
(the hooks that build simt ops), `kernel` (a kernel's module and contract)."""
