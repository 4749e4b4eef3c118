//! `tests/scan_oracle.rs` with the lazy kernel's AVX2 instance forced: on a CPU with
//! AVX-512BW the other binary tests the AVX-512 instance, this one the AVX2 instance (on a CPU
//! without, both test the same).

mod common;

/// Whether to force the lazy kernel's AVX2 instance.
const FORCE_AVX2: bool = true;

/// Whether to test the portable kernels (`tests/scan_oracle_portable.rs` does).
const PORTABLE: bool = false;

#[path = "scan_oracle/cases.rs"]
mod cases;
