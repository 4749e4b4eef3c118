//! The portable kernels: the fast path of every target without a SIMD kernel (aarch64, 32-bit
//! x86, s390x, wasm32, and builds with `RUSTFLAGS="--cfg rpcwire_portable"`), in safe code
//! without intrinsics. Same results as the [`scalar`](super::scalar) oracle on every input
//! (`tests/scan_oracle_portable.rs`).
//!
//! A string body's first four bytes are read one at a time (keys are often shorter), then
//! eight at a time as one `u64` ("SIMD within a register", the test `serde_json` skips strings
//! with): a few integer operations tell whether any of the eight stops a plain run (`"`, `\`,
//! or a control byte), and which comes first. Past 32 more plain bytes it reads 64 at a time,
//! with a test the compiler turns into vector compares (NEON on aarch64, SSE2 on x86). The
//! scalar oracle takes a compare and a branch for every byte: a third of `serde_json`'s speed
//! on long strings. Hand-written because no crate does this test: `memchr` finds up to three
//! given bytes, and a string body stops at any of 34.
//!
//! Containers are walked as on every target, with strings read by [`string_end`]: lazily
//! byte by byte, by the oracle's own walk; strictly, by the flattened grammar walk that the
//! SIMD kernels use too.

use super::scalar::{escape_end, scalar_end_with, skip_container_lazy_with};
use super::{ScanError, Validation};

/// `0x01` in every byte of a word.
const ONES: u64 = u64::from_le_bytes([0x01; 8]);
/// `0x80` in every byte of a word.
const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);

/// The bytes that stop a plain run of a string body, as a word of eight bytes (the first in
/// the low byte): the high bit of each that is `"`, `\` or a control byte (below `0x20`).
/// Exact up to the first such byte; after it a byte may be marked that is none (the borrow
/// of a subtraction carries into the next byte), so only the lowest mark is meaningful.
#[inline(always)]
fn stop_marks(word: u64) -> u64 {
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    // A byte `x` is zero (or below 0x20) exactly when `x - 1` (`x - 0x20`) borrows into its
    // high bit while `x` itself has that bit clear; the classic test for a zero byte
    // ("Bit Twiddling Hacks", haszero and hasless).
    let zero_quote = quote.wrapping_sub(ONES) & !quote;
    let zero_backslash = backslash.wrapping_sub(ONES) & !backslash;
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    (zero_quote | zero_backslash | control) & HIGHS
}

/// Whether any byte of `block` stops a plain run: written without early exit so that it
/// compiles to vector compares.
#[inline(always)]
fn has_stop_byte(block: &[u8; 64]) -> bool {
    block.iter().fold(0u8, |any, &b| {
        any | u8::from((b == b'"') | (b == b'\\') | (b < 0x20))
    }) != 0
}

