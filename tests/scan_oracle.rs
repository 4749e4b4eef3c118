//! The SIMD scanner against the scalar oracle: the same end offset or the same error kind on
//! every input, in both validation modes, on the fastest kernel of this CPU (the AVX-512
//! instance of the lazy container skip where the CPU has AVX-512BW).

mod common;

/// Whether to force the lazy kernel's AVX2 instance (`tests/scan_oracle_avx2.rs` does).
const FORCE_AVX2: bool = false;

/// Whether to test the portable kernels (`tests/scan_oracle_portable.rs` does).
const PORTABLE: bool = false;

#[path = "scan_oracle/cases.rs"]
mod cases;
