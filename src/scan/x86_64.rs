//! x86_64 kernels: an SSE2 string scanner (SSE2 is part of the x86_64 baseline) and an
//! AVX2 + PCLMULQDQ container skipper for lazy validation, chosen at run time, with an
//! instance that classifies each block with AVX-512BW where the CPU has it.
//!
//! The container skipper is *optimistic*: it proves, 64 bytes at a time, that the scalar
//! oracle ([`scalar::skip_container_lazy`]) would succeed, and at which offset. Whenever a
//! block holds anything it does not prove harmless (a bad byte, a bad escape, a bracket of
//! the wrong kind, a depth over the limit, the end of the input) it hands the whole value to
//! the scalar oracle, which then produces the result, error kind included. So on every input
//! the result is the oracle's by construction; the fast path only has to be right about
//! success. Inside a long string it goes through the body with a loop of its own
//! ([`string_body`]) that does only a string body's checks and hands the first block it does
//! not prove back to the block-by-block walk.
//!
//! This is the only module of the crate with `unsafe` code.

use core::arch::x86_64::*;
use core::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use super::{scalar, ScanError};

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
        Self::get()
    }

    /// [`scalar::string_end`] from `pos`, a point of a string body outside any escape
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

    /// [`super::newline`], 64 bytes at a time.
    #[inline]
    pub(super) fn newline(self, buf: &[u8]) -> Option<usize> {
        // SAFETY: an `Avx2` exists only when `detect_features` found AVX2.
        unsafe { newline_avx2(buf) }
    }

    /// [`super::ascii_prefix`], 64 bytes at a time.
    #[inline]
    pub(super) fn ascii_prefix(self, buf: &[u8]) -> usize {
        // SAFETY: an `Avx2` exists only when `detect_features` found AVX2.
        unsafe { ascii_prefix_avx2(buf) }
    }

    /// [`scalar::skip_container_lazy`], 64 bytes at a time. With `TRACK_ASCII` it also sets
    /// `ascii` when every byte of the value is ASCII (left alone otherwise, and when not
    /// known); without, `ascii` is not touched. With `ONE_LINE` (only with `TRACK_ASCII`),
    /// the value must end on its line (see [`scalar::skip_container_lazy_on_line`]), and
    /// `ascii` is set only if no byte of the value is `\n`.
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

/// The scalar oracle the lazy kernel hands a value to, on the value's line only or not: one
/// closure type for both, so that both share one kernel instance.
fn lazy_oracle(
    buf: &[u8],
    start: usize,
    depth: u32,
    max_depth: u32,
    on_line: bool,
) -> impl FnOnce() -> Result<usize, ScanError> + '_ {
    move || {
        if on_line {
            scalar::skip_container_lazy_on_line(buf, start, depth, max_depth)
        } else {
            scalar::skip_container_lazy(buf, start, depth, max_depth)
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

// ---------------------------------------------------------------------------------------
// Nibble lookup tables: a byte class tested with two `pshufb` lookups.
//
// A set of bytes is split by high nibble into "rows" (the low nibbles present for that high
// nibble). Each distinct row gets one bit; `LO[l]` holds the bits of the rows containing low
// nibble `l`, `HI[h]` the bit of row `h`. Then `b` is in the set iff
// `LO[b & 15] & HI[b >> 4] != 0`. Every set used here has at most 8 distinct rows.

/// `(LO, HI)` tables for the set `member`.
const fn nibble_luts(member: &[bool; 256]) -> ([u8; 16], [u8; 16]) {
    nibble_luts_from(member, 0, 8)
}

/// `(LO, HI)` tables for the set `member`, its rows on bits `first..end` (so that tables of
/// disjoint bit ranges can be merged and tested with one lookup).
const fn nibble_luts_from(member: &[bool; 256], first: u32, end: u32) -> ([u8; 16], [u8; 16]) {
    let mut lo = [0u8; 16];
    let mut hi = [0u8; 16];
    // rows[k] = the 16-bit low-nibble set of the k-th distinct row.
    let mut rows = [0u16; 8];
    let mut nrows = 0;
    let mut h = 0;
    while h < 16 {
        let mut row = 0u16;
        let mut l = 0;
        while l < 16 {
            if member[h * 16 + l] {
                row |= 1 << l;
            }
            l += 1;
        }
        if row != 0 {
            let mut k = 0;
            while k < nrows && rows[k] != row {
                k += 1;
            }
            if k == nrows {
                assert!(first + (nrows as u32) < end, "too many distinct rows");
                rows[k] = row;
                nrows += 1;
            }
            let bit = 1u8 << (first + k as u32);
            hi[h] = bit;
            let mut l = 0;
            while l < 16 {
                if row & (1 << l) != 0 {
                    lo[l] |= bit;
                }
                l += 1;
            }
        }
        h += 1;
    }
    (lo, hi)
}

const fn set_of(bytes: &[u8]) -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < bytes.len() {
        t[bytes[i] as usize] = true;
        i += 1;
    }
    t
}

/// Bytes allowed outside strings in lazy mode: the oracle's `LAZY_ALLOWED` plus `"`.
const fn outside_set() -> [bool; 256] {
    let mut t = scalar::lazy_allowed_table();
    t[b'"' as usize] = true;
    t
}

/// A pair of nibble tables: `LO[b & 15] & HI[b >> 4]` classifies byte `b`.
type Lut = ([u8; 16], [u8; 16]);

const OUTSIDE_LUT: Lut = nibble_luts(&outside_set());

/// [`OUTSIDE_LUT`] without `\n`: for a value that must lie on one line (inside strings a
/// `\n` is a control byte, which the kernel hands to the oracle already).
const OUTSIDE_LINE_LUT: Lut = nibble_luts(&{
    let mut t = outside_set();
    t[b'\n' as usize] = false;
    t
});

/// The characters that may follow a backslash: bits 0..=3 of [`ESCAPE_LUT`].
const ESCAPE_BITS: u8 = 0x0f;
/// Hex digits (the four after `\u`): bits 4..=6.
const HEX_BITS: u8 = 0x70;
/// `u` alone, on bit 7, where `movemask` reads it without a compare.
const U_BIT: u8 = 0x80;
const _: () = assert!(U_BIT == 0x80, "movemask reads bit 7");
/// The three classes escapes need, in one pair of tables: one lookup classifies a block for
/// all three.
const ESCAPE_LUT: ([u8; 16], [u8; 16]) = merge_luts(
    merge_luts(
        luts_on_bits(&set_of(b"\"\\/bfnrtu"), ESCAPE_BITS),
        luts_on_bits(&set_of(b"0123456789abcdefABCDEF"), HEX_BITS),
    ),
    luts_on_bits(&set_of(b"u"), U_BIT),
);

/// [`nibble_luts_from`] on the contiguous run of bits set in `bits`.
const fn luts_on_bits(member: &[bool; 256], bits: u8) -> ([u8; 16], [u8; 16]) {
    nibble_luts_from(member, bits.trailing_zeros(), 8 - bits.leading_zeros())
}

/// The union of tables whose rows use disjoint bits.
const fn merge_luts(a: ([u8; 16], [u8; 16]), b: ([u8; 16], [u8; 16])) -> ([u8; 16], [u8; 16]) {
    let mut out = a;
    let mut i = 0;
    while i < 16 {
        out.0[i] |= b.0[i];
        out.1[i] |= b.1[i];
        i += 1;
    }
    out
}

// ---------------------------------------------------------------------------------------
// The 64-byte block classifier.

/// One bit per byte of a 64-byte block (bit `i` = byte `i`): the classes every block needs.
struct Block {
    /// The two 32-byte halves.
    v: [__m256i; 2],
    quote: u64,
    backslash: u64,
    /// Bytes below 0x20.
    ctrl: u64,
    /// How far every mask was shifted right (see `classify`).
    shift: u32,
}

/// The classes only bytes outside strings need (a block of string body skips them: all
/// zero).
#[derive(Default)]
struct Outside {
    /// `{` and `[`.
    open: u64,
    /// `}` and `]`.
    close: u64,
    /// Bytes with bit 5 set: among brackets, exactly the braces (`{}` = 0x7b/0x7d,
    /// `[]` = 0x5b/0x5d).
    bit5: u64,
    /// Bytes not allowed outside strings.
    not_outside: u64,
}

impl Block {
    /// [`bad_escapes`] of this block.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn bad_escapes(&self, escaped: u64, hex_carry: &mut u64) -> u64 {
        bad_escapes(self.v, self.shift, escaped, hex_carry)
    }

    /// Not zero when a byte of the block is not ASCII.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn non_ascii(&self) -> i32 {
        _mm256_movemask_epi8(_mm256_or_si256(self.v[0], self.v[1]))
    }

    /// The bytes where `f` (applied to each half) sets all bits, as a mask of this block.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn bits(&self, f: impl Fn(__m256i) -> __m256i) -> u64 {
        movemask64(f(self.v[0]), f(self.v[1])) >> self.shift
    }

    /// Brackets and the bytes not in `alphabet` ([`OUTSIDE_LUT`] or [`OUTSIDE_LINE_LUT`]),
    /// for the bytes outside strings.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn outside(&self, alphabet: &Lut) -> Outside {
        // Clearing bit 5 folds `{`→`[` and `}`→`]`: one compare finds both kinds.
        let fold = _mm256_set1_epi8(!0x20);
        let folded_eq = |c: u8| {
            let c = _mm256_set1_epi8(c as i8);
            self.bits(|x| _mm256_cmpeq_epi8(_mm256_and_si256(x, fold), c))
        };
        Outside {
            open: folded_eq(b'['),
            close: folded_eq(b']'),
            // Shift bit 5 of every byte up to bit 7, where movemask reads it.
            bit5: self.bits(|x| _mm256_slli_epi16::<2>(x)),
            not_outside: self.bits(|x| not_in_set(x, alphabet)),
        }
    }
}

/// The bytes of the block `v` that break an escape: an `escaped` byte that may not follow a
/// backslash, or one of the four bytes after an escaped `u` that is not a hex digit
/// (`hex_carry`: those of a `\u` near the previous block's end; updated for the next block).
/// Masks are shifted right by `shift`, as in [`classify`]. Most escapes are `\n`, `\"`,
/// `\\`: the hex lookup runs only near a `\u`.
#[inline]
#[target_feature(enable = "avx2")]
fn bad_escapes(v: [__m256i; 2], shift: u32, escaped: u64, hex_carry: &mut u64) -> u64 {
    let class = [
        nibble_lookup(v[0], &ESCAPE_LUT),
        nibble_lookup(v[1], &ESCAPE_LUT),
    ];
    let not_in = |bits: u8| {
        let bits = _mm256_set1_epi8(bits as i8);
        let zero = _mm256_setzero_si256();
        let not = |c| _mm256_cmpeq_epi8(_mm256_and_si256(c, bits), zero);
        movemask64(not(class[0]), not(class[1])) >> shift
    };
    let u = escaped & (movemask64(class[0], class[1]) >> shift);
    let mut bad = escaped & not_in(ESCAPE_BITS);
    if u | *hex_carry != 0 {
        bad |= not_hex_after_u(u, not_in(HEX_BITS), hex_carry);
    }
    bad
}

