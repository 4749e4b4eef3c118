//! x86_64 kernels: an SSE2 string scanner (SSE2 is enabled at compile time wherever this
//! module is compiled: the `cfg` on `mod x86_64`) and an AVX2 + PCLMULQDQ container skipper
//! for lazy validation, chosen at run time, with an instance that classifies each block with
//! AVX-512BW where the CPU has it.
//!
//! The container skipper is *optimistic*: it proves, 64 bytes at a time, that the scalar
//! oracle ([`super::scalar::skip_container_lazy`]) would succeed, and at which offset.
//! Whenever a block holds anything it does not prove harmless (a bad byte, a bad escape, a
//! bracket of the wrong kind, a depth over the limit, the end of the input) it hands the whole
//! value to the scalar oracle, which then produces the result, error kind included. So on
//! every input the result is the oracle's by construction; the fast path only has to be
//! right about success. Inside a long string it goes through the body with a loop of its own
//! ([`string_body`](kernels::string_body)) that does only a string body's checks and hands
//! the first block it does not prove back to the block-by-block walk.
//!
//! This module and its submodules hold the only `unsafe` code of the crate. One concept a
//! file:
//! - this one: run-time feature detection, cached, and the dispatch to the kernels ([`Avx2`]);
//! - [`kernels`]: the kernels that are not inlined and call one another (the lazy container
//!   skip, its loop over a long string body, the long-string scan, the SSE2 string scanner),
//!   one module so that they share a codegen unit (see there why);
//! - [`block`]: the 64-byte block classifiers and the bit tricks on their masks;
//! - [`nesting`]: the lazy kernel's bracket bookkeeping;
//! - [`string`]: the tests for a string's stop bytes: a block of string body, a run without
//!   one, the 16-byte SSE2 probes;
//! - [`tables`]: the nibble lookup tables that test a byte's class with two `pshufb` lookups;
//! - [`lines`]: the end of a line, and how much of it is known UTF-8.

use core::arch::x86_64::*;
use core::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use super::ScanError;

mod block;
mod kernels;
mod lines;
mod nesting;
mod string;
mod tables;

pub(super) use kernels::string_end_short;
use kernels::{lazy_oracle, skip_lazy_avx2, skip_lazy_avx512, string_end_avx2};
use lines::{ascii_prefix_avx2, line_end_avx2, line_end_wide};
pub(super) use string::plain_key_colon;

// ---------------------------------------------------------------------------------------
// Run-time feature detection, cached.

// The detected state is one byte: `UNKNOWN`, `ABSENT`, or `PRESENT` with the flags below, so
// that handing out the token is one load and one compare.
const UNKNOWN: u8 = 0;
const ABSENT: u8 = 1;
const PRESENT: u8 = 2;
/// With `PRESENT`: `pext` is fast.
const FAST_PEXT: u8 = 4;
/// With `PRESENT`: the AVX-512 instances of the lazy kernel and of the long-string scan run.
const WIDE: u8 = 8;

/// Set by [`force_avx2`]: the AVX2 instances of the lazy kernel and of the long-string scan
/// even where AVX-512BW is present.
static NARROW: AtomicBool = AtomicBool::new(false);

/// Makes the lazy container skip and the long-string scan use their AVX2 instances even on a
/// CPU with AVX-512BW (`true`), or the widest ones again (`false`): the next call detects
/// afresh. For the oracle tests of both instances on one machine, and for measuring one
/// against the other.
pub(super) fn force_avx2(on: bool) {
    if NARROW.load(Ordering::Relaxed) != on {
        NARROW.store(on, Ordering::Relaxed);
        AVX2_STATE.store(UNKNOWN, Ordering::Relaxed);
    }
}

/// Whether the CPU has every feature the AVX2 kernel is compiled with, whether its `pext` is
/// fast, and whether the AVX-512 instance runs (checked once).
static AVX2_STATE: AtomicU8 = AtomicU8::new(UNKNOWN);

/// Proof that the running CPU has AVX2, PCLMULQDQ, POPCNT, BMI1 and BMI2. Only
/// [`Avx2::get`] makes one, after checking. It carries the detected state (`PRESENT` and its
/// flags):
/// - `FAST_PEXT`: `pext` takes a few cycles (Intel since Haswell, AMD since Zen 3), not
///   hundreds (microcode on earlier AMD cores): the one-kind shortcut, which uses it, pays;
/// - `WIDE`: AVX-512F and AVX-512BW as well (Intel since Skylake-SP, AMD since Zen 4): the lazy
///   kernel's instance that classifies a block in one register, each class one compare
///   straight into a mask.
#[derive(Clone, Copy)]
pub(super) struct Avx2 {
    state: u8,
}

/// A search for a line's end, as [`super::line_end`] answers it.
#[cfg(test)]
pub(super) type LineEnd = fn(&[u8]) -> (Option<usize>, usize);

