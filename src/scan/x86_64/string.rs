//! The tests for a string's stop bytes (`"`, `\`, control bytes) that the kernels are built
//! from: the 64-byte blocks of a string body proven at once ([`body_blocks`],
//! [`body_blocks_wide`]), the jump over a run without a stop byte ([`string_run`], and
//! [`string_run_wide`] on AVX-512BW), and the
//! 16-byte SSE2 probes ([`stops16`] and the like, [`plain_key_colon`]).

use core::arch::x86_64::*;

use super::block::{bad_escapes, bad_escapes_wide, escaped_bytes, movemask64};

/// One 64-byte block of a string body, loaded, with what [`body_blocks`] needs of it.
struct BodyBlock<V> {
    /// The bytes (for the escape check).
    v: V,
    backslash: u64,
    /// Quotes and control bytes.
    stop: u64,
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
    }
}

/// The bytes of the blocks [`body_blocks`] loaded, OR-ed into `seen`: their top bits tell
/// whether one was not ASCII ([`seen_high`]), read once when the loop ends.
#[inline]
#[target_feature(enable = "avx2")]
fn seen_or(seen: __m256i, v: [__m256i; 2]) -> __m256i {
    _mm256_or_si256(seen, _mm256_or_si256(v[0], v[1]))
}

/// Not zero when a byte OR-ed into `seen` ([`seen_or`]) was not ASCII.
#[inline]
#[target_feature(enable = "avx2")]
fn seen_high(seen: __m256i) -> i32 {
    _mm256_movemask_epi8(seen)
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
    }
}

/// [`seen_or`] for [`body_blocks_wide`].
#[inline]
#[target_feature(enable = "avx512f")]
fn seen_or_wide(seen: __m512i, w: __m512i) -> __m512i {
    _mm512_or_si512(seen, w)
}

/// [`seen_high`] for [`body_blocks_wide`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn seen_high_wide(seen: __m512i) -> i32 {
    i32::from(_mm512_movepi8_mask(seen) != 0)
}