/// [`bad_escapes`] on AVX-512BW: the block in one register, each class one test.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn bad_escapes_wide(w: __m512i, shift: u32, escaped: u64, hex_carry: &mut u64) -> u64 {
    let class = nibble_lookup_wide(w, &ESCAPE_LUT);
    let not_in = |bits: u8| _mm512_testn_epi8_mask(class, _mm512_set1_epi8(bits as i8)) >> shift;
    let u = escaped & (_mm512_movepi8_mask(class) >> shift);
    let mut bad = escaped & not_in(ESCAPE_BITS);
    if u | *hex_carry != 0 {
        bad |= not_hex_after_u(u, not_in(HEX_BITS), hex_carry);
    }
    bad
}

/// The bytes of a block that must be hex digits and are not (`not_hex`): the four after each
/// escaped `u` (bits `u`), and those of a `\u` near the previous block's end (`hex_carry`,
/// updated for the next block).
#[inline]
fn not_hex_after_u(u: u64, not_hex: u64, hex_carry: &mut u64) -> u64 {
    // The four bytes after each `u` (`u << 1 | u << 2 | u << 3 | u << 4`), and those of
    // a `\u` near the previous block's end.
    let pair = u | (u << 1);
    let need_hex = ((pair | (pair << 2)) << 1) | *hex_carry;
    // Those past this block, for the next: bits `0..=p - 60` for the last `u` on bit
    // `p`, none when `p < 60`. (`| 1`: no shift by 64 when there is no `u`.)
    *hex_carry = (u64::MAX >> (u | 1).leading_zeros()) >> 60;
    need_hex & not_hex
}

/// Bit `i` set where byte `i` of the two halves has its top bit set.
#[inline]
#[target_feature(enable = "avx2")]
fn movemask64(lo: __m256i, hi: __m256i) -> u64 {
    let lo = _mm256_movemask_epi8(lo) as u32 as u64;
    let hi = _mm256_movemask_epi8(hi) as u32 as u64;
    lo | (hi << 32)
}

/// The bytes of `v` in the set described by `lut` (0xff) or not (0x00)... inverted: returns
/// 0xff where the byte is NOT in the set, which is what every caller wants.
#[inline]
#[target_feature(enable = "avx2")]
fn not_in_set(v: __m256i, lut: &([u8; 16], [u8; 16])) -> __m256i {
    _mm256_cmpeq_epi8(nibble_lookup(v, lut), _mm256_setzero_si256())
}

/// `LO[b & 15] & HI[b >> 4]` for every byte `b` of `v`: the row bits of the byte's class.
#[inline]
#[target_feature(enable = "avx2")]
fn nibble_lookup(v: __m256i, lut: &([u8; 16], [u8; 16])) -> __m256i {
    // SAFETY: each table is 16 readable bytes; `loadu` has no alignment requirement.
    let (lo_t, hi_t) = unsafe {
        (
            _mm256_broadcastsi128_si256(_mm_loadu_si128(lut.0.as_ptr().cast())),
            _mm256_broadcastsi128_si256(_mm_loadu_si128(lut.1.as_ptr().cast())),
        )
    };
    let nib = _mm256_set1_epi8(0x0f);
    let lo = _mm256_and_si256(v, nib);
    // There is no byte shift: shift 16-bit lanes and mask the bits that came from the
    // neighbouring byte.
    let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(v), nib);
    _mm256_and_si256(_mm256_shuffle_epi8(lo_t, lo), _mm256_shuffle_epi8(hi_t, hi))
}

/// [`nibble_lookup`] on a whole block: `vpshufb` looks up within each 128-bit lane, so the
/// tables are broadcast to all four.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn nibble_lookup_wide(w: __m512i, lut: &([u8; 16], [u8; 16])) -> __m512i {
    // SAFETY: each table is 16 readable bytes; `loadu` has no alignment requirement.
    let (lo_t, hi_t) = unsafe {
        (
            _mm512_broadcast_i32x4(_mm_loadu_si128(lut.0.as_ptr().cast())),
            _mm512_broadcast_i32x4(_mm_loadu_si128(lut.1.as_ptr().cast())),
        )
    };
    let nib = _mm512_set1_epi8(0x0f);
    let lo = _mm512_and_si512(w, nib);
    let hi = _mm512_and_si512(_mm512_srli_epi16::<4>(w), nib);
    _mm512_and_si512(_mm512_shuffle_epi8(lo_t, lo), _mm512_shuffle_epi8(hi_t, hi))
}

/// Classifies 64 bytes; every mask is shifted right by `shift`, so that when the block is the
/// last 64 bytes of the buffer read from before the position, bit 0 is still the byte at the
/// position and the bits past the end of the buffer are clear.
#[inline]
#[target_feature(enable = "avx2")]
fn classify(bytes: &[u8; 64], shift: u32) -> Block {
    // SAFETY: `bytes` is 64 readable bytes; `loadu` has no alignment requirement.
    let v = unsafe {
        [
            _mm256_loadu_si256(bytes.as_ptr().cast()),
            _mm256_loadu_si256(bytes.as_ptr().add(32).cast()),
        ]
    };
    let eq = |c: u8| {
        let c = _mm256_set1_epi8(c as i8);
        movemask64(_mm256_cmpeq_epi8(v[0], c), _mm256_cmpeq_epi8(v[1], c))
    };
    // b < 0x20 (unsigned) exactly when min(b, 0x1f) == b.
    let ctrl_of = |x: __m256i| _mm256_cmpeq_epi8(_mm256_min_epu8(x, _mm256_set1_epi8(0x1f)), x);
    Block {
        v,
        quote: eq(b'"') >> shift,
        backslash: eq(b'\\') >> shift,
        ctrl: movemask64(ctrl_of(v[0]), ctrl_of(v[1])) >> shift,
        shift,
    }
}

/// [`Block`] for the AVX-512 instance of the lazy kernel: the block in one register, each
/// class one compare straight into a mask register (no `movemask` and no joining of halves).
struct WideBlock {
    w: __m512i,
    quote: u64,
    backslash: u64,
    ctrl: u64,
    shift: u32,
}

impl WideBlock {
    /// [`bad_escapes`] of this block.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn bad_escapes(&self, escaped: u64, hex_carry: &mut u64) -> u64 {
        bad_escapes_wide(self.w, self.shift, escaped, hex_carry)
    }

    /// Not zero when a byte of the block is not ASCII.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn non_ascii(&self) -> i32 {
        i32::from(_mm512_movepi8_mask(self.w) != 0)
    }

    /// [`Block::outside`], one compare or test a class.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn outside(&self, alphabet: &Lut) -> Outside {
        let w = self.w;
        // Clearing bit 5 folds `{`→`[` and `}`→`]`: one compare finds both kinds.
        let folded = _mm512_and_si512(w, _mm512_set1_epi8(!0x20));
        let eq = |c: u8| _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8(c as i8)) >> self.shift;
        let class = nibble_lookup_wide(w, alphabet);
        Outside {
            open: eq(b'['),
            close: eq(b']'),
            bit5: _mm512_test_epi8_mask(w, _mm512_set1_epi8(0x20)) >> self.shift,
            // A byte in no row of the alphabet (every byte not ASCII among them).
            not_outside: _mm512_testn_epi8_mask(class, class) >> self.shift,
        }
    }
}

/// [`classify`] on AVX-512BW.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn classify_wide(bytes: &[u8; 64], shift: u32) -> WideBlock {
    // SAFETY: `bytes` is 64 readable bytes; `loadu` has no alignment requirement.
    let w = unsafe { _mm512_loadu_si512(bytes.as_ptr().cast()) };
    let eq = |c: u8| _mm512_cmpeq_epi8_mask(w, _mm512_set1_epi8(c as i8)) >> shift;
    WideBlock {
        w,
        quote: eq(b'"'),
        backslash: eq(b'\\'),
        ctrl: _mm512_cmplt_epu8_mask(w, _mm512_set1_epi8(0x20)) >> shift,
        shift,
    }
}

/// Bit `i` set where bits `0..=i` of `x` hold an odd number of ones: the prefix XOR, i.e.
/// the carry-less product of `x` with all ones.
#[inline]
#[target_feature(enable = "pclmulqdq,sse2")]
fn prefix_xor(x: u64) -> u64 {
    let x = _mm_set_epi64x(0, x as i64);
    let ones = _mm_set1_epi8(-1);
    _mm_cvtsi128_si64(_mm_clmulepi64_si128::<0>(x, ones)) as u64
}

const ODD_BITS: u64 = 0xaaaa_aaaa_aaaa_aaaa;

/// The bytes escaped by a backslash (simdjson's branchless odd-backslash-run trick, in its
/// subtraction form).
///
/// `carry` is 1 when the first byte of this block is escaped by a backslash that ended the
/// previous block; it is updated for the next block.
#[inline(always)]
fn escaped_bytes(backslash: u64, carry: &mut u64) -> u64 {
    // A backslash escaped by the previous block's run starts nothing.
    let backslash = backslash & !*carry;
    // `(backslash << 1 | ODD_BITS) - backslash` is `backslash` plus the odd bits that are not
    // right after a backslash. A run that starts on an odd bit gets its start bit added
    // again: the carry goes through the run (all zero) and stops on the byte after it. A run
    // that starts on an even bit is added nothing and stays all ones. XOR with the odd bits
    // then leaves, in each run, ones on every other backslash from its start: those that
    // escape the next byte (and elsewhere ones on the bytes after odd runs, not used).
    let code = ((backslash << 1) | ODD_BITS).wrapping_sub(backslash) ^ ODD_BITS;
    let escapes = code & backslash;
    let escaped = (escapes << 1) | *carry;
    // A backslash escaping on bit 63 escapes the next block's first byte.
    *carry = escapes >> 63;
    escaped
}

/// Bits `0..n` (`n <= 64`).
#[inline(always)]
fn low_bits(n: u32) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1 << n) - 1
    }
}

