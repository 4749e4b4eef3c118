//! `tests/scan_oracle.rs` on the portable kernels (`rpcwire::scan::portable`), which targets
//! without a SIMD kernel run (aarch64, 32-bit x86, s390x, wasm32), tested on every target:
//! the same end offset or the same error kind as the scalar oracle on every input.

mod common;

/// Whether to force the lazy kernel's AVX2 instance (no matter here).
const FORCE_AVX2: bool = false;

/// Whether to test the portable kernels.
const PORTABLE: bool = true;

#[path = "scan_oracle/cases.rs"]
mod cases;
