//! The 64-byte block classifier: one bit per byte for each class a block needs, on AVX2
//! ([`classify`], two halves) or AVX-512BW ([`classify_wide`], one register), and the bit
//! tricks on those masks (escapes, the prefix XOR that finds string bodies, bit ranges).

use core::arch::x86_64::*;

use super::tables::{ESCAPE_BITS, ESCAPE_LUT, HEX_BITS, Lut};

/// One bit per byte of a 64-byte block (bit `i` = byte `i`): the classes every block needs.
pub(super) struct Block {
    /// The two 32-byte halves.
    v: [__m256i; 2],
    pub(super) quote: u64,
    pub(super) backslash: u64,
    /// Bytes below 0x20.
    pub(super) ctrl: u64,
    /// How far every mask was shifted right (see `classify`).
    shift: u32,
}

/// The classes only bytes outside strings need (a block of string body skips them: all
/// zero).
#[derive(Default)]
pub(super) struct Outside {
    /// `{` and `[`.
    pub(super) open: u64,
    /// `}` and `]`.
    pub(super) close: u64,
    /// Bytes with bit 5 set: among brackets, exactly the braces (`{}` = 0x7b/0x7d,
    /// `[]` = 0x5b/0x5d).
    pub(super) bit5: u64,
    /// Bytes not allowed outside strings.
    pub(super) not_outside: u64,
}