/// Bits `0..=i`.
#[inline(always)]
fn up_to(i: u32) -> u64 {
    u64::MAX >> (63 - i)
}

/// Stamps the lazy container skip for one block classifier and the target features it needs:
/// [`skip_lazy_avx2`] and [`skip_lazy_avx512`] are one body.
macro_rules! lazy_kernel {
    ($(#[$doc:meta])* $name:ident, $classify:ident, $wide:literal, $features:literal) => {
        $(#[$doc])*
        #[target_feature(enable = $features)]
        fn $name<const TRACK_ASCII: bool, const ONE_KIND_SHORTCUT: bool, F>(
            buf: &[u8],
            start: usize,
            depth: u32,
            max_depth: u32,
            ascii: &mut bool,
            one_line: bool,
            oracle: F,
        ) -> Result<usize, ScanError>
        where
            F: FnOnce() -> Result<usize, ScanError>,
        {
            // On one line, a `\n` outside strings is not in the alphabet: it goes to the oracle.
            let alphabet = if one_line {
                &OUTSIDE_LINE_LUT
            } else {
                &OUTSIDE_LUT
            };
            // Every block loaded so far and the long-string jumps' bytes, OR-ed as movemasks: a bit
            // set where a byte is not ASCII. (A scalar: the vector OR-ed across blocks was spilled to
            // the stack and reloaded in every block.)
            let mut high = 0i32;
            let mut pos = start;
            // All ones when the previous block ended inside a string.
            let mut in_string = 0u64;
            // 1 when the first byte of the block is escaped (see `escaped_bytes`).
            let mut escape_carry = 0u64;
            // Bytes of this block that must be hex digits because of a `\u` in the previous one.
            let mut hex_carry = 0u64;
            // The open containers of this value: one bit each (1 = object), innermost at bit 0.
            // Deeper than 64 levels below `start` is left to the oracle.
            //
            // The value's own opener (`buf[start]`, `{` or `[`) is counted here, before the first
            // block, whose mask then leaves it out (bit 0 while `pos == start`): so that block,
            // like any other, sees a value already open and may take the fast bracket path below.
            if depth >= max_depth {
                return oracle(); // TooDeep
            }
            let mut stack = u64::from(buf.get(start) == Some(&b'{'));
            let mut len = 1u32;
            // The most containers the stack may hold: the value's nesting depth is `depth + len`,
            // so one bound checks both the depth limit and the stack's width.
            let room = (max_depth - depth).min(64);
            // A last, partial block when the whole buffer is shorter than 64 bytes is copied here,
            // padded with spaces (neutral outside and inside strings).
            let mut tail = [b' '; 64];

            loop {
                let rest = buf.get(pos..).unwrap_or(&[]);
                let (block, shift): (&[u8; 64], u32) = match rest.first_chunk() {
                    Some(block) => (block, 0),
                    // The value is not closed, and every block before the end was proven (anything
                    // unproven went to the oracle): the oracle's answer, without reading it again.
                    None if rest.is_empty() => return Err(ScanError::UnexpectedEnd),
                    // Fewer than 64 bytes left: read the buffer's last 64 bytes and shift the
                    // bytes before `pos` out of the masks.
                    None => match buf.last_chunk() {
                        Some(last) => (last, 64 - rest.len() as u32),
                        None => {
                            tail[..rest.len()].copy_from_slice(rest);
                            (&tail, 0)
                        }
                    },
                };
                let b = $classify(block, shift);
                if TRACK_ASCII {
                    high |= b.non_ascii();
                }

                // 1. Escapes. Most blocks have no backslash and nothing carried in.
                let escaped = if b.backslash | escape_carry == 0 {
                    0
                } else {
                    escaped_bytes(b.backslash, &mut escape_carry)
                };

                // 2. Strings: unescaped quotes toggle; `string` covers the opening quote and the
                // body, not the closing quote.
                let quotes = b.quote & !escaped;
                // (Inside a long text most blocks have no quote: no carry-less multiply to wait on.
                // Escapes −4 %, large −3.5 %; typical and dense +1 %, where nearly every block has
                // quotes and the branch is one more.)
                let string = if quotes == 0 {
                    in_string
                } else {
                    prefix_xor(quotes) ^ in_string
                };
                let next_in_string = ((string as i64) >> 63) as u64;

                // 3. Everything the oracle would reject, as bits: raw control bytes inside strings,
                // bytes outside the lazy alphabet outside strings (this includes stray
                // backslashes and control bytes other than whitespace), and bad escapes.
                let mut bad = b.ctrl & string;
                if escaped | hex_carry != 0 {
                    bad |= b.bad_escapes(escaped, &mut hex_carry);
                }

                // 4. Bytes outside strings: the lazy alphabet, brackets. A block of string body
                // (a long text, a blob) has none.
                let out = if string == u64::MAX {
                    Outside::default()
                } else {
                    b.outside(alphabet)
                };
                bad |= out.not_outside & !string;
                let opens = out.open & !string & !u64::from(pos == start);
                let closes = out.close & !string;
                let brackets = opens | closes;
                if brackets != 0 {
                    let objects = brackets & out.bit5;
                    let nesting = Nesting { stack, len, room };
                    let fast = if ONE_KIND_SHORTCUT {
                        nesting.after_block_of_one_kind::<$wide>(opens, closes, objects)
                    } else {
                        nesting.after_block_of_one_kind_counted(opens, closes, objects)
                    };
                    if let Some((new_stack, new_len)) = fast {
                        stack = new_stack;
                        len = new_len;
                    } else {
                        // Walk the brackets one by one, in order, without branching on their kind
                        // (mixed `{[` blocks are common, and their order is unpredictable).
                        if len + opens.count_ones() > room {
                            // Deeper than the fast stack, or the depth limit within reach: rare,
                            // left to the oracle.
                            return oracle();
                        }
                        let mut bits = brackets;
                        let mut mismatch = 0u64;
                        while bits != 0 {
                            let i = bits.trailing_zeros();
                            bits &= bits - 1;
                            let kind = (objects >> i) & 1;
                            let is_close = (closes >> i) & 1;
                            // A closer must match the innermost open container.
                            mismatch |= is_close & (stack ^ kind) & 1;
                            // Pop for a closer, push `kind` for an opener: select without a branch.
                            stack = if is_close != 0 {
                                stack >> 1
                            } else {
                                (stack << 1) | kind
                            };
                            len = len + 1 - 2 * is_close as u32;
                            if len == 0 {
                                // The value ends here: only what came before had to be right.
                                if mismatch != 0 || bad & up_to(i) != 0 {
                                    return oracle();
                                }
                                if TRACK_ASCII {
                                    *ascii = high == 0;
                                }
                                return Ok(pos + i as usize + 1);
                            }
                        }
                        if mismatch != 0 {
                            return oracle(); // Mismatched
                        }
                    }
                }
                if bad != 0 {
                    return oracle();
                }

                // 5. Next block. After a whole block of string body the string is probably long (a
                // document, a base64 blob): go through its body with the string-body loop, which
                // does none of the work on bytes outside strings, and come back for the block that
                // ends it.
                pos += 64;
                in_string = next_in_string;
                if string == u64::MAX {
                    pos =
                        string_body::<TRACK_ASCII, $wide>(buf, pos, &mut escape_carry, &mut hex_carry, &mut high);
                }
            }
        }
    };
}

lazy_kernel! {
    /// The lazy container skip. Every case the fast path does not prove goes to `oracle` (the
    /// scalar skip of the same value, from the start; the tests pass a probe instead).
    ///
    /// With `TRACK_ASCII`, on success it sets `ascii` when every byte of the value is ASCII, a
    /// by-product of the blocks it loads anyway (the envelope then need not check those bytes for
    /// UTF-8 again); it leaves it alone when not known (the oracle's answers; a block that holds
    /// a non-ASCII byte outside the value). Two instances: the check costs 1–5 % where nothing
    /// asks for it.
    ///
    /// With `ONE_KIND_SHORTCUT` (ASCII tracked, on a CPU with a fast `pext`), a block's
    /// brackets go through [`Nesting::after_block_of_one_kind`], else through the simplest
    /// case, [`Nesting::after_block_of_one_kind_counted`]; what neither proves is walked.
    skip_lazy_avx2,
    classify,
    false,
    "avx2,pclmulqdq,popcnt,bmi1,bmi2"
}

lazy_kernel! {
    /// [`skip_lazy_avx2`] with each block classified by AVX-512BW ([`classify_wide`]).
    skip_lazy_avx512,
    classify_wide,
    true,
    "avx2,avx512f,avx512bw,pclmulqdq,popcnt,bmi1,bmi2"
}

/// The lazy kernel's nesting state, for [`Nesting::after_block_of_one_kind`] and
/// [`Nesting::after_block_of_one_kind_counted`].
struct Nesting {
    /// One bit per open container, innermost at bit 0 (1 = object).
    stack: u64,
    /// How many bits of `stack` are used.
    len: u32,
    /// The most entries `stack` may hold: the levels left to the depth limit below the
    /// value's start, at most 64.
    room: u32,
}

impl Nesting {
    /// The simplest fast case, for the kernel instances without the one-kind shortcut (a CPU
    /// whose `pext` is slow, or a skip that does not track ASCII, as [`super::skip_value`]'s
    /// when fewer than 4 KiB follow the value's start): the block's brackets are of one kind,
    /// fewer closers than open containers (the value cannot end here), the depth limit cannot
    /// be crossed, and the `c` innermost containers, the only ones the block can close, are of
    /// that kind. Whatever the order, the brackets then close containers of their own kind:
    /// the stack loses its `c` innermost entries (some may be closed and reopened: same kind)
    /// and gains `o` of that kind. Returns the new `stack` and `len`, or `None` when the
    /// brackets must be walked.
    #[inline(always)]
    fn after_block_of_one_kind_counted(
        &self,
        opens: u64,
        closes: u64,
        objects: u64,
    ) -> Option<(u64, u32)> {
        let brackets = opens | closes;
        let (o, c) = (opens.count_ones(), closes.count_ones());
        let all_objects = objects == brackets;
        let of_kind = |n: u32| if all_objects { low_bits(n) } else { 0 };
        let (stack, len) = (self.stack, self.len);
        if (all_objects || objects == 0)
            && c < len
            && stack & low_bits(c) == of_kind(c)
            && len + o <= self.room
        {
            Some((((stack >> c) << (o & 63)) | of_kind(o), len - c + o))
        } else {
            None
        }
    }

    /// The fast case of nearly every block: the block's brackets, bar leaf arrays
    /// (`"c":[1,2,3]`: pairs that are matched and nest nothing), are of one kind, cannot end
    /// the value, cannot cross the depth limit, and close only containers of their kind (the
    /// `popped` innermost ones, counted exactly). Whatever their order, they then close
    /// containers of their own kind: the stack loses `popped` entries and gains
    /// `popped - c + o` of that kind. Returns the new `stack` and `len`, or `None` when the
    /// brackets must be walked.
    ///
    /// It covers the simplest case too, and every condition is computed, then tested once:
    /// which of the cases a block of a document falls in follows no order a predictor could
    /// learn, and a branch per case cost more in mispredictions than the work it spared
    /// (dense +6 to +15 % in the fastest passes on a Zen 5 with the AVX-512 instance, the AVX2
    /// one unchanged; −2.6 % instructions).
    ///
    /// `WIDE` says which kernel instance calls it, so that each has a copy of its own: with
    /// one caller LLVM inlines it, with two it did not (dense +18 % instructions).
    #[inline]
    #[target_feature(enable = "avx2,pclmulqdq,popcnt,bmi1,bmi2")]
    fn after_block_of_one_kind<const WIDE: bool>(
        &self,
        opens: u64,
        closes: u64,
        objects: u64,
    ) -> Option<(u64, u32)> {
        let brackets = opens | closes;
        // Arrays alone, nested or not; or objects and leaf arrays, which are set aside.
        let arrays_only = objects == 0;
        let kept = if arrays_only { brackets } else { objects };
        let fill = if arrays_only { 0 } else { u64::MAX };
        let one_kind = arrays_only | leaf_arrays(brackets, opens, objects);
        let (opens, closes) = (opens & kept, closes & kept);
        let (o, c) = (opens.count_ones(), closes.count_ones());
        // A leaf array may sit one level below the deepest brace.
        let leaf_level = u32::from(kept != brackets);
        let popped = popped_entries::<WIDE>(opens, kept);
        let (stack, len) = (self.stack, self.len);
        // (`popped < len`: the value does not end here, which only the walk finds.)
        let fits = one_kind
            & (popped < len)
            & ((stack ^ fill) & low_bits(popped) == 0)
            & (len + o + leaf_level <= self.room);
        if !fits {
            return None;
        }
        let pushed = popped + o - c;
        Some((
            ((stack >> popped) << pushed) | (fill & low_bits(pushed)),
            len + o - c,
        ))
    }
}

/// How many containers open before a block a run of brackets of one kind closes: the most
/// closers in excess of openers over the run's prefixes (`opens` ⊆ `brackets`).
///
/// `WIDE`: one copy for each kernel instance, as for [`Nesting::after_block_of_one_kind`].
#[inline]
#[target_feature(enable = "bmi2,popcnt")]
fn popped_entries<const WIDE: bool>(opens: u64, brackets: u64) -> u32 {
    let n = brackets.count_ones();
    // The run in order, one bit per bracket (1 = opener), openers past its end (they change
    // no prefix's excess).
    let run = _pext_u64(opens, brackets) | !low_bits(n);
    let mut popped = 0i32;
    let mut excess = 0i32;
    for chunk in run.to_le_bytes().into_iter().take(n.div_ceil(8) as usize) {
        popped = popped.max(excess + i32::from(POPPED_BY_BYTE[usize::from(chunk)]));
        excess += 8 - 2 * chunk.count_ones() as i32;
    }
    popped as u32
}

/// [`popped_entries`] of eight brackets (bit `i` set: the `i`-th is an opener).
static POPPED_BY_BYTE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 256 {
        let (mut excess, mut most) = (0i32, 0i32);
        let mut i = 0;
        while i < 8 {
            if byte >> i & 1 == 1 {
                excess -= 1;
            } else {
                excess += 1;
                if excess > most {
                    most = excess;
                }
            }
            i += 1;
        }
        table[byte] = most as u8;
        byte += 1;
    }
    table
};

/// Whether every array bracket of a block (`brackets` minus `objects`) belongs to a leaf
/// array within the block, one with no bracket inside (an array of scalars): their `[` and
/// `]` alternate, from a `[`, and no brace sits between them. (A leaf array cut by the block's
/// edge is left to the walk.)
#[inline]
#[target_feature(enable = "pclmulqdq,sse2")]
fn leaf_arrays(brackets: u64, opens: u64, objects: u64) -> bool {
    let squares = brackets & !objects;
    // Like quotes: from each `[` up to (not including) its `]`.
    let inside = prefix_xor(squares);
    let alternate = squares & opens & !inside == 0 && squares & !opens & inside == 0;
    alternate && inside >> 63 == 0 && brackets & objects & inside == 0
}

/// The end of a string body, 64 bytes at a time: quotes, backslashes and control bytes by
/// bitmask, escapes removed and checked as in the lazy container kernel, and the adaptive jump
/// over long runs without a stop byte. Like that kernel it proves only success; whatever it
/// does not prove (a control byte, a bad escape, no closing quote) goes to the scalar scanner
/// from `start`, which gives the error.
///
/// Once a backslash has been seen (the answer's flag is then known), a block of body hands
/// the rest to the lazy kernel's [`string_body`] loop, which proves the blocks of an escaped
/// text with fewer masks, on AVX-512BW with `WIDE`; it stops at the block that ends the
/// string, or at one it cannot prove, which this loop then classifies.
#[target_feature(enable = "avx2,pclmulqdq,popcnt,bmi1,bmi2")]
fn string_end_avx2<const WIDE: bool>(buf: &[u8], start: usize) -> Result<(usize, bool), ScanError> {
    let oracle = || scalar::string_end(buf, start);
    let mut pos = start;
    let mut escape_carry = 0u64;
    let mut hex_carry = 0u64;
    let mut escapes = false;
    loop {
        let rest = buf.get(pos..).unwrap_or(&[]);
        let b = match rest.first_chunk() {
            Some(block) => classify(block, 0),
            // No closing quote, and nothing wrong before the end (an escape the end cuts is
            // incomplete, not wrong): the oracle's answer, without reading the string again.
            None if rest.is_empty() => return Err(ScanError::UnexpectedEnd),
            // Fewer than 64 bytes left: the buffer's last 64, the bytes before `pos` shifted
            // out (bits past the end are clear: no quote there).
            None => match buf.last_chunk() {
                Some(last) => classify(last, 64 - rest.len() as u32),
                None => return oracle(),
            },
        };
        let escaped = if b.backslash | escape_carry == 0 {
            0
        } else {
            escaped_bytes(b.backslash, &mut escape_carry)
        };
        let quotes = b.quote & !escaped;
        // The body's bytes in this block, and the closing quote when it is here: a `\u`
        // whose hex digits run into the quote must be seen.
        let body = if quotes == 0 {
            u64::MAX
        } else {
            up_to(quotes.trailing_zeros())
        };
        let mut bad = b.ctrl;
        if escaped | hex_carry != 0 {
            bad |= b.bad_escapes(escaped, &mut hex_carry);
        }
        if bad & body != 0 {
            return oracle();
        }
        escapes |= b.backslash & body != 0;
        if quotes != 0 {
            // (The hex digits of a `\u` before the quote lie before it or on it: checked.)
            return Ok((pos + quotes.trailing_zeros() as usize, escapes));
        }
        pos += 64;
        if escapes {
            pos = string_body::<false, WIDE>(buf, pos, &mut escape_carry, &mut hex_carry, &mut 0);
        } else if b.quote | b.backslash | b.ctrl | escape_carry | hex_carry == 0 {
            // A block without a stop byte: jump to the next one.
            pos = string_run::<false>(buf, pos, &mut 0);
        }
    }
}

/// The index of the first `\n` in `buf`. A line is found in the first block or the next few,
/// so this is `memchr` without its set-up (a dispatch through a pointer, alignment), which
/// cost more than the search on a short line.
#[target_feature(enable = "avx2")]
fn newline_avx2(buf: &[u8]) -> Option<usize> {
    let nl = _mm256_set1_epi8(b'\n' as i8);
    // 0xff where a byte of the 32 at `at` in `bytes` is `\n`.
    let eq = |bytes: &[u8], at: usize| {
        let half: &[u8; 32] = bytes[at..at + 32].try_into().unwrap();
        // SAFETY: `half` is 32 readable bytes; `loadu` has no alignment requirement.
        _mm256_cmpeq_epi8(unsafe { _mm256_loadu_si256(half.as_ptr().cast()) }, nl)
    };
    // Bit `i` set where byte `i` of `block` is `\n`.
    let newlines = |block: &[u8; 64]| movemask64(eq(block, 0), eq(block, 32));
    let mut pos = 0;
    // The first two blocks one by one: most lines end in them (tiny +1 % instructions when
    // the second is part of the loop below).
    while let Some(block) = buf.get(pos..).and_then(<[u8]>::first_chunk::<64>) {
        let found = newlines(block);
        if found != 0 {
            return Some(pos + found.trailing_zeros() as usize);
        }
        pos += 64;
        if pos == 128 {
            break;
        }
    }
    // Then 128 bytes a turn, one test and one branch for four loads, as `memchr`'s own loop,
    // to the end (a line of 1.1 KiB: ~70 instructions fewer than blocks of 64 up to 512
    // bytes, then `memchr` for the rest, which cost its set-up again).
    while let Some(chunk) = buf.get(pos..).and_then(<[u8]>::first_chunk::<128>) {
        let [a, b, c, d] = [0, 32, 64, 96].map(|at| eq(chunk, at));
        let any = _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d));
        if _mm256_testz_si256(any, any) == 0 {
            let first = movemask64(a, b);
            return Some(if first != 0 {
                pos + first.trailing_zeros() as usize
            } else {
                pos + 64 + movemask64(c, d).trailing_zeros() as usize
            });
        }
        pos += 128;
    }
    if let Some(block) = buf.get(pos..).and_then(<[u8]>::first_chunk::<64>) {
        let found = newlines(block);
        if found != 0 {
            return Some(pos + found.trailing_zeros() as usize);
        }
        pos += 64;
    }
    // Fewer than 64 bytes left: the buffer's last 64 bytes, those before `pos` shifted out
    // (they hold no `\n`), or a short buffer byte by byte.
    let rest = buf.len() - pos;
    if rest == 0 {
        return None;
    }
    match buf.last_chunk::<64>() {
        Some(last) => {
            let found = newlines(last) >> (64 - rest);
            (found != 0).then(|| pos + found.trailing_zeros() as usize)
        }
        None => buf.iter().position(|&b| b == b'\n'),
    }
}