/// The index of the first byte at or after `i` that stops a plain run (`"`, `\` or a control
/// byte), or `buf.len()` when there is none.
#[inline(always)]
fn next_stop(buf: &[u8], mut i: usize) -> usize {
    // Sixteen bytes a round while sixteen remain: one test of two words, then the first of
    // them that holds a stop byte.
    let mut rounds = 0;
    while let Some(pair) = buf.get(i..).and_then(<[u8]>::first_chunk::<16>) {
        if rounds == 2 {
            // A long run: 64 bytes at a time, by a test the compiler turns into vector
            // compares (NEON on aarch64, SSE2 on x86), up to the block that holds a stop byte.
            while let Some(block) = buf.get(i..).and_then(<[u8]>::first_chunk::<64>) {
                if has_stop_byte(block) {
                    break;
                }
                i += 64;
            }
            rounds = 3;
            continue;
        }
        rounds += 1;
        let pair = u128::from_le_bytes(*pair);
        let low = stop_marks(pair as u64);
        let high = stop_marks((pair >> 64) as u64);
        if low != 0 {
            return i + (low.trailing_zeros() / 8) as usize;
        }
        if high != 0 {
            return i + 8 + (high.trailing_zeros() / 8) as usize;
        }
        i += 16;
    }
    if let Some(word) = buf.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        let marks = stop_marks(u64::from_le_bytes(*word));
        if marks != 0 {
            return i + (marks.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    // Fewer than eight left.
    let tail = buf.get(i..).unwrap_or_default();
    i + tail
        .iter()
        .position(|&b| is_stop_byte(b))
        .unwrap_or(tail.len())
}

/// Scans the body of a string whose opening quote is at `start - 1`: the index of the closing
/// quote and whether the body contains a backslash.
///
/// # Errors
///
/// Those of the oracle, [`scalar::string_end`](super::scalar::string_end), the same on every
/// input.
///
/// ```
/// use rpcwire::scan::{portable, scalar};
/// let buf = br#""a plain run of more than sixteen bytes, then \"escapes\"" tail"#;
/// assert_eq!(portable::string_end(buf, 1), Ok((57, true)));
/// assert_eq!(portable::string_end(buf, 1), scalar::string_end(buf, 1));
/// ```
#[inline]
pub fn string_end(buf: &[u8], start: usize) -> Result<(usize, bool), ScanError> {
    string_end_inline(buf, start)
}

/// [`string_end`], inlined into the lazy walk. (Its callers' code generation moves the
/// decoder's speed by tens of percent either way: this shape, with [`HEAD`], measured
/// fastest; see [`HEAD`].)
#[inline(always)]
fn string_end_inline(buf: &[u8], start: usize) -> Result<(usize, bool), ScanError> {
    // The first `HEAD` bytes one at a time: a branch each, which the predictor learns from
    // the data's shape, where the word test puts its answer on the walk's critical path (a
    // dozen cycles for every key).
    let head = buf.len().min(start + HEAD);
    let mut i = start;
    while i < head && !is_stop_byte(buf[i]) {
        i += 1;
    }
    if i == head {
        i = next_stop(buf, i);
    }
    let mut escaped = false;
    loop {
        match buf.get(i) {
            Some(b'"') => return Ok((i, escaped)),
            Some(b'\\') => {
                escaped = true;
                i = next_stop(buf, escape_end(buf, i)?);
            }
            Some(_) => return Err(ScanError::ControlInString),
            None => return Err(ScanError::UnexpectedEnd),
        }
    }
}

/// How many bytes of a string body [`string_end`] reads one at a time before it reads words.
/// Dense data's keys are a byte or two: read so, `dense` decoded lazily (the oracle's walk,
/// which reads every key through [`string_end`]) about 45 % faster, and `typical`, whose keys
/// and values are longer, about 13 % slower, lazily and strictly, than read by words from the
/// first byte (BENCHMARKS.md, "Targets without a SIMD kernel").
const HEAD: usize = 4;

/// Whether `b` stops a plain run of a string body: `"`, `\` or a control byte.
#[inline(always)]
fn is_stop_byte(b: u8) -> bool {
    b == b'"' || b == b'\\' || b < 0x20
}

/// Lazy skip of the container that opens at `buf[start]`, nested inside `depth` open ones:
/// the index after its closing bracket.
///
/// # Errors
///
/// Those of the oracle,
/// [`scalar::skip_container_lazy`](super::scalar::skip_container_lazy), the same on every
/// input.
///
/// ```
/// use rpcwire::scan::portable;
/// use rpcwire::ScanError;
/// assert_eq!(portable::skip_container_lazy(br#"{"a":["]"]} tail"#, 0, 0, 8), Ok(11));
/// assert_eq!(portable::skip_container_lazy(b"[[1]}", 0, 0, 8), Err(ScanError::Mismatched));
/// ```
#[inline]
pub fn skip_container_lazy(
    buf: &[u8],
    start: usize,
    depth: u32,
    max_depth: u32,
) -> Result<usize, ScanError> {
    skip_container_lazy_with::<false, _>(buf, start, depth, max_depth, string_end_inline)
}

/// [`skip_value`](super::skip_value) on the portable kernels, as a target without a SIMD
/// kernel runs it, ignoring [`force_scalar`](super::force_scalar): for the oracle tests and
/// benchmarks of the portable kernels on a target that has faster ones.
#[doc(hidden)]
pub fn skip_value(
    buf: &[u8],
    start: usize,
    depth: u32,
    max_depth: u32,
    validation: Validation,
) -> Result<usize, ScanError> {
    match (buf.get(start), validation) {
        (None, _) => Err(ScanError::UnexpectedEnd),
        (Some(b'{' | b'['), Validation::Lazy) => skip_container_lazy(buf, start, depth, max_depth),
        (Some(b'{' | b'['), Validation::Strict) => {
            super::strict::skip_container_strict::<true>(buf, start, depth, max_depth)
        }
        (Some(_), _) => scalar_end_with(buf, start, string_end),
    }
}

/// A lazy [`skip_value`] that must end on the line with `ONE_LINE`, as
/// [`simd_skip_lazy_value_ascii`](super::simd_skip_lazy_value_ascii) answers on a target
/// without a SIMD kernel (which never says a value is ASCII).
#[doc(hidden)]
pub fn skip_lazy_value<const ONE_LINE: bool>(
    buf: &[u8],
    start: usize,
    depth: u32,
    max_depth: u32,
) -> Result<usize, ScanError> {
    if ONE_LINE && matches!(buf.get(start), Some(b'{' | b'[')) {
        return skip_container_lazy_with::<true, _>(
            buf,
            start,
            depth,
            max_depth,
            string_end_inline,
        );
    }
    skip_value(buf, start, depth, max_depth, Validation::Lazy)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `stop_marks`'s lowest mark is the first stop byte, whatever the other seven bytes:
    /// every byte value at every position of a word, after plain bytes and before bytes that
    /// make the subtraction borrow.
    #[test]
    fn lowest_mark_is_the_first_stop_byte() {
        let is_stop = |b: u8| b == b'"' || b == b'\\' || b < 0x20;
        for at in 0..8 {
            for b in 0..=255u8 {
                for after in [b'a', 0x00, 0x20, 0x80, 0xff, b'"'] {
                    let mut word = [b'x'; 8];
                    word[at] = b;
                    word[at + 1..].fill(after);
                    let expected = word.iter().position(|&b| is_stop(b));
                    let marks = stop_marks(u64::from_le_bytes(word));
                    let found = (marks != 0).then(|| (marks.trailing_zeros() / 8) as usize);
                    assert_eq!(found, expected, "{word:?}");
                }
            }
        }
    }
}