/// Stamps the string-body loop for one way of loading a block: [`body_blocks`] and
/// [`body_blocks_wide`] are one body.
macro_rules! body_kernel {
    (
        $(#[$doc:meta])* $name:ident, $load:ident, $bad_escapes:ident, $zero:ident, $seen_or:ident,
        $seen_high:ident, $features:literal
    ) => {
        $(#[$doc])*
        #[inline]
        #[target_feature(enable = $features)]
        pub(super) fn $name<const TRACK_ASCII: bool>(
            bytes: &[u8],
            carries: &mut (u64, u64),
            high: &mut i32,
        ) -> (usize, bool) {
            let (mut escape_in, mut hex_in) = *carries;
            // Every block loaded, OR-ed: one operation a block, read once at the end.
            let mut seen = $zero();
            let mut rest = bytes;
            let plain = loop {
                let Some((block, after)) = rest.split_first_chunk::<64>() else {
                    break false;
                };
                let BodyBlock { v, backslash, stop } = $load(block);
                if TRACK_ASCII {
                    seen = $seen_or(seen, v);
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
            if TRACK_ASCII {
                *high |= $seen_high(seen);
            }
            (bytes.len() - rest.len(), plain)
        }
    };
}

body_kernel! {
    /// The whole 64-byte blocks at the start of `bytes`, inside a string body, that are body
    /// with valid escapes and no unescaped quote (`carries`: the kernel's escape and hex
    /// carries, updated to the end of the last one): how many bytes, and whether the last one
    /// has no stop byte (`"`, `\`, control byte) and nothing carried into it or out of it, where
    /// a jump to the next stop byte pays. With `TRACK_ASCII`, makes `high` not zero when a byte
    /// of a block it loaded is not ASCII.
    ///
    /// Fewer masks than [`classify`](super::block::classify): quotes and control bytes in one
    /// (either ends the loop unless escaped), no brackets, alphabet or shift. Its own function,
    /// so that the loop keeps only its own values in registers.
    body_blocks,
    body_block,
    bad_escapes,
    _mm256_setzero_si256,
    seen_or,
    seen_high,
    "avx2,pclmulqdq,popcnt,bmi1,bmi2"
}

body_kernel! {
    /// [`body_blocks`] on AVX-512BW.
    body_blocks_wide,
    body_block_wide,
    bad_escapes_wide,
    _mm512_setzero_si512,
    seen_or_wide,
    seen_high_wide,
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
/// With `TRACK_ASCII`, makes `high` not zero when a byte it went over (or loaded with them) is
/// not ASCII.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn string_run<const TRACK_ASCII: bool>(
    buf: &[u8],
    mut pos: usize,
    high: &mut i32,
) -> usize {
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

/// [`string_run`] on AVX-512BW: 256 bytes a turn (four 64-byte loads, one test, one
/// branch), then [`string_run`] for the last bytes. The test folds the four loads twice with
/// `min`: the smallest `x ^ 2` is at most 0x20 where one of them holds a control byte or `"`
/// (as in [`xor_2`]), and the smallest `x ^ b'\\'` is zero exactly where one of them holds a
/// backslash; the exact masks are computed in the turn that stops only.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw")]
pub(super) fn string_run_wide<const TRACK_ASCII: bool>(
    buf: &[u8],
    mut pos: usize,
    high: &mut i32,
) -> usize {
    let set1 = |b: u8| _mm512_set1_epi8(b as i8);
    let min4 =
        |[a, b, c, d]: [__m512i; 4]| _mm512_min_epu8(_mm512_min_epu8(a, b), _mm512_min_epu8(c, d));
    let stops = |x: __m512i| {
        _mm512_cmple_epu8_mask(_mm512_xor_si512(x, set1(2)), set1(0x20))
            | _mm512_cmpeq_epi8_mask(x, set1(b'\\'))
    };
    let mut seen = _mm512_setzero_si512();
    while let Some(chunk) = buf.get(pos..).and_then(|rest| rest.first_chunk::<256>()) {
        // SAFETY: `chunk` is 256 readable bytes; `loadu` has no alignment requirement.
        let loads = [0, 64, 128, 192]
            .map(|at| unsafe { _mm512_loadu_si512(chunk.as_ptr().add(at).cast()) });
        if TRACK_ASCII {
            // `seen | a | b`, then `| c | d`: two three-way ORs.
            seen = _mm512_ternarylogic_epi64::<0xfe>(seen, loads[0], loads[1]);
            seen = _mm512_ternarylogic_epi64::<0xfe>(seen, loads[2], loads[3]);
        }
        let low = min4(loads.map(|x| _mm512_xor_si512(x, set1(2))));
        let backslash = min4(loads.map(|x| _mm512_xor_si512(x, set1(b'\\'))));
        let any =
            _mm512_cmple_epu8_mask(low, set1(0x20)) | _mm512_testn_epi8_mask(backslash, backslash);
        if any != 0 {
            if TRACK_ASCII {
                *high |= i32::from(_mm512_movepi8_mask(seen) != 0);
            }
            // One of the four holds the stop byte `any` saw: the first one that has one.
            let mut at = pos;
            for x in loads {
                let stop = stops(x);
                if stop != 0 {
                    return at + stop.trailing_zeros() as usize;
                }
                at += 64;
            }
        }
        pos += 256;
    }
    if TRACK_ASCII {
        *high |= i32::from(_mm512_movepi8_mask(seen) != 0);
    }
    string_run::<TRACK_ASCII>(buf, pos, high)
}

/// [`stops16`], and the quotes alone.
#[inline]
#[target_feature(enable = "sse2")]
pub(super) fn stops16_quotes(chunk: &[u8; 16]) -> (u32, u32) {
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
pub(in crate::scan) fn plain_key_colon(buf: &[u8], start: usize) -> Option<usize> {
    let chunk = buf.get(start..)?.first_chunk::<16>()?;
    // SAFETY: SSE2 is enabled at compile time wherever this module is compiled (`mod x86_64`
    // is behind `cfg(target_feature = "sse2")`, asserted in `kernels`); not every x86_64
    // target has it (`x86_64-unknown-none` does not).
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
pub(super) fn stops16(chunk: &[u8; 16]) -> u32 {
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
    use crate::scan::scalar;

    /// The identity the long-string jump tests control bytes and quotes with.
    #[test]
    fn xor_two_is_at_most_0x20_exactly_for_control_bytes_and_quotes() {
        for b in 0..=255u8 {
            assert_eq!(b ^ 2 <= 0x20, b < 0x20 || b == b'"', "{b:#x}");
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
}