/// `buf.len()` when every byte of `buf` is ASCII; otherwise the start of the first 64-byte
/// block (or of the tail) that holds a byte that is not, which is at or before that byte.
#[target_feature(enable = "avx2")]
fn ascii_prefix_avx2(buf: &[u8]) -> usize {
    // SAFETY: `chunk` is 32 readable bytes; `loadu` has no alignment requirement.
    let load = |chunk: &[u8; 32]| unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) };
    let mut pos = 0;
    while let Some(block) = buf.get(pos..).and_then(<[u8]>::first_chunk::<64>) {
        // SAFETY: `block` is 64 readable bytes; `loadu` has no alignment requirement.
        let (lo, hi) = unsafe {
            (
                _mm256_loadu_si256(block.as_ptr().cast()),
                _mm256_loadu_si256(block.as_ptr().add(32).cast()),
            )
        };
        if _mm256_movemask_epi8(_mm256_or_si256(lo, hi)) != 0 {
            return pos;
        }
        pos += 64;
    }
    // Fewer than 64 bytes left: the first and the last 32 bytes of the rest, or the last 32
    // bytes of the buffer (those before `pos` are known ASCII), or the bytes one by one.
    let rest = &buf[pos..];
    let high = match (rest.first_chunk::<32>(), buf.last_chunk::<32>()) {
        (Some(first), Some(last)) => _mm256_movemask_epi8(_mm256_or_si256(load(first), load(last))),
        (None, Some(last)) if !rest.is_empty() => _mm256_movemask_epi8(load(last)),
        _ => i32::from(!rest.is_ascii()),
    };
    if high == 0 {
        buf.len()
    } else {
        pos
    }
}