impl Block {
    /// [`bad_escapes`] of this block.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn bad_escapes(&self, escaped: u64, hex_carry: &mut u64) -> u64 {
        bad_escapes(self.v, self.shift, escaped, hex_carry)
    }

    /// Not zero when a byte of the block is not ASCII, leaving out the bytes before the
    /// position that a last block read from before it holds (its `shift`). A whole block
    /// (`shift` 0, known where the kernel inlines `classify(block, 0)`) takes one `movemask`.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn non_ascii(&self) -> i32 {
        if self.shift == 0 {
            _mm256_movemask_epi8(_mm256_or_si256(self.v[0], self.v[1]))
        } else {
            i32::from(movemask64(self.v[0], self.v[1]) >> self.shift != 0)
        }
    }

    /// The bytes where `f` (applied to each half) sets all bits, as a mask of this block.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn bits(&self, f: impl Fn(__m256i) -> __m256i) -> u64 {
        movemask64(f(self.v[0]), f(self.v[1])) >> self.shift
    }

    /// Brackets and the bytes not in `alphabet`
    /// ([`OUTSIDE_LUT`](super::tables::OUTSIDE_LUT) or
    /// [`OUTSIDE_LINE_LUT`](super::tables::OUTSIDE_LINE_LUT)), for the bytes outside strings.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn outside(&self, alphabet: &Lut) -> Outside {
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
pub(super) fn bad_escapes(v: [__m256i; 2], shift: u32, escaped: u64, hex_carry: &mut u64) -> u64 {
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
pub(super) fn bad_escapes_wide(w: __m512i, shift: u32, escaped: u64, hex_carry: &mut u64) -> u64 {
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
pub(super) fn movemask64(lo: __m256i, hi: __m256i) -> u64 {
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
pub(super) fn classify(bytes: &[u8; 64], shift: u32) -> Block {
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
pub(super) struct WideBlock {
    w: __m512i,
    pub(super) quote: u64,
    pub(super) backslash: u64,
    pub(super) ctrl: u64,
    shift: u32,
}

impl WideBlock {
    /// [`bad_escapes`] of this block.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) fn bad_escapes(&self, escaped: u64, hex_carry: &mut u64) -> u64 {
        bad_escapes_wide(self.w, self.shift, escaped, hex_carry)
    }

    /// Not zero when a byte of the block is not ASCII, the bytes `shift` leaves out left out
    /// (as [`Block::non_ascii`]; the kernel's blocks all have `shift` 0 today: the last one
    /// is a masked load of the bytes from the position on).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) fn non_ascii(&self) -> i32 {
        i32::from(_mm512_movepi8_mask(self.w) >> self.shift != 0)
    }

    /// [`Block::outside`], one compare or test a class.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) fn outside(&self, alphabet: &Lut) -> Outside {
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

/// [`classify`] of a value's last block, which the buffer ends before it is whole: `rest`,
/// the fewer than 64 bytes left (not none), at the end of `buf`. The buffer's last 64 bytes,
/// the masks shifted past the bytes before `rest`; or, in a buffer shorter than 64 bytes,
/// `rest` copied into `tail`, padded with spaces (neutral outside strings and in them).
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn classify_last(buf: &[u8], rest: &[u8], tail: &mut [u8; 64]) -> Block {
    match buf.last_chunk() {
        Some(last) => classify(last, 64 - rest.len() as u32),
        None => {
            tail[..rest.len()].copy_from_slice(rest);
            classify(tail, 0)
        }
    }
}

/// [`classify`] on AVX-512BW.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn classify_wide(bytes: &[u8; 64], shift: u32) -> WideBlock {
    // SAFETY: `bytes` is 64 readable bytes; `loadu` has no alignment requirement.
    classify_wide_bytes(unsafe { _mm512_loadu_si512(bytes.as_ptr().cast()) }, shift)
}

/// [`classify_last`] on AVX-512BW: `rest` alone, by one masked load, padded with spaces; no
/// mask is shifted.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
pub(super) fn classify_wide_last(_: &[u8], rest: &[u8], _: &mut [u8; 64]) -> WideBlock {
    debug_assert!(!rest.is_empty() && rest.len() < 64);
    let spaces = _mm512_set1_epi8(b' ' as i8);
    // SAFETY: the mask selects no byte past `rest`: the first `rest.len()` bytes when it is
    // below 64, as the kernel calls it (debug-asserted above); and on any other length, as
    // this safe function may be called with, `bzhi` reads the low 8 bits of its index and
    // keeps all 64 bits when they are 64 or more, so it selects `len % 256` or 64 bytes,
    // never more than `len` (`as u32` drops only higher bits). A masked load does not read
    // the bytes it masks off, nor faults on them. `loadu` has no alignment requirement.
    let w = unsafe {
        _mm512_mask_loadu_epi8(spaces, low_bits(rest.len() as u32), rest.as_ptr().cast())
    };
    classify_wide_bytes(w, 0)
}

/// [`classify_wide`] of the block `w`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn classify_wide_bytes(w: __m512i, shift: u32) -> WideBlock {
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
pub(super) fn prefix_xor(x: u64) -> u64 {
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
pub(super) fn escaped_bytes(backslash: u64, carry: &mut u64) -> u64 {
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

/// Bits `0..n` (`n <= 64`): one `bzhi`, which takes 64 as all bits (a shift by 64 would need
/// a compare and a select).
#[inline]
#[target_feature(enable = "bmi2")]
pub(super) fn low_bits(n: u32) -> u64 {
    _bzhi_u64(u64::MAX, n)
}

/// Bits `0..=i`.
#[inline(always)]
pub(super) fn up_to(i: u32) -> u64 {
    u64::MAX >> (63 - i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::x86_64::nesting::tests::random_blocks;

    #[test]
    fn low_bits_are_the_bits_below_n() {
        let Some(_) = crate::scan::x86_64::Avx2::get() else {
            eprintln!("no AVX2: skipped");
            return;
        };
        for n in 0..=64u32 {
            // SAFETY: `Avx2::get` returned a token: the CPU has BMI2.
            let got = unsafe { low_bits(n) };
            assert_eq!(got.count_ones(), n);
            assert_eq!(got, (0..n).fold(0u64, |m, i| m | 1 << i), "{n}");
        }
    }

    /// Past 64, as `classify_wide_last`'s SAFETY comment relies on: the bits below
    /// `n % 256`, or all 64, never more than `n`, on every length a slice may have.
    #[test]
    fn low_bits_past_64_select_no_more_than_n() {
        let Some(_) = crate::scan::x86_64::Avx2::get() else {
            eprintln!("no AVX2: skipped");
            return;
        };
        for len in (65..=1100usize).chain([u32::MAX as usize, u32::MAX as usize + 70]) {
            // SAFETY: `Avx2::get` returned a token: the CPU has BMI2.
            let got = unsafe { low_bits(len as u32) };
            let want = if len % 256 >= 64 {
                u64::MAX
            } else {
                (1u64 << (len % 256)) - 1
            };
            assert_eq!(got, want, "{len}");
            assert!(got.count_ones() as usize <= len, "{len}");
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
}