impl Avx2 {
    /// The token, when the CPU has the features (detected on first use, then cached).
    #[inline(always)]
    pub(super) fn get() -> Option<Avx2> {
        match AVX2_STATE.load(Ordering::Relaxed) {
            state if state >= PRESENT => Some(Avx2 { state }),
            ABSENT => None,
            _ => Self::detect(),
        }
    }

    /// Whether `pext` is fast on this CPU (see [`slow_pext`]).
    #[inline(always)]
    pub(super) fn has_fast_pext(self) -> bool {
        self.state & FAST_PEXT != 0
    }

    /// Whether the lazy container skip and the long-string scan take their AVX-512 instances.
    #[inline(always)]
    pub(super) fn is_wide(self) -> bool {
        self.state & WIDE != 0
    }

    #[cold]
    fn detect() -> Option<Avx2> {
        // (`cpuid` only once the features are known present: Miri, for one, has no `cpuid`
        // and reports none of them.)
        let state = if !detect_features() {
            ABSENT
        } else if slow_pext() {
            PRESENT
        } else if detect_avx512() && !NARROW.load(Ordering::Relaxed) {
            PRESENT | FAST_PEXT | WIDE
        } else {
            PRESENT | FAST_PEXT
        };
        AVX2_STATE.store(state, Ordering::Relaxed);
        // The state just found, not the cache read again: `force_avx2` on another thread may
        // have reset it to `UNKNOWN` meanwhile, and a read would detect again, without end
        // while it kept doing so.
        (state >= PRESENT).then_some(Avx2 { state })
    }

    /// [`super::scalar::string_end`] from `pos`, a point of a string body outside any escape
    /// sequence, 64 bytes at a time.
    #[inline]
    pub(super) fn string_end_blocks(
        self,
        buf: &[u8],
        pos: usize,
    ) -> Result<(usize, bool), ScanError> {
        // SAFETY: an `Avx2` exists only when `detect_features` found every feature that
        // `string_end_avx2` is compiled with; it says `is_wide` only when `detect_avx512`
        // found AVX-512F and BW, which `WIDE` needs.
        unsafe {
            if self.is_wide() {
                string_end_avx2::<true>(buf, pos)
            } else {
                string_end_avx2::<false>(buf, pos)
            }
        }
    }

    /// [`super::line_end`], 64 bytes at a time.
    #[inline]
    pub(super) fn line_end(self, buf: &[u8]) -> (Option<usize>, usize) {
        // SAFETY: an `Avx2` exists only when `detect_features` found AVX2, POPCNT, BMI1 and
        // BMI2; it says `is_wide` only when `detect_avx512` found AVX-512F and BW as well.
        unsafe {
            if self.is_wide() {
                line_end_wide(buf)
            } else {
                line_end_avx2(buf)
            }
        }
    }

    /// Each instance of [`super::line_end`] this CPU runs, by name, for the tests that hold
    /// them to their scalar twin.
    #[cfg(test)]
    pub(super) fn line_end_instances(self) -> Vec<(&'static str, LineEnd)> {
        let mut all: Vec<(&'static str, LineEnd)> = vec![(
            "avx2",
            // SAFETY: an `Avx2` exists only when `detect_features` found AVX2, POPCNT and BMI1.
            |buf| unsafe { line_end_avx2(buf) },
        )];
        if detect_avx512() {
            all.push((
                "avx512",
                // SAFETY: `detect_avx512` found AVX-512F and BW, and an `Avx2` BMI2 (and
                // POPCNT and BMI1, which its UTF-8 check needs).
                |buf| unsafe { line_end_wide(buf) },
            ));
        }
        all
    }

    /// [`super::ascii_prefix`], 64 bytes at a time.
    #[inline]
    pub(super) fn ascii_prefix(self, buf: &[u8]) -> usize {
        // SAFETY: an `Avx2` exists only when `detect_features` found AVX2.
        unsafe { ascii_prefix_avx2(buf) }
    }

    /// [`super::scalar::skip_container_lazy`], 64 bytes at a time. With `TRACK_ASCII` it also
    /// sets `ascii` when every byte of the value is ASCII (left alone otherwise, and when not
    /// known); without, `ascii` is not touched. With `ONE_LINE` (only with `TRACK_ASCII`),
    /// the value must end on its line (see [`super::scalar::skip_container_lazy_on_line`]),
    /// and `ascii` is set only if no byte of the value is `\n`.
    #[inline]
    pub(super) fn skip_container_lazy<const TRACK_ASCII: bool, const ONE_LINE: bool>(
        self,
        buf: &[u8],
        start: usize,
        depth: u32,
        max_depth: u32,
        ascii: &mut bool,
    ) -> Result<usize, ScanError> {
        // With `ONE_LINE` a `\n` outside strings is not in the alphabet, so the kernel hands
        // it to the oracle, whose line variant stops there: the value's end when it ends on
        // its line, an error otherwise, found without reading past the line. (A run-time
        // choice within one kernel instance: one closure type for both oracles.)
        let oracle = lazy_oracle(buf, start, depth, max_depth, ONE_LINE);
        // The decoder asks for ASCII tracking on long frames (it defers their UTF-8 check),
        // where the one-kind shortcut pays (dense −20 %); on short values the shortcut's
        // extra code cost 2–6 % (tiny, typical). (Measured when the shortcut was tried only
        // after the simplest case, which it now replaces in the instances that have it; the
        // others keep the simplest case alone, `Nesting::after_block_of_one_kind_counted`.)
        // SAFETY: an `Avx2` exists only when `detect_features` found every feature that
        // `skip_lazy_avx2` is compiled with.
        // The AVX-512 instances need AVX-512F and BW as well: an `Avx2` is `wide` only when
        // `detect_avx512` found them.
        unsafe {
            match (self.is_wide(), TRACK_ASCII && self.has_fast_pext()) {
                (true, true) => skip_lazy_avx512::<true, true, _>(
                    buf, start, depth, max_depth, ascii, ONE_LINE, oracle,
                ),
                (true, false) => skip_lazy_avx512::<TRACK_ASCII, false, _>(
                    buf, start, depth, max_depth, ascii, ONE_LINE, oracle,
                ),
                (false, true) => skip_lazy_avx2::<true, true, _>(
                    buf, start, depth, max_depth, ascii, ONE_LINE, oracle,
                ),
                (false, false) => skip_lazy_avx2::<TRACK_ASCII, false, _>(
                    buf, start, depth, max_depth, ascii, ONE_LINE, oracle,
                ),
            }
        }
    }
}