/// The lazy kernel's loop over a long string body (and [`string_end_avx2`]'s, once it has
/// seen a backslash): from `pos`, a block start inside a string (`escape_carry` and
/// `hex_carry` as the kernel keeps them), the whole 64-byte blocks that are string body with
/// valid escapes and no unescaped quote. Returns the start of the first block it does not
/// prove so (the one with the closing quote, a control byte or a bad escape; fewer than 64
/// bytes left), with the carries set for that block, which the caller then classifies in
/// full. With `TRACK_ASCII`, sets bit 7 of `high` as [`string_run`] does.
///
/// A block of a long text is nearly always body alone, with escapes: [`body_blocks`] does
/// only what such a block needs. A block without a stop byte jumps to the next one by
/// [`string_run`]. (Not inlined: within the kernel, which keeps many values live, the loop
/// spilled and shuffled registers, ~20 instructions a block.)
///
/// With `WIDE` (only where AVX-512F and BW were detected: the lazy kernel's AVX-512
/// instance, [`string_end_avx2`] on such a CPU), the blocks are proven by
/// [`body_blocks_wide`].
#[inline(never)]
#[target_feature(enable = "avx2,pclmulqdq,popcnt,bmi1,bmi2")]
fn string_body<const TRACK_ASCII: bool, const WIDE: bool>(
    buf: &[u8],
    pos: usize,
    escape_carry: &mut u64,
    hex_carry: &mut u64,
    high: &mut i32,
) -> usize {
    let mut carries = (*escape_carry, *hex_carry);
    let mut pos = pos.min(buf.len());
    loop {
        let (proven, plain) = if WIDE {
            // SAFETY: `WIDE` is set only by the AVX-512 instance of the lazy kernel and by
            // `string_end_blocks` for an `Avx2` that `is_wide`, which run only where
            // `detect_avx512` found AVX-512F and BW (and `detect_features` the rest).
            unsafe { body_blocks_wide::<TRACK_ASCII>(&buf[pos..], &mut carries, high) }
        } else {
            body_blocks::<TRACK_ASCII>(&buf[pos..], &mut carries, high)
        };
        pos += proven;
        if !plain {
            break;
        }
        pos = string_run::<TRACK_ASCII>(buf, pos, high);
    }
    (*escape_carry, *hex_carry) = carries;
    pos
}

/// One 64-byte block of a string body, loaded, with what [`body_blocks`] needs of it.
struct BodyBlock<V> {
    /// The bytes (for the escape check).
    v: V,
    backslash: u64,
    /// Quotes and control bytes.
    stop: u64,
    /// Not zero when a byte is not ASCII.
    non_ascii: i32,
}

/// A block of a string body for [`body_blocks`].
#[inline]
#[target_feature(enable = "avx2")]
fn body_block(block: &[u8; 64]) -> BodyBlock<[__m256i; 2]> {
    // SAFETY: `block` is 64 readable bytes; `loadu` has no alignment requirement.
    let v = unsafe {
        [
            _mm256_loadu_si256(block.as_ptr().cast()),
            _mm256_loadu_si256(block.as_ptr().add(32).cast()),
        ]
    };
    BodyBlock {
        v,
        backslash: movemask64(backslashes(v[0]), backslashes(v[1])),
        stop: movemask64(quote_or_control(v[0]), quote_or_control(v[1])),
        non_ascii: _mm256_movemask_epi8(_mm256_or_si256(v[0], v[1])),
    }
}

/// A block of a string body for [`body_blocks_wide`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn body_block_wide(block: &[u8; 64]) -> BodyBlock<__m512i> {
    // SAFETY: `block` is 64 readable bytes; `loadu` has no alignment requirement.
    let w = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
    let set1 = |b: u8| _mm512_set1_epi8(b as i8);
    BodyBlock {
        v: w,
        backslash: _mm512_cmpeq_epi8_mask(w, set1(b'\\')),
        // `x ^ 2 <= 0x20`: see [`xor_2`].
        stop: _mm512_cmple_epu8_mask(_mm512_xor_si512(w, set1(2)), set1(0x20)),
        non_ascii: i32::from(_mm512_movepi8_mask(w) != 0),
    }
}

/// Stamps the string-body loop for one way of loading a block: [`body_blocks`] and
/// [`body_blocks_wide`] are one body.
macro_rules! body_kernel {
    ($(#[$doc:meta])* $name:ident, $load:ident, $bad_escapes:ident, $features:literal) => {
        $(#[$doc])*
        #[inline]
        #[target_feature(enable = $features)]
        fn $name<const TRACK_ASCII: bool>(
            bytes: &[u8],
            carries: &mut (u64, u64),
            high: &mut i32,
        ) -> (usize, bool) {
            let (mut escape_in, mut hex_in) = *carries;
            let mut seen = 0i32;
            let mut rest = bytes;
            let plain = loop {
                let Some((block, after)) = rest.split_first_chunk::<64>() else {
                    break false;
                };
                let BodyBlock {
                    v,
                    backslash,
                    stop,
                    non_ascii,
                } = $load(block);
                if TRACK_ASCII {
                    seen |= non_ascii;
                }
                if backslash | stop | escape_in | hex_in == 0 {
                    rest = after;
                    break true;
                }
                // The carries move on only once the block is proven: a block handed back is
                // classified from the state at its start.
                let mut escape_out = escape_in;
                let escaped = escaped_bytes(backslash, &mut escape_out);
                let mut hex_out = hex_in;
                if stop & !escaped != 0 || $bad_escapes(v, 0, escaped, &mut hex_out) != 0 {
                    break false;
                }
                (escape_in, hex_in) = (escape_out, hex_out);
                rest = after;
            };
            *carries = (escape_in, hex_in);
            *high |= seen;
            (bytes.len() - rest.len(), plain)
        }
    };
}

body_kernel! {
    /// The whole 64-byte blocks at the start of `bytes`, inside a string body, that are body
    /// with valid escapes and no unescaped quote (`carries`: the kernel's escape and hex
    /// carries, updated to the end of the last one): how many bytes, and whether the last one
    /// has no stop byte (`"`, `\`, control byte) and nothing carried into it or out of it, where
    /// a jump to the next stop byte pays. With `TRACK_ASCII`, sets bit 7 of `high` when a byte
    /// of a block it loaded is not ASCII.
    ///
    /// Fewer masks than [`classify`]: quotes and control bytes in one (either ends the loop
    /// unless escaped), no brackets, alphabet or shift. Its own function, so that the loop keeps
    /// only its own values in registers.
    body_blocks,
    body_block,
    bad_escapes,
    "avx2,pclmulqdq,popcnt,bmi1,bmi2"
}

body_kernel! {
    /// [`body_blocks`] on AVX-512BW.
    body_blocks_wide,
    body_block_wide,
    bad_escapes_wide,
    "avx2,avx512f,avx512bw,pclmulqdq,popcnt,bmi1,bmi2"
}

/// `x ^ 2` for every byte: at most 0x20 exactly for a control byte or `"` (0x22 → 0x20;
/// bytes below 0x20 stay below it; every other byte lands above), so one unsigned test finds
/// both classes ([`at_most_0x20`]), and the minimum of several such vectors tests them all.
#[inline]
#[target_feature(enable = "avx2")]
fn xor_2(x: __m256i) -> __m256i {
    _mm256_xor_si256(x, _mm256_set1_epi8(2))
}

/// 0xff where a byte of `y` is at most 0x20 (unsigned).
#[inline]
#[target_feature(enable = "avx2")]
fn at_most_0x20(y: __m256i) -> __m256i {
    _mm256_cmpeq_epi8(_mm256_min_epu8(y, _mm256_set1_epi8(0x20)), y)
}

/// 0xff where a byte of `x` is a control byte or `"`: what ends a string body unless escaped.
#[inline]
#[target_feature(enable = "avx2")]
fn quote_or_control(x: __m256i) -> __m256i {
    at_most_0x20(xor_2(x))
}

/// 0xff where a byte of `x` is a backslash.
#[inline]
#[target_feature(enable = "avx2")]
fn backslashes(x: __m256i) -> __m256i {
    _mm256_cmpeq_epi8(x, _mm256_set1_epi8(b'\\' as i8))
}

/// The index of the first `"`, `\` or control byte at or after `pos` (or `buf.len()`).
/// With `TRACK_ASCII`, sets bit 7 of `high` when a byte it went over (or loaded with them) is
/// not ASCII.
#[inline]
#[target_feature(enable = "avx2")]
fn string_run<const TRACK_ASCII: bool>(buf: &[u8], mut pos: usize, high: &mut i32) -> usize {
    let mut seen = _mm256_setzero_si256();
    let stop_mask = |x: __m256i| _mm256_or_si256(quote_or_control(x), backslashes(x));
    // 128 bytes a turn while they last: one test and one branch for four loads.
    while let Some(chunk) = buf.get(pos..).and_then(|rest| rest.first_chunk::<128>()) {
        // SAFETY: `chunk` is 128 readable bytes; `loadu` has no alignment requirement.
        let [a, b, c, d] =
            [0, 32, 64, 96].map(|at| unsafe { _mm256_loadu_si256(chunk.as_ptr().add(at).cast()) });
        if TRACK_ASCII {
            seen = _mm256_or_si256(
                seen,
                _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d)),
            );
        }
        // Whether the 128 bytes hold a stop byte, in fewer operations than their four masks:
        // the smallest `x ^ 2` of the four chunks tests control bytes and quotes at once.
        let [la, lb, lc, ld] = [a, b, c, d].map(|x| xor_2(x));
        let low = _mm256_min_epu8(_mm256_min_epu8(la, lb), _mm256_min_epu8(lc, ld));
        let [ba, bb, bc, bd] = [a, b, c, d].map(|x| backslashes(x));
        let backslash = _mm256_or_si256(_mm256_or_si256(ba, bb), _mm256_or_si256(bc, bd));
        let any = _mm256_or_si256(at_most_0x20(low), backslash);
        if _mm256_testz_si256(any, any) == 0 {
            if TRACK_ASCII {
                *high |= _mm256_movemask_epi8(seen);
            }
            let [ma, mb, mc, md] = [a, b, c, d].map(stop_mask);
            let first = movemask64(ma, mb);
            return if first != 0 {
                pos + first.trailing_zeros() as usize
            } else {
                pos + 64 + movemask64(mc, md).trailing_zeros() as usize
            };
        }
        pos += 128;
    }
    while let Some(chunk) = buf.get(pos..).and_then(|rest| rest.first_chunk::<64>()) {
        // SAFETY: `chunk` is 64 readable bytes; `loadu` has no alignment requirement.
        let (a, b) = unsafe {
            (
                _mm256_loadu_si256(chunk.as_ptr().cast()),
                _mm256_loadu_si256(chunk.as_ptr().add(32).cast()),
            )
        };
        if TRACK_ASCII {
            seen = _mm256_or_si256(seen, _mm256_or_si256(a, b));
        }
        let (ma, mb) = (stop_mask(a), stop_mask(b));
        if _mm256_testz_si256(_mm256_or_si256(ma, mb), _mm256_or_si256(ma, mb)) == 0 {
            if TRACK_ASCII {
                *high |= _mm256_movemask_epi8(seen);
            }
            return pos + movemask64(ma, mb).trailing_zeros() as usize;
        }
        pos += 64;
    }
    if TRACK_ASCII {
        *high |= _mm256_movemask_epi8(seen);
    }
    while pos < buf.len() && !matches!(buf[pos], b'"' | b'\\' | 0x00..=0x1f) {
        if TRACK_ASCII {
            *high |= i32::from(!buf[pos].is_ascii());
        }
        pos += 1;
    }
    pos
}

// ---------------------------------------------------------------------------------------
// SSE2 string scanner (always available on x86_64).

/// [`string_end_sse2`] with its first 16-byte probe inlined: most keys and short values end
/// within it, before any call.
#[inline(always)]
pub(super) fn string_end_short(buf: &[u8], start: usize) -> Result<(usize, bool), ScanError> {
    // Where the loop resumes: past a first chunk without any stop byte (no escape either,
    // so nothing is pending there), not back at `start`.
    let mut from = start;
    if let Some(chunk) = buf.get(start..).and_then(|rest| rest.first_chunk::<16>()) {
        // SAFETY: SSE2 is part of every x86_64 target (checked at compile time below).
        let (stop, quote) = unsafe { stops16_quotes(chunk) };
        // The first stop is a quote: no need to load the byte again.
        if stop & stop.wrapping_neg() & quote != 0 {
            return Ok((start + stop.trailing_zeros() as usize, false));
        }
        // No stop at all: one more probe (values of 17 to 32 bytes are common).
        if stop == 0 {
            from = start + 16;
            if let Some(next) = buf
                .get(start + 16..)
                .and_then(|rest| rest.first_chunk::<16>())
            {
                // SAFETY: as above.
                let (stop, quote) = unsafe { stops16_quotes(next) };
                if stop & stop.wrapping_neg() & quote != 0 {
                    return Ok((start + 16 + stop.trailing_zeros() as usize, false));
                }
            }
        }
    }
    string_end_sse2(buf, from)
}

/// [`scalar::string_end`], 16 bytes at a time: the same result on every input, because the
/// interesting bytes (`"`, `\`, control bytes) are handled in order exactly as the scalar
/// loop does.
#[inline(never)]
pub(super) fn string_end_sse2(buf: &[u8], start: usize) -> Result<(usize, bool), ScanError> {
    let mut i = start;
    let mut escaped = false;
    loop {
        // A long string (a document, a base64 blob): 64 bytes at a time from here, when the
        // CPU has AVX2. `i` is never inside an escape sequence at this point.
        if i - start >= 64 {
            if let Some(avx2) = Avx2::get() {
                return avx2
                    .string_end_blocks(buf, i)
                    .map(|(end, esc)| (end, esc || escaped));
            }
        }
        let rest = buf.get(i..).unwrap_or(&[]);
        let stop = match rest.first_chunk::<16>() {
            // SAFETY: SSE2 is part of every x86_64 target (checked at compile time below).
            Some(chunk) => unsafe { stops16(chunk) },
            None => match buf.last_chunk::<16>() {
                // Fewer than 16 bytes left: probe the buffer's last 16 bytes and shift the
                // bytes before `i` out of the mask.
                Some(last) if !rest.is_empty() => {
                    // SAFETY: as above.
                    let stop = unsafe { stops16(last) } >> (16 - rest.len());
                    if stop == 0 {
                        return Err(ScanError::UnexpectedEnd);
                    }
                    stop
                }
                // A buffer shorter than 16 bytes (or nothing left): the scalar loop.
                _ => {
                    return match scalar::string_end(buf, i) {
                        Ok((end, esc)) => Ok((end, esc || escaped)),
                        Err(e) => Err(e),
                    }
                }
            },
        };
        if stop == 0 {
            i += 16;
            continue;
        }
        // Handle every stop of this chunk in order without reloading: escapes are often
        // dense (`\"`, `\\`, `\n`), and each clears the bits of the bytes it covers.
        let mut stop = stop;
        loop {
            if stop == 0 {
                i += 16;
                break;
            }
            let at = i + stop.trailing_zeros() as usize;
            match buf[at] {
                b'"' => return Ok((at, escaped)),
                b'\\' => {
                    escaped = true;
                    let next = scalar::escape_end(buf, at)?;
                    let covered = next - i;
                    if covered >= 16 {
                        i = next;
                        break;
                    }
                    stop &= !((1u32 << covered) - 1);
                }
                _ => return Err(ScanError::ControlInString),
            }
        }
    }
}

// `string_end_sse2` relies on SSE2 being enabled at compile time.
const _: () = assert!(cfg!(target_feature = "sse2"));

/// [`stops16`], and the quotes alone.
#[inline]
#[target_feature(enable = "sse2")]
fn stops16_quotes(chunk: &[u8; 16]) -> (u32, u32) {
    // SAFETY: `chunk` is 16 readable bytes; `loadu` has no alignment requirement.
    let x = unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) };
    let q = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8));
    let bs = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8));
    let ctrl = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x);
    let stop = _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(q, bs), ctrl)) as u32;
    (stop, _mm_movemask_epi8(q) as u32)
}

/// The index after `"key":` when the key body starting at `start` is plain (no escape, no
/// control byte), ends within 15 bytes, and the colon follows its closing quote at once:
/// what compact JSON has at nearly every key. One probe gives the quote and the colon, so
/// the colon costs no load that waits on the quote's position. `None`: look again, slowly.
#[inline(always)]
pub(super) fn plain_key_colon(buf: &[u8], start: usize) -> Option<usize> {
    let chunk = buf.get(start..)?.first_chunk::<16>()?;
    // SAFETY: SSE2 is part of every x86_64 target (checked at compile time above).
    let (stop, quote, colon) = unsafe { stops16_quotes_colons(chunk) };
    let first = stop & stop.wrapping_neg();
    (first & quote != 0 && (first << 1) & colon != 0)
        .then(|| start + first.trailing_zeros() as usize + 2)
}

/// [`stops16_quotes`], and the colons.
#[inline]
#[target_feature(enable = "sse2")]
fn stops16_quotes_colons(chunk: &[u8; 16]) -> (u32, u32, u32) {
    // SAFETY: `chunk` is 16 readable bytes; `loadu` has no alignment requirement.
    let x = unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) };
    let q = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8));
    let bs = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8));
    let ctrl = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x);
    let colon = _mm_cmpeq_epi8(x, _mm_set1_epi8(b':' as i8));
    let stop = _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(q, bs), ctrl)) as u32;
    (
        stop,
        _mm_movemask_epi8(q) as u32,
        _mm_movemask_epi8(colon) as u32,
    )
}