/// Whether this is an AMD (or Hygon) core before Zen 3, where `pext` is microcode whose time
/// grows with the mask's set bits (up to ~300 cycles).
fn slow_pext() -> bool {
    // SAFETY: `cpuid` exists on every x86_64 CPU; leaves 0 and 1 always answer. (The
    // intrinsic is a safe function in recent Rust, `unsafe` in the oldest one supported.)
    #[allow(unused_unsafe)]
    let (vendor, signature) = unsafe { (__cpuid(0), __cpuid(1).eax) };
    let mut name = [0u8; 12];
    for (part, word) in name
        .chunks_exact_mut(4)
        .zip([vendor.ebx, vendor.edx, vendor.ecx])
    {
        part.copy_from_slice(&word.to_le_bytes());
    }
    slow_pext_on(&name, signature)
}

/// [`slow_pext`] from the vendor string (`cpuid` leaf 0) and the signature (leaf 1, `eax`):
/// AMD or Hygon, family below 0x19.
fn slow_pext_on(vendor: &[u8; 12], signature: u32) -> bool {
    let base_family = (signature >> 8) & 0xf;
    let family = if base_family == 0xf {
        base_family + ((signature >> 20) & 0xff)
    } else {
        base_family
    };
    matches!(vendor, b"AuthenticAMD" | b"HygonGenuine") && family < 0x19
}

#[cfg(feature = "std")]
fn detect_features() -> bool {
    std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("pclmulqdq")
        && std::is_x86_feature_detected!("popcnt")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
}

/// Whether the CPU has AVX-512F and AVX-512BW, for the wide instance of the lazy kernel.
#[cfg(feature = "std")]
fn detect_avx512() -> bool {
    std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bw")
}

#[cfg(not(feature = "std"))]
fn detect_avx512() -> bool {
    cfg!(all(target_feature = "avx512f", target_feature = "avx512bw"))
}

#[cfg(not(feature = "std"))]
fn detect_features() -> bool {
    // Without std there is no run-time detection: use the kernel only when the build
    // already targets these features.
    cfg!(all(
        target_feature = "avx2",
        target_feature = "pclmulqdq",
        target_feature = "popcnt",
        target_feature = "bmi1",
        target_feature = "bmi2"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_pext_on_amd_before_zen_3() {
        let cases: [(&[u8; 12], u32, bool); 6] = [
            (b"AuthenticAMD", 0x0083_0f10, true), // EPYC 7002 (Zen 2), family 0x17
            (b"AuthenticAMD", 0x0060_0f81, true), // Excavator, family 0x15
            (b"HygonGenuine", 0x0090_0f01, true), // Dhyana, family 0x18
            (b"AuthenticAMD", 0x00a0_0f11, false), // EPYC 7003 (Zen 3), family 0x19
            (b"AuthenticAMD", 0x00b4_0f40, false), // Zen 5, family 0x1a
            (b"GenuineIntel", 0x0005_0654, false), // Skylake-SP, family 6
        ];
        for (vendor, signature, slow) in cases {
            assert_eq!(slow_pext_on(vendor, signature), slow, "{signature:#x}");
        }
    }
}