/// Bit `i` set where byte `i` is `"`, `\` or a control byte.
#[inline]
#[target_feature(enable = "sse2")]
fn stops16(chunk: &[u8; 16]) -> u32 {
    // SAFETY: `chunk` is 16 readable bytes; `loadu` has no alignment requirement.
    let x = unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) };
    let q = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8));
    let bs = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8));
    let ctrl = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x);
    _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(q, bs), ctrl)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn in_lut(b: u8, lut: &([u8; 16], [u8; 16])) -> bool {
        lut.0[(b & 15) as usize] & lut.1[(b >> 4) as usize] != 0
    }

    /// The identity the long-string jump tests control bytes and quotes with.
    #[test]
    fn xor_two_is_at_most_0x20_exactly_for_control_bytes_and_quotes() {
        for b in 0..=255u8 {
            assert_eq!(b ^ 2 <= 0x20, b < 0x20 || b == b'"', "{b:#x}");
        }
    }

    #[test]
    fn nibble_tables_match_sets() {
        let outside = outside_set();
        let esc = set_of(b"\"\\/bfnrtu");
        for b in 0..=255u8 {
            assert_eq!(
                in_lut(b, &OUTSIDE_LUT),
                outside[b as usize],
                "outside {b:#x}"
            );
            assert_eq!(
                in_lut(b, &OUTSIDE_LINE_LUT),
                outside[b as usize] && b != b'\n',
                "outside on one line {b:#x}"
            );
            let class = |bits: u8| {
                ESCAPE_LUT.0[(b & 15) as usize] & ESCAPE_LUT.1[(b >> 4) as usize] & bits != 0
            };
            assert_eq!(class(ESCAPE_BITS), esc[b as usize], "escape {b:#x}");
            assert_eq!(class(HEX_BITS), b.is_ascii_hexdigit(), "hex {b:#x}");
            assert_eq!(class(U_BIT), b == b'u', "u {b:#x}");
        }
    }

    /// Valid values must take the fast path (never the oracle) and end where the oracle
    /// says.
    #[test]
    fn valid_values_stay_on_the_fast_path() {
        let Some(_) = Avx2::get() else {
            eprintln!("no AVX2: skipped");
            return;
        };
        let blob = "QUJD".repeat(100);
        let esc = r#"\"q\" \\ \n caf\u00e9 "#.repeat(20);
        let deep = format!("{}1{}", "[{\"k\":".repeat(30), "}]".repeat(30));
        let cases = [
            r#"{}"#.to_string(),
            r#"[]"#.to_string(),
            r#"{"a":[1,2,{"b":"x\"y\\z\u00e9"}],"c":null}"#.to_string(),
            format!(r#"{{"blob":"{blob}","t":[true,false]}}"#),
            format!(r#"["{esc}",{{"k":"{esc}"}}]"#),
            deep,
            format!(r#"{{"a":{{"b":{{"c":[[[1]]],"d":"{blob}"}}}}}}"#),
            // Not ASCII: in a block, in a long-string jump, in the jump's last bytes.
            r#"{"t":"café"}"#.to_string(),
            format!(r#"{{"d":"{blob}é{blob}"}}"#),
            format!(r#"{{"d":"{blob}é"}}"#),
        ];
        for case in &cases {
            for pad in [0usize, 1, 31, 63] {
                let mut buf = vec![b' '; pad];
                buf.extend_from_slice(case.as_bytes());
                buf.extend_from_slice(b",\"tail\":1}");
                let expected = scalar::skip_container_lazy(&buf, pad, 1, 128);
                assert_eq!(expected, Ok(pad + case.len()), "{case}");
                // SAFETY: `Avx2::get` returned a token: the CPU has the features.
                let mut ascii = false;
                let got = unsafe {
                    skip_lazy_avx2::<true, true, _>(&buf, pad, 1, 128, &mut ascii, false, || {
                        panic!("fell back on {case}")
                    })
                };
                assert_eq!(got, expected, "{case}");
                // SAFETY: as above.
                let untracked = unsafe {
                    skip_lazy_avx2::<false, false, _>(&buf, pad, 1, 128, &mut false, false, || {
                        panic!("fell back on {case}")
                    })
                };
                assert_eq!(untracked, expected, "{case}");
                // SAFETY: as above. (The instance for CPUs with a slow `pext`.)
                let mut tracked = false;
                let without_shortcut = unsafe {
                    skip_lazy_avx2::<true, false, _>(&buf, pad, 1, 128, &mut tracked, false, || {
                        panic!("fell back on {case}")
                    })
                };
                assert_eq!((without_shortcut, tracked), (expected, ascii), "{case}");
                // SAFETY: as above. (The instance for a value on one line: none of these
                // has a `\n`, so it never falls back either.)
                let mut on_one_line = false;
                let one_line = unsafe {
                    skip_lazy_avx2::<true, true, _>(
                        &buf,
                        pad,
                        1,
                        128,
                        &mut on_one_line,
                        true,
                        || panic!("fell back on {case}"),
                    )
                };
                assert_eq!((one_line, on_one_line), (expected, ascii), "{case}");
                // Said ASCII exactly when it is (the bytes around the value are ASCII).
                assert_eq!(ascii, case.is_ascii(), "{case}");
            }
        }
    }

    /// The one-line instance never says a value with a `\n` in it is clean, wherever the
    /// `\n` is (whitespace between tokens, inside a string, in a long-string jump, after a
    /// block edge), and still ends where the oracle says.
    #[test]
    fn one_line_instance_never_vouches_for_a_newline() {
        let Some(_) = Avx2::get() else {
            eprintln!("no AVX2: skipped");
            return;
        };
        let blob = "QUJD".repeat(50);
        let body =
            format!(r#"{{"a":[1, 2, {{"b":"x\"y"}}],"blob":"{blob}","c":{{"d":[true,null]}}}}"#);
        for at in 1..body.len() - 1 {
            let mut value = body.clone().into_bytes();
            value.insert(at, b'\n');
            for pad in [0usize, 1, 33, 63] {
                let mut buf = vec![b' '; pad];
                buf.extend_from_slice(&value);
                buf.extend_from_slice(b",\"tail\":1}");
                // The value does not end on its line.
                let expected = scalar::skip_container_lazy_on_line(&buf, pad, 1, 128);
                assert!(expected.is_err(), "newline at {at}");
                for shortcut in [true, false] {
                    let mut clean = false;
                    let oracle = || scalar::skip_container_lazy_on_line(&buf, pad, 1, 128);
                    // SAFETY: `Avx2::get` returned a token: the CPU has the features.
                    let got = unsafe {
                        let line = true;
                        if shortcut {
                            skip_lazy_avx2::<true, true, _>(
                                &buf, pad, 1, 128, &mut clean, line, oracle,
                            )
                        } else {
                            skip_lazy_avx2::<true, false, _>(
                                &buf, pad, 1, 128, &mut clean, line, oracle,
                            )
                        }
                    };
                    assert_eq!(
                        (got, clean),
                        (expected, false),
                        "newline at {at}, pad {pad}"
                    );
                }
                // Through the dispatch, which picks the oracle's line variant itself.
                let mut clean = false;
                let got = Avx2::get()
                    .unwrap()
                    .skip_container_lazy::<true, true>(&buf, pad, 1, 128, &mut clean);
                assert_eq!(
                    (got, clean),
                    (expected, false),
                    "newline at {at}, pad {pad}"
                );
            }
        }
    }

    /// The block string scanner against the scalar one: long bodies with a tricky piece at
    /// every offset around the 64-byte blocks (escapes cut by a block edge, a `\u` whose
    /// digits meet the quote, control bytes, escaped quotes, no closing quote), ending at
    /// every distance from the end of the buffer.
    #[test]
    fn long_strings_agree_with_the_scalar_scanner() {
        if Avx2::get().is_none() {
            eprintln!("no AVX2: skipped");
            return;
        }
        let pieces: [&[u8]; 12] = [
            br#"\""#,
            br#"\\""#,
            br#"\\\""#,
            br#"\u00e9""#,
            br#"\u12""#,
            br#"\u12345""#,
            br#"\x""#,
            b"\x01\"",
            br#"\"#,
            br#"\u"#,
            br#"plain""#,
            br#"\n\t\/\b\f\r""#,
        ];
        for piece in pieces {
            for offset in 60..200 {
                for tail in [0usize, 1, 7, 63, 64, 100] {
                    let mut buf = vec![b'a'; offset];
                    buf.extend_from_slice(piece);
                    buf.extend(core::iter::repeat_n(b'b', tail));
                    assert_eq!(
                        string_end_sse2(&buf, 0),
                        scalar::string_end(&buf, 0),
                        "{} at {offset}, {tail} after",
                        String::from_utf8_lossy(piece)
                    );
                }
            }
        }
    }

    /// The one-probe key scan answers only for a plain key closed within its 16 bytes and
    /// followed at once by a colon, and then exactly where the full scan ends.
    #[test]
    fn plain_key_colon_agrees_with_the_string_scanner() {
        let cases: [(&[u8], Option<usize>); 9] = [
            (b"id\":1,\"x\":2,\"y\":3}", Some(4)),
            (b"\":0}            ", Some(2)),
            (b"abcdefghijklmn\":1}", Some(16)),
            // The colon would be the 17th byte: not in the probe.
            (b"abcdefghijklmno\":1}", None),
            (b"a\" :1}            ", None),
            (b"a\\\"b\":1}           ", None),
            (b"a\x01\":1}           ", None),
            (b"a\",\"b\":1}         ", None),
            // Fewer than 16 bytes left.
            (b"a\":1}", None),
        ];
        for (buf, expected) in cases {
            let got = plain_key_colon(buf, 0);
            assert_eq!(got, expected, "{}", String::from_utf8_lossy(buf));
            if let Some(after) = got {
                assert_eq!(scalar::string_end(buf, 0), Ok((after - 2, false)));
                assert_eq!(buf[after - 1], b':');
            }
        }
        // Every key length and position of a stop byte, against the scalar scanner.
        for len in 0..20 {
            for stop in [None, Some(b'\\'), Some(0x1f), Some(b'"')] {
                for at in 0..len.max(1) {
                    let mut buf = vec![b'k'; len];
                    if let (Some(b), true) = (stop, at < len) {
                        buf[at] = b;
                    }
                    buf.extend_from_slice(b"\":1,\"next\":2,\"more\":3}");
                    if let Some(after) = plain_key_colon(&buf, 0) {
                        assert_eq!(scalar::string_end(&buf, 0), Ok((after - 2, false)));
                        assert_eq!(buf[after - 1], b':');
                    } else if stop.is_none() {
                        assert!(len >= 15, "plain key of {len} bytes missed");
                    }
                }
            }
        }
    }

    #[test]
    fn escaped_bytes_runs() {
        // byte:      0  1  2  3  4  5  6
        // input:     \  \  \  "  a  \  n
        let bs = 0b0100111;
        let mut carry = 0;
        // Escaped: byte 1 (by 0), byte 3 (by 2), byte 6 (by 5).
        assert_eq!(escaped_bytes(bs, &mut carry), 0b1001010);
        assert_eq!(carry, 0);
        // A run of one backslash at bit 63 escapes the next block's byte 0.
        let mut carry = 0;
        assert_eq!(escaped_bytes(1 << 63, &mut carry), 0);
        assert_eq!(carry, 1);
        assert_eq!(escaped_bytes(0, &mut carry), 1);
        assert_eq!(carry, 0);
    }

    /// `escaped_bytes` against a byte-by-byte reading of the backslash runs, on random masks
    /// of every density (runs of every length, at both parities, across the block edge) and
    /// both carries in.
    #[test]
    fn escaped_bytes_is_the_byte_by_byte_reading() {
        // (`random_blocks` gives three masks of varied density; any of them will do. Fewer
        // under Miri, which interprets the bit loop about a thousand times slower.)
        let count = if cfg!(miri) { 300 } else { 20_000 };
        for (i, (a, b, c)) in random_blocks(count).enumerate() {
            let backslash = match i % 4 {
                0 => a,
                1 => a | b,
                2 => !(a & b & c),
                _ => u64::MAX ^ (1 << (i % 64)),
            };
            for carry_in in [0, 1] {
                let (mut escaped, mut pending) = (0u64, carry_in == 1);
                for bit in 0..64 {
                    if pending {
                        escaped |= 1 << bit;
                        pending = false;
                    } else {
                        pending = backslash >> bit & 1 == 1;
                    }
                }
                let mut carry = carry_in;
                assert_eq!(
                    escaped_bytes(backslash, &mut carry),
                    escaped,
                    "{backslash:#x} {carry_in}"
                );
                assert_eq!(carry, u64::from(pending), "{backslash:#x} {carry_in}");
            }
        }
    }

    /// The string-body loop against the oracle: a long escape-heavy string (the loop runs on
    /// its blocks) with a piece put at every offset across three 64-byte edges (escapes and
    /// backslash runs cut by an edge, a `\u` whose digits cross it, bad escapes, control
    /// bytes, a closing quote, a byte that is not ASCII), the value ending at several
    /// distances from the end of the buffer. Every instance gives the oracle's answer, says
    /// ASCII only of ASCII values, and never falls back on a valid value.
    #[test]
    fn string_body_agrees_with_the_oracle() {
        if Avx2::get().is_none() {
            eprintln!("no AVX2: skipped");
            return;
        }
        let unit: &[u8] = br#"ab \"c\" d\\e\nf \u00e9\/"#;
        let pieces: [&[u8]; 16] = [
            br#"\""#,
            br#"\\"#,
            br#"\\\""#,
            br#"\\\\\\\u0041"#,
            br#"\u00e9"#,
            br#"\uABCD"#,
            br#"\u12"#,
            br#"\u12g4"#,
            br#"\x"#,
            br#"\"#,
            b"\x01",
            b"\n",
            b"\x7f\x1f",
            br#"""#,
            b"\xc3\xa9",
            br#"\t\r\b\f"#,
        ];
        for piece in pieces {
            for offset in 100..260 {
                let mut value = b"[\"".to_vec();
                while value.len() + unit.len() <= offset {
                    value.extend_from_slice(unit);
                }
                value.resize(offset, b'a');
                value.extend_from_slice(piece);
                for _ in 0..6 {
                    value.extend_from_slice(unit);
                }
                value.extend_from_slice(br#"",1]"#);
                for tail in [0usize, 1, 31, 63, 64, 65] {
                    let mut buf = value.clone();
                    buf.resize(value.len() + tail, b' ');
                    let expected = scalar::skip_container_lazy(&buf, 0, 1, 128);
                    let what = || format!("{} at {offset}, {tail} after", piece.escape_ascii());
                    let fell_back = core::cell::Cell::new(false);
                    let oracle = || {
                        fell_back.set(true);
                        scalar::skip_container_lazy(&buf, 0, 1, 128)
                    };
                    let mut ascii = [false; 3];
                    // SAFETY: `Avx2::get` returned a token: the CPU has the features.
                    let got = unsafe {
                        [
                            skip_lazy_avx2::<true, true, _>(
                                &buf,
                                0,
                                1,
                                128,
                                &mut ascii[0],
                                false,
                                oracle,
                            ),
                            skip_lazy_avx2::<true, false, _>(
                                &buf,
                                0,
                                1,
                                128,
                                &mut ascii[1],
                                false,
                                oracle,
                            ),
                            skip_lazy_avx2::<false, false, _>(
                                &buf,
                                0,
                                1,
                                128,
                                &mut ascii[2],
                                false,
                                oracle,
                            ),
                        ]
                    };
                    assert_eq!(got, [expected; 3], "{}", what());
                    if expected.is_ok() {
                        assert!(!fell_back.get(), "fell back on {}", what());
                    }
                    let is_ascii = expected.is_ok_and(|end| buf[..end].is_ascii());
                    assert!(ascii[0] == is_ascii && ascii[1] == is_ascii, "{}", what());
                    assert!(!ascii[2], "{}", what());
                    // On one line, through the dispatch (a raw `\n` in the string is an
                    // error there).
                    let mut clean = false;
                    let on_line = Avx2::get()
                        .unwrap()
                        .skip_container_lazy::<true, true>(&buf, 0, 1, 128, &mut clean);
                    let expected = scalar::skip_container_lazy_on_line(&buf, 0, 1, 128);
                    assert_eq!(on_line, expected, "on one line: {}", what());
                    assert_eq!(
                        clean,
                        expected.is_ok_and(|end| buf[..end].is_ascii()),
                        "on one line: {}",
                        what()
                    );
                }
            }
        }
    }

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

    /// Random bracket blocks: positions, openers among them, objects among them. Densities
    /// vary so that runs of every length and mix occur (a fixed-seed xorshift: the test is
    /// the same on every run).
    fn random_blocks(count: usize) -> impl Iterator<Item = (u64, u64, u64)> {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..count).map(move |i| {
            let sparse = [u64::MAX, next(), next() & next(), next() & next() & next()];
            let brackets = next() & sparse[i % 4];
            let opens = brackets & next();
            let objects = brackets & if i % 5 == 0 { u64::MAX } else { next() };
            (brackets, opens, objects)
        })
    }

    /// The brackets of a block one by one, as the kernel's walk does: the stack and length
    /// after them, or `None` when one closes a container of the other kind or the value (all
    /// `len` containers) ends.
    fn walk(
        opens: u64,
        closes: u64,
        objects: u64,
        stack: u64,
        mut len: u32,
    ) -> Option<(u128, u32)> {
        let mut stack = u128::from(stack);
        let mut bits = opens | closes;
        while bits != 0 {
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            let kind = u128::from((objects >> i) & 1);
            if (closes >> i) & 1 == 1 {
                if stack & 1 != kind || len == 1 {
                    return None;
                }
                stack >>= 1;
                len -= 1;
            } else {
                stack = (stack << 1) | kind;
                len += 1;
            }
        }
        Some((stack & ((1u128 << len) - 1), len))
    }

    #[test]
    fn popped_entries_is_the_most_closers_in_excess() {
        let Some(_) = Avx2::get() else {
            eprintln!("no AVX2: skipped");
            return;
        };
        for (brackets, opens, _) in random_blocks(200_000).chain([(u64::MAX, 0, 0), (0, 0, 0)]) {
            let (mut excess, mut most) = (0i32, 0i32);
            let mut bits = brackets;
            while bits != 0 {
                let i = bits.trailing_zeros();
                bits &= bits - 1;
                excess += if (opens >> i) & 1 == 1 { -1 } else { 1 };
                most = most.max(excess);
            }
            // SAFETY: `Avx2::get` returned a token: the CPU has the features.
            let got = unsafe { popped_entries::<false>(opens, brackets) };
            assert_eq!(got, most as u32, "brackets {brackets:#x} opens {opens:#x}");
        }
    }

    #[test]
    fn leaf_arrays_are_alternating_bracket_free_pairs() {
        let Some(_) = Avx2::get() else {
            eprintln!("no AVX2: skipped");
            return;
        };
        let mut leaves = 0;
        for (brackets, opens, objects) in random_blocks(200_000).chain([
            // `[1,2]`, `{[]}`, `[{}]`, `][`, `[`.
            (0b10001, 0b00001, 0),
            (0b1111, 0b0011, 0b1001),
            (0b1111, 0b0011, 0b0110),
            (0b11, 0b10, 0),
            (0b1, 0b1, 0),
        ]) {
            // Naive: array brackets alternate from a `[`, end on a `]`, nothing between.
            let mut open = false;
            let mut leaf = true;
            let mut bits = brackets;
            while bits != 0 {
                let i = bits.trailing_zeros();
                bits &= bits - 1;
                let is_open = (opens >> i) & 1 == 1;
                match ((objects >> i) & 1 == 1, is_open, open) {
                    (true, _, true) => leaf = false,
                    (true, _, false) => {}
                    (false, true, false) => open = true,
                    (false, false, true) => open = false,
                    (false, _, _) => leaf = false,
                }
            }
            let want = leaf && !open;
            leaves += usize::from(want);
            // SAFETY: as above.
            let got = unsafe { leaf_arrays(brackets, opens, objects) };
            assert_eq!(
                got, want,
                "brackets {brackets:#x} opens {opens:#x} objects {objects:#x}"
            );
        }
        assert!(leaves > 1000, "too few leaf blocks generated: {leaves}");
    }

    /// Whenever the one-kind shortcut answers, the walk gives the same stack and length,
    /// with no mismatch and without ending the value; and it answers on blocks the simplest
    /// case does not take (mixed with leaf arrays, or closing deeper than `c` entries
    /// allow).
    #[test]
    fn one_kind_shortcut_agrees_with_the_walk() {
        let Some(_) = Avx2::get() else {
            eprintln!("no AVX2: skipped");
            return;
        };
        let mut answered = [0usize; 2];
        let stacks: Vec<u64> = random_blocks(1_000)
            .map(|(a, b, _)| a ^ b.rotate_left(7))
            .collect();
        for (n, (brackets, opens, objects)) in random_blocks(300_000).enumerate() {
            let closes = brackets & !opens;
            let stack = stacks[n % stacks.len()];
            for len in [1u32, 3, 8, 20, 40, 63, 64] {
                let stack = stack & low_bits(len);
                let nesting = Nesting {
                    stack,
                    len,
                    room: 62,
                };
                // SAFETY: as above.
                let got =
                    unsafe { nesting.after_block_of_one_kind::<false>(opens, closes, objects) };
                let Some((new_stack, new_len)) = got else {
                    continue;
                };
                let mixed = objects != 0 && objects != brackets;
                answered[usize::from(mixed)] += 1;
                let want = walk(opens, closes, objects, stack, len);
                assert_eq!(
                    Some((u128::from(new_stack & low_bits(new_len)), new_len)),
                    want,
                    "brackets {brackets:#x} opens {opens:#x} objects {objects:#x} stack {stack:#x} len {len}"
                );
                // The depth limit holds at the deepest point, leaf arrays included.
                let deepest = (0..64)
                    .filter(|i| brackets >> i & 1 == 1)
                    .scan(len, |depth, i| {
                        *depth = if opens >> i & 1 == 1 {
                            *depth + 1
                        } else {
                            *depth - 1
                        };
                        Some(*depth)
                    })
                    .max();
                assert!(deepest.unwrap_or(len) <= 62, "depth {deepest:?}");
            }
        }
        assert!(
            answered[0] > 1000 && answered[1] > 100,
            "too few answers: {answered:?}"
        );
    }
}
